"""Precompiled Python for the browser: the standard library and the engine as .pyc.

Stock Pyodide ships its standard library as source, so every boot compiles the
modules it imports (most of a cold boot's time goes there). Here the pinned
Pyodide itself, run under Node, compiles them once at build time
(buildtools/precompile.mjs), so the magic number is exactly the one the
browser's Python expects:

* the standard library becomes a zip of unchecked-hash .pyc files in the
  places zipimport looks for them (`json/__init__.pyc` next to where
  `json/__init__.py` was); the page passes it to loadPyodide as `stdLibURL`;
* the engine becomes a second wheel holding the sources plus
  `engine/__pycache__/*.cpython-3xx.pyc`, which the import system uses without
  reading the sources.

Both are cached in .cache/pyc/<pyodide version>/ under a key made of their
inputs and of this code, so Node runs only when the engine (or Pyodide) changed.
"""

import hashlib
import json
import subprocess
import tempfile
import zipfile
from pathlib import Path

from . import BuildError, npm
from .wheel import FIXED_DATE

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "precompile.mjs"
NODE_TIMEOUT_S = 300

# .pyc entries are stored uncompressed: zipimport then reads them without
# inflating, and the served file is gzip-compressed as a whole instead.
PYC_COMPRESSION = zipfile.ZIP_STORED


def stdlib_prefix(python: str) -> str:
    """Where Pyodide mounts the standard library zip ("3.14" -> /lib/python314.zip/)."""
    return f"/lib/python{python.replace('.', '')}.zip/"


def site_packages(python: str) -> str:
    return f"/lib/python{python}/site-packages"


def cache_tag(python: str) -> str:
    return f"cpython-{python.replace('.', '')}"


def precompile(
    cache: Path, runtime_dir: Path, pyodide_version: str, python: str, engine_files: dict[str, bytes], log
) -> tuple[Path, dict[str, bytes]]:
    """Return (the precompiled stdlib zip in the cache, the engine's .pyc files as
    {wheel path: bytes}). Runs Node only for what is not cached yet."""
    folder = cache / "pyc" / pyodide_version
    folder.mkdir(parents=True, exist_ok=True)
    code_key = _digest(SCRIPT.read_bytes(), Path(__file__).read_bytes(), python.encode())

    stdlib_src = runtime_dir / "python_stdlib.zip"
    stdlib_out = folder / f"python_stdlib-{_digest(code_key, stdlib_src.read_bytes())}.zip"

    engine_sources = {name: data for name, data in sorted(engine_files.items()) if name.endswith(".py")}
    engine_key = _digest(
        code_key,
        json.dumps(
            {name: hashlib.sha256(data).hexdigest() for name, data in engine_sources.items()}, sort_keys=True
        ).encode(),
    )
    engine_out = folder / f"engine-{engine_key}.pyc.zip"

    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        tmp = Path(tmp)
        jobs = []
        if not stdlib_out.exists():
            jobs.append(
                {
                    "in": str(stdlib_src),
                    "out": str(tmp / "stdlib.pyc.zip"),
                    "prefix": stdlib_prefix(python),
                    "kind": "stdlib",
                }
            )
        if not engine_out.exists():
            src_zip = tmp / "engine-src.zip"
            with zipfile.ZipFile(src_zip, "w") as zf:
                for name, data in engine_sources.items():
                    zf.writestr(name, data)
            jobs.append(
                {
                    "in": str(src_zip),
                    "out": str(tmp / "engine.pyc.zip"),
                    "prefix": site_packages(python) + "/",
                    "kind": "engine",
                }
            )
        if jobs:
            log(
                "precompiling "
                + " and ".join("the standard library" if j["kind"] == "stdlib" else "the engine" for j in jobs)
                + f" with Pyodide {pyodide_version} under Node ..."
            )
            # Boot with an earlier precompiled stdlib when there is one: it is faster.
            earlier = sorted(folder.glob("python_stdlib-*.zip"))
            result = _run_node(tmp, jobs, earlier[-1] if earlier else None)
            if result.get("cache_tag") != cache_tag(python):
                raise BuildError(
                    f"Pyodide {pyodide_version} runs Python {result.get('version')}, not the "
                    f"pinned {python}; fix pyodide_python in build.py and run the build again."
                )
            for job, done in zip(jobs, result["jobs"]):
                if job["kind"] == "stdlib":
                    _assemble_stdlib(stdlib_src, Path(job["out"]), tmp / "stdlib.zip")
                    (tmp / "stdlib.zip").replace(stdlib_out)
                else:
                    if done["failed"]:
                        raise BuildError(
                            f"The engine does not compile in Pyodide ({done['failed'][0]}); fix "
                            "it and run the build again."
                        )
                    Path(job["out"]).replace(engine_out)

    pycs = {}
    tag = cache_tag(python)
    with zipfile.ZipFile(engine_out) as zf:
        for name in zf.namelist():
            folder_name, _, stem = name.removesuffix(".pyc").rpartition("/")
            pycs[f"{folder_name}/__pycache__/{stem}.{tag}.pyc"] = zf.read(name)
    return stdlib_out, pycs


def _assemble_stdlib(source_zip: Path, pyc_zip: Path, out: Path) -> None:
    """The stdlib zip with every compiled `x.py` replaced by `x.pyc`, in the
    original order; data files and anything that did not compile stay as they were."""
    with zipfile.ZipFile(pyc_zip) as pycs, zipfile.ZipFile(source_zip) as src, zipfile.ZipFile(out, "w") as zf:
        compiled = set(pycs.namelist())
        for info in src.infolist():
            if info.filename + "c" in compiled:
                entry = zipfile.ZipInfo(info.filename + "c", date_time=FIXED_DATE)
                entry.external_attr = 0o100644 << 16
                zf.writestr(entry, pycs.read(info.filename + "c"), PYC_COMPRESSION)
            else:
                zf.writestr(info, src.read(info), info.compress_type)


def _run_node(tmp: Path, jobs: list[dict], stdlib: Path | None) -> dict:
    spec = tmp / "jobs.json"
    spec.write_text(json.dumps({"stdlib": str(stdlib) if stdlib else None, "jobs": jobs}))
    return run_pyodide_script(SCRIPT, spec, "Pyodide could not precompile the Python files under Node")


def run_pyodide_script(script: Path, spec: Path, failure: str) -> dict:
    """Run a build script that boots the pinned Pyodide under Node (`node script spec`,
    booted by pyodide_node.mjs from node_modules/pyodide) and return the JSON of its
    last stdout line. Any failure is one BuildError, `failure` plus how to see why;
    the script's output is kept for -v."""
    failure += "; run the build again with -v to see why."
    try:
        done = subprocess.run(
            [npm.node(), str(script), str(spec)],
            capture_output=True,
            text=True,
            timeout=NODE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (subprocess.TimeoutExpired, OSError) as e:
        raise BuildError(failure) from e
    if done.returncode != 0:
        raise BuildError(failure) from _NodeOutput(done.stderr or done.stdout)
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise BuildError(failure) from _NodeOutput(done.stdout + done.stderr)


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            part = part.encode()
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:16]


class _NodeOutput(Exception):
    """Node's output, shown only with --verbose."""
