"""web/sw.js: the service worker caches the whole build, so a second visit and
an offline visit both work, and builds never mix.

These tests use browser contexts of their own with service workers allowed
(the shared `page` fixture blocks them) and a server of their own that a test
may stop: the most honest way to be offline.
"""

import json
import re
from urllib.parse import urlsplit

import pytest

from buildtools import serve
from tests.support.caches import cache_name
from tests.support.page import WIDGET_HELPERS

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
TIMEOUT_MS = 60_000

# The page registers sw.js through web/boot/sw-register.js once its engine is ready;
# importing the module here is the same (a no-op if the page already did).
REGISTER = """
async () => {
  const { registration } = await import("/boot/sw-register.js");
  const reg = await registration;
  if (!reg) return "not registered";
  const timeout = new Promise((r) => setTimeout(() => r("timed out"), 45000));
  return Promise.race([navigator.serviceWorker.ready.then((r) => (r.active ? "active" : "none")), timeout]);
}
"""

# Registers sw.js directly and reports how its install ends.
INSTALL_OUTCOME = """
async () => {
  const reg = await navigator.serviceWorker.register("/sw.js");
  const worker = reg.installing ?? reg.waiting ?? reg.active;
  if (worker.state === "activated") return "activated";
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timed out"), 45000);
    worker.addEventListener("statechange", () => {
      if (worker.state === "activated" || worker.state === "redundant") {
        clearTimeout(timer);
        resolve(worker.state);
      }
    });
  });
}
"""


@pytest.fixture
def own_site(built_dist):
    """The built site on a server of its own: (url, stop)."""
    server, url = serve.serve_in_thread(built_dist)
    running = [True]

    def stop():
        if running[0]:
            running[0] = False
            server.stop()

    yield url, stop
    stop()


@pytest.fixture
def sw_page(browser):
    """A page in a fresh context that allows service workers; the test fails on
    page errors and on any request that leaves this machine."""
    context = browser.new_context(service_workers="allow")
    context.add_init_script(WIDGET_HELPERS)
    context.set_default_timeout(TIMEOUT_MS)
    strays, errors = [], []
    context.on(
        "request",
        lambda r: (
            strays.append(r.url)
            if urlsplit(r.url).hostname not in LOCAL_HOSTS and urlsplit(r.url).scheme != "data"
            else None
        ),
    )
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not strays, f"requests to other origins: {strays}"
    assert not errors, f"page errors: {errors}"


def wait_engine_ready(page):
    page.wait_for_function(
        "() => ['ready', 'error'].includes(document.documentElement.dataset.engine)", timeout=TIMEOUT_MS, polling=100
    )
    state = page.evaluate("document.documentElement.dataset.engine")
    assert state == "ready", page.evaluate("gwRoot().getElementById('engine-error-text')?.textContent ?? ''")


# Whether each of the page's requests for a file went through the service worker.
THROUGH_WORKER_JS = """(path) => performance.getEntriesByType('resource')
  .filter((e) => new URL(e.name).pathname === path)
  .map((e) => e.workerStart > 0)"""


def build_id(dist) -> str:
    return json.loads((dist / "build.json").read_text())["build_id"]


def test_offline_reload_still_boots_the_engine(sw_page, own_site, built_dist):
    url, stop = own_site
    page = sw_page
    # Caches left by an older build of this site, and by a build from before caches were
    # named by their site, are deleted when this build activates; another site's (a site
    # in another folder of this origin) is kept. They are made before the page loads, on
    # a file of the origin that registers no worker: the page registers sw.js once its
    # engine is ready, and a worker that activated before they existed would keep them.
    own = cache_name(url, build_id(built_dist))
    older = cache_name(url, "0123456789abcdef0123")
    other_site = cache_name(url + "elsewhere/", "0123456789abcdef0123")
    page.goto(url + "build.json")
    for name in (older, "gradwalk-0123456789abcdef0123", other_site):
        page.evaluate("(name) => caches.open(name).then((c) => c.put('/old', new Response('old')))", name)
    page.goto(url + "?preset=diamond")
    wait_engine_ready(page)
    assert page.evaluate(REGISTER) == "active"
    assert sorted(page.evaluate("caches.keys()")) == sorted([own, other_site])

    # Second visit: the service worker controls the page and serves the files.
    response = page.reload()
    assert response.from_service_worker
    assert page.evaluate("!!navigator.serviceWorker.controller")
    wait_engine_ready(page)

    # The service worker serves the build's subresources (each checked against the
    # build's sha256 first: no Static Routing API route hands the browser the cache
    # unchecked; tests/runtime/test_code_escape.py poisons an entry).
    assert page.evaluate(THROUGH_WORKER_JS, "/page.js") == [True]  # the page's one (bundled) module
    # A file evicted from the cache (the first paint's data, which the page can do
    # without) is fetched from the network instead.
    page.evaluate(
        "(name) => caches.open(name).then((c) => c.delete(location.origin + '/prerender/all.json'))",
        own,
    )
    page.reload()
    wait_engine_ready(page)
    assert page.evaluate(THROUGH_WORKER_JS, "/prerender/all.json") == [True]

    # Offline: the server is gone, and the page still boots Python and shows the graph.
    stop()
    response = page.reload()
    assert response.from_service_worker
    wait_engine_ready(page)
    nodes = page.eval_on_selector_all("svg [data-node]", "els => els.map(e => e.dataset.node)")
    assert {"a", "b", "c", "d"} <= set(nodes)
    # Files come back with their own types (WebAssembly must be application/wasm).
    info = json.loads((built_dist / "build.json").read_text())
    wasm_type = page.evaluate(
        "(u) => fetch(u).then((r) => r.headers.get('content-type'))", "/" + info["pyodide_index"] + "pyodide.asm.wasm"
    )
    assert wasm_type == "application/wasm"
    # A file that is not part of the build is not made up.
    assert page.evaluate("fetch('/not-in-the-build.txt').then(() => 'answered', () => 'failed')") == "failed"


def test_a_file_from_another_build_fails_the_install(sw_page, serve_copy):
    # The server has a file that is not the one this build's sw.js lists (as when
    # a new build is deployed while the old one is being cached): nothing may be
    # cached, so the page never mixes two builds.
    def other_build(site):
        css = site / "style.css"
        css.write_text(css.read_text() + "\n/* another build */\n")
        for packed in (site / "style.css.gz", site / "style.css.br"):
            packed.unlink(missing_ok=True)

    url = serve_copy(other_build)
    page = sw_page
    page.goto(url)
    assert page.evaluate(INSTALL_OUTCOME) == "redundant"
    assert page.evaluate("caches.keys()") == []
    assert page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r?.active ?? null)") is None


def test_service_worker_only_serves_its_own_build(built_dist):
    # What ties sw.js to a build: its cache name and its file list.
    text = (built_dist / "sw.js").read_text()
    manifest = json.loads(re.search(r"const MANIFEST = (\{.*?\});\n", text).group(1))
    assert manifest["build_id"] == build_id(built_dist)
    assert "index.html" in manifest["files"] and "build.json" in manifest["files"]


# --- the first visit's precache: only the fast path's files, only after engine ready ----

# Records, before any of the page's scripts run, the wall-clock time at which the
# engine became ready (the server logs its requests on the same clock).
READY_CLOCK = """
(() => {
  const check = () => {
    if (window.__gwReadyAt == null && document.documentElement?.dataset.engine === "ready") {
      window.__gwReadyAt = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-engine"] });
})();
"""

# The build's files in its cache (not the memory snapshot the engine's worker
# keeps there too, web/boot/snapshot.js: that is no file of the build).
CACHED_FILES = """(name) => caches.open(name).then((c) => c.keys())
  .then((requests) => requests.map((r) => new URL(r.url).pathname.slice(1)))
  .then((paths) => paths.filter((p) => p !== "snapshots/python.bin"))"""


@pytest.fixture
def logged_site(built_dist):
    """The built site on a server that logs every request it answers: (url, log of (time, path))."""
    import threading
    import time
    from functools import partial

    log, lock = [], threading.Lock()

    class Logged(serve.SiteHandler):
        quiet = True

        def do_GET(self):
            with lock:
                log.append((time.time() * 1000, urlsplit(self.path).path.lstrip("/")))
            super().do_GET()

    server = serve.SiteServer(("127.0.0.1", 0), partial(Logged, directory=str(built_dist)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield serve.url_of(server), log
    server.stop()


def manifest_of(dist) -> dict:
    text = (dist / "sw.js").read_text()
    return json.loads(re.search(r"const MANIFEST = (\{.*?\});\n", text).group(1))


def test_precache_takes_only_the_fast_path_and_waits_for_engine_ready(browser, logged_site, built_dist):
    url, log = logged_site
    info = json.loads((built_dist / "build.json").read_text())
    manifest = manifest_of(built_dist)
    # The stock path's own files and the full precompiled stdlib (the fast path boots
    # the trimmed one), and nothing the fast path uses.
    stock_only = {info["stdlib"], info["micropip_wheel"], info["engine_wheel"]}
    on_demand = stock_only | {info["stdlib_pyc_full"]}
    assert set(manifest["on_demand"]) == on_demand
    assert not on_demand & {info["stdlib_pyc"], info["engine_wheel_pyc"]}

    context = browser.new_context(service_workers="allow")
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(WIDGET_HELPERS)
    context.add_init_script(READY_CLOCK)
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        wait_engine_ready(page)
        assert page.evaluate(REGISTER) == "active"
        ready_at = page.evaluate("window.__gwReadyAt")
        cache = cache_name(url, build_id(built_dist))

        # The service worker was fetched only after the engine was ready, so its
        # precache never shared the link with the boot.
        sw_fetched = [t for t, path in log if path == "sw.js"]
        assert sw_fetched and min(sw_fetched) > ready_at
        # It cached every file of the build but the on-demand ones, which nobody fetched.
        cached = set(page.evaluate(CACHED_FILES, cache))
        assert cached == set(manifest["files"]) - on_demand
        assert not on_demand & {path for _, path in log}

        # The stock path still works: its files come from the network when asked for.
        before = len(log)
        page.goto(url + "?boot=stock&preset=diamond")
        assert page.evaluate("!!navigator.serviceWorker.controller")
        wait_engine_ready(page)
        fetched = {path for _, path in log[before:]}
        assert stock_only <= fetched, stock_only - fetched
        nodes = page.eval_on_selector_all("svg [data-node]", "els => els.map(e => e.dataset.node)")
        assert {"a", "b", "c", "d"} <= set(nodes)
        # ... and they are still not kept: the cache holds this build's fast path alone.
        assert set(page.evaluate(CACHED_FILES, cache)) == cached
    finally:
        context.close()
    assert not errors, errors
