"""A site made by a site generator (MkDocs, Sphinx, MyST), served as a strict host would
serve it, and what the tests of such a site watch in it (tests/sites/).

    prepare(example, tmp)        a copy of examples/sites/<example>/, the widget's files
                                 published into it by `python build.py publish`
    run(command, cwd)            a generator's command, with a time limit and its output
                                 in the failure
    strict_policy(root)          the site's Content-Security-Policy: the Gradwalk site's own
                                 (buildtools/csp.py), plus the hash of every inline script
                                 the generator wrote into its pages, and nothing else
    StrictHost(root)             serves `root` (the generated site sits in a subfolder of
                                 it, its base path) with that policy on every page and script
    EngineWorkers(page)          the engine workers a page starts and stops
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
    shutil.copytree(EXAMPLES / example, project)
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


class _InlineScripts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.scripts, self._open = [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and "src" not in attrs and (attrs.get("type") or "").lower() in _RUNNABLE:
            self._open = []

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._open is not None:
            self.scripts.append("".join(self._open))
            self._open = None


def inline_script_hashes(root: Path) -> list[str]:
    """The CSP source of every distinct inline script in the site's pages."""
    found = set()
    for page in root.rglob("*.html"):
        parser = _InlineScripts()
        parser.feed(page.read_text(encoding="utf-8"))
        for script in parser.scripts:
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            found.add(f"'sha256-{digest}'")
    return sorted(found)


def strict_policy(root: Path) -> str:
    """The Gradwalk site's own policy, with the generator's inline scripts allowed by hash."""
    hashes = " ".join(inline_script_hashes(root))
    directives = [
        (name, f"{value} {hashes}" if name == "script-src" and hashes else value) for name, value in csp.DIRECTIVES
    ]
    return "; ".join(f"{name} {value}" for name, value in directives)


class _StrictHost(serve.SiteHandler):
    """buildtools.serve's handler (caching, compressed copies) with the generated site's policy."""

    policy = ""

    def end_headers(self):
        self.send_header("Cache-Control", self._cache_control)
        if self._csp:
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
        if not worker.url.split("?")[0].endswith("/worker.js") or worker.url.endswith("/code-worker.js"):
            return
        self.started.append(worker.url)
        self.live.add(worker)
        self.most = max(self.most, len(self.live))
        worker.on("close", lambda w: self.live.discard(w))


def wait_ready(widget) -> None:
    """Wait until the <grad-walk> `widget` (a locator) has its engine and its graph."""
    widget.and_(widget.page.locator("[data-engine='ready']")).wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
    widget.locator("svg [data-node]").first.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)


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
