"""Assemble dist/: the static site with the Pyodide runtime, micropip, the
engine wheels, the precompiled standard library, the prerendered first paint,
the web front end, the service worker, build.json and compressed copies.

    dist/pyodide/<hash>/   the runtime from node_modules/pyodide, its lock file and
                           micropip (stock path)
    dist/stdlib/<hash>/    the precompiled standard library (fast path): trimmed to
                           what is imported, and the full one (on demand)
    dist/wheels/<hash>/    the engine wheel: source (micropip) and precompiled
    dist/prerender/        the engine's answers for every preset (first paint)
    dist/sw.js             web/sw.js with this build's id and file list
    dist/**/*.br, *.gz     compressed copies that `serve` sends when accepted (those
                           not cached yet are computed after the swap: compress.finish)

A folder named by 16 hex digits holds content-hashed files that never change,
so they can be cached forever; everything else must be revalidated.

The site is assembled in a staging folder next to dist/ and swapped in at the
end, so dist/ is never half-written (a server running on it keeps working, and
an interrupted build leaves the previous dist/ intact). Only compressed copies
may still be missing then; they appear one by one, each whole.
"""

import contextlib
import hashlib
import json
import shutil
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

from . import (
    BuildError,
    bundle,
    compress,
    csp,
    engine_split,
    exclusive,
    exercises,
    graph_svg,
    mode_registry,
    npm,
    op_registry,
    precompile,
    prerender,
    stdlib_trim,
    widget_markup,
)
from .hashing import sha256_hex
from .wheel import write_wheel

# The Pyodide files the browser needs; the npm package also carries type
# declarations, source maps and demo consoles that a site does not.
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PYODIDE_DIR = "pyodide"  # dist/pyodide/<hash>/: the runtime, its lock file and micropip
STDLIB_DIR = "stdlib"  # dist/stdlib/<hash>/python_stdlib[_full].zip: the precompiled stdlib
WHEELS_DIR = "wheels"  # dist/wheels/<hash>/: the engine wheels (source; precompiled)
BUILD_JSON = "build.json"
SW_JS = "sw.js"  # the service worker: a template in web/, filled in per build
SW_PLACEHOLDER = '"__GRADWALK_MANIFEST__"'
HASH_CHARS = 16  # folders named by 16 hex digits of a content hash are immutable
GENERATED = (PYODIDE_DIR, STDLIB_DIR, WHEELS_DIR, BUILD_JSON, prerender.DIR, widget_markup.TEMPLATE_JS)

_SKIP_NAMES = {"__pycache__", ".DS_Store", ".pytest_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo", "~", ".swp")


@dataclass(frozen=True)
class Pins:
    """Exact versions and hashes of what the build uses besides the npm packages
    (package-lock.json pins those). Changing one changes the build id, so dist/ is rebuilt."""

    pyodide_version: str  # the version package-lock.json pins (the build checks they agree)
    pyodide_python: str  # the Python version inside that Pyodide, for pip download
    micropip_version: str
    micropip_sha256: str


def input_files(root: Path) -> list[Path]:
    """Every file whose content goes into dist/ or decides how it is built."""
    files = [root / "build.py", root / "pyproject.toml", root / npm.MANIFEST, root / npm.LOCKFILE]
    files += _walk(root / "buildtools", "*.py") + _walk(root / "buildtools", "*.mjs")
    files += _walk(root / "engine", "*.py")
    files += _walk(root / "presets", "*.toml")
    files += _walk(root / "web", "*")
    return [f for f in files if f.is_file()]


def compute_build_id(root: Path, pins: Pins) -> str:
    """A hash of the pins and of every input file's path and content."""
    h = hashlib.sha256(json.dumps(asdict(pins), sort_keys=True).encode())
    for path in input_files(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:20]


@contextlib.contextmanager
def build_lock(dist: Path):
    """Hold an exclusive lock on dist/'s build (a lock file next to it) while
    building, so that two builds never share the staging folder."""
    dist.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(dist.parent / f".{dist.name}.lock"):
        yield


def is_current(dist: Path, build_id: str) -> bool:
    """True when dist/ was built from exactly these inputs and is complete."""
    try:
        info = json.loads((dist / BUILD_JSON).read_text())
    except (OSError, ValueError):
        return False
    if info.get("build_id") != build_id:
        return False
    needed = [*info.get("downloads", {}), SW_JS, info.get("prerender", {}).get("file", BUILD_JSON)]
    return all((dist / rel).is_file() for rel in needed)


def assemble(
    root: Path,
    dist: Path,
    pins: Pins,
    build_id: str,
    micropip_whl: Path,
    cache: Path | None = None,
    log=lambda *a: None,
) -> dict:
    """Build the whole site into a staging folder, then swap it in for dist/ (the npm
    packages installed first: npm.ensure)."""
    cache = cache or root / ".cache"
    staging = dist.parent / f".{dist.name}-staging"
    old = dist.parent / f".{dist.name}-old"
    for leftover in (staging, old):
        shutil.rmtree(leftover, ignore_errors=True)
    try:
        _copy_web(root / "web", staging)
        # The code sandbox's policy names its script by hash (buildtools/csp.py).
        csp.fill_sandbox_policy(staging / csp.SANDBOX_FILE)
        # What the page knows of the modes comes from their engine modules (engine/modes/).
        mode_registry.write(staging, mode_registry.describe(root))
        # The operations the program editor's help lists come from engine/ops.py's table.
        op_registry.write(staging, op_registry.describe(root))
        # The "Your code" exercises as data, so the page needs no Python to show them.
        exercises.write(staging, exercises.describe(root))
        widget_markup.write(staging)
        # The notebook's front end: the same widget, one module, in the Python package.
        bundle.notebook_module(root, staging, root / bundle.OUTPUT)
        # Each page's module with its imports in one file (no module preloads needed).
        bundle.page_modules(root, staging)
        bundle.worker_modules(root, staging)  # the engine's and the code worker: one file each
        bundle.lazy_modules(root, staging)  # the code editor, CodeMirror included, fetched when used
        runtime = staging / PYODIDE_DIR / "unhashed"
        _copy_runtime(root, pins.pyodide_version, runtime)
        _add_micropip(micropip_whl, runtime)
        engine_files = _engine_files(root)
        engine_rel = _add_wheel(root, staging, engine_files)

        # The fast path's Python: bytecode compiled by this very Pyodide.
        stdlib_pyc, pycs = precompile.precompile(
            cache, runtime, pins.pyodide_version, pins.pyodide_python, engine_files, log
        )
        stdlib_full_rel = _add_hashed(staging, STDLIB_DIR, "python_stdlib_full.zip", stdlib_pyc.read_bytes())
        # Stored, not deflated: brotli over the whole wheel (compress.py) sends it in
        # fewer bytes than a deflated wheel; the workers unpack it in memory. The full one
        # (the code worker's), and the page's: only what its engine imports
        # (engine_split.py; the rest comes from the full one if an import needs it).
        engine_pyc_files = {**engine_files, **pycs}
        engine_pyc_full_rel = _add_wheel(root, staging, engine_pyc_files, stored=True)
        corpus, page_engine_modules = stdlib_trim.run_corpus(root)
        page_engine_files, engine_later = engine_split.split(engine_pyc_files, page_engine_modules)
        engine_pyc_rel = _add_wheel(root, staging, page_engine_files, stored=True)
        # What the fast path loads: only the modules the engine and Pyodide import
        # (the full library above is fetched only if an import ever needs it).
        stdlib_trimmed = stdlib_trim.trim(
            cache,
            pins.pyodide_version,
            pins.pyodide_python,
            stdlib_pyc,
            staging / engine_pyc_full_rel,
            corpus,
            log,
        )
        stdlib_rel = _add_hashed(staging, STDLIB_DIR, "python_stdlib.zip", stdlib_trimmed.read_bytes())

        # Content-hashed runtime folder: cacheable forever, never stale.
        runtime_rel = f"{PYODIDE_DIR}/{_folder_hash(runtime)}"
        runtime.rename(staging / runtime_rel)
        runtime_files = sorted(p.name for p in (staging / runtime_rel).iterdir())

        prerendered = prerender.run(root, staging)
        # index.html painted with the graph its query asks for: every preset's, drawn by the
        # page's modules in Node (the default's in the widget, the others' for the gate to swap in).
        inlined = graph_svg.inline_presets(staging, log)
        prerendered["inlined"] = inlined[0] if inlined else None
        prerendered["inlined_others"] = inlined[1:]

        downloads = [f"{runtime_rel}/{name}" for name in runtime_files]
        downloads += [stdlib_rel, stdlib_full_rel, engine_rel, engine_pyc_rel, engine_pyc_full_rel]
        micropip_rel = f"{runtime_rel}/{micropip_whl.name}"
        info = {
            "build_id": build_id,
            "pyodide_version": pins.pyodide_version,
            "python_version": pins.pyodide_python,
            "pyodide_index": f"{runtime_rel}/",
            "site_packages": precompile.site_packages(pins.pyodide_python),
            # The stock path: source stdlib, micropip installs the source wheel.
            "stdlib": f"{runtime_rel}/python_stdlib.zip",
            "micropip_wheel": micropip_rel,
            "engine_wheel": engine_rel,
            "engine_wheel_sha256": sha256_hex(staging / engine_rel),
            # The fast path: precompiled stdlib (trimmed to what is imported; the
            # full one on demand) and engine, no micropip.
            "stdlib_pyc": stdlib_rel,
            "stdlib_pyc_full": stdlib_full_rel,
            "engine_wheel_pyc": engine_pyc_rel,
            # The fast path loads no package, so its Pyodide gets a lock file with none, from
            # here, instead of downloading the 111 kB one (22 kB at brotli 11) that stock and
            # the code worker use: its `info` must still be this runtime's (the ABI is checked).
            "pyodide_lock_fast": {"info": _lock_info(staging / runtime_rel), "packages": {}},
            # Every engine module (the code worker's), and the modules only it has, which the
            # page's worker finds in it if an import ever needs one.
            "engine_wheel_pyc_full": engine_pyc_full_rel,
            "engine_later": engine_later,
            "prerender": prerendered,
            # Sizes let the worker turn downloaded bytes into a progress fraction.
            "downloads": {rel: (staging / rel).stat().st_size for rel in downloads},
            # The .wasm the engine's worker keeps in Cache Storage itself is used from there
            # only if its bytes are still these (web/worker/streaming-cache.js).
            "wasm_sha256": sha256_hex(staging / runtime_rel / "pyodide.asm.wasm"),
        }
        (staging / BUILD_JSON).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")

        # Every file of the build, for the service worker's precache; then the
        # compressed copies (which the server picks, never the service worker)
        # that are cached already: build.py has the others computed (compress.finish).
        files = {p.relative_to(staging).as_posix(): sha256_hex(p) for p in sorted(staging.rglob("*")) if p.is_file()}
        files.pop(SW_JS, None)
        # What only the stock path downloads, and the full precompiled stdlib (only a
        # rare import needs it): the service worker does not precache them.
        on_demand = sorted({info["stdlib"], info["micropip_wheel"], info["engine_wheel"], info["stdlib_pyc_full"]})
        _write_service_worker(root / "web" / SW_JS, staging / SW_JS, build_id, files, on_demand)
        compress.plan(staging, cache)

        compress.marker(dist).unlink(missing_ok=True)  # this dist/ may lack copies
        if dist.exists():
            dist.rename(old)
        staging.rename(dist)
        return info
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)


def _lock_info(runtime: Path) -> dict:
    return json.loads((runtime / "pyodide-lock.json").read_text())["info"]


def _write_service_worker(template: Path, out: Path, build_id: str, files: dict, on_demand: list[str]) -> None:
    """sw.js with this build's id and file list in place of its placeholder, so
    every build has a different sw.js (which is how a browser notices a new build);
    `on_demand` lists the files it serves but does not precache."""
    if not template.is_file():
        return
    text = template.read_text()
    if SW_PLACEHOLDER not in text:
        raise BuildError(f"web/{SW_JS} lacks its {SW_PLACEHOLDER} placeholder; restore it and run the build again.")
    missing = [rel for rel in on_demand if rel not in files]
    if missing:
        raise BuildError(f"{missing[0]} is not a file of the build; build.json and site.py disagree.")
    manifest = json.dumps(
        {"build_id": build_id, "files": files, "on_demand": on_demand}, sort_keys=True, separators=(",", ":")
    )
    out.write_text(text.replace(SW_PLACEHOLDER, manifest))


def _folder_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        h.update(path.name.encode() + b"\0" + bytes.fromhex(sha256_hex(path)))
    return h.hexdigest()[:HASH_CHARS]


def _add_hashed(site: Path, top: str, name: str, data: bytes) -> str:
    rel = f"{top}/{hashlib.sha256(data).hexdigest()[:HASH_CHARS]}/{name}"
    (site / rel).parent.mkdir(parents=True)
    (site / rel).write_bytes(data)
    return rel


def _copy_web(web: Path, out: Path) -> None:
    """web/ is copied as-is to the site root."""
    out.mkdir(parents=True)
    for src in _walk(web, "*"):
        rel = src.relative_to(web)
        if rel.parts[0] in GENERATED:
            raise BuildError(
                f"web/{rel.parts[0]} clashes with a file the build generates; rename it and run the build again."
            )
        if src.is_file():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out / rel)


def _copy_runtime(root: Path, version: str, out: Path) -> None:
    """Copy just the runtime files out of node_modules/pyodide (npm ci checked the
    package against package-lock.json's integrity)."""
    installed = npm.installed_version(root, "pyodide")
    if installed != version:
        raise BuildError(
            f"{npm.LOCKFILE} installs Pyodide {installed} but build.py pins {version}; make package.json, "
            f"{npm.LOCKFILE} and build.py's PINS agree and run the build again."
        )
    package = npm.package_dir(root, "pyodide")
    out.mkdir(parents=True)
    for name in RUNTIME_FILES:
        if not (package / name).is_file():
            raise BuildError(f"{npm.MODULES}/pyodide lacks {name}; delete {npm.MODULES}/ and run the build again.")
        shutil.copyfile(package / name, out / name)


def _add_micropip(whl: Path, pyodide_dir: Path) -> str:
    """Put the PyPI micropip wheel next to the runtime and point the lock file's
    micropip entry at it. The wheel on PyPI is not byte-identical to the one
    Pyodide's lock file describes, so we rewrite that one entry's file name and
    sha256; loadPackage("micropip") then still checks integrity."""
    shutil.copyfile(whl, pyodide_dir / whl.name)
    lock_path = pyodide_dir / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    entry = lock["packages"]["micropip"]
    entry["file_name"] = whl.name
    entry["sha256"] = sha256_hex(whl)
    lock_path.write_text(json.dumps(lock, separators=(",", ":")))
    return f"{PYODIDE_DIR}/{whl.name}"


def _add_wheel(root: Path, site: Path, files: dict[str, bytes], stored: bool = False) -> str:
    """Write an engine wheel with `files` under wheels/<content hash>/, so a
    browser never reuses a stale cached copy while the file name stays a valid
    wheel name."""
    tmp_dir = site / WHEELS_DIR / "tmp"
    whl = _write_engine_wheel(root, tmp_dir, files, stored)
    final_dir = site / WHEELS_DIR / sha256_hex(whl)[:HASH_CHARS]
    final_dir.mkdir(parents=True)
    whl = whl.replace(final_dir / whl.name)
    tmp_dir.rmdir()
    return whl.relative_to(site).as_posix()


def engine_wheel(root: Path, out_dir: Path) -> Path:
    """Write the engine wheel into out_dir: engine/**/*.py, plus presets/*.toml as
    engine/_presets/*.toml (where the installed engine looks for them)."""
    return _write_engine_wheel(root, out_dir, _engine_files(root))


def _engine_files(root: Path) -> dict[str, bytes]:
    engine = root / "engine"
    if not (engine / "__init__.py").is_file():
        raise BuildError(
            "engine/__init__.py is missing, so there is no engine to package; restore engine/ and run the build again."
        )
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in _walk(engine, "*.py")}
    for preset in _walk(root / "presets", "*.toml"):
        files[f"engine/_presets/{preset.name}"] = preset.read_bytes()
    return files


def _write_engine_wheel(root: Path, out_dir: Path, files: dict[str, bytes], stored: bool = False) -> Path:
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    return write_wheel(
        out_dir,
        name=project["name"],
        version=project["version"],
        summary=project.get("description", ""),
        requires_python=project.get("requires-python", ">=3.11"),
        files=files,
        stored=stored,
    )


def _walk(folder: Path, pattern: str) -> list[Path]:
    """Files under folder matching pattern, sorted, without caches and editor debris."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob(pattern)):
        rel = path.relative_to(folder)
        if any(part in _SKIP_NAMES for part in rel.parts) or path.name.endswith(_SKIP_SUFFIXES):
            continue
        if path.is_file():
            found.append(path)
    return found
