"""The code runner in Chromium: web/code-worker.js, where a learner's own Python runs, in
the code sandbox (web/boot/code-sandbox.js), driven through web/boot/code-runner.js. A run
answers; the learner's errors come back as data; an endless loop, memory without end and
hostile code each end with a message and a fresh worker that then answers; forged
messages are refused; and the engine's own worker, on the same page, answers exactly as
before throughout. What the sandbox walls off (the network, the origin's storage) is
tests/runtime/test_code_escape.py's.

The entry the code worker calls is, here, a stand-in (tests/support/code_standin.py): it
executes the request's `source` and answers JSON, as the real entry does, so that these
tests exercise the sandbox itself whatever the mode's engine module answers. The worker
imports it through its test hook (`module=`, a file of the site's origin, which this
test serves). One page and one server for the whole file: each test leaves the runner
with a worker that answers.
"""

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from buildtools import csp
from engine import api
from tests.support.caches import SNAPSHOT_KEPT
from tests.support.code_standin import STANDIN, STANDIN_PATH
from tests.support.page import WIDGET_HELPERS, choose, nodes, snapshot, wait_ready

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here
ROOT = Path(__file__).resolve().parents[2]

BLANK_PATH = "__test__/sandbox.html"
BLANK_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
    + csp.META_TAG
    + "<link rel='icon' href='data:,'><title>code sandbox</title></head><body></body></html>"
)
TIME_LIMIT_MS = 2000
MEMORY_LIMIT_MB = 256
LOAD = {"cmd": "load", "preset": "diamond"}
WAIT_MS = 60_000  # the last resort of every wait in the page (the runner's own limits come first)

SETUP = """
async ({ timeLimitMs, memoryLimitMB, module }) => {
  const { createCodeRunner } = await import("/boot/code-runner.js");
  const { createEngine } = await import("/boot/engine-client.js");
  const engine = createEngine();
  const runner = createCodeRunner({ entry: "standin.run", module, timeLimitMs, memoryLimitMB });
  window.sandbox = { engine, runner };
  await Promise.all([engine.ready, runner.start()]);
}
"""

RUN = """
async ({ source, deadlineMs }) => {
  const { runner } = window.sandbox;
  const started = performance.now();
  const outcome = runner.run({ source }).then(
    (result) => ({ result }),
    (error) => ({ kind: error.kind, message: error.message, details: error.details, name: error.name }),
  );
  const late = new Promise((resolve) => setTimeout(() => resolve({ hung: true }), deadlineMs));
  const out = await Promise.race([outcome, late]);
  return { ...out, ms: performance.now() - started, replaced: runner.replaced, refusals: runner.refusals,
    boot: runner.bootInfo?.boot ?? null, heap: runner.heapBytes };
}
"""

ENGINE_LOAD = """
async (request) => JSON.stringify(await window.sandbox.engine.call(request))
"""

# Resolves once the runner has a worker that can run code again (after a replacement).
RUNNER_READY = """
async (deadlineMs) => Promise.race([
  window.sandbox.runner.ready.then(() => window.sandbox.runner.bootInfo.boot, (e) => "failed: " + e.message),
  new Promise((resolve) => setTimeout(() => resolve("hung"), deadlineMs)),
])
"""


def guarded_context(browser, site_url, problems):
    """A browser context that serves the test's pages and the stand-in entry, records
    in `problems` any request off the site, and whose pages record console errors."""
    context = browser.new_context(service_workers="block")
    context.set_default_timeout(WAIT_MS)
    context.add_init_script(WIDGET_HELPERS)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(site_url))

    def guard(route):
        url = route.request.url
        if url.startswith(origin):
            path = urlsplit(url).path
            if path.endswith("/" + BLANK_PATH):
                return route.fulfill(body=BLANK_HTML, content_type="text/html")
            if path.endswith("/" + STANDIN_PATH):
                return route.fulfill(body=STANDIN, content_type="text/x-python")
            return route.continue_()
        problems.append(f"request off the site: {url}")
        return route.abort()

    context.route("**/*", guard)
    context.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    context.on("weberror", lambda e: problems.append(f"page error: {e.error}"))
    return context


@pytest.fixture(scope="module")
def sandbox(browser, site_url):
    """One page of the site's origin with an engine and a code runner on it, and what
    it did that a healthy page never does (console errors, requests off the site)."""
    problems = []
    context = guarded_context(browser, site_url, problems)
    page = context.new_page()
    page.goto(site_url + BLANK_PATH)
    page.evaluate(SETUP, {"timeLimitMs": TIME_LIMIT_MS, "memoryLimitMB": MEMORY_LIMIT_MB, "module": STANDIN_PATH})
    page.problems = problems
    yield page
    context.close()


@pytest.fixture
def page(sandbox):
    """The shared page, checked after each test for what it should never do."""
    sandbox.problems.clear()
    yield sandbox
    problems = list(sandbox.problems)
    sandbox.problems.clear()
    assert not problems, "\n".join(problems)


def run(page, source):
    out = page.evaluate(RUN, {"source": source, "deadlineMs": WAIT_MS})
    assert not out.get("hung"), "the code runner hung past every one of its limits"
    return out


def engine_load(page, request=LOAD):
    return page.evaluate(ENGINE_LOAD, request)


def cpython(request):
    return json.loads(api.handle(json.dumps(request)))


def answers_again(page, replaced_before):
    """After a replacement: the fresh worker boots and answers a run."""
    booted = page.evaluate(RUNNER_READY, WAIT_MS)
    assert booted in ("fast", "snapshot"), booted
    out = run(page, "result = 6 * 7")
    assert out.get("result") == {"ok": True, "result": "42"}, out
    assert out["replaced"] == replaced_before, "a clean run must keep its worker"
    return out


def test_a_run_answers_and_keeps_its_worker(page):
    first = run(page, "result = [n * n for n in range(4)]")
    assert first["result"] == {"ok": True, "result": "[0, 1, 4, 9]"}
    second = run(page, "result = 'again'")
    assert second["result"] == {"ok": True, "result": "'again'"}
    assert second["replaced"] == first["replaced"]
    assert first["boot"] in ("fast", "snapshot")


@pytest.mark.parametrize(
    "source, error, line",
    [
        ("a = 1\nb = (a +\n", "SyntaxError", 2),
        ("def f(x):\n    return x / 0\n\nf(1)\n", "ZeroDivisionError", 2),
        ("import no_such_module\n", "ModuleNotFoundError", 1),
        ("def f(n):\n    return f(n + 1)\nf(0)\n", "RecursionError", 2),
    ],
)
def test_errors_come_back_as_data(page, source, error, line):
    before = run(page, "result = 0")["replaced"]
    out = run(page, source)
    assert out.get("result") == {"ok": False, "error": {"type": error, "line": line}}, out
    assert out["replaced"] == before, "an error in the learner's code is an answer, not a broken worker"


# What a learner's ordinary code does (imports, classes, exceptions, warnings, output,
# the engine itself) must not count as changing Python, or every run would cost a boot.
ORDINARY = [
    "import math, random, fractions, collections, re\nresult = re.sub('a', 'b', 'aa')",
    "class Value:\n    def __init__(self, d):\n        self.data = d\n    def __add__(self, o):\n"
    "        return Value(self.data + o.data)\nresult = (Value(1) + Value(2)).data",
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    result = str(e)",
    "import warnings\nwarnings.warn('careful')\nprint('hello')\nresult = 1",
    'from engine import api\nresult = api.handle(\'{"cmd": "load", "preset": "diamond"}\')[:10]',
    "import sys\nsys.setrecursionlimit(sys.getrecursionlimit())\nresult = sorted({3, 1, 2})",
]


def test_ordinary_code_keeps_the_worker(page):
    before = run(page, "result = 0")["replaced"]
    for source in ORDINARY:
        out = run(page, source)
        assert out.get("result", {}).get("ok") is True, (source, out)
        assert out["replaced"] == before, (source, out)


def test_an_endless_loop_hits_the_time_limit_and_a_fresh_worker_answers(page):
    engine_before = engine_load(page)
    before = run(page, "result = 0")["replaced"]
    out = run(page, "n = 0\nwhile True:\n    n += 1\n")
    assert out["kind"] == "time" and out["name"] == "CodeRunError"
    assert out["message"].startswith("Your code ran for more than 2 s (an endless loop?)")
    assert TIME_LIMIT_MS <= out["ms"] < TIME_LIMIT_MS + 1500
    assert out["replaced"] == before + 1
    answers_again(page, before + 1)
    assert engine_load(page) == engine_before
    assert json.loads(engine_before) == cpython(LOAD)


@pytest.mark.parametrize(
    "source",
    [
        "x = []\nwhile True:\n    x.append(' ' * 10**6)\n",
        # Catching the MemoryError does not lift the limit, nor keep the grown worker.
        "x = []\ntry:\n    while True:\n        x.append(' ' * 10**6)\nexcept MemoryError:\n    x = None\nresult = 1\n",
    ],
    ids=["grows", "caught"],
)
def test_memory_without_end_is_contained(page, source):
    engine_before = engine_load(page)
    before = run(page, "result = 0")["replaced"]
    out = run(page, source)
    assert out["kind"] == "memory", out
    assert out["message"].startswith(f"Your code used more than {MEMORY_LIMIT_MB} MB of memory")
    # The heap's ceiling stopped it, not the clock: Python's heap grew to the limit and
    # no further (a growth may overshoot the last request by a fifth).
    assert out["ms"] < TIME_LIMIT_MS, out["ms"]
    print(f"memory limit hit after {out['ms']:.0f} ms, heap {out['heap'] / 2**20:.0f} MiB")
    assert MEMORY_LIMIT_MB * 0.8 <= out["heap"] / 2**20 <= MEMORY_LIMIT_MB * 1.25, out["heap"]
    assert out["replaced"] == before + 1
    answers_again(page, before + 1)
    assert engine_load(page) == engine_before


# An answer with every field right but the nonce, which the learner's code never sees:
# the id is the one the page gives the hostile run (NEXT_ID, filled in by the test).
FORGED_ANSWER = {
    "id": "NEXT_ID",
    "nonce": "0" * 32,
    "result": json.dumps({"ok": True, "result": "'forged'"}),
    "heap": 0,
    "refused": False,
    "changed": [],
}
# The learner's code cannot import js or pyodide (web/worker/lockdown.js), but Python
# cannot wall off Python: hostile code finds the runtime's JavaScript proxies among
# gc's objects, as these probes do.
HUNT = (
    "import gc\n"
    "_finder = next(o for o in gc.get_objects() if type(o).__name__ == 'JsFinder')\n"
    "js, pyodide_js = _finder.jsproxies['js'], _finder.jsproxies['pyodide_js']\n"
    "create_proxy = next(o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == 'pyodide.ffi')"
    ".create_proxy\n"
)
HOSTILE = {
    "deletes a builtin": ("import builtins\ndel builtins.len\nresult = 1", "changed", "deleted builtins.len"),
    "empties the builtins": ("__builtins__.clear()", "changed", "deleted builtins."),
    "patches sys.modules": ("import sys\nsys.modules['json'] = None\nresult = 1", "changed", "sys.modules['json']"),
    "empties sys.modules": ("import sys\nsys.modules.clear()\nresult = 1", "changed", "deleted sys.modules["),
    "patches a module": ("import math\nmath.sqrt = abs\nresult = 1", "changed", "replaced math.sqrt"),
    "forges an answer": (
        f"{HUNT}import json\njs.postMessage(js.JSON.parse(json.dumps({FORGED_ANSWER!r})))\nresult = 1",
        "protocol",
        "not this run's nonce",
    ),
    "forges the ready message": (
        HUNT + 'js.postMessage(js.JSON.parse(\'{"type": "ready", "boot": "fast", "ms": 1, '
        '"timings": {}}\'))\nresult = 1',
        "protocol",
        "does not accept",
    ),
    "runs Python through pyodide_js": (
        HUNT + "pyodide_js.runPython('import sys; del sys.modules[\"json\"]')\nresult = 1",
        "changed",
        "deleted sys.modules['json']",
    ),
    "replaces the worker's message handler": (
        HUNT + "js.onmessage = create_proxy(lambda e: None)\nresult = 1",
        None,  # the run itself answers; the next one is never answered, and hits the time limit
        None,
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_code_is_contained(page, name):
    source, kind, said = HOSTILE[name]
    engine_before = engine_load(page)
    before = run(page, "result = 0")["replaced"]
    next_id = page.evaluate("() => window.sandbox.runner.nextId") + 1
    out = run(page, source.replace("'NEXT_ID'", str(next_id)))
    if kind is None:
        assert out.get("result") == {"ok": True, "result": "1"}, out
        out = run(page, "result = 2")
        kind, said = "time", "Your code ran for more than"
    assert out.get("kind") == kind, out
    assert "result" not in out, "a hostile run's answer must never be used"
    assert said in out["message"] + " ".join(out.get("details") or []), out
    assert "a fresh Python is starting for your next run" in out["message"]
    assert out["replaced"] == before + 1
    if kind == "protocol":
        assert out["refusals"], "the refused message is on record"
    answers_again(page, before + 1)
    after = engine_load(page)
    assert after == engine_before
    assert json.loads(after) == cpython(LOAD)


def test_a_late_forged_message_replaces_the_worker(page):
    # Code that schedules a message for after its run: nothing is running, so the
    # message is refused and the worker thrown away before the next run.
    before = run(page, "result = 0")["replaced"]
    source = HUNT + "js.setTimeout(create_proxy(lambda: js.postMessage('later')), 50)\nresult = 1"
    out = run(page, source)
    assert out.get("result") == {"ok": True, "result": "1"}, out
    page.wait_for_function("(n) => window.sandbox.runner.replaced > n", arg=before, timeout=10_000)
    refusals = page.evaluate("() => window.sandbox.runner.refusals")
    assert refusals[-1] == "a message while no code was running"
    answers_again(page, before + 1)


def test_the_code_worker_boots_from_the_engines_memory_snapshot(page):
    # Once the engine's worker has kept its memory snapshot (it does when idle), a
    # fresh code worker restores it instead of starting Python.
    assert page.evaluate(SNAPSHOT_KEPT, 30_000), "the engine's worker kept no snapshot within 30 s"
    before = run(page, "result = 0")["replaced"]
    out = run(page, "while True:\n    pass\n")
    assert out["kind"] == "time"
    booted = page.evaluate(RUNNER_READY, WAIT_MS)
    assert booted == "snapshot"
    answers_again(page, before + 1)


def test_the_widget_on_the_page_answers_as_before(browser, site_url):
    # The real page, its widget on the page's one engine: hostile runs in a code worker
    # beside it, each ending in a fresh worker, and the widget shows what it showed.
    problems = []
    context = guarded_context(browser, site_url, problems)
    try:
        page = context.new_page()
        page.goto(site_url + "?preset=diamond")
        wait_ready(page)
        choose(page, "diamond")
        page.keyboard.press("End")
        before = snapshot(page)
        outcomes = page.evaluate(WIDGET_NEIGHBOUR, {"sources": WIDGET_NEIGHBOUR_SOURCES, "module": STANDIN_PATH})
        assert [o["kind"] for o in outcomes] == ["time", "memory", "changed", "protocol", None], outcomes
        assert outcomes[-1]["result"] == {"ok": True, "result": "42"}
        assert page.evaluate("document.documentElement.dataset.engine") == "ready"
        choose(page, "neuron")
        choose(page, "diamond")
        page.keyboard.press("End")
        assert snapshot(page) == before
        assert set(nodes(page)) == {node["label"] for node in cpython(LOAD)["nodes"]}
    finally:
        context.close()
    assert not problems, "\n".join(problems)


WIDGET_NEIGHBOUR_SOURCES = [
    "while True:\n    pass\n",
    "x = []\nwhile True:\n    x.append(' ' * 10**7)\n",
    "import builtins\ndel builtins.len\nresult = 1",
    HUNT + "js.postMessage('forged')\nresult = 1",
    "result = 6 * 7",
]
WIDGET_NEIGHBOUR = """
async ({ sources, module }) => {
  const { createCodeRunner } = await import("/boot/code-runner.js");
  const runner = createCodeRunner({ entry: "standin.run", module, timeLimitMs: 2000, memoryLimitMB: 96 });
  const outcomes = [];
  for (const source of sources) {
    outcomes.push(await runner.run({ source }).then((result) => ({ kind: null, result }), (e) => ({ kind: e.kind })));
  }
  runner.terminate();
  return outcomes;
}
"""


def test_the_code_worker_is_one_classic_script(built_dist):
    # The sandbox starts it from its text as a classic worker (a module worker cannot
    # start from an opaque origin's blob: URL), so it is one script with no import
    # statement; its jobs (web/worker/) are inside it, and the boot is shared, not copied.
    bundled = (built_dist / "code-worker.js").read_text()
    assert bundled.startswith("(()=>{")
    assert not re.search(r'\bimport\s*[^;(]*?from\s*["\']', bundled)
    assert not re.search(r"\bexport\s*[{*]", bundled)
    for said in ("emscripten_resize_heap", "_gradwalk_watch", "_gradwalk_lock_down", "gradwalk.invalid"):
        assert said in bundled, said
    source = (ROOT / "web" / "code-worker.js").read_text()
    assert "./worker/given-boot.js" in source and "loadPyodide" not in source
