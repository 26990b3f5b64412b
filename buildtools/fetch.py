"""Download the pinned micropip wheel from PyPI into the cache directory and check
it against its pinned sha256 (the npm packages, Pyodide's runtime among them, are
npm's to install and check: buildtools/npm.py).

A file already in the cache is re-verified and reused, so a warm build never
touches the network. A download goes to a temporary folder first and is moved
into place only after it verified, so a half-finished or tampered download can
never be mistaken for a good cached one.
"""

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from . import BuildError
from .hashing import sha256_hex

# Generous: a cold pip download on a slow link, but never forever.
DOWNLOAD_TIMEOUT_S = 600


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
