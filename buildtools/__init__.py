"""Helpers for build.py: fetching pinned downloads, writing the engine wheel,
assembling dist/ and serving it.

Everything here is stdlib-only so that `python build.py` works on a bare
Python >= 3.11 with npm and pip available.
"""

import contextlib
import json
import subprocess
import sys
from pathlib import Path

try:
    import fcntl  # POSIX
except ImportError:  # pragma: no cover
    fcntl = None


class BuildError(Exception):
    """A failure the user can fix. Its message is one sentence that says what to
    install or retry; build.py prints it without a traceback and exits with 1."""


@contextlib.contextmanager
def exclusive(lock: Path):
    """Hold an exclusive lock on the file `lock` (created if missing), so that two builds
    at once take turns. POSIX only; elsewhere nothing is serialised."""
    with open(lock, "a+") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


def engine_list(root: Path, expression: str, failed: str) -> list:
    """The JSON list `expression` makes, evaluated in a fresh CPython (fresh_python) with
    `import json, sys` done and the checkout's engine first on its path; BuildError(failed),
    with the child's stderr as its cause, if it fails or prints no list."""
    code = f"import json, sys; sys.path.insert(0, sys.argv[1]); print(json.dumps({expression}))"
    done = fresh_python(root, code, timeout=120)
    try:
        found = json.loads(done.stdout)
    except ValueError:
        found = None
    if done.returncode != 0 or not isinstance(found, list):
        raise BuildError(failed) from RuntimeError(done.stderr)
    return found


def fresh_python(root: Path, code: str, timeout: float) -> subprocess.CompletedProcess:
    """Run `code` in a fresh, isolated CPython with the repository at `root` first on its
    path (`sys.argv[1]`), so it imports that checkout's engine, never an installed one."""
    return subprocess.run(
        [sys.executable, "-I", "-c", code, str(root)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=root,
        stdin=subprocess.DEVNULL,
    )
