"""The engine the page downloads first, and the rest of it later.

The page's engine worker needs only the modules that answer the page's requests. The rest of
the package (the "Your code" runner and its exercises, the notebook's reading of a learner's
micrograd graph) serves the code worker and the notebook's kernel, and was a third of the
precompiled wheel every learner downloaded before the first step (~100 kB of ~350 kB at
brotli 11, measured with bench/network_visit.py's byte count).

So the build makes two precompiled wheels:

* the full one (every module, sources and .pyc), which the code worker unpacks, and
* the page's: only the modules that `import engine.api` loads and that answering every
  request of buildtools/stdlib_trim.py's corpus imports (`stdlib_trim.run_corpus` lists them),
  as bytecode without their sources, plus the package's data files.

Any other engine module is listed in build.json as `engine_later`; the worker installs a
finder for them (buildtools/stdlib_fallback.py's, the same one that finds a standard library
module the trimmed library lacks), which downloads the full wheel the first time such an import
happens and imports the module from it.
"""

from __future__ import annotations

from . import BuildError


def module_of(path: str) -> str | None:
    """The dotted module a wheel path holds ("engine/yourcode/__init__.py" ->
    "engine.yourcode", its __pycache__ .pyc likewise), or None for a data file."""
    folder, _, name = path.rpartition("/")
    if folder.endswith("/__pycache__"):
        folder, name = folder.removesuffix("/__pycache__"), name.split(".")[0] + ".py"
    if not name.endswith(".py"):
        return None
    stem = name.removesuffix(".py")
    return folder.replace("/", ".") if stem == "__init__" else f"{folder.replace('/', '.')}.{stem}"


def split(files: dict[str, bytes], loaded: list[str]) -> tuple[dict[str, bytes], list[str]]:
    """(the page's wheel files: the loaded modules' bytecode, sourceless, and every data file,
    the dotted names of the engine modules left for later).

    `files` is the full precompiled wheel's: each module's source and its
    `__pycache__/x.cpython-3yy.pyc`. The page's wheel holds each module as `x.pyc` where its
    source was, and no source: the import system loads such a file as it is
    (SourcelessFileLoader), as it loads the trimmed standard library's. Nothing in the
    page's engine reads its own sources; without them the wheel is ~60 kB smaller at
    brotli 11, and the worker's file system holds ~0.5 MB less."""
    loaded_set = set(loaded)
    first, later = {}, set()
    for path, data in files.items():
        module = module_of(path)
        if module is None:
            first[path] = data  # a data file: the presets
        elif module not in loaded_set:
            later.add(module)
        elif "/__pycache__/" in path:
            folder, _, name = path.rpartition("/__pycache__/")
            first[f"{folder}/{name.split('.')[0]}.pyc"] = data
    if "engine.api" not in loaded_set:
        raise BuildError("engine.api was not among the modules the page imports; the split is wrong.")
    return first, sorted(later)
