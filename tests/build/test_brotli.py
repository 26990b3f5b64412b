"""Brotli at its highest level for every large file, always: the build needs the
pinned `brotli` (one sentence when it is missing), writes a `.br` copy of every big
file, and `serve` sends it to a browser that accepts br."""

import gzip
import io
import os
import subprocess
import sys
import tomllib
import types
import zipfile

import brotli
import pytest

from buildtools import BuildError, compress, run_tests
from tests.support.built_site import build_info, fetch

ROOT = run_tests.ROOT


def large_files(dist):
    """The files the build compresses that are big enough to matter (over 64 KB)."""
    return [
        p
        for p in sorted(dist.rglob("*"))
        if p.is_file() and p.suffix in compress.COMPRESSIBLE and p.stat().st_size > 64 * 1024
    ]


def test_every_large_file_has_a_brotli_copy_that_decompresses_to_it(built_dist):
    info = build_info(built_dist)
    big = large_files(built_dist)
    names = {p.relative_to(built_dist).as_posix() for p in big}
    # The boot's big downloads are among them.
    assert {
        info["pyodide_index"] + "pyodide.asm.wasm",
        info["pyodide_index"] + "pyodide.asm.mjs",
        info["stdlib_pyc"],
        info["stdlib"],
    } <= names
    without = []
    for path in big:
        packed = path.with_name(path.name + ".br")
        gz = path.with_name(path.name + ".gz")
        if not packed.is_file():
            # Only a file that is already compressed (a wheel, the source standard
            # library: zips of deflated members) may go without, and then it has no
            # gzip copy either.
            without.append(path.name)
            assert not gz.is_file(), f"{path} has a .gz but no .br"
            with zipfile.ZipFile(path) as archive:
                stored = sum(m.compress_size for m in archive.infolist() if m.compress_type == zipfile.ZIP_STORED)
            assert stored < 0.05 * path.stat().st_size, path
            continue
        data = path.read_bytes()
        assert brotli.decompress(packed.read_bytes()) == data, packed
        # The highest level: never bigger than gzip -9's copy.
        if gz.is_file():
            assert packed.stat().st_size < gz.stat().st_size, packed
    assert len(without) < len(big) / 2, without
    # Brotli at level 11 is much smaller than gzip for the runtime: < 80% of gzip -9.
    wasm = built_dist / info["pyodide_index"] / "pyodide.asm.wasm"
    assert wasm.with_name(wasm.name + ".br").stat().st_size < 0.8 * wasm.with_name(wasm.name + ".gz").stat().st_size


def test_serve_sends_brotli_to_a_browser_that_accepts_it(site_url, built_dist):
    info = build_info(built_dist)
    for rel, kind in (
        (info["pyodide_index"] + "pyodide.asm.wasm", "application/wasm"),
        (info["stdlib_pyc"], "application/zip"),
        ("index.html", "text/html; charset=utf-8"),
    ):
        original = (built_dist / rel).read_bytes()
        status, headers, body = fetch(site_url + rel, **{"Accept-Encoding": "gzip, deflate, br, zstd"})
        assert status == 200, rel
        assert headers["Content-Encoding"] == "br", rel
        assert headers["Content-Type"] == kind
        assert headers["Vary"] == "Accept-Encoding"
        assert int(headers["Content-Length"]) == len(body) < len(original)
        assert brotli.decompress(body) == original
    # br refused: gzip.
    rel = info["stdlib_pyc"]
    status, headers, body = fetch(site_url + rel, **{"Accept-Encoding": "br;q=0, gzip"})
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == (built_dist / rel).read_bytes()


def test_the_pin_is_the_same_for_the_build_and_the_tests_and_is_installed():
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    pin = compress.brotli_pin(ROOT)
    assert pin in extras["build"] and pin in extras["test"]
    # `python build.py test` installs the test extra when a pin is missing, so a
    # fresh machine gets brotli before its first build.
    assert pin in run_tests.pinned_requirements()
    assert run_tests.missing_requirements([pin]) == []
    assert brotli.__version__ == pin.split("==")[1]


def test_a_missing_or_other_brotli_stops_the_build_with_one_sentence():
    with pytest.raises(BuildError) as missing:
        compress.require_brotli(ROOT, module=None)
    pin = compress.brotli_pin(ROOT)
    assert "not installed" in str(missing.value) and f"pip install '{pin}'" in str(missing.value)
    with pytest.raises(BuildError) as other:
        compress.require_brotli(ROOT, module=types.SimpleNamespace(__version__="0.9.0"))
    assert "0.9.0" in str(other.value) and pin in str(other.value)
    compress.require_brotli(ROOT)  # the installed one passes


def test_build_py_without_brotli_says_so_in_one_line(tmp_path):
    # A `brotli` that cannot be imported, ahead of the real one on the path: the build
    # installs the pin (pip finds it already there), still cannot import it, and says so.
    (tmp_path / "brotli.py").write_text("raise ImportError('no brotli here')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "build.py", "--dist", str(tmp_path / "dist")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("build.py: The build compresses the site with brotli, which is not installed")
    assert not (tmp_path / "dist").exists()


def test_the_fast_paths_engine_wheel_is_stored_so_brotli_packs_it_whole(built_dist):
    info = build_info(built_dist)
    wheel = built_dist / info["engine_wheel_pyc"]
    with zipfile.ZipFile(wheel) as archive:
        members = archive.infolist()
        assert {m.compress_type for m in members} == {zipfile.ZIP_STORED}
        deflated = io.BytesIO()
        with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
            for m in members:
                out.writestr(m.filename, archive.read(m))
    packed = wheel.with_name(wheel.name + ".br")
    assert brotli.decompress(packed.read_bytes()) == wheel.read_bytes()
    # What a browser downloads is smaller than the deflated wheel would be (sent as is).
    assert packed.stat().st_size < 0.8 * len(deflated.getvalue())
