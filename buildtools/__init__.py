"""Helpers for build.py: fetching pinned downloads, writing the engine wheel,
assembling dist/ and serving it.

Everything here is stdlib-only so that `python build.py` works on a bare
Python >= 3.11 with npm and pip available.
"""


class BuildError(Exception):
    """A failure the user can fix. Its message is one sentence that says what to
    install or retry; build.py prints it without a traceback and exits with 1."""
