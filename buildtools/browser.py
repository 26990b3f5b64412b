"""How the tests and the benchmarks start Chromium: Debian's build, never a downloaded one.

The flags keep a root, headless Chromium from needing a sandbox or a GPU and from
calling home (this machine's network refuses those connections).
"""

import os
import shutil

DEFAULT_CHROMIUM = "/usr/bin/chromium"


def find_chromium() -> str | None:
    """The Chromium to drive: $GRADWALK_CHROMIUM if set, else Debian's, else one on PATH."""
    asked = os.environ.get("GRADWALK_CHROMIUM")
    if asked:
        return asked if os.access(asked, os.X_OK) else None
    if os.access(DEFAULT_CHROMIUM, os.X_OK):
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = find_chromium() or DEFAULT_CHROMIUM
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
