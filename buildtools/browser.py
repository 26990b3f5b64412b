"""How the tests and the benchmarks start Chromium: Debian's build, never a downloaded one.

The flags keep a root, headless Chromium from needing a sandbox or a GPU and from
calling home (this machine's network refuses those connections).
"""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
