"""Shared helpers for the benchmarks: the built site on a server of its own,
headless Chromium, medians, percentiles and tables."""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from buildtools.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402,F401 - the benchmarks launch it


def build_site() -> Path:
    """dist/, rebuilt if an input changed (the same build as `python build.py`)."""
    import build as build_script

    build_script.build(log=lambda *args: None)
    return build_script.ROOT / "dist"


@contextlib.contextmanager
def serve(port: int = 0, dist: Path | None = None):
    """`python build.py serve` in a process of its own (so its work never competes
    with this process for the GIL); yields the site's URL."""
    if dist is None:
        command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", str(port)]
    else:  # an already built copy, served as it is (not rebuilt)
        command = [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); from buildtools import serve; "
            "s = serve.make_server(sys.argv[2], int(sys.argv[3]), quiet=True); "
            "print('Serving at', serve.url_of(s), flush=True); s.serve_forever()",
            str(ROOT),
            str(dist),
            str(port),
        ]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True
    )
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError("build.py serve exited before it printed its URL")
            if "http://" in line:
                url = line[line.index("http://") :].split()[0]
        if url is None:
            raise RuntimeError("build.py serve printed no URL within 120 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percentile(values, p: float):
    """The p-th percentile (nearest rank) of values."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    rank = max(1, math.ceil(p / 100 * len(values)))
    return values[rank - 1]


def fmt_ms(value, digits: int = 0) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def fmt_ratio(value) -> str:
    return "—" if value is None else f"{value:.2f}×"


def ratio(a, b):
    return None if a is None or not b else a / b


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table with right-aligned columns after the first."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells):
        return "  ".join(str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(cells))

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *map(line, rows)])


def verdict(value, limit) -> str:
    if value is None:
        return "no data"
    return "ok" if value <= limit else "MISSED"


# bench/guard.py names a file here; each check() of the benchmarks it runs adds a line to it.
VERDICTS_ENV = "GRADWALK_BENCH_VERDICTS"


def check(label: str, value, limit, shown: str) -> str:
    """Print one budget's verdict line (`  ok      label: shown`) and return the verdict;
    when $GRADWALK_BENCH_VERDICTS names a file, also add the check to it as a JSON line."""
    word = verdict(value, limit)
    print(f"  {word:7} {label}: {shown}", flush=True)
    path = os.environ.get(VERDICTS_ENV)
    if path:
        line = {"bench": Path(sys.argv[0]).name, "label": label, "value": value, "limit": limit, "verdict": word}
        with open(path, "a") as out:
            out.write(json.dumps(line) + "\n")
    return word
