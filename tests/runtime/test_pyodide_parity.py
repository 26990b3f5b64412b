"""The engine answers the same bytes in Pyodide as in CPython, booted either way.

tests/runtime/pyodide_parity.mjs boots the pinned Pyodide from dist/ under Node the way
the page's worker does, and answers a batch of requests; each answer must equal
CPython's engine.api.handle(...) for the same request exactly (number
formatting, float rounding in math functions, ordering: anything).

    stock  the source stdlib; micropip installs the source engine wheel
    fast   the precompiled stdlib and engine wheel (buildtools/precompile.py);
           this run also proves that dist/prerender/all.json, which the page
           draws before the engine is ready, is exactly what Pyodide computes
    snapshot the fast boot as a first visit does it, a memory snapshot taken
           (web/boot/snapshot.js), and a second Pyodide restored from it as a
           later visit does: that one answers

The fast path's stdlib is trimmed to the modules the build saw imported
(buildtools/stdlib_trim.py); the fast run answers the build's whole request
corpus and every hostile program too, and must never have needed the fallback
finder that fetches the full library. Other runs prove the fallback itself:
modules the trimmed library lacks come from the full one, a module taken out of
the trimmed list is caught, and a failed download is a clear ImportError.
"""

import json
import zipfile
from pathlib import Path

import pytest

from buildtools import prerender, stdlib_trim
from engine import api
from tests.support.hostile_programs import BAD_PROGRAMS
from tests.support.pyodide import run_in_pyodide

pytestmark = [pytest.mark.node, pytest.mark.real_engine]  # Pyodide itself is tested here


def parity_requests() -> list[str]:
    """The presets list, each preset, its graph, and visit-order experiments
    with the correct order and a wrong one; plus a learner program with changed
    values and a couple of errors."""
    requests = [json.dumps({"cmd": "presets"})]
    presets = json.loads(api.handle(requests[0]))["presets"]
    assert presets, "the engine lists no presets"
    for preset in presets:
        load = {"cmd": "load", "preset": preset["id"]}
        requests += [json.dumps({"cmd": "preset", "id": preset["id"]}), json.dumps(load)]
        nodes = json.loads(api.handle(json.dumps(load)))["nodes"]
        labels = [node["label"] for node in nodes]  # topological order
        requests.append(json.dumps({**load, "order": labels[::-1]}))  # correct backward order
        requests.append(json.dumps({**load, "order": labels}))  # inputs first: wrong
    requests += [
        json.dumps(
            {"cmd": "load", "program": "x = 0.5\ny = 3\nz = (x * y).tanh() + x ** 2 / y", "values": {"x": -1.25}}
        ),
        json.dumps({"cmd": "load", "program": "a = 2\nb = a +"}),
        json.dumps({"cmd": "nonsense"}),
        "not json at all",
    ]
    # A big program's answer in two parts, then its rest (answered in this order on both sides).
    big = json.dumps({"cmd": "load", "program": big_program(), "rest_later": True})
    requests += [big, json.dumps({"cmd": "rest", "rest": json.loads(api.handle(big))["rest"]})]
    return requests


def big_program() -> str:
    """20 inputs, 16 layers of relu(x[i] * x[i+1] + 0.1), their sum: 999 nodes."""
    lines = [f"x{i} = {0.5 + 0.01 * i:.2f}" for i in range(20)]
    previous = [f"x{i}" for i in range(20)]
    for k in range(16):
        names = [f"h{k}_{i}" for i in range(20)]
        lines += [f"{n} = relu({previous[i]} * {previous[(i + 1) % 20]} + 0.1)" for i, n in enumerate(names)]
        previous = names
    return "\n".join(lines + ["y = " + " + ".join(previous)])


def prerender_requests() -> list[str]:
    """Every request behind dist/prerender/all.json."""
    requests = [prerender.PRESETS_REQUEST]
    for preset_id in prerender.preset_ids(api.handle(prerender.PRESETS_REQUEST)):
        requests += prerender.requests_for(preset_id).values()
    return requests


def trimmed_stdlib_requests() -> list[str]:
    """What the trimmed stdlib must answer without the full one: the build's
    corpus and every hostile program (tests/support/hostile_programs.py)."""
    return stdlib_trim.corpus(api.handle) + [
        json.dumps({"cmd": "load", "program": program}) for program, *_ in BAD_PROGRAMS
    ]


# Modules the trimmed stdlib surely lacks; after its requests, the fast run
# imports them through the fallback (a top-level module, a package's module, and
# a module of a package the trimmed library has).
ABSENT_MODULES = ("fractions", "xml.dom.minidom", "json.tool")
# Engine modules the page's wheel leaves out (build.json's engine_later): the code worker's.
LATER_ENGINE_MODULES = ("engine.yourcode", "engine.foreign")


@pytest.fixture(scope="module")
def pyodide_runs(node, built_dist, tmp_path_factory):
    """run(mode): one Pyodide under Node per boot mode (run once, then reused),
    answering the parity requests and the prerendered file's requests."""
    done = {}

    def run(mode):
        if mode not in done:
            requests = parity_requests() + prerender_requests()
            script_args = ()
            if mode != "stock":  # both run on the trimmed stdlib
                requests += trimmed_stdlib_requests()
            if mode == "fast":
                script_args = ("--then-import", ",".join(ABSENT_MODULES + LATER_ENGINE_MODULES))
            result = run_in_pyodide(
                node, built_dist, tmp_path_factory.mktemp(mode), requests, mode, script_args=script_args
            )
            done[mode] = (mode, dict(zip(requests, result["answers"])), result["probe"])
        return done[mode]

    return run


@pytest.fixture(params=["stock", "fast", "snapshot"])
def pyodide_run(request, pyodide_runs):
    return pyodide_runs(request.param)


def test_pyodide_answers_match_cpython_byte_for_byte(pyodide_run):
    mode, answers, _ = pyodide_run
    mismatches = [
        describe_difference(request, expected, answers[request])
        for request in parity_requests()
        if answers[request] != (expected := api.handle(request))
    ]
    assert not mismatches, f"{mode}: {len(mismatches)} answers differ:\n" + "\n".join(mismatches[:5])


def test_prerendered_first_paint_is_what_pyodide_computes(pyodide_runs, built_dist):
    # The engine the page runs: the fast path's.
    _, answers, _ = pyodide_runs("fast")
    info = json.loads((built_dist / "build.json").read_text())
    served = (built_dist / info["prerender"]["file"]).read_bytes()
    computed = prerender.compute(lambda request: answers[request])
    assert computed == served, describe_difference("prerender/all.json", served.decode(), computed.decode())
    # ... and the same file again from CPython: the three agree.
    assert prerender.compute(api.handle) == served


def test_restored_snapshot_answers_like_a_fresh_boot(pyodide_runs):
    # Byte for byte, every parity and prerender request: the snapshot run against
    # the fast run (each is also compared with CPython above).
    _, fresh, _ = pyodide_runs("fast")
    _, restored, probe = pyodide_runs("snapshot")
    differ = [request for request in fresh if restored[request] != fresh[request]]
    assert not differ, describe_difference(differ[0], fresh[differ[0]], restored[differ[0]])
    # The snapshot is the heap (plus Pyodide's small header), made while the heap
    # was still the size a fresh instance has, which is what snapshot.js assumes.
    assert probe["first_heap"] == probe["restored_heap"] == probe["initial_heap"] == 30 * 1024 * 1024
    assert 0 < probe["snapshot_bytes"] - probe["first_heap"] < 64 * 1024
    # Stored without its pages of zeros, and read back exactly.
    assert probe["unpacked_identical"] and probe["packed_bytes"] < probe["snapshot_bytes"] * 0.6
    assert probe["hash_seed"] == 0  # PYTHONHASHSEED=0: hash randomization off, made and restored
    assert probe["random_after"] != probe["random_before"]  # reseeded after the restore
    assert probe["damaged_restore"] == "Snapshot has invalid magic number"


def test_fast_path_really_runs_precompiled_python(pyodide_run, built_dist):
    mode, _, probe = pyodide_run
    info = json.loads((built_dist / "build.json").read_text())
    assert probe["engine_file"].startswith(info["site_packages"] + "/engine/")
    if mode == "stock":
        assert probe["json_origin"].endswith("/json/__init__.py")
        return
    # The stdlib zips hold no source for what compiled, so modules come from .pyc.
    assert probe["json_origin"] == "/lib/python314.zip/json/__init__.pyc"
    # The page's engine wheel is bytecode alone (buildtools/engine_split.py), loaded as it is,
    # compiled for exactly this Python (magic number); Pyodide never writes bytecode.
    assert probe["dont_write_bytecode"] == 1
    assert probe["engine_loader"] == "SourcelessFileLoader"
    assert probe["engine_cached"] == probe["engine_file"].removesuffix("__init__.pyc") + "api.pyc"
    assert probe["engine_sources"] == []
    # The full wheel (the code worker's) has sources, and each cached .pyc matches its source's hash.
    assert probe["full_engine_sources"] > 30
    assert probe["stale_pycs"] == []
    magic = bytes.fromhex(probe["magic"])
    for key, at_least in (("stdlib_pyc", 100), ("stdlib_pyc_full", 400)):  # trimmed, full
        with zipfile.ZipFile(built_dist / info[key]) as zf:
            pycs = [n for n in zf.namelist() if n.endswith(".pyc")]
            assert len(pycs) > at_least
            assert not [n for n in zf.namelist() if n.endswith(".py") and n + "c" in pycs]
            for name in pycs[:50]:
                assert zf.read(name)[:8] == magic + b"\x01\x00\x00\x00", name  # unchecked hash pyc
    with zipfile.ZipFile(built_dist / info["engine_wheel_pyc_full"]) as zf:
        names = set(zf.namelist())
        sources = [n for n in names if n.startswith("engine/") and n.endswith(".py")]
        assert sources
        for source in sources:
            folder, _, stem = source.rpartition("/")
            pyc = zf.read(f"{folder}/__pycache__/{stem[:-3]}.{probe['cache_tag']}.pyc")
            assert pyc[:8] == magic + b"\x01\x00\x00\x00", source
    with zipfile.ZipFile(built_dist / info["engine_wheel_pyc"]) as zf:
        pycs = [n for n in zf.namelist() if n.startswith("engine/") and n.endswith(".pyc")]
        assert "engine/api.pyc" in pycs and not [n for n in zf.namelist() if n.endswith(".py")]
        for name in pycs:
            assert zf.read(name)[:8] == magic + b"\x01\x00\x00\x00", name


def test_trimmed_stdlib_has_every_module_the_engine_needs(pyodide_runs):
    # Each answer as CPython's: a module missing from the trimmed zip would have been
    # an ImportError (an "internal" error answer) had the fallback not fetched the
    # full library, and the fallback must not have been needed at all.
    _, answers, probe = pyodide_runs("fast")
    requests = trimmed_stdlib_requests()
    mismatches = [
        describe_difference(request, expected, answers[request])
        for request in requests
        if answers[request] != (expected := api.handle(request))
    ]
    assert not mismatches, f"{len(mismatches)} answers differ:\n" + "\n".join(mismatches[:5])
    assert probe["fallback_used"] == []
    assert probe["engine_later_used"] == []  # nor an engine module the page's wheel left out


def test_engine_modules_left_out_of_the_pages_wheel_come_from_the_full_one(pyodide_runs, built_dist):
    # buildtools/engine_split.py: the finder downloads the full engine wheel on the first
    # import of a module the page's wheel lacks, and the module is imported from it.
    _, _, probe = pyodide_runs("fast")
    info = json.loads((built_dist / "build.json").read_text())
    assert set(LATER_ENGINE_MODULES) <= set(info["engine_later"])
    assert {name: probe["imported"][name] for name in LATER_ENGINE_MODULES} == {
        "engine.yourcode": "/lib/gradwalk-engine-full.zip/engine/yourcode/__init__.py",
        "engine.foreign": "/lib/gradwalk-engine-full.zip/engine/foreign.py",
    }
    # The first one fetched the wheel and put its engine folder on the package's path, where
    # the import system found the second by itself.
    assert probe["engine_later_used_in_the_end"] == ["engine.yourcode"]


def test_modules_left_out_of_the_trimmed_stdlib_come_from_the_full_one(pyodide_runs, built_dist):
    _, _, probe = pyodide_runs("fast")
    info = json.loads((built_dist / "build.json").read_text())
    with zipfile.ZipFile(built_dist / info["stdlib_pyc"]) as zf:
        trimmed = set(zf.namelist())
    assert "fractions.pyc" not in trimmed and "xml/" not in trimmed and "json/tool.pyc" not in trimmed
    assert {name: probe["imported"][name] for name in ABSENT_MODULES} == {
        "fractions": "/lib/python-stdlib-full.zip/fractions.pyc",
        "xml.dom.minidom": "/lib/python-stdlib-full.zip/xml/dom/minidom.pyc",
        "json.tool": "/lib/python-stdlib-full.zip/json/tool.pyc",
    }


@pytest.fixture(scope="module")
def without_tomllib(built_dist, tmp_path_factory) -> Path:
    """The trimmed stdlib with a package the engine imports (tomllib, for the
    presets) taken out; Pyodide's own start does not need it."""
    info = json.loads((built_dist / "build.json").read_text())
    out = tmp_path_factory.mktemp("trimmed") / "python_stdlib.zip"
    with zipfile.ZipFile(built_dist / info["stdlib_pyc"]) as src, zipfile.ZipFile(out, "w") as zf:
        assert "tomllib/__init__.pyc" in src.namelist()
        for item in src.infolist():
            if not item.filename.startswith("tomllib/"):
                zf.writestr(item, src.read(item))
    return out


PROGRAM = json.dumps({"cmd": "load", "program": "x = 0.5\ny = 3\nz = (x * y).tanh() + x ** 2 / y"})


def test_a_module_missing_from_the_trimmed_stdlib_is_caught(node, built_dist, tmp_path, without_tomllib):
    # Without the fallback, the engine does not even import: the checks above go red.
    with pytest.raises(AssertionError, match="No module named 'tomllib'"):
        run_in_pyodide(
            node,
            built_dist,
            tmp_path,
            [PROGRAM],
            "fast",
            script_args=("--stdlib", str(without_tomllib), "--no-fallback"),
        )
    # With it (as in the page), the answers are right, and the fallback says what it fetched.
    result = run_in_pyodide(
        node,
        built_dist,
        tmp_path,
        [PROGRAM, prerender.PRESETS_REQUEST],
        "fast",
        script_args=("--stdlib", str(without_tomllib)),
    )
    assert result["answers"] == [api.handle(PROGRAM), api.handle(prerender.PRESETS_REQUEST)]
    assert result["probe"]["fallback_used"] == ["tomllib"]


def test_a_failed_download_of_the_full_stdlib_is_a_clear_import_error(node, built_dist, tmp_path):
    missing = tmp_path / "no-such-stdlib.zip"
    result = run_in_pyodide(
        node,
        built_dist,
        tmp_path,
        [PROGRAM],
        "fast",
        script_args=("--full-stdlib", str(missing), "--then-import", "fractions,json.tool"),
    )
    assert result["answers"] == [api.handle(PROGRAM)]  # the trimmed library still does its work
    first, second = result["probe"]["imported"].values()
    assert first.startswith(
        "error: ImportError: The module fractions is not in the trimmed standard "
        f"library, and the full one ({missing}) could not be downloaded (Error: ENOENT"
    )
    # Tried once: the second import says the same without trying again.
    assert second == first.replace("module fractions", "module json.tool")


def describe_difference(request: str, expected: str, got: str) -> str:
    """The request and both answers around the first byte where they differ."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    start = max(0, at - 120)
    return (
        f"request {request[:200]}\n  first difference at character {at}:\n"
        f"  cpython: ...{expected[start : at + 60]}\n  pyodide: ...{got[start : at + 60]}"
    )
