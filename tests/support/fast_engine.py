"""A fast engine for browser tests of the page's behaviour: the site's engine worker
(web/worker.js) replaced, for one browser context, by a stand-in that answers every
request with CPython's own engine.api.handle, the same function Pyodide runs in the
real worker (tests/runtime/test_pyodide_parity.py and pyodide_parity.mjs prove the
answers equal byte for byte). A page then needs no Pyodide boot (about 2 s of CPU
each), so a test of what the page does with an answer costs what the page costs.

    from tests.support.fast_engine import route_fast_engine
    route_fast_engine(context)   # before the page opens; or mark a test real_engine

The stand-in speaks the worker's protocol (docs/api.md, "Worker protocol"): it says
it is ready at once, then posts each request to a path of the site's origin that the
context's route answers with engine.api.handle, in order, one at a time. Everything
else the page does (its modules, the code worker, the service worker) is the site's.
Tests where Pyodide itself is the subject (tests/runtime, the hosts, the cross-origin
and site tests, the memory snapshot, the code sandbox) keep the real worker: the
`real_engine` marker.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from engine import api

ENGINE_PATH = "/__test__/engine"

# The stand-in worker: the real worker's messages, CPython's answers.
STANDIN_WORKER = """
const ENGINE = new URL("ENGINE_PATH", import.meta.url).href;
self.postMessage({ type: "ready", boot: "fast", ms: 0, timings: {}, snapshot: "unused" });
let turn = Promise.resolve();
self.onmessage = (event) => {
  const { id, request } = event.data ?? {};
  turn = turn.then(async () => {
    try {
      const response = await fetch(ENGINE, { method: "POST", body: request });
      const text = await response.text();
      self.postMessage(response.ok ? { id, response: text } : { id, error: text, detail: text });
    } catch (error) {
      self.postMessage({ id, error: String(error), detail: String(error) });
    }
  });
};
""".replace("ENGINE_PATH", ENGINE_PATH.lstrip("/"))


def is_engine_worker(url: str) -> bool:
    """The site's engine worker script (not code-worker.js, not a worker of another site)."""
    return urlsplit(url).path.rsplit("/", 1)[-1] == "worker.js"


def is_engine_call(url: str) -> bool:
    return urlsplit(url).path.endswith(ENGINE_PATH)


def answer(route) -> bool:
    """Answer `route` if it is the engine worker's script or a call to the engine;
    True when it did."""
    url = route.request.url
    headers = {"Access-Control-Allow-Origin": "*", "Cache-Control": "no-store"}
    if is_engine_worker(url):
        route.fulfill(body=STANDIN_WORKER, content_type="text/javascript", headers=headers)
        return True
    if is_engine_call(url) and route.request.method == "POST":
        try:
            body, status = api.handle(route.request.post_data or ""), 200
        except Exception as error:  # the real worker says its error; so does this one
            body, status = f"{type(error).__name__}: {error}", 500
        route.fulfill(body=body, status=status, content_type="application/json", headers=headers)
        return True
    return False


def route_fast_engine(context) -> None:
    """Serve the stand-in engine worker and answer its calls in `context`."""
    context.route(lambda url: is_engine_worker(url) or is_engine_call(url), lambda route: answer(route))
