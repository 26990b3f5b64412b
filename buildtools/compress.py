"""Precompressed copies of the big text and WebAssembly files: `x.gz` next to `x`
(and `x.br` when the optional `brotli` module is installed), which
buildtools.serve sends to browsers that accept them.

Compressing the 10 MB runtime at the highest level takes a second or two, so
each result is cached in .cache/compressed/ under the sha256 of its input.
Output is reproducible: gzip's header carries no file name and time 0.
"""

import gzip
import hashlib
from pathlib import Path

COMPRESSIBLE = {".wasm", ".mjs", ".js", ".json", ".html", ".css", ".svg", ".txt", ".map",
                ".zip", ".whl", ".toml", ".md"}
MIN_SIZE = 1024
WORTH_IT = 0.9  # keep a compressed copy only if it is at most 90% of the original

try:  # optional: not in the stdlib, and the site works without it
    import brotli
except ImportError:  # pragma: no cover - depends on the machine
    brotli = None


def encoders() -> dict[str, callable]:
    found = {".gz": lambda data: gzip.compress(data, compresslevel=9, mtime=0)}
    if brotli is not None:
        found[".br"] = lambda data: brotli.compress(data, quality=11)
    return found


def precompress(site: Path, cache: Path, skip=()) -> list[str]:
    """Write the compressed copies for every file in site that is worth it and
    return their paths relative to site."""
    written = []
    folder = cache / "compressed"
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if (not path.is_file() or path.suffix not in COMPRESSIBLE or rel in skip
                or path.stat().st_size < MIN_SIZE):
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
