"""Compressed copies made after `serve` has started (buildtools/compress.py): the pool
puts each copy next to its file when it is done, never next to a file that changed,
a plain build finishes what a serve left, and meanwhile the server gzips on the fly
whatever has no copy yet, so what it sends is always compressed and always right."""

import contextlib
import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import brotli
import pytest

from buildtools import compress, serve, site

pytestmark = pytest.mark.real_engine  # the real engine's boot is tested here

ROOT = Path(__file__).resolve().parents[2]


def text_site(folder, files=3):
    """A small site of compressible files (each a few KB of text) and one that is
    not worth compressing (random bytes)."""
    folder.mkdir()
    for i in range(files):
        (folder / f"page{i}.js").write_text("".join(f"const value{j} = {i * j};\n" for j in range(400)))
    (folder / "noise.zip").write_bytes(os.urandom(4096))
    (folder / "tiny.js").write_text("let a = 1;\n")  # under MIN_SIZE: no copies
    return folder


def finish(dist, cache, build_id="b1", background=False):
    return compress.finish(dist, cache, build_id, lambda: site.build_lock(dist), lambda *a: None, background)


def assert_every_copy_in_place(dist):
    for path in dist.glob("page*.js"):
        data = path.read_bytes()
        assert brotli.decompress(path.with_name(path.name + ".br").read_bytes()) == data
        assert gzip.decompress(path.with_name(path.name + ".gz").read_bytes()) == data
    assert not list(dist.glob("noise.zip.*")) and not list(dist.glob("tiny.js.*"))
    assert not [p for p in dist.iterdir() if "partial" in p.name]


def test_a_background_pool_puts_every_copy_in_place_and_marks_the_build_done(tmp_path):
    dist, cache = text_site(tmp_path / "dist"), tmp_path / "cache"
    work = finish(dist, cache, background=True)
    assert work.pool is not None  # nothing was cached: the copies are computed
    work.wait()
    assert_every_copy_in_place(dist)
    assert compress.marker(dist).read_text() == "b1"
    # Marked done: the next build or serve of this dist/ checks nothing and starts no pool.
    stamps = {p.name: p.stat().st_mtime_ns for p in dist.iterdir()}
    assert finish(dist, cache).pool is None
    assert {p.name: p.stat().st_mtime_ns for p in dist.iterdir()} == stamps


def test_cached_copies_are_placed_at_once_and_only_the_others_computed(tmp_path):
    first, cache = text_site(tmp_path / "first"), tmp_path / "cache"
    compress.precompress(first, cache)
    second = tmp_path / "second"
    shutil.copytree(first, second, ignore=shutil.ignore_patterns("*.br", "*.gz"))
    (second / "new.js").write_text("".join(f"let other{j} = {j};\n" for j in range(400)))
    todo = compress.plan(second, cache)
    assert sorted((c.rel, c.suffix) for c in todo) == [("new.js", ".br"), ("new.js", ".gz")]
    assert (second / "page0.js.br").read_bytes() == (first / "page0.js.br").read_bytes()


def test_a_plain_build_finishes_the_copies_a_serve_left(tmp_path):
    dist, cache = text_site(tmp_path / "dist", files=6), tmp_path / "cache"
    finish(dist, cache, background=True).stop()  # serve stopped at once
    # Whatever the pool had done by then, say page0.js's brotli copy was not done.
    digest = hashlib.sha256((dist / "page0.js").read_bytes()).hexdigest()
    (cache / "compressed" / f"{digest}.br").unlink(missing_ok=True)
    (dist / "page0.js.br").unlink(missing_ok=True)
    compress.marker(dist).unlink(missing_ok=True)
    assert finish(dist, cache).pool is not None  # what `python build.py` does: waits for every copy
    assert_every_copy_in_place(dist)
    assert compress.marker(dist).read_text() == "b1"
    # A new build id (another dist/ swapped in) is not taken as done by the old one's marker.
    assert finish(dist, cache, build_id="b2").pool is None  # all cached: placed without a pool
    assert compress.marker(dist).read_text() == "b2"


def test_no_copy_is_put_next_to_a_file_that_changed_meanwhile(tmp_path):
    dist, cache = text_site(tmp_path / "dist"), tmp_path / "cache"
    todo = compress.plan(dist, cache)
    # A newer build replaced page0.js after the copies were planned: its compression
    # is dropped in the worker, and a copy computed before the change is not placed.
    (dist / "page0.js").write_text("// another build\n" * 200)
    work = compress.Compression(dist, cache, todo, lambda: site.build_lock(dist), lambda *a: None)
    work.start(background=False)
    work.wait()
    assert not (dist / "page0.js.br").exists() and not (dist / "page0.js.gz").exists()
    assert (dist / "page1.js.br").exists()
    stale = next(c for c in todo if c.rel == "page1.js" and c.suffix == ".br")
    (dist / "page1.js.br").unlink()
    (dist / "page1.js").write_text("// yet another build\n" * 200)
    work._computed(stale)  # the copy arrives after its file changed
    assert not (dist / "page1.js.br").exists()


def fetch(url, **headers):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_serve_gzips_on_the_fly_a_file_that_has_no_copy_yet(tmp_path):
    dist = text_site(tmp_path / "dist")
    original = (dist / "page0.js").read_bytes()
    server, url = serve.serve_in_thread(dist)
    try:
        status, headers, body = fetch(url + "page0.js", **{"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert headers["Vary"] == "Accept-Encoding" and headers["Content-Type"] == "text/javascript"
        assert int(headers["Content-Length"]) == len(body) < len(original) / 2
        assert gzip.decompress(body) == original
        # Revalidation works for it too, under a tag of its own (not the later .gz's).
        status, _, empty = fetch(url + "page0.js", **{"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})
        assert status == 304 and empty == b""
        # Not accepted, not worth it, or too small: sent as it is.
        for path, accept in (("page0.js", "identity"), ("noise.zip", "gzip"), ("tiny.js", "gzip")):
            status, headers, body = fetch(url + path, **{"Accept-Encoding": accept})
            assert headers["Content-Encoding"] is None and body == (dist / path).read_bytes(), path
        # Once the copies are in place, they are what is sent, under their own tag.
        compress.precompress(dist, tmp_path / "cache")
        status, headers_br, body = fetch(url + "page0.js", **{"Accept-Encoding": "gzip, br"})
        assert headers_br["Content-Encoding"] == "br" and brotli.decompress(body) == original
        _, headers_gz, body = fetch(url + "page0.js", **{"Accept-Encoding": "gzip"})
        assert body == (dist / "page0.js.gz").read_bytes() and headers_gz["ETag"] != headers["ETag"]
    finally:
        server.stop()


@contextlib.contextmanager
def serving_before_compression(built_dist, tmp_path):
    """`python build.py serve` on a copy of the current dist/ without its compressed
    copies, and an empty cache: nothing is cached, so every copy is still to make.
    Yields (the process, its URL, the copy, what it printed before its URL)."""
    dist, cache = tmp_path / "dist", tmp_path / "cache"
    shutil.copytree(built_dist, dist, ignore=shutil.ignore_patterns("*.br", "*.gz"))
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--dist", str(dist), "--cache", str(cache)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        url, lines, deadline = None, [], time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            lines.append(server.stdout.readline())
            if "http://" in lines[-1]:
                url = lines[-1][lines[-1].index("http://") :].split()[0]
        assert url, lines
        yield server, url, dist, lines
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()


def test_serve_answers_while_the_copies_are_made_and_stops_at_once(built_dist, tmp_path):
    """Served compressed straight away, and Ctrl-C stops the server and its pool
    without waiting for brotli."""
    with serving_before_compression(built_dist, tmp_path) as (server, url, dist, lines):
        build_id = json.loads((dist / "build.json").read_text())["build_id"]
        assert f"(build {build_id})" in "".join(lines)  # served as it was, not rebuilt
        assert any("in the background" in line for line in lines), lines
        wasm = json.loads((dist / "build.json").read_text())["pyodide_index"] + "pyodide.asm.wasm"
        for path in ("", wasm):
            status, headers, body = fetch(url + path, **{"Accept-Encoding": "gzip, br"})
            assert status == 200 and headers["Content-Encoding"] in ("gzip", "br"), path
            decode = gzip.decompress if headers["Content-Encoding"] == "gzip" else brotli.decompress
            assert decode(body) == (dist / (path or "index.html")).read_bytes()
        assert not (dist / (wasm + ".br")).exists()  # brotli's copy of the .wasm takes far longer
        stopped = time.monotonic()
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
        assert time.monotonic() - stopped < 10
    assert server.returncode == 0, err
    assert "Stopped." in out and "Traceback" not in err, err
    assert compress.marker(dist).exists() is False
    # Every copy that did land is whole and right.
    for packed in dist.rglob("*.br"):
        source = packed.with_name(packed.name[: -len(".br")])
        assert brotli.decompress(packed.read_bytes()) == source.read_bytes()


def test_the_engine_boots_from_a_serve_whose_copies_are_not_made_yet(built_dist, tmp_path, page):
    """What the browser gets meanwhile (gzip made on the fly, copies appearing) is the
    build: the engine boots from it and answers."""
    encodings = {}  # file name -> the Content-Encoding of its first response (page and worker)

    def note(response):
        encodings.setdefault(response.url.split("?")[0].rsplit("/", 1)[-1], response.headers.get("content-encoding"))

    page.context.on("response", note)
    with serving_before_compression(built_dist, tmp_path) as (server, url, dist, lines):
        page.goto(url + "index.html?preset=neuron")
        page.locator("html[data-engine='ready']").wait_for(state="attached", timeout=90_000)
        page.wait_for_function("() => gwRoot().querySelectorAll('#graph [data-node]').length === 10")
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
    for name in ("index.html", "pyodide.asm.wasm", "python_stdlib.zip", "worker.js"):
        assert encodings.get(name) in ("gzip", "br"), (name, encodings.get(name))
