"""The npm packages the build and the checks use, installed exactly as package-lock.json says.

package.json names them (the Pyodide runtime, esbuild, linkedom, the JavaScript linter
and type checker) and package-lock.json pins every package, with npm's sha512 integrity,
for every platform npm supports (esbuild's binary is one optional package per platform,
and npm installs the one this machine runs). `npm ci` installs them into node_modules/
and checks every download against its integrity, so nothing here knows a platform or a
hash of its own.

ensure() runs `npm ci` only when node_modules/ was not installed from this very
package.json and package-lock.json: after an install it writes their hash into
node_modules/ (STAMP), so a second build does not run npm at all, and works offline.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from . import BuildError

try:
    import fcntl  # POSIX; elsewhere two installs at once are not serialised
except ImportError:  # pragma: no cover
    fcntl = None

MANIFEST = "package.json"
LOCKFILE = "package-lock.json"
MODULES = "node_modules"
# In node_modules/: the hash of the package.json and package-lock.json it was installed from.
STAMP = ".gradwalk-installed-from"
# Generous: a cold install downloads Pyodide (~30 MB unpacked) and the tools; never forever.
NPM_TIMEOUT_S = 600
# What `npm ci` is told: install exactly the lockfile, run no package's install scripts
# (none is needed: esbuild's launcher finds its platform's binary package itself), and
# skip the audit and funding requests, which install nothing.
NPM_CI = ("ci", "--ignore-scripts", "--no-audit", "--no-fund")


def ensure(root: Path, log=lambda *a: None) -> Path:
    """`root`/node_modules, installed by `npm ci` from package-lock.json unless it
    already was. Raises BuildError (one sentence) when npm is missing or fails."""
    modules = root / MODULES
    wanted = _lock_digest(root)
    if _installed_from(modules) == wanted:
        return modules
    with _exclusive(root / ".npm-ci.lock"):
        if _installed_from(modules) == wanted:  # another build installed it meanwhile
            return modules
        npm = shutil.which("npm")  # on Windows, npm.cmd
        if npm is None:
            raise BuildError(
                "npm was not found on PATH; install Node.js with npm (https://nodejs.org; "
                "Debian: `apt-get install nodejs npm`) and run the build again."
            )
        log(f"installing the npm packages of {LOCKFILE} with npm ci ...")
        _run([npm, *NPM_CI], root)
        (modules / STAMP).write_text(wanted + "\n", encoding="utf-8")
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
    return json.loads((root / LOCKFILE).read_text(encoding="utf-8"))["packages"]


def _lock_digest(root: Path) -> str:
    h = hashlib.sha256()
    for name in (MANIFEST, LOCKFILE):
        try:
            h.update((root / name).read_bytes())
        except FileNotFoundError:
            raise BuildError(f"{name} is missing; restore it (git checkout {name}) and run the build again.") from None
        h.update(b"\0")
    return h.hexdigest()


def _installed_from(modules: Path) -> str | None:
    try:
        return (modules / STAMP).read_text(encoding="utf-8").strip()
    except OSError:
        return None


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


@contextlib.contextmanager
def _exclusive(lock: Path):
    """Hold an exclusive lock on `lock` (two builds at once install once, in turn)."""
    with open(lock, "a+") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


class _NpmOutput(Exception):
    """npm's output, shown only with --verbose."""
