"""The trimmed standard library: only the modules the page's Python imports.

The fast path's full precompiled library is 2.9 MB at brotli 11, and the page
uses a small part of it. At build time the pinned Pyodide, under Node, boots the
way the worker boots, answers every request of `corpus()` (each command the
page and its modes send, on every preset, with the error paths and hostile
programs) and lists the zip members behind sys.modules, from Pyodide's own
bootstrap on (buildtools/stdlib_trace.mjs). The trimmed zip holds exactly those
members (and their packages' folders), in the full zip's order, plus the
fallback finder (buildtools/stdlib_fallback.py, as `_stdlib_fallback`) and
the full library's module names; the worker installs the finder, which fetches
the full zip only if an import ever needs a module left out.

The result is cached in .cache/pyc/<pyodide version>/ under a key made of the
full zip, the engine wheel, the corpus and this code.
"""

import json
import tempfile
import zipfile
from pathlib import Path

from . import BuildError, fresh_python
from .precompile import _digest, run_pyodide_script, stdlib_prefix
from .wheel import FIXED_DATE

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "stdlib_trace.mjs"
FALLBACK = HERE / "stdlib_fallback.py"
FALLBACK_MODULE = "_stdlib_fallback.py"
NAMES_MODULE = "_stdlib_full_names.py"

# Programs that reach each of the program reader's error paths (tokenizer,
# parser, checks, limits), as tests/support/hostile_programs.py does in more detail.
HOSTILE_PROGRAMS = [
    "import os",
    "a = 2\nb = a.__class__",
    "a = open('x')",
    "a = [1][0]",
    "a = 's'",
    "a = f'{1}'",
    "a = 2\nb = c + 1",
    "a = 1e999",
    "a = 10 ** 400",
    "a = (b := 2)",
    "while True:\n    pass",
    "a, b = 1, 2",
    "a = 2\na",
    "x = 2\n\n  y = 3",
    "a = 2 +",
    "a = \x00",
    "a = 1j",
    "a = True",
    "tanh = 2",
    "a = Value(2, label=3)",
    "a = 2\nb = a // 2",
    "a = [x for x in y]",
    "a = " + "(" * 300 + "1" + ")" * 300,
    "a = " + "9" * 5000,
    "a = 1\n" + "a = a + a + a + a + a\n" * 600,
    "a = 1\n" + "a = a + 1\n" * 2500,
    "a = '" + "x" * 60_000 + "'",
    "",
    "# only a comment\n",
    "a = 2\nb = a\ud800",
    "a = b'bytes'",
    "a = {1, 2}",
    "class A:\n    pass",
    "a = 1e308 * 10",
    "a = " + "1+" * 20000 + "1",
    "a = 2\nb = a" + ".tanh()" * 500,
    "a = 2\n\tb = 3",
    "a = 2\nb = (yield a)",
    "match a:\n    case 1:\n        pass",
    "a = 2 ** 2 ** 2 ** 2 ** 2 ** 2",
    "x = 0.5\ny = 3\nz = (x * y).tanh() + x ** 2 / y - (-x).exp() + y.log() + x.relu()",
    "a = Value(-2.0, label='a')\nb = a.sigmoid() * a.cos() + a.sin()\nb.backward()",
]


def corpus(handle) -> list[str]:
    """Every kind of request the page sends, as JSON strings: for each preset its
    text, its graph, visit orders right and wrong, the nudge check, and every mode's
    sample requests (as its engine module declares them, engine/modes/); programs,
    hostile ones included; malformed requests."""
    from engine.registry import modes  # the modes of the engine that answers (run_corpus's)

    dumps = json.dumps
    requests = [dumps({"cmd": "presets"}), dumps({"cmd": "modes"})]
    for preset in json.loads(handle(requests[0]))["presets"]:
        base = {"preset": preset["id"]}
        load = {"cmd": "load", **base}
        answer = json.loads(handle(dumps(load)))
        labels = [node["label"] for node in answer["nodes"]]
        inputs = [answer["nodes"][i]["label"] for i in answer["inputs"]]
        first = inputs[0]
        requests += [
            dumps(r)
            for r in (
                {"cmd": "preset", "id": preset["id"]},
                load,
                {**load, "order": labels[::-1]},
                {**load, "order": labels},
                {**load, "order": ["nope"]},
                {**load, "values": {first: -1.5}},
                {**load, "values": {first: 1e300}},
                {"cmd": "nudge", **base, "wrt": first},
                {"cmd": "nudge", **base, "wrt": first, "h": -0.5},
                {"cmd": "nudge", **base, "wrt": first, "h": 5},
            )
        ]
        requests += [dumps({**base, **sample}) for mode in modes() for sample in mode.samples(inputs, labels)]
    requests += [dumps({"cmd": "preset", "id": "no-such"})]
    for program in HOSTILE_PROGRAMS:
        requests.append(dumps({"cmd": "load", "program": program}))
        requests.append(dumps({"cmd": "nudge", "program": program, "wrt": "x"}))
    requests += [
        dumps({"cmd": "load", "program": "x = 0.5\ny = 3\nz = (x * y).tanh() + x ** 2 / y", "values": {"x": -1.25}}),
        dumps({"cmd": "load", "program": "x = 1e300\ny = x * x * x"}),
        dumps({"cmd": "nonsense"}),
        dumps({"cmd": 3}),
        dumps([1, 2]),
        "not json at all",
        dumps({"cmd": "load", "program": "a = 1", "pad": "x" * 200_001}),
        dumps({"cmd": "load", "preset": 7}),
        dumps({"cmd": "load"}),
    ]
    return list(dict.fromkeys(requests))  # a sample that is the same on every graph, once


def run_corpus(root: Path) -> tuple[list[str], list[str]]:
    """corpus() computed with the repository's engine in a fresh CPython, and the dotted
    names of the engine modules loaded once every request of it is answered (the page's
    engine modules: buildtools/engine_split.py; the engine is pure Python, so Pyodide's
    Python imports the same)."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "from buildtools import stdlib_trim; from engine import api; "
        "requests = stdlib_trim.corpus(api.handle); [api.handle(r) for r in requests]; "
        "engine = sorted(m for m in sys.modules if m == 'engine' or m.startswith('engine.')); "
        "print(json.dumps([requests, engine]))"
    )
    done = fresh_python(root, code, timeout=300)
    if done.returncode != 0:
        raise BuildError(
            "The engine could not make the requests that find the standard library "
            "modules it needs; run the build again with -v to see why."
        ) from RuntimeError(done.stderr)
    requests, engine = json.loads(done.stdout)
    return requests, engine


def trim(
    cache: Path,
    pyodide_version: str,
    python: str,
    full_zip: Path,
    engine_wheel: Path,
    requests: list[str],
    log,
) -> Path:
    """The trimmed stdlib zip in the cache (made under Node when not cached yet)."""
    folder = cache / "pyc" / pyodide_version
    folder.mkdir(parents=True, exist_ok=True)
    key = _digest(
        SCRIPT.read_bytes(),
        Path(__file__).read_bytes(),
        FALLBACK.read_bytes(),
        python.encode(),
        full_zip.read_bytes(),
        engine_wheel.read_bytes(),
        json.dumps(requests).encode(),
    )
    out = folder / f"python_stdlib-trimmed-{key}.zip"
    if out.exists():
        return out
    log(f"finding the standard library modules the engine imports, with Pyodide {pyodide_version} under Node ...")
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        tmp = Path(tmp)
        fallback_dir = tmp / "fallback"
        fallback_dir.mkdir()
        with zipfile.ZipFile(full_zip) as zf:
            full_names = zf.namelist()
        fallback_modules = _fallback_modules(full_names)
        for name, source in fallback_modules.items():
            (fallback_dir / name).write_text(source)
        (tmp / "requests.json").write_text(json.dumps(requests))
        spec = {
            "stdlib": str(full_zip),
            "wheel": str(engine_wheel),
            "site_packages": f"/lib/python{python}/site-packages",
            "prefix": stdlib_prefix(python),
            "fallback": str(fallback_dir),
            "requests": str(tmp / "requests.json"),
        }
        (tmp / "spec.json").write_text(json.dumps(spec))
        result = run_pyodide_script(
            SCRIPT,
            tmp / "spec.json",
            "Pyodide could not run the engine under Node to find the standard library modules it needs",
        )
        if result["failed"]:
            raise BuildError(
                f"The engine failed in Pyodide on {result['failed'][0]!r}; fix it and run the build again."
            )
        # (Everything loaded at boot is still loaded at the end; the union says so plainly.)
        write_trimmed(full_zip, set(result["boot"]) | set(result["all"]), fallback_modules, tmp / "trimmed.zip")
        (tmp / "trimmed.zip").replace(out)
    return out


def module_names(members: list[str]) -> list[str]:
    """The dotted module names of a stdlib zip's .pyc members."""
    names = []
    for member in members:
        if member.endswith(".pyc"):
            name = member.removesuffix(".pyc").removesuffix("/__init__").replace("/", ".")
            if "-" not in name:  # site-packages/... is no module
                names.append(name)
    return sorted(names)


def _fallback_modules(full_names: list[str]) -> dict[str, str]:
    """The fallback finder and the full library's module names, as source."""
    names = "".join(f"    {name!r},\n" for name in module_names(full_names))
    return {
        FALLBACK_MODULE: FALLBACK.read_text(),
        NAMES_MODULE: (
            '"""The module names of the full standard library (written by '
            'buildtools/stdlib_trim.py)."""\n\nNAMES = frozenset({\n' + names + "})\n"
        ),
    }


def write_trimmed(full_zip: Path, keep: set[str], extra: dict[str, str], out: Path) -> None:
    """`full_zip` with only the members in `keep` (and the folder entries above
    them), in its order, then `extra` ({name: source}) at the top level."""
    folders = {member[: i + 1] for member in keep for i, c in enumerate(member) if c == "/"}
    with zipfile.ZipFile(full_zip) as src, zipfile.ZipFile(out, "w") as zf:
        missing = keep - set(src.namelist())
        if missing:
            raise BuildError(f"{sorted(missing)[0]} was imported but is not in the standard library zip.")
        for info in src.infolist():
            if info.filename in keep or info.filename in folders:
                zf.writestr(info, src.read(info), info.compress_type)
        for name, source in extra.items():
            entry = zipfile.ZipInfo(name, date_time=FIXED_DATE)
            entry.external_attr = 0o100644 << 16
            zf.writestr(entry, source.encode(), zipfile.ZIP_STORED)
