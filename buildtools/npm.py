"""The npm packages the build and the checks use, installed exactly as package-lock.json says.

package.json names them (the Pyodide runtime, esbuild, linkedom, the JavaScript linter
and type checker, CodeMirror for the site's code editor) and package-lock.json pins every
package, with npm's sha512 integrity, for every platform npm supports (esbuild's binary
is one optional package per platform, and npm installs the one this machine runs).
`npm ci` installs them into node_modules/ and checks every download against its
integrity, so nothing here knows a platform or a hash of its own.

ensure() runs `npm ci` only when node_modules/ differs from package-lock.json: npm keeps a
record of what it installed there (node_modules/.package-lock.json, each package as the
lockfile has it), so a second build runs no npm at all, and works offline, and so does a
build after a `npm ci` by hand.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from . import BuildError, exclusive

MANIFEST = "package.json"
LOCKFILE = "package-lock.json"
MODULES = "node_modules"
# In node_modules/: npm's record of the packages it installed, each as package-lock.json has it.
INSTALLED = ".package-lock.json"
# Generous: a cold install downloads Pyodide (~30 MB unpacked) and the tools; never forever.
NPM_TIMEOUT_S = 600
# What `npm ci` is told: install exactly the lockfile, run no package's install scripts
# (none is needed: the build runs esbuild through its JavaScript API, which finds its
# platform's binary package itself, and works just as well after a plain `npm ci` that ran
# them, see bundle.py), and skip the audit and funding requests, which install nothing.
NPM_CI = ("ci", "--ignore-scripts", "--no-audit", "--no-fund")


def ensure(root: Path, log=lambda *a: None) -> Path:
    """`root`/node_modules, installed by `npm ci` from package-lock.json unless it already
    was. Raises BuildError (one sentence) when npm is missing or fails."""
    modules = root / MODULES
    locked = locked_packages(root)
    if _installed_as_locked(modules, locked):
        return modules
    with exclusive(root / ".npm-ci.lock"):  # two builds at once install once
        if _installed_as_locked(modules, locked):  # another build installed it meanwhile
            return modules
        if modules.is_symlink():
            # npm ci would empty the folder it points to (another checkout's, say) and put a
            # folder of its own in the link's place.
            raise BuildError(
                f"{MODULES} links to {modules.resolve()}, which was not installed from this {LOCKFILE}; "
                "run `npm ci` there, or remove the link, and run the build again."
            )
        npm = shutil.which("npm")  # on Windows, npm.cmd
        if npm is None:
            raise BuildError(
                "npm was not found on PATH; install Node.js with npm (https://nodejs.org; "
                "Debian: `apt-get install nodejs npm`) and run the build again."
            )
        log(f"installing the npm packages of {LOCKFILE} with npm ci ...")
        _run([npm, *NPM_CI], root)
        if not _installed_as_locked(modules, locked):
            raise BuildError(
                f"npm ci left {MODULES}/ different from {LOCKFILE}; update npm (7 or later reads this "
                "lockfile) and run the build again."
            )
    return modules


def node() -> str:
    """The path of Node.js, which runs the npm tools (on Windows, node.exe)."""
    found = shutil.which("node")
    if found is None:
        raise BuildError(
            "node was not found on PATH; install Node.js with npm (https://nodejs.org; "
            "Debian: `apt-get install nodejs npm`) and run the build again."
        )
    return found


def package_dir(root: Path, name: str) -> Path:
    """Where npm installed the package `name` (ensure() first)."""
    return root / MODULES / Path(*name.split("/"))


def installed_version(root: Path, name: str) -> str:
    """The version of the installed package `name`, from its own package.json."""
    manifest = package_dir(root, name) / MANIFEST
    try:
        return json.loads(manifest.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise BuildError(
            f"{manifest.relative_to(root).as_posix()} is missing or damaged; delete {MODULES}/ and run the build again."
        ) from None


def locked_packages(root: Path) -> dict[str, dict]:
    """package-lock.json's packages: {"node_modules/<name>": {version, integrity, ...}}."""
    try:
        return json.loads((root / LOCKFILE).read_text(encoding="utf-8"))["packages"]
    except FileNotFoundError:
        raise BuildError(
            f"{LOCKFILE} is missing; restore it (git checkout {LOCKFILE}) and run the build again."
        ) from None
    except (ValueError, KeyError):
        raise BuildError(
            f"{LOCKFILE} is damaged; restore it (git checkout {LOCKFILE}) and run the build again."
        ) from None


def _installed_as_locked(modules: Path, locked: dict[str, dict]) -> bool:
    """Whether npm's record in node_modules/ holds the lockfile's packages: each one at its
    locked version and integrity (other fields depend on npm's own version), and all but
    the optional ones npm left out (other platforms' binaries)."""
    try:
        installed = json.loads((modules / INSTALLED).read_text(encoding="utf-8"))["packages"]
    except (OSError, ValueError, KeyError):
        return False

    def pinned(entry: dict) -> tuple:
        return entry.get("version"), entry.get("integrity")

    wanted = {name: pinned(entry) for name, entry in locked.items() if name}  # "" is the project itself
    have = {name: pinned(entry) for name, entry in installed.items() if name}
    return all(wanted.get(name) == entry for name, entry in have.items()) and all(
        name in have for name, entry in locked.items() if name and not entry.get("optional")
    )


def _run(command: list[str], root: Path) -> None:
    """Run npm in `root`; a failure is one sentence, npm's own output its cause (shown with -v)."""
    failure = (
        f"npm ci could not install the packages of {LOCKFILE}; check the connection to the npm "
        "registry and run the build again (with -v to see npm's output)."
    )
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, text=True, timeout=NPM_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise BuildError(
            f"npm ci took longer than {NPM_TIMEOUT_S} s; check the connection to the npm registry "
            "and run the build again."
        ) from None
    except OSError as e:
        raise BuildError(failure) from e
    if done.returncode != 0:
        raise BuildError(failure) from _NpmOutput(done.stderr or done.stdout)


class _NpmOutput(Exception):
    """npm's output, shown only with --verbose."""
