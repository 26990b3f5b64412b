"""A site made by a site generator (MkDocs, Sphinx, MyST), served as a strict host would
serve it, and what the tests of such a site watch in it (tests/sites/).

    prepare(example, tmp)        a copy of examples/sites/<example>/, the widget's files
                                 published into it by `python build.py publish`
    run(command, cwd)            a generator's command, with a time limit and its output
                                 in the failure
    strict_policy(root)          the site's Content-Security-Policy: the Gradwalk site's own
                                 (buildtools/csp.py), plus the hash of every inline script
                                 and style attribute the generator wrote, and nothing else
    StrictHost(root)             serves `root` (the generated site sits in a subfolder of
                                 it, its base path) with that policy on every page and script
    EngineWorkers(page)          the engine workers a page starts and stops
    check_lesson, check_neuron   the example sites' lessons, driven: widgets render and step
    step_forward(widget)         one step of a <grad-walk> (a Playwright locator), checked
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
from functools import partial
from html.parser import HTMLParser
from pathlib import Path

import build as build_script
from buildtools import csp, serve
from tests.support.page import BOOT_TIMEOUT_MS, STEP_TIMEOUT_MS

EXAMPLES = build_script.ROOT / "examples" / "sites"
GENERATOR_TIMEOUT_S = 180
# Script types a browser runs (an inline JSON block is data, which CSP does not govern).
_RUNNABLE = {"", "text/javascript", "application/javascript", "module"}


def prepare(example: str, tmp: Path, dist: Path, widget_dir: str, base: str) -> Path:
    """Copy the example project `examples/sites/<example>/` into tmp, then publish the built
    `dist` into its `widget_dir` with `python build.py publish`, as its recipe says."""
    project = tmp / example
    # Without what a local run of the recipe may have left there (examples/sites/.gitignore).
    shutil.copytree(EXAMPLES / example, project, ignore=shutil.ignore_patterns("gradwalk", "site", "_build"))
    out = run(
        ["python", "build.py", "publish", str(project / widget_dir), "--base", base, "--dist", str(dist)],
        build_script.ROOT,
    )
    assert f'src="{base}gradwalk.js"' in out, out
    return project


def run(command: list[str], cwd: Path, env: dict | None = None) -> str:
    if command[0] == "python":
        command = [sys.executable, *command[1:]]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GENERATOR_TIMEOUT_S,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"{' '.join(command)} took over {GENERATOR_TIMEOUT_S} s:\n{e.stdout}\n{e.stderr}") from e
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


class _Inline(HTMLParser):
    """A page's inline scripts and style attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts, self.styles, self._open = [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("style"):
            self.styles.append(attrs["style"])
        if tag == "script" and "src" not in attrs and (attrs.get("type") or "").lower() in _RUNNABLE:
            self._open = []

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            self.scripts.append("".join(self._open))
            self._open = None


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline_hashes(root: Path) -> tuple[list[str], list[str]]:
    """The CSP sources of every distinct inline script, and of every style attribute, in the
    site's pages."""
    scripts, styles = set(), set()
    for page in root.rglob("*.html"):
        parser = _Inline()
        parser.feed(page.read_text(encoding="utf-8"))
        scripts |= {_hash(s) for s in parser.scripts}
        styles |= {_hash(s) for s in parser.styles}
    return sorted(scripts), sorted(styles)


def strict_policy(root: Path) -> str:
    """The Gradwalk site's own policy, with the generator's inline scripts and style attributes
    allowed by their hashes (what a careful author's host sends), and nothing else."""
    scripts, styles = inline_hashes(root)
    extra = {"script-src": scripts, "style-src": ["'unsafe-hashes'", *styles] if styles else []}
    return "; ".join(" ".join([name, value, *extra.get(name, [])]) for name, value in csp.DIRECTIVES)


class _StrictHost(serve.SiteHandler):
    """buildtools.serve's handler (caching, compressed copies) with the generated site's policy."""

    policy = ""

    def end_headers(self):
        self.send_header("Cache-Control", self._cache_control)
        if self._sandbox_policy:  # "Your code"'s sandbox keeps its own (the publish instructions say so)
            self.send_header("Content-Security-Policy", self._sandbox_policy)
        elif self._csp:
            self.send_header("Content-Security-Policy", self.policy)
        http.server.SimpleHTTPRequestHandler.end_headers(self)


class StrictHost:
    """Serves the folder `root` (the generated site in a subfolder of it: its base path) with
    buildtools.serve's caching and compressed copies, and `policy` (set once the site is
    built: a generator may need the address first) on every page and script."""

    def __init__(self, root: Path):
        self.handler = type("Host", (_StrictHost,), {"quiet": True})
        self.server = serve.SiteServer(("127.0.0.1", 0), partial(self.handler, directory=str(root)))
        self.url = serve.url_of(self.server)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def set_policy(self, policy: str) -> None:
        self.handler.policy = policy

    def stop(self) -> None:
        self.server.stop()


class EngineWorkers:
    """The engine workers (worker.js; not the code worker) a page starts, and how many were
    alive at most at one time."""

    def __init__(self, page):
        self.started, self.live, self.most = [], set(), 0
        page.on("worker", self._started)

    def _started(self, worker):
        if not worker.url.split("?")[0].endswith("/worker.js"):  # not code-worker.js, a Python of its own
            return
        self.started.append(worker.url)
        self.live.add(worker)
        self.most = max(self.most, len(self.live))
        worker.on("close", lambda w: self.live.discard(w))


def wait_ready(widget) -> None:
    """Wait until the <grad-walk> `widget` (a locator) has its engine and its graph."""
    widget.and_(widget.page.locator("[data-engine='ready']")).wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
    widget.locator("svg [data-node]").first.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)


def check_lesson(page, url: str, workers: EngineWorkers) -> None:
    """The example sites' lesson with two widgets at `url` (examples/sites/*/, the diamond
    stepped, and its visit order): both render and step, on one engine."""
    page.goto(url)
    widgets = page.locator("grad-walk")
    widgets.first.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    assert widgets.count() == 2
    for i in range(2):
        wait_ready(widgets.nth(i))
    assert len(workers.started) == 1, f"one engine for the page's two widgets, not {workers.started}"
    assert step_forward(widgets.nth(0), 2) == "Forward pass · node 2 of 4"
    order = widgets.nth(1)
    assert order.get_by_role("tab", name="Visit order").get_attribute("aria-selected") == "true"
    assert step_forward(order) == "Backward pass · seed"  # from its own place (start="order"), not the first's


def check_neuron(widget) -> None:
    """The example sites' neuron lesson: at its end, every grad in; a nudge answered."""
    wait_ready(widget)
    assert widget.locator("#position").inner_text() == "Backward pass · visit 10 of 10"  # start="end"
    widget.get_by_role("button", name="Nudge", exact=True).click()
    widget.locator("#nudge-result[data-central]").wait_for(timeout=STEP_TIMEOUT_MS)


# Marks the page before its generator's own navigation: a flag a reload would lose, and the
# widgets on it (`widgets`: a JS expression giving them, for hosts that put them in a shadow root).
def mark_before_navigation(page, widgets: str = "[...document.querySelectorAll('grad-walk')]") -> None:
    page.evaluate(f"() => {{ window.gwSamePage = true; window.gwLeft = {widgets}; }}")


def check_swapped_in_place(page, workers: EngineWorkers, left_behind: int) -> None:
    """After the generator's navigation: the page was not reloaded, the widgets it left were
    taken down whole, and the engine they shared serves the new page (no second engine)."""
    assert page.evaluate("window.gwSamePage === true"), "the page was reloaded, not swapped"
    left = page.evaluate(
        "() => window.gwLeft.map((e) => ({connected: e.isConnected, widget: !!e.gradwalk,"
        " children: e.shadowRoot.childNodes.length}))"
    )
    assert left == [{"connected": False, "widget": False, "children": 0}] * left_behind, left
    assert len(workers.started) == 1 and workers.most == 1, workers.started


def step_forward(widget, times: int = 1) -> str:
    """Step `widget` forward `times` times; returns its position line, which must have moved."""
    position = widget.locator("#position")
    for _ in range(times):
        before = position.inner_text()
        widget.get_by_role("button", name="Step forward", exact=True).click()
        widget.page.wait_for_function(
            "([el, before]) => el.textContent !== before",
            arg=[position.element_handle(), before],
            timeout=STEP_TIMEOUT_MS,
        )
    return position.inner_text()
