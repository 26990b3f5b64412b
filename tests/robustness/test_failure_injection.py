"""Failure injection: every runtime file the boot needs is, in turn,
missing (404), corrupted (cut off half-way, as a broken download would be),
served with the wrong MIME type, or stalled (the request never answers). Each
fault ends either in a page that still works (the file is optional, or the
browser does not care about its label) or in data-engine="error" with a
specific message and a Retry button that boots the engine once the fault is
gone. The faults are injected with Playwright routes on the test's own context
(service workers are blocked there, so no cache hides a fault), and the boot
time limit is shortened through the page's ?boottimeout= hook, so a stalled
download fails in seconds.

FAULTS at the bottom of this file lists every combination and what it must give.
"""

import json
import re
import time

import pytest

from tests.support.page import BOOT_TIMEOUT_MS, button

# The worker checks the .wasm's size before it caches or compiles it, so a damaged
# .wasm fails at once instead of hanging Pyodide until the time limit; the 36 boots
# take two to three minutes on a quiet 2-core machine.
pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

BOOT_LIMIT_MS = 5000  # ?boottimeout= for stalled downloads
# and for a file the boot does without (its stall must not stop the engine): a loaded CI
# machine may take longer than 5 s to boot at all
OPTIONAL_FILE_LIMIT_MS = 60_000


def _build(built_dist):
    return json.loads((built_dist / "build.json").read_text())


def file_path(build, key):
    """The site path of a runtime file."""
    index = build["pyodide_index"]
    return {
        "build.json": "build.json",
        "worker.js": "worker.js",
        "pyodide.mjs": index + "pyodide.mjs",
        "pyodide.asm.mjs": index + "pyodide.asm.mjs",
        "pyodide.asm.wasm": index + "pyodide.asm.wasm",
        "pyodide-lock.json": index + "pyodide-lock.json",
        "stdlib (precompiled)": build["stdlib_pyc"],
        "engine wheel (precompiled)": build["engine_wheel_pyc"],
        "stdlib (stock)": build["stdlib"],
        "micropip wheel (stock)": build["micropip_wheel"],
        "engine wheel (stock)": build["engine_wheel"],
        "first paint": build["prerender"]["file"],
    }[key]


class Fault:
    """A route that breaks one file until lift() is called."""

    def __init__(self, context, path, kind):
        self.path, self.kind, self.on, self.hits, self.held = path, kind, True, 0, []
        context.route(lambda url: url.split("?")[0].endswith("/" + path), self.handle)

    def handle(self, route):
        if not self.on:
            route.fallback()
            return
        self.hits += 1
        if self.kind == "missing":
            route.fulfill(status=404, body="Not found", content_type="text/plain")
        elif self.kind == "stalled":
            self.held.append(route)  # never answered
        else:
            response = route.fetch()
            body = response.body()
            headers = {
                k: v for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length")
            }
            if self.kind == "corrupt":
                body = body[: len(body) // 2]
            elif self.kind == "mime":
                headers["content-type"] = "text/plain"
            route.fulfill(status=response.status, headers=headers, body=body)

    def lift(self):
        self.on = False


def settle(page, timeout=BOOT_TIMEOUT_MS):
    page.locator("html[data-engine='ready'], html[data-engine='error']").wait_for(state="attached", timeout=timeout)
    return page.evaluate("document.documentElement.dataset.engine")


def graph_works(page):
    """A graph is on screen and stepping moves it (stepping never needs Python)."""
    page.wait_for_selector("svg[data-graph] [data-node]")
    before = page.inner_text("#position")
    button(page, "Step forward").click()
    page.wait_for_function("(b) => gwRoot().getElementById('position').innerText !== b", arg=before)


# What each fault gives, measured. "ready": the page works anyway (fetch() and
# Pyodide do not look at the MIME type of JSON, zip or wheel files, and the worker
# relabels a .wasm; the first paint is optional). Anything else: an error with a
# message that matches (failures deep inside Pyodide are prefixed by the worker with
# what they mean for the learner, then the browser's or Python's own words).
STALL = r"The engine did not start within \d+(\.\d)? s\."
PYTHON_START = r"Python could not start; a runtime file .* may be damaged: \S"
EXPECTED = {
    "build.json": {
        "missing": r"Could not download build\.json \(404\)",
        "corrupt": r"build\.json is not valid JSON",
        "mime": "ready",
    },
    "worker.js": {k: r"worker.js could not be loaded" for k in ("missing", "corrupt", "mime")},
    "pyodide.mjs": {k: r"Could not load pyodide/\w+/pyodide\.mjs" for k in ("missing", "corrupt", "mime")},
    "pyodide.asm.mjs": {"missing": r"pyodide\.asm\.mjs", "corrupt": PYTHON_START, "mime": r"pyodide\.asm\.mjs"},
    "pyodide.asm.wasm": {
        "missing": r"Could not download pyodide\.asm\.wasm \(404\)",
        "corrupt": r"pyodide\.asm\.wasm arrived damaged \(\d+ of \d+ bytes\)",
        "mime": "ready",
    },
    # The fast path loads no package: its lock file (no packages) comes in build.json, and
    # this one, the stock path's and the code worker's, is never asked for.
    "pyodide-lock.json": {k: "ready" for k in ("missing", "corrupt", "mime", "stalled")},
    "stdlib (precompiled)": {
        "missing": r"Could not download python_stdlib\.zip \(404\)",
        "corrupt": PYTHON_START,
        "mime": "ready",
    },
    "engine wheel (precompiled)": {
        "missing": r"Could not download gradwalk_engine-[\w.-]+\.whl \(404\)",
        "corrupt": r"The engine package [\w.-]+\.whl is damaged \(.*not a zip file",
        "mime": "ready",
    },
    "first paint": {k: "ready" for k in ("missing", "corrupt", "mime", "stalled")},
}
# Stalled first: it is the one fault that waits for the (shortened) time limit,
# and each Retry gives the boot four times as long as the last.
KINDS = ["stalled", "missing", "corrupt", "mime"]


def error_or_ready(page):
    state = settle(page)
    return state, (page.inner_text("#engine-error-text") if state == "error" else "")


FILES = [
    "build.json",
    "worker.js",
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "pyodide-lock.json",
    "stdlib (precompiled)",
    "engine wheel (precompiled)",
    "first paint",
]


@pytest.mark.allow_console_errors
@pytest.mark.parametrize("key", FILES)
def test_each_fault_of_a_runtime_file_is_reported_and_retry_recovers(page, site_url, built_dist, key):
    """One page per file: the first fault is there when the page opens, each next
    one replaces it before Retry is pressed (so Retry is what tries again), and
    once the file is whole again Retry boots the engine and the graph works."""
    build = _build(built_dist)
    path = file_path(build, key)
    expected = {"mime": STALL, "stalled": STALL, **EXPECTED[key]}
    limit = OPTIONAL_FILE_LIMIT_MS if expected["stalled"] == "ready" else BOOT_LIMIT_MS
    url = site_url + f"?boottimeout={limit}"
    fault, seen = None, {}
    for i, kind in enumerate(KINDS):
        if fault:
            fault.lift()
        fault = Fault(page.context, path, kind)
        started = time.monotonic()
        if i == 0 or page.evaluate("document.documentElement.dataset.engine") == "ready":
            page.goto(url)
        else:
            button(page, "Retry").click()
        state, message = error_or_ready(page)
        seen[kind] = (state, message)
        print(f"\nFAULT {key} | {kind} | {state} | {message} | {time.monotonic() - started:.1f} s")
        if state == "ready":
            graph_works(page)
    fault.lift()
    if page.evaluate("document.documentElement.dataset.engine") == "error":
        button(page, "Retry").click()
    assert error_or_ready(page)[0] == "ready"
    graph_works(page)
    for kind, (state, message) in seen.items():
        want = expected.get(kind, STALL)
        if want == "ready":
            assert state == "ready", (kind, message)
        else:
            assert state == "error" and re.search(want, message), (kind, state, message)
