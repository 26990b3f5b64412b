"""The engine worker in Chromium, through web/boot/engine-client.js: it boots from
the site's own files, answers like CPython, reports progress, and every way it
can go wrong ends in a readable rejection within its time limit, not a hang."""

import json
import re
import zipfile

import pytest

from engine import api

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

# Boots an engine in the page, runs `requests` through it, and returns what
# happened. Every wait inside is bounded by engine-client's own timeouts; the
# outer deadline is a last resort so that page.evaluate can never hang.
BOOT_AND_CALL = """
async ({ requests, options, parallel, deadlineMs }) => {
  const { createEngine } = await import("/boot/engine-client.js");
  const run = async () => {
    const progress = [];
    const started = performance.now();
    const engine = createEngine({ ...options, onProgress: (p) => progress.push(p) });
    try {
      await engine.ready;
    } catch (error) {
      return { failed: error.message, errorName: error.name, ms: performance.now() - started, progress };
    }
    const bootMs = performance.now() - started;
    const bootInfo = engine.bootInfo;
    try {
      const answers = parallel
        ? await Promise.all(requests.map((r) => engine.call(r)))
        : await (async () => {
          const out = [];
          for (const r of requests) out.push(await engine.call(r));
          return out;
        })();
      return { bootMs, bootInfo, answers, progress };
    } catch (error) {
      const afterRestart = await engine.ready.then(() => "ready", (e) => e.message);
      return { bootMs, callFailed: error.message, progress, afterRestart };
    } finally {
      engine.terminate();
    }
  };
  const deadline = new Promise((resolve) => setTimeout(() => resolve({ hung: true }), deadlineMs));
  return Promise.race([run(), deadline]);
}
"""


def boot_and_call(page, requests=(), parallel=False, deadline_ms=60_000, **options):
    result = page.evaluate(
        BOOT_AND_CALL, {"requests": list(requests), "options": options, "parallel": parallel, "deadlineMs": deadline_ms}
    )
    assert not result.get("hung"), "the engine client hung past every one of its time limits"
    return result


def cpython(request: dict):
    return json.loads(api.handle(json.dumps(request)))


@pytest.mark.parametrize("boot", ["fast", "stock"])
def test_worker_boots_and_answers_like_cpython(blank_page, record_property, boot):
    requests = [{"cmd": "presets"}, {"cmd": "load", "preset": "diamond"}]
    result = boot_and_call(blank_page, requests, boot=boot)
    assert "failed" not in result, result.get("failed")
    assert result["bootInfo"]["boot"] == boot
    record_property("boot_ms", round(result["bootMs"]))
    print(f"engine boot ({boot}) in Chromium: {result['bootMs']:.0f} ms")
    assert result["answers"] == [cpython(r) for r in requests]

    stages = [p["stage"] for p in result["progress"]]
    assert stages[0] == "downloading" and stages[-1] == "installing the engine"
    assert "starting Python" in stages
    order = ["downloading", "starting Python", "installing the engine"]
    assert [order.index(s) for s in stages] == sorted(order.index(s) for s in stages)
    fractions = [p["fraction"] for p in result["progress"]]
    assert fractions == sorted(fractions) and fractions[0] >= 0 and fractions[-1] == 1


def test_parallel_calls_each_get_their_own_answer(blank_page):
    ids = [p["id"] for p in cpython({"cmd": "presets"})["presets"]]
    result = boot_and_call(blank_page, [{"cmd": "load", "preset": i} for i in ids], parallel=True)
    assert "failed" not in result, result.get("failed")
    assert [answer["preset"] for answer in result["answers"]] == ids


def test_engine_errors_are_answers_not_failures(blank_page):
    result = boot_and_call(blank_page, [{"cmd": "load", "program": "a = 2\nb = a +"}])
    assert "failed" not in result and "callFailed" not in result, result
    (answer,) = result["answers"]
    assert answer["ok"] is False and answer["error"]["kind"] == "program"


# Each missing file must end the boot with a sentence naming it, quickly: Pyodide
# alone would wait forever on some of these. `missing` is a build.json key, or a
# runtime file name, or a path in the site.
@pytest.mark.allow_console_errors
@pytest.mark.parametrize(
    "boot, missing, message",
    [
        ("fast", "pyodide.asm.wasm", "Could not download pyodide.asm.wasm (404)."),
        ("fast", "stdlib_pyc", "Could not download python_stdlib.zip (404)."),
        ("fast", "pyodide.mjs", "Could not load pyodide/{hash}/pyodide.mjs."),
        ("fast", "build.json", "Could not download build.json (404)."),
        ("fast", "engine_wheel_pyc", "Could not download gradwalk_engine-0.1.0-py3-none-any.whl (404)."),
        ("stock", "pyodide.asm.wasm", "Could not download pyodide.asm.wasm (404)."),
        ("stock", "stdlib", "Could not download python_stdlib.zip (404)."),
        ("stock", "engine_wheel", "Could not download gradwalk_engine-0.1.0-py3-none-any.whl (404)."),
    ],
)
def test_missing_runtime_file_fails_fast(serve_copy, open_blank, boot, missing, message):
    def damage(site):
        info = json.loads((site / "build.json").read_text())
        if missing in info:
            rel = info[missing]
        elif missing.startswith("pyodide"):
            rel = info["pyodide_index"] + missing
        else:
            rel = missing
        for path in (site / rel, site / (rel + ".gz"), site / (rel + ".br")):
            path.unlink(missing_ok=True)
        hashes.append(info["pyodide_index"].split("/")[1])

    hashes = []
    page = open_blank(serve_copy(damage))
    result = boot_and_call(page, bootTimeoutMs=45_000, boot=boot)
    # The file's own message, not the boot time limit's.
    assert result.get("failed") == message.format(hash=hashes[0])
    assert result["errorName"] == "EngineError"
    if boot == "fast":  # the stock path only asks for its wheel after a full boot
        assert result["ms"] < 15_000


def test_the_fast_path_needs_no_lock_file(serve_copy, open_blank):
    # It loads no package: build.json carries a lock file with none (its runtime's info), so
    # the 111 kB pyodide-lock.json is not downloaded; here it is gone, and the engine works.
    def damage(site):
        info = json.loads((site / "build.json").read_text())
        assert info["pyodide_lock_fast"]["packages"] == {}
        lock = site / info["pyodide_index"] / "pyodide-lock.json"
        assert info["pyodide_lock_fast"]["info"] == json.loads(lock.read_text())["info"]
        for path in (lock, lock.with_name(lock.name + ".gz"), lock.with_name(lock.name + ".br")):
            path.unlink(missing_ok=True)

    page = open_blank(serve_copy(damage))
    requests = [{"cmd": "presets"}, {"cmd": "load", "preset": "diamond"}]
    result = boot_and_call(page, requests)
    assert "failed" not in result, result.get("failed")
    assert result["answers"] == [cpython(r) for r in requests]


def trimmed_without(package: str):
    """A damage for serve_copy: the fast path's trimmed stdlib without `package`
    (its compressed copies removed, so the server sends the changed zip)."""

    def damage(site):
        info = json.loads((site / "build.json").read_text())
        path = site / info["stdlib_pyc"]
        with zipfile.ZipFile(path) as src:
            kept = [(item, src.read(item)) for item in src.infolist() if not item.filename.startswith(package + "/")]
        assert len(kept) < len(zipfile.ZipFile(path).infolist())
        with zipfile.ZipFile(path, "w") as out:
            for item, data in kept:
                out.writestr(item, data)
        for copy in (path.with_name(path.name + ".gz"), path.with_name(path.name + ".br")):
            copy.unlink(missing_ok=True)
        info["downloads"][info["stdlib_pyc"]] = path.stat().st_size
        (site / "build.json").write_text(json.dumps(info))
        return info

    return damage


def test_a_module_left_out_of_the_trimmed_stdlib_is_fetched_from_the_full_one(serve_copy, open_blank):
    # The engine imports tomllib: with it gone from the trimmed library, the worker's
    # fallback downloads the full one (a synchronous request) and the engine works.
    page = open_blank(serve_copy(trimmed_without("tomllib")))
    requests = [{"cmd": "presets"}, {"cmd": "load", "preset": "diamond"}]
    result = boot_and_call(page, requests)
    assert "failed" not in result, result.get("failed")
    assert result["answers"] == [cpython(r) for r in requests]


@pytest.mark.allow_console_errors
def test_a_missing_full_stdlib_is_said_when_a_module_needs_it(serve_copy, open_blank):
    def damage(site):
        info = trimmed_without("tomllib")(site)
        rel = info["stdlib_pyc_full"]
        for path in (site / rel, site / (rel + ".gz"), site / (rel + ".br")):
            path.unlink()
        full.append(rel)

    full = []
    page = open_blank(serve_copy(damage))
    result = boot_and_call(page, [{"cmd": "presets"}])
    assert re.fullmatch(
        r"ImportError: The module tomllib is not in the trimmed standard library, and the full one "
        rf"\(http://[^ ]*/{re.escape(full[0])}\) could not be downloaded "
        r"\(python_stdlib_full\.zip answered 404\)\.",
        result.get("failed", ""),
    ), result.get("failed")


@pytest.mark.allow_console_errors
def test_tampered_micropip_fails_its_integrity_check(serve_copy, open_blank):
    def damage(site):
        runtime = site / json.loads((site / "build.json").read_text())["pyodide_index"]
        lock = runtime / "pyodide-lock.json"
        data = json.loads(lock.read_text())
        wheel = runtime / data["packages"]["micropip"]["file_name"]
        wheel.write_bytes(wheel.read_bytes() + b"tampered")

    page = open_blank(serve_copy(damage))
    result = boot_and_call(page, bootTimeoutMs=20_000, boot="stock")
    assert "micropip" in result.get("failed", "") and "integrity" in result["failed"]


def test_page_url_selects_the_boot_path(open_blank, site_url):
    # engine-client.js passes the page's ?boot= on to the worker.
    page = open_blank(site_url, "?boot=stock")
    result = boot_and_call(page, [{"cmd": "presets"}])
    assert result["bootInfo"]["boot"] == "stock"
    assert {"micropip", "install engine"} <= set(result["bootInfo"]["timings"])


def test_wasm_served_with_a_generic_type_still_boots(blank_page):
    # Some static hosts send .wasm as application/octet-stream.
    relabelled = []

    def generic_type(route):
        response = route.fetch()
        relabelled.append(route.request.url)
        route.fulfill(response=response, headers={**response.headers, "content-type": "application/octet-stream"})

    blank_page.route("**/*.wasm", generic_type)
    result = boot_and_call(blank_page, [{"cmd": "presets"}])
    assert "failed" not in result, result.get("failed")
    assert relabelled and result["answers"][0]["ok"] is True


# Stand-in workers served at the site's origin, to drive the client's time limits.
FAKE_WORKERS = {
    "silent": "// never says anything\n",
    "mute": "postMessage({ type: 'ready' }); onmessage = () => {};\n",
    "broken": "this is not javascript(\n",
}


@pytest.fixture
def fake_worker(blank_page):
    loads = []

    def serve_fake(route):
        name = route.request.url.rsplit("/", 1)[1].removesuffix(".js")
        loads.append(name)
        route.fulfill(body=FAKE_WORKERS[name], content_type="text/javascript")

    blank_page.route("**/__test__/workers/*.js", serve_fake)
    return loads


def test_boot_that_never_finishes_times_out(blank_page, fake_worker):
    result = boot_and_call(blank_page, workerURL="/__test__/workers/silent.js", bootTimeoutMs=500)
    assert result["failed"] == "The engine did not start within 0.5 s."
    assert result["ms"] < 5_000


def test_hung_call_times_out_and_restarts_the_worker(blank_page, fake_worker):
    result = boot_and_call(blank_page, [{"cmd": "presets"}], workerURL="/__test__/workers/mute.js", callTimeoutMs=500)
    assert result["callFailed"] == "The engine did not answer within 0.5 s, so it was restarted."
    assert result["afterRestart"] == "ready"
    assert fake_worker == ["mute", "mute"]  # a fresh worker replaced the hung one


@pytest.mark.allow_console_errors
def test_worker_script_error_rejects_boot(blank_page, fake_worker):
    result = boot_and_call(blank_page, workerURL="/__test__/workers/broken.js", bootTimeoutMs=10_000)
    assert result["failed"].startswith("The engine's worker stopped:")
    assert result["ms"] < 5_000


def test_a_worker_that_cannot_be_made_fails_the_boot_at_once(blank_page):
    # new Worker() throws (here for an address that is no URL; elsewhere a page that may
    # not start workers): the engine says so, rather than waiting for a worker that never was.
    result = boot_and_call(blank_page, workerURL="http://%zz/worker.js", bootTimeoutMs=30_000)
    assert result["failed"].startswith("The engine's worker stopped: http://%zz/worker.js could not be started")
    assert result["ms"] < 5_000


def test_prestarted_worker_is_adopted_with_what_it_said(blank_page):
    # boot-early.js starts the worker before the widget's modules have loaded; the
    # engine the widget then creates takes it over instead of starting a second one.
    loads = []
    blank_page.on("request", lambda r: loads.append(r.url) if r.url.split("?")[0].endswith("/worker.js") else None)
    result = blank_page.evaluate("""async () => {
      await new Promise((resolve, reject) => {
        const script = Object.assign(document.createElement("script"),
          { src: "/boot-early.js", onload: resolve, onerror: reject });
        document.head.append(script);
      });
      const { createEngine } = await import("/boot/engine-client.js");
      await new Promise((r) => setTimeout(r, 1500));  // it boots, and says so, meanwhile
      const progress = [];
      const engine = createEngine({ onProgress: (p) => progress.push(p.stage) });
      await engine.ready;
      const answer = await engine.call({ cmd: "presets" });
      engine.terminate();
      return { ok: answer.ok, boot: engine.bootInfo.boot, first: progress[0] };
    }""")
    assert result == {"ok": True, "boot": "fast", "first": "downloading"}
    assert len(loads) == 1, loads
