"""The memory snapshot (web/boot/snapshot.js): the first visit's worker keeps a
snapshot of Python with the engine imported in the build's Cache Storage, the
next visit restores it (boot "snapshot"), and a snapshot that is truncated,
corrupted or from another Pyodide build is dropped: the page boots the fast way,
the engine answers, and a good snapshot is made again.

The byte-for-byte parity of a restored engine is tests/runtime/test_pyodide_parity.py's
("snapshot" run, under Node); here it is the browser, the cache and the fallback.
"""

import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from engine import api
from tests.support.caches import SNAPSHOT_REPORTS, build_id_of, cache_name
from tests.support.page import WIDGET_HELPERS

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

TIMEOUT_MS = 60_000
SNAPSHOT_PATH = "/snapshots/python.bin"

# How the page's engine worker booted: {boot, snapshot} from its ready message.
BOOTED = """() => {
  const detail = performance.getEntriesByName('gw:worker-ready')[0]?.detail;
  return detail ? { boot: detail.boot, snapshot: detail.snapshot } : null;
}"""

# The stored snapshot's SHA-256 header (null when there is none).
STORED = """async ([name, path]) => {
  const cache = await caches.open(name);
  const key = (await cache.keys()).find((r) => new URL(r.url).pathname === path);
  return key ? (await cache.match(key)).headers.get("x-gradwalk-sha256") : null;
}"""

# Damages the stored snapshot the way the test says, keeping it under its key.
DAMAGE = """async ([name, path, how]) => {
  const cache = await caches.open(name);
  const key = (await cache.keys()).find((r) => new URL(r.url).pathname === path);
  const stored = await cache.match(key);
  let bytes = new Uint8Array(await stored.arrayBuffer());
  const headers = new Headers(stored.headers);
  const sha256 = async (b) => Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", b)),
    (x) => x.toString(16).padStart(2, "0")).join("");
  if (how === "truncated") bytes = bytes.slice(0, bytes.length >> 1);
  if (how === "corrupted") bytes[(bytes.length >> 1) + 12345] ^= 0x5a;  // a byte of the heap
  if (how === "another Pyodide build") {
    // A byte of Pyodide's build id (bytes 16-47 of its header, stored after
    // packPages' header and page bitmap: the first page is never all zeros) ...
    const at = 12 + Math.ceil(Math.ceil(new DataView(bytes.buffer).getUint32(8, true) / 4096) / 8) + 20;
    bytes[at] ^= 0x01;
    headers.set("x-gradwalk-sha256", await sha256(bytes));  // ... under a matching checksum
  }
  await cache.put(key, new Response(bytes, { headers }));
  return bytes.length;
}"""

ENGINE_CALL = """async (request) => {
  const { createEngine } = await import("/boot/engine-client.js");
  const engine = createEngine();
  try {
    await engine.ready;
    return { boot: engine.bootInfo.boot, answer: await engine.call(request) };
  } finally {
    engine.terminate();
  }
}"""


@pytest.fixture
def context(browser):
    """A fresh context (its own Cache Storage); service workers blocked, so that
    only the engine's worker writes to the build's cache."""
    context = browser.new_context(service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(WIDGET_HELPERS)
    context.add_init_script(SNAPSHOT_REPORTS)  # for wait_stored
    yield context
    context.close()


def visit(page, url) -> dict:
    page.goto(url)
    page.wait_for_function(
        "() => ['ready', 'error'].includes(document.documentElement.dataset.engine)", timeout=TIMEOUT_MS, polling=100
    )
    assert page.evaluate("document.documentElement.dataset.engine") == "ready", page.evaluate(
        "gwRoot().getElementById('engine-error-text')?.textContent ?? ''"
    )
    nodes = page.eval_on_selector_all("svg [data-node]", "els => els.map(e => e.dataset.node)")
    assert {"a", "b", "c", "d"} <= set(nodes)
    return page.evaluate(BOOTED)


def wait_stored(page, name) -> str:
    """The SHA-256 of the snapshot the worker stores (once it says it has stored it)."""
    try:
        page.wait_for_function("() => globalThis.gwSnapshotStates.length > 0", timeout=30_000)
    except PlaywrightTimeoutError:
        pytest.fail("no snapshot was stored within 30 s of engine ready")
    assert page.evaluate("() => globalThis.gwSnapshotStates") == ["stored"]
    sha = page.evaluate(STORED, [name, SNAPSHOT_PATH])
    assert sha is not None, "the worker said it stored its snapshot, but the cache does not hold it"
    return sha


def test_second_visit_restores_the_snapshot_and_answers_the_same(context, site_url, built_dist):
    page = context.new_page()
    url = site_url + "?preset=diamond"
    assert visit(page, url) == {"boot": "fast", "snapshot": "none kept"}
    wait_stored(page, cache_name(site_url, build_id_of(built_dist)))

    assert visit(page, url) == {"boot": "snapshot", "snapshot": "restored"}
    # A restored engine answers exactly what the engine answers in CPython.
    request = {"cmd": "load", "preset": "double-diamond", "values": {"a": -1.5}}
    result = page.evaluate(ENGINE_CALL, request)
    assert result["boot"] == "snapshot"
    assert result["answer"] == json.loads(api.handle(json.dumps(request)))


@pytest.mark.parametrize("how", ["truncated", "corrupted", "another Pyodide build"])
def test_a_bad_snapshot_is_dropped_and_made_again(context, site_url, built_dist, how):
    page = context.new_page()
    url = site_url + "?preset=diamond"
    name = cache_name(site_url, build_id_of(built_dist))
    visit(page, url)
    wait_stored(page, name)
    page.evaluate(DAMAGE, [name, SNAPSHOT_PATH, how])

    booted = visit(page, url)  # the page still boots, the fast way, and its engine answers
    assert booted["boot"] == "fast"
    if how == "another Pyodide build":
        assert booted["snapshot"] == "the snapshot did not restore: Snapshot build id mismatch"
    else:  # found by the SHA-256 or, cut short, by the layout, whichever comes first
        assert booted["snapshot"] in (
            "the stored snapshot is damaged: its bytes do not match their SHA-256",
            "the stored snapshot is damaged: it is cut short",
        )
    # The bad one was dropped before the engine was ready (so what is stored now is
    # new; no two snapshots are byte-identical) and a good one made again, which
    # the next visit restores.
    wait_stored(page, name)
    assert visit(page, url) == {"boot": "snapshot", "snapshot": "restored"}
