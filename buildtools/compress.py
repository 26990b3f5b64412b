"""Precompressed copies of the big text and WebAssembly files: `x.br` and `x.gz`
next to `x`, which buildtools.serve sends to browsers that accept them (brotli
first: at its highest level the runtime's .wasm is ~2.7 MB against 3.5 MB of gzip).

brotli (PyPI) is a build dependency, pinned in pyproject.toml's `build` extra;
the build stops with one sentence when it is missing or another version
(require_brotli).

Brotli's highest level is slow: a fresh build's files take about 70 s of one core,
most of it for the 10 MB .wasm and the full standard library. So:

* each copy is cached in .cache/compressed/ under the sha256 of its input and
  computed only once (plan() puts the cached ones in place);
* the others are computed by a pool of processes, one per core (brotli holds the
  GIL, so threads would only take turns): gzip's first (a few seconds in all),
  then brotli's, biggest first;
* `python build.py` waits for them, so what a host deploys has every copy;
  `python build.py serve` does not: it serves at once while the pool works beside
  it at a low priority (buildtools.serve gzips on the fly meanwhile), and each
  copy appears next to its file when it is done: written under a temporary name
  and renamed, under the build's lock, and only if the file is still the one
  that was compressed (a newer build may have replaced dist/ meanwhile);
* once every copy of a build is in place, `.dist.compressed` next to dist/ holds
  its build id, so that the next build or serve of that dist/ checks nothing.
  A build that swaps in a new dist/ removes it first.

Output is reproducible: gzip's header carries no file name and time 0.
"""

import contextlib
import gzip
import hashlib
import importlib
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import BuildError, exclusive

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


# Computed in this order: gzip's copies take seconds in all, brotli's a minute.
SUFFIXES = (".gz", ".br")
BACKGROUND_NICENESS = 10  # the pool beside `serve` yields the cores to the server and the browser


def encode(suffix: str, data: bytes) -> bytes:
    """The `.br` or `.gz` copy of data (build.py has made sure of brotli: ensure_brotli)."""
    if suffix == ".br":
        return brotli.compress(data, quality=BROTLI_QUALITY)
    return gzip.compress(data, compresslevel=9, mtime=0)


def is_compressible(path: Path) -> bool:
    """True for a file that gets compressed copies when they are worth it."""
    return path.suffix in COMPRESSIBLE and path.is_file() and path.stat().st_size >= MIN_SIZE


@dataclass(frozen=True)
class Copy:
    """A compressed copy to compute: of the file at `rel` in the site, whose
    content has this sha256, with this suffix."""

    rel: str
    digest: str
    suffix: str
    size: int


def plan(site: Path, cache: Path, skip=()) -> list[Copy]:
    """Put every copy the cache holds next to its file (when worth it and not there
    yet) and return the copies still to compute."""
    folder = cache / "compressed"
    folder.mkdir(parents=True, exist_ok=True)
    todo = []
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        if rel in skip or not is_compressible(path):
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        for suffix in SUFFIXES:
            cached = folder / f"{digest}{suffix}"
            if not cached.exists():
                todo.append(Copy(rel, digest, suffix, len(data)))
            elif not path.with_name(path.name + suffix).exists():
                _place(path, suffix, cached.read_bytes(), len(data))
    return todo


def marker(dist: Path) -> Path:
    """The file next to dist/ that names the build whose copies are all in place."""
    return dist.parent / f".{dist.name}.compressed"


def finish(dist: Path, cache: Path, build_id: str, lock, log=print, background: bool = False) -> "Compression":
    """Put every compressed copy of dist/ (build `build_id`) in place: now, or with
    `background`, beside the caller (who stops it with .stop() if it must end
    first). `lock()` is the build's lock on dist/."""
    if background:
        return _start(dist, cache, build_id, lock, log, background=True)
    # Two builds that wait for their copies (two test workers, say) take turns: the
    # second then finds them all in place, instead of a second pool computing the same
    # copies beside the first (on two cores, four test workers once took over 300 s).
    with exclusive(dist.parent / f".{dist.name}.compressing.lock"):
        work = _start(dist, cache, build_id, lock, log, background=False)
        work.wait()
    return work


def _start(dist: Path, cache: Path, build_id: str, lock, log, background: bool) -> "Compression":
    if marker(dist).is_file() and marker(dist).read_text() == build_id:
        return Compression(dist, cache, [], lock, log)
    with lock():
        todo = plan(dist, cache)
    work = Compression(dist, cache, todo, lock, log, done=lambda: marker(dist).write_text(build_id))
    work.start(background)
    return work


def precompress(site: Path, cache: Path, skip=()) -> None:
    """Write every compressed copy of a site folder that no build replaces (a
    benchmark's copy of dist/), and wait for them."""
    work = Compression(site, cache, plan(site, cache, skip), contextlib.nullcontext, lambda *a: None)
    work.start(background=False)
    work.wait()


class Compression:
    """The copies of `site` that were not cached, computed by a pool of processes and
    each put in place as soon as it is done; `done()` runs once all of them are."""

    def __init__(self, site: Path, cache: Path, todo: list[Copy], lock, log, done=lambda: None):
        self.site, self.folder, self.lock, self.log = site, cache / "compressed", lock, log
        # gzip's quick copies first, then brotli's, the longest first (so the two
        # cores finish together); serving benefits from the order too.
        self.todo = sorted(todo, key=lambda c: (SUFFIXES.index(c.suffix), -c.size, c.rel))
        self.pending = len(self.todo)
        self.done = done
        self.pool = None
        self.error = None
        self.background = False
        self.started = time.monotonic()

    def start(self, background: bool) -> None:
        self.background = background
        if not self.todo:
            with self.lock():
                self.done()
            return
        workers = min(len(self.todo), os.cpu_count() or 1)
        big = sum(c.size for c in {c.rel: c for c in self.todo}.values()) / 1e6
        where = "in the background (serve gzips on the fly until each is ready)" if background else "now"
        self.log(f"compressing {len(self.todo)} copies of {big:.0f} MB on {workers} cores {where} ...")
        # Spawned, as on every platform (a fork of a process with threads, a server's
        # or a test run's, can deadlock). A spawned worker imports the caller's main
        # module, so a script that builds keeps its work under `if __name__ ==
        # "__main__":`, as build.py does.
        spawn = multiprocessing.get_context("spawn")
        self.pool = spawn.Pool(workers, initializer=_start_worker, initargs=(background,))
        for copy in self.todo:
            self.pool.apply_async(
                _compute,
                (str(self.site / copy.rel), copy, str(self.folder)),
                callback=self._computed,
                error_callback=self._failed,
            )
        self.pool.close()

    def wait(self) -> None:
        """Block until every copy is in place; a failure is one BuildError."""
        if self.pool is not None:
            try:
                self.pool.join()
            except BaseException:  # Ctrl-C: the workers ignore it, so end them here
                self.stop()
                raise
        if self.error is not None:
            raise BuildError(f"Compressing the site failed ({self.error}); run the build again.") from self.error

    def stop(self) -> None:
        """End the pool now (its unfinished copies are computed by the next build or serve)."""
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()

    def _computed(self, copy: Copy | None) -> None:
        # In the pool's result thread, one copy at a time (an exception must not
        # escape: it would end that thread, and the pool would wait forever).
        self.pending -= 1
        try:
            if copy is not None:
                self._place_if_current(copy)
            if self.pending == 0 and self.error is None:
                with self.lock():
                    self.done()
                self.log(f"every compressed copy is in place ({time.monotonic() - self.started:.0f} s).")
        except Exception as error:
            self._failed(error)

    def _place_if_current(self, copy: Copy) -> None:
        path = self.site / copy.rel
        with self.lock():
            # Only beside the very file that was compressed: a newer build may have
            # swapped in another dist/ (which then gets its own copies).
            if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == copy.digest:
                _place(path, copy.suffix, (self.folder / f"{copy.digest}{copy.suffix}").read_bytes(), copy.size)

    def _failed(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
            if self.background:
                self.log(f"compressing failed ({error}); serve keeps gzipping on the fly.")


def _start_worker(background: bool) -> None:
    # Ctrl-C is the parent's to handle (it stops the pool); a background pool
    # leaves the cores to the server and the browser first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if background and hasattr(os, "nice"):
        os.nice(BACKGROUND_NICENESS)


def _compute(source: str, copy: Copy, folder: str) -> Copy | None:
    """In a worker: compress the file into the cache; None if it is no longer that file."""
    data = Path(source).read_bytes()
    if hashlib.sha256(data).hexdigest() != copy.digest:
        return None
    _write_atomically(Path(folder) / f"{copy.digest}{copy.suffix}", encode(copy.suffix, data))
    return copy


def _place(path: Path, suffix: str, packed: bytes, size: int) -> None:
    """Put a copy next to its file, if it saves enough to be worth sending."""
    if len(packed) <= WORTH_IT * size:
        _write_atomically(path.with_name(path.name + suffix), packed)


def _write_atomically(target: Path, data: bytes) -> None:
    """Write under a name of its own, then rename: a reader (the server, another
    build) sees the whole file or none, and two writers never share a file. The
    temporary name ends in the target's suffix, so nothing takes it for a site file."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".partial{target.suffix}", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(name, 0o644)  # mkstemp made it private; it is served like every file
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
