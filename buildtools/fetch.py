"""Download the pinned third-party files (Pyodide from npm, micropip from PyPI)
into the cache directory and check them against their pinned hashes.

A file already in the cache is re-verified and reused, so a warm build never
touches the network. A download goes to a temporary folder first and is moved
into place only after it verified, so a half-finished or tampered download can
never be mistaken for a good cached one.
"""

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import BuildError
from .hashing import npm_integrity, sha256_hex

# Generous: a cold npm or pip download on a slow link, but never forever.
DOWNLOAD_TIMEOUT_S = 600


def pyodide_tarball(cache: Path, version: str, integrity: str, log) -> Path:
    """Return the verified `pyodide-<version>.tgz` from the cache, fetching it with
    `npm pack` if needed."""
    return npm_package(cache, "pyodide", version, integrity, log)


def npm_package(cache: Path, name: str, version: str, integrity: str, log) -> Path:
    """Return the verified tarball of the npm package `name@version` from the cache,
    fetching it with `npm pack` if needed (`@scope/name` packs as `scope-name-<version>.tgz`)."""
    target = cache / "npm" / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if target.exists() and npm_integrity(target) == integrity:
        return target

    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(
            "npm was not found on PATH; install Node.js with npm (for example "
            "`apt-get install nodejs npm`) and run the build again."
        )
    log(f"downloading {name} {version} with npm pack ...")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        _run(
            [npm, "pack", f"{name}@{version}", "--pack-destination", tmp],
            failure=f"npm could not download {name}@{version}; check the connection "
            "to the npm registry and run the build again.",
        )
        fetched = Path(tmp) / target.name
        if not fetched.exists():
            raise BuildError(
                f"npm pack did not produce {target.name}; run the build again, and if "
                "it keeps failing clear the npm cache with `npm cache clean --force`."
            )
        if npm_integrity(fetched) != integrity:
            raise BuildError(
                f"The downloaded {target.name} does not match its pinned sha512 "
                "integrity; clear the npm cache with `npm cache clean --force` and run "
                "the build again."
            )
        fetched.replace(target)
    return target


def micropip_wheel(cache: Path, version: str, sha256: str, python_version: str, log) -> Path:
    """Return the verified micropip wheel from the cache, fetching it with
    `pip download` if needed (for Pyodide's Python version, not ours)."""
    target = cache / "pypi" / f"micropip-{version}-py3-none-any.whl"
    if target.exists() and sha256_hex(target) == sha256:
        return target

    if importlib.util.find_spec("pip") is None:
        raise BuildError(
            f"pip is not installed for {sys.executable}; install it with "
            "`python -m ensurepip --upgrade` and run the build again."
        )
    log(f"downloading micropip {version} with pip download ...")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                python_version,
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
                f"micropip=={version}",
                "-d",
                tmp,
            ],
            failure=f"pip could not download micropip {version}; check the connection to PyPI and run the build again.",
        )
        fetched = Path(tmp) / target.name
        if not fetched.exists():
            raise BuildError(f"pip download did not produce {target.name}; run the build again.")
        if sha256_hex(fetched) != sha256:
            raise BuildError(
                f"The downloaded {target.name} does not match its pinned sha256; run "
                "the build again, and if it keeps failing check what serves your PyPI "
                "downloads."
            )
        fetched.replace(target)
    return target


def _run(cmd: list[str], failure: str) -> None:
    """Run a download tool quietly; any failure becomes a one-sentence BuildError.
    The tool's own output is kept in the message's cause for --verbose."""
    try:
        subprocess.run(
            cmd,
            check=True,
            timeout=DOWNLOAD_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
    except subprocess.CalledProcessError as e:
        raise BuildError(failure) from _ToolOutput(e.stderr or e.stdout or "")
    except subprocess.TimeoutExpired as e:
        raise BuildError(failure) from e
    except OSError as e:
        raise BuildError(failure) from e


class _ToolOutput(Exception):
    """Carries a failed tool's output, shown only with --verbose."""
