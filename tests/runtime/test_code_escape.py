"""Escape probes: hostile Python run as the learner's code ("Your code") must reach
nothing. The code worker runs in the code sandbox (web/boot/code-sandbox.js,
web/code-sandbox.html): an opaque origin whose policy allows no network. So, run as the
learner's code on the site's own page and in a <grad-walk> on a lesson page of another
origin, every probe below leaves:

- no request at a listener on another port of this machine (the probes aim at it);
- the page origin's Cache Storage, IndexedDB, localStorage and cookies byte for byte
  as they were;
- the widget beside it stepping to the preset's right grads.

Each probe is tried twice: the plain way (`import js`, ...), which the import finder
refuses (web/worker/lockdown.js, a second line only), and with the runtime's JavaScript
proxies found among gc's objects, as hostile code would, so that the wall itself (the
sandbox's origin and policy) is what stops it. And a cache entry poisoned by a script
that once ran in the site's origin is never served (web/sw.js checks every cached
file's sha256; the engine's worker checks the .wasm it keeps).

The entry the code worker calls is a stand-in that executes the source
(tests/support/code_standin.py), imported through the runner's test hook.
"""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from tests.support.caches import SNAPSHOT_KEPT
from tests.support.code_standin import STANDIN, STANDIN_PATH
from tests.support.cross_origin import LessonServer, documented_policy, lesson_html, origin_of
from tests.support.page import BOOT_TIMEOUT_MS, WIDGET_HELPERS
from tests.support.presets import agrees, expected_nodes

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

WAIT_MS = 90_000

# The plain ways in: each is refused at its import (ModuleNotFoundError), or finds no
# module where it looks (KeyError).
PLAIN = {
    "import js; js.fetch": "import js\njs.fetch(URL)",
    "__import__('js')": "__import__('js').fetch(URL)",
    "importlib.import_module('js')": "import importlib\nimportlib.import_module('js').fetch(URL)",
    "pyodide.code.run_js": "from pyodide.code import run_js\nrun_js('fetch(' + repr(URL) + ')')",
    "pyodide_js.runPython": "import pyodide_js\npyodide_js.runPython('import js; js.fetch(' + repr(URL) + ')')",
    "pyodide.http.pyfetch": "import asyncio\nfrom pyodide.http import pyfetch\nasyncio.ensure_future(pyfetch(URL))",
    "sys.modules['js']": "import sys\nsys.modules['js'].fetch(URL)",
    "js.globalThis.fetch": "import js\njs.globalThis.fetch(URL)",
    "XMLHttpRequest": "import js\nx = js.XMLHttpRequest.new()\nx.open('GET', URL, False)\nx.send()",
    "builtins.__import__('js')": "import builtins\nbuiltins.__import__('js').fetch(URL)",
    "importScripts": "import js\njs.importScripts(URL)",
    "pyodide.ffi": "from pyodide.ffi import create_proxy\nresult = 1",
    "_pyodide_core": "import _pyodide_core\nresult = 1",
}

# The runtime's own proxies, found as hostile code finds them: nothing to import.
HUNT = (
    "import gc, asyncio\n"
    "_finder = next(o for o in gc.get_objects() if type(o).__name__ == 'JsFinder')\n"
    "js, pyodide_js = _finder.jsproxies['js'], _finder.jsproxies['pyodide_js']\n"
    "def _module(name):\n"
    "    return next(o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == name)\n"
)
# The same ways in, and more, with those proxies: each must reach nothing. A probe may
# raise (its error is its answer); what it must not do is make a request or write.
HUNTED = {
    "fetch": "js.fetch(URL)",
    "globalThis.fetch": 'js.globalThis.fetch(URL, js.JSON.parse(\'{"mode": "no-cors"}\'))',
    "XMLHttpRequest": "x = js.XMLHttpRequest.new()\nx.open('GET', URL, False)\nx.send()",
    "WebSocket": "js.WebSocket.new(URL.replace('http:', 'ws:'))",
    "EventSource": "js.EventSource.new(URL)",
    "importScripts": "js.importScripts(URL)",
    "new Worker(URL)": "js.Worker.new(URL)",
    "pyodide.code.run_js": "_module('pyodide.code').run_js('fetch(' + repr(URL) + ')')",
    "pyodide_js.runPython": "pyodide_js.runPython('import gc\\n' + 'x = 1')\njs.fetch(URL)",
    "pyodide.http.pyfetch": "asyncio.ensure_future(_module('pyodide.http').pyfetch(URL))",
    "pyodide_js.loadPackage": "pyodide_js.loadPackage(URL + '.whl')",
    "Cache Storage": "js.caches.open('gradwalk-poison').then(lambda c: c.put(URL, js.Response.new('POISONED')))",
    "IndexedDB": "js.indexedDB.open('gradwalk-poison')",
    "navigator.sendBeacon": "js.navigator.sendBeacon(URL, 'x')",
    "setTimeout with a string": "js.setTimeout('fetch(' + repr(URL) + ')', 0)",
}


class _Listener(BaseHTTPRequestHandler):
    def do_GET(self):
        self.server.seen.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_POST = do_GET

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def listener():
    """A server on another port of this machine that records every request it gets."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    server.daemon_threads = True
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/"
    yield server
    server.shutdown()
    server.server_close()


def probe_sources(listener):
    """Every probe as (name, source), each aiming at its own path of the listener."""
    probes = []
    for name, body in PLAIN.items():
        probes.append((f"plain: {name}", f"URL = {listener.url + 'plain/' + str(len(probes))!r}\n{body}"))
    for name, body in HUNTED.items():
        probes.append((f"hunted: {name}", f"URL = {listener.url + 'hunted/' + str(len(probes))!r}\n{HUNT}{body}"))
    return probes


# Every probe through one code runner; each answer's kind (null for an answer) and,
# for an answer, whether the learner's code raised and what.
RUN_PROBES = """
async ({ site, probes, module }) => {
  const { createCodeRunner } = await import(site + "boot/code-runner.js");
  const runner = createCodeRunner({ entry: "standin.run", module, timeLimitMs: 5000 });
  const out = [];
  for (const [name, source] of probes) {
    out.push(await runner.run({ source }).then(
      (result) => ({ name, kind: null, result }),
      (error) => ({ name, kind: error.kind, message: error.message }),
    ));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500)); // what a probe started has had time to arrive
  runner.terminate();
  return out;
}
"""

# The origin's storage as the page sees it, every cached body by its SHA-256.
STORAGE = """
async () => {
  const hex = async (buffer) => Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", buffer)),
    (b) => b.toString(16).padStart(2, "0")).join("");
  const out = { caches: {}, localStorage: Object.entries(localStorage).sort(), cookie: document.cookie };
  for (const name of (await caches.keys()).sort()) {
    const cache = await caches.open(name);
    const entries = [];
    for (const request of await cache.keys()) {
      entries.push([request.url, await hex(await (await cache.match(request)).arrayBuffer())]);
    }
    out.caches[name] = entries.sort();
  }
  out.indexedDB = (await indexedDB.databases()).map((d) => `${d.name}:${d.version}`).sort();
  return out;
}
"""

# Something in each kind of storage for the probes to find.
SEED = """
async () => {
  localStorage.setItem("lesson-progress", "3 of 5");
  document.cookie = "lesson=1; path=/";
  await new Promise((resolve, reject) => {
    const open = indexedDB.open("lesson-notes", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("notes");
    open.onsuccess = () => { open.result.close(); resolve(); };
    open.onerror = () => reject(open.error);
  });
}
"""


def seed_and_settle(page):
    """Storage seeded, and the engine's snapshot kept (the storage the probes must not change)."""
    page.evaluate(SEED)
    assert page.evaluate(SNAPSHOT_KEPT, 30_000), "the engine's worker kept no snapshot within 30 s"


def escape_context(browser, site_url, service_workers="block"):
    """A context whose pages can reach the listener (nothing stands between them but
    the browser), that serves the stand-in entry, and records console errors."""
    context = browser.new_context(service_workers=service_workers)
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WIDGET_HELPERS)
    site = origin_of(site_url)

    def standin(route):
        if urlsplit(route.request.url).path.endswith("/" + STANDIN_PATH):
            return route.fulfill(body=STANDIN, content_type="text/x-python")
        return route.continue_()

    context.route(f"{site}/**", standin)
    return context


def probes_leave_no_trace(page, site_url, listener, widget):
    """Every probe run as the learner's code: no request reached the listener, the origin's
    storage is as it was, and the widget `widget` still steps to the diamond's grads."""
    before = page.evaluate(STORAGE)
    assert before["caches"] and before["indexedDB"] and before["localStorage"]
    listener.seen.clear()
    run_probes(page, site_url, listener)
    assert listener.seen == [], f"requests left the sandbox: {listener.seen}"
    assert page.evaluate(STORAGE) == before
    assert_diamond(step_grads(widget))


def run_probes(page, site_url, listener):
    probes = probe_sources(listener)
    outcomes = page.evaluate(RUN_PROBES, {"site": site_url, "probes": probes, "module": STANDIN_PATH})
    assert [o["name"] for o in outcomes] == [name for name, _ in probes]
    for outcome in outcomes:
        if outcome["name"].startswith("plain: "):
            # Refused at its import: the learner's code cannot name these modules.
            assert outcome["result"]["error"]["type"] in ("ModuleNotFoundError", "KeyError"), outcome
        else:
            # Whatever it answered, it may not have been thrown away for touching Python itself.
            assert outcome["kind"] in (None, "crashed", "protocol", "time"), outcome
    return outcomes


def step_grads(widget_root):
    """The diamond stepped to its last frame: {label: (data, grad)}."""
    widget_root.get_by_role("button", name="Step forward", exact=True).wait_for()
    widget_root.locator("#graph [data-node]").first.wait_for()
    widget_root.locator("#graph").focus()
    for _ in range(80):
        forward = widget_root.get_by_role("button", name="Step forward", exact=True)
        if forward.get_attribute("aria-disabled") == "true":
            break
        forward.click()
    return {
        label: (float(data), float(grad))
        for label, data, grad in widget_root.locator("#graph [data-node]").evaluate_all(
            "gs => gs.map(g => [g.dataset.node, g.dataset.data, g.dataset.grad])"
        )
    }


def assert_diamond(got):
    want = expected_nodes("diamond")
    assert set(got) == set(want)
    for label, (data, grad) in want.items():
        assert agrees(data, got[label][0]) and agrees(grad, got[label][1]), (label, got[label], (data, grad))


def test_probes_reach_nothing_on_the_sites_own_page(browser, site_url, listener):
    context = escape_context(browser, site_url, service_workers="allow")
    try:
        page = context.new_page()
        page.goto(site_url + "?preset=diamond")
        page.wait_for_function("() => document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
        seed_and_settle(page)
        page.evaluate("() => navigator.serviceWorker.ready")
        probes_leave_no_trace(page, site_url, listener, page.locator("body"))
    finally:
        context.close()


def test_probes_reach_nothing_from_a_lesson_page_of_another_origin(browser, site_url, listener):
    lesson = LessonServer()
    context = escape_context(browser, site_url)
    try:
        page = context.new_page()
        url = lesson.put(
            "/escape.html",
            lesson_html(site_url, "<grad-walk id='one' preset='diamond' questions='off'></grad-walk>"),
            documented_policy(origin_of(site_url)),
        )
        page.goto(url)
        page.locator("#one[data-engine='ready']").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
        seed_and_settle(page)
        probes_leave_no_trace(page, site_url, listener, page.locator("#one"))
    finally:
        context.close()
        lesson.stop()


# A script that once ran in the site's origin rewrote a cached file of the build.
POISON = """
async ({ rel, prefix }) => {
  const name = (await caches.keys()).find((n) => n.startsWith("gradwalk-"));
  const cache = await caches.open(name);
  const url = new URL(rel, location.href).href;
  const real = await cache.match(url);
  const body = prefix + await real.text();
  await cache.put(url, new Response(body, { headers: { "content-type": real.headers.get("content-type") } }));
  return name;
}
"""


def test_a_poisoned_cache_entry_is_never_served(browser, site_url):
    context = escape_context(browser, site_url, service_workers="allow")
    try:
        page = context.new_page()
        page.goto(site_url + "?preset=diamond")
        page.wait_for_function("() => document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
        page.evaluate("() => navigator.serviceWorker.ready")
        page.evaluate(POISON, {"rel": "page.js", "prefix": "document.title = 'POISONED';\n"})
        page.evaluate(POISON, {"rel": "build.json", "prefix": "{"})
        fresh = context.new_page()
        fresh.goto(site_url + "?preset=diamond")
        fresh.wait_for_function("() => document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
        assert fresh.title() != "POISONED"
        assert fresh.evaluate("() => navigator.serviceWorker.controller !== null"), "the service worker served it"
        assert_diamond(step_grads(fresh.locator("body")))
        # The dropped entries are cached again, checked.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            text = fresh.evaluate(
                "async () => (await (await caches.open((await caches.keys()).find((n) => n.startsWith('gradwalk-'))))"
                ".match(new URL('page.js', location.href).href))?.text() ?? ''"
            )
            if text and not text.startswith("document.title = 'POISONED'"):
                break
            fresh.wait_for_timeout(200)
        assert text and "POISONED" not in text[:40]
    finally:
        context.close()


def test_a_poisoned_wasm_in_the_cache_is_dropped_and_fetched_again(browser, site_url):
    context = escape_context(browser, site_url)  # no service worker: the engine's worker keeps the .wasm itself
    try:
        page = context.new_page()
        page.goto(site_url + "?preset=diamond")
        page.wait_for_function("() => document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
        build = page.evaluate("async () => (await fetch('build.json')).json()")
        wasm = build["pyodide_index"] + "pyodide.asm.wasm"
        page.wait_for_function(
            "async (rel) => { for (const n of await caches.keys()) if (await (await caches.open(n)).match("
            "new URL(rel, location.href).href)) return true; return false; }",
            arg=wasm,
            timeout=30_000,
        )
        page.evaluate(POISON, {"rel": wasm, "prefix": "\0asm-poisoned"})
        page.reload()
        page.wait_for_function(
            "() => ['ready', 'error'].includes(document.documentElement.dataset.engine)", timeout=BOOT_TIMEOUT_MS
        )
        assert page.evaluate("document.documentElement.dataset.engine") == "ready"
        assert_diamond(step_grads(page.locator("body")))
    finally:
        context.close()
