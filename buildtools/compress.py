"""Precompressed copies of the big text and WebAssembly files: `x.br` and `x.gz`
next to `x`, which buildtools.serve sends to browsers that accept them (brotli
first: at its highest level the runtime's .wasm is ~2.7 MB against 3.5 MB of gzip).

brotli (PyPI) is a build dependency, pinned in pyproject.toml's `build` extra;
the build stops with one sentence when it is missing or another version
(require_brotli). Brotli's highest level is slow (a minute or more for the
10 MB .wasm on a busy machine), so each result is cached in .cache/compressed/
under the sha256 of its input and compressed only once.
Output is reproducible: gzip's header carries no file name and time 0.
"""

import gzip
import hashlib
import importlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from . import BuildError

COMPRESSIBLE = {
    ".wasm",
    ".mjs",
    ".js",
    ".json",
    ".html",
    ".css",
    ".svg",
    ".txt",
    ".map",
    ".zip",
    ".whl",
    ".toml",
    ".md",
}
MIN_SIZE = 1024
WORTH_IT = 0.9  # keep a compressed copy only if it is at most 90% of the original

BROTLI_QUALITY = 11  # the highest level

try:  # checked by require_brotli, so that a missing module is one clear sentence
    import brotli
except ImportError:  # pragma: no cover - depends on the machine
    brotli = None


def brotli_pin(root: Path) -> str:
    """The `brotli==x.y.z` of pyproject.toml's build extra."""
    with open(root / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    pins = [r for r in extras.get("build", []) if re.match(r"\s*brotli\s*==", r, re.IGNORECASE)]
    if not pins:
        raise BuildError(
            "pyproject.toml's build extra has no brotli==<version> pin; restore it and run the build again."
        )
    return pins[0].replace(" ", "")


def require_brotli(root: Path, module=brotli) -> None:
    """Stop the build, with the command that fixes it, unless the pinned brotli is
    installed (`module`: the imported brotli, None when the import failed)."""
    pin = brotli_pin(root)
    wanted = pin.split("==", 1)[1]
    if module is None:
        raise BuildError(
            f"The build compresses the site with brotli, which is not installed; run "
            f"`python -m pip install '{pin}'` (or `pip install -e '.[build]'`) and build again."
        )
    if getattr(module, "__version__", None) != wanted:
        raise BuildError(
            f"The build needs {pin} (pinned in pyproject.toml) but brotli "
            f"{getattr(module, '__version__', '?')} is installed; run "
            f"`python -m pip install '{pin}'` and build again."
        )


def ensure_brotli(root: Path, log=print) -> None:
    """The pinned brotli, installed with pip into this Python if it is missing or another
    version (so that `python build.py serve` stays one command on a fresh machine, as
    `build.py test` installs its own); a failed install stops the build with one sentence."""
    global brotli
    try:
        require_brotli(root, brotli)
        return
    except BuildError as missing:
        problem = missing
    pin = brotli_pin(root)
    log(f"build.py: installing {pin} (the build's one Python dependency) into {sys.prefix} ...")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--root-user-action=ignore", "-q", pin]
    )
    if done.returncode != 0:
        raise problem
    importlib.invalidate_caches()
    sys.modules.pop("brotli", None)
    try:
        brotli = importlib.import_module("brotli")
    except ImportError:
        raise problem from None
    require_brotli(root, brotli)


def encoders() -> dict[str, callable]:
    """The compressed copies' writers (build.py has made sure of brotli: ensure_brotli)."""
    return {
        ".br": lambda data: brotli.compress(data, quality=BROTLI_QUALITY),
        ".gz": lambda data: gzip.compress(data, compresslevel=9, mtime=0),
    }


def precompress(site: Path, cache: Path, skip=()) -> list[str]:
    """Write the compressed copies for every file in site that is worth it and
    return their paths relative to site."""
    written = []
    folder = cache / "compressed"
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if not path.is_file() or path.suffix not in COMPRESSIBLE or rel in skip or path.stat().st_size < MIN_SIZE:
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        for suffix, encode in encoders().items():
            cached = folder / f"{digest}{suffix}"
            if cached.exists():
                packed = cached.read_bytes()
            else:
                packed = encode(data)
                tmp = cached.with_suffix(cached.suffix + ".tmp")
                tmp.write_bytes(packed)
                tmp.replace(cached)
            if len(packed) <= WORTH_IT * len(data):
                path.with_name(path.name + suffix).write_bytes(packed)
                written.append(rel + suffix)
    return written
