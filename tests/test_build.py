"""build.py: what dist/ holds, the engine wheel, staying offline when nothing
changed, the server's MIME types and shutdown, and one-sentence failures."""

import base64
import csv
import hashlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import build as build_script
from buildtools import site

ROOT = build_script.ROOT
BUILD_PY = str(ROOT / "build.py")


def run_build(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, BUILD_PY, *args], capture_output=True, text=True,
                          env=env, timeout=timeout, stdin=subprocess.DEVNULL)


def offline_env(tmp_path: Path) -> dict:
    """An environment in which npm is missing and pip cannot reach an index, so
    any attempt to download fails."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir(exist_ok=True)
    return {**os.environ, "PATH": str(empty_bin), "PIP_NO_INDEX": "1",
            "PIP_INDEX_URL": "http://127.0.0.1:9/simple"}


def assert_one_sentence_failure(done, *words):
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("build.py: ") and lines[0].endswith("."), lines[0]
    for word in words:
        assert word in lines[0], lines[0]


# --- what the build makes --------------------------------------------------------------


def test_dist_has_the_runtime_the_wheels_and_the_web_files(built_dist):
    info = json.loads((built_dist / "build.json").read_text())
    assert info["pyodide_version"] == build_script.PINS.pyodide_version
    for name in site.RUNTIME_FILES:
        assert (built_dist / "pyodide" / name).is_file(), name
    for rel, size in info["downloads"].items():
        assert (built_dist / rel).stat().st_size == size, rel
    assert info["engine_wheel"].endswith("/gradwalk_engine-0.1.0-py3-none-any.whl")
    wheel = built_dist / info["engine_wheel"]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == info["engine_wheel_sha256"]
    for name in ("worker.js", "engine-client.js"):
        assert (built_dist / name).read_bytes() == (ROOT / "web" / name).read_bytes()


def test_lock_file_points_at_the_pinned_micropip(built_dist):
    lock = json.loads((built_dist / "pyodide" / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    wheel = built_dist / "pyodide" / entry["file_name"]
    assert entry["sha256"] == build_script.PINS.micropip_sha256
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]


def test_engine_wheel_has_a_valid_record_and_the_presets(built_dist):
    info = json.loads((built_dist / "build.json").read_text())
    with zipfile.ZipFile(built_dist / info["engine_wheel"]) as whl:
        names = set(whl.namelist())
        record = whl.read("gradwalk_engine-0.1.0.dist-info/RECORD").decode()
        for path, digest, size in csv.reader(io.StringIO(record)):
            if path.endswith("RECORD"):
                continue
            data = whl.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data), path
    assert "engine/api.py" in names
    for preset in (ROOT / "presets").glob("*.toml"):
        assert f"engine/_presets/{preset.name}" in names


def test_engine_wheel_is_byte_reproducible(tmp_path):
    first = site.engine_wheel(ROOT, tmp_path / "one")
    second = site.engine_wheel(ROOT, tmp_path / "two")
    assert first.read_bytes() == second.read_bytes()


def test_installed_wheel_imports_and_finds_its_presets(built_dist, tmp_path):
    info = json.loads((built_dist / "build.json").read_text())
    target = tmp_path / "site-packages"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--disable-pip-version-check", "--target", str(target),
         str(built_dist / info["engine_wheel"])],
        check=True, timeout=120, capture_output=True,
    )
    # -I -S: no site-packages, no editable install, no repo on sys.path; only the wheel.
    code = (
        f"import sys; sys.path.insert(0, {str(target)!r}); import engine, engine.api; "
        "print(engine.__file__); print(engine.api.handle('{\"cmd\": \"presets\"}'))"
    )
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    where, answer = done.stdout.splitlines()
    assert where.startswith(str(target))
    presets = json.loads(answer)["presets"]
    assert len(presets) == len(list((ROOT / "presets").glob("*.toml")))


# --- a second build -------------------------------------------------------------------


def test_second_build_is_a_fast_offline_no_op(built_dist, tmp_path):
    stamp = (built_dist / "build.json").stat().st_mtime_ns
    started = time.monotonic()
    done = run_build(env=offline_env(tmp_path))
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    assert (built_dist / "build.json").stat().st_mtime_ns == stamp
    assert elapsed < 2.0, f"a no-op build took {elapsed:.2f} s"


def test_changed_input_rebuilds_from_the_cache_without_downloading(tmp_path):
    # A fresh dist/ from the warm cache: assembling needs no network at all.
    done = run_build("--dist", str(tmp_path / "dist"), env=offline_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dist" / "build.json").is_file()


# --- failures: one sentence, exit code 1 ----------------------------------------------


def test_missing_npm_is_one_sentence(tmp_path):
    done = run_build("--cache", str(tmp_path / "cache"), "--dist", str(tmp_path / "dist"),
                     env=offline_env(tmp_path))
    assert_one_sentence_failure(done, "npm", "install")
    assert not (tmp_path / "dist").exists()


def test_integrity_mismatch_is_one_sentence(tmp_path):
    # A stand-in npm whose "download" is not the pinned tarball.
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    npm = fake_bin / "npm"
    npm.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        "dest = pathlib.Path(sys.argv[sys.argv.index('--pack-destination') + 1])\n"
        "(dest / 'pyodide-314.0.7.tgz').write_bytes(b'not the real tarball')\n"
    )
    npm.chmod(0o755)
    env = {**os.environ, "PATH": str(fake_bin)}
    done = run_build("--cache", str(tmp_path / "cache"), "--dist", str(tmp_path / "dist"), env=env)
    assert_one_sentence_failure(done, "does not match", "integrity")
    assert not list((tmp_path / "cache").rglob("*.tgz")), "a bad download stayed in the cache"


def test_failed_download_is_one_sentence(tmp_path):
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    npm = fake_bin / "npm"
    npm.write_text("#!/bin/sh\necho 'npm error network ECONNREFUSED' >&2\nexit 1\n")
    npm.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake_bin}{os.pathsep}/bin"}
    done = run_build("--cache", str(tmp_path / "cache"), "--dist", str(tmp_path / "dist"), env=env)
    assert_one_sentence_failure(done, "could not download", "again")


# --- serving --------------------------------------------------------------------------


@pytest.mark.parametrize("path, mime", [
    ("pyodide/pyodide.asm.wasm", "application/wasm"),
    ("pyodide/pyodide.mjs", "text/javascript"),
    ("worker.js", "text/javascript"),
    ("build.json", "application/json"),
    ("pyodide/python_stdlib.zip", "application/zip"),
])
def test_server_sends_the_right_mime_types(site_url, path, mime):
    request = urllib.request.Request(site_url + path, method="HEAD")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers.get_content_type() == mime


def test_server_sends_wheels_as_binary(site_url, built_dist):
    wheel = json.loads((built_dist / "build.json").read_text())["engine_wheel"]
    with urllib.request.urlopen(site_url + wheel, timeout=10) as response:
        assert response.headers.get_content_type() in ("application/zip", "application/octet-stream")


def test_serve_command_prints_its_url_and_stops_cleanly(built_dist):
    server = subprocess.Popen([sys.executable, BUILD_PY, "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:  # "up to date", then "Serving ..."
            line = server.stdout.readline()
            if "http://" in line:
                url = line[line.index("http://"):].split()[0]
        assert url and url.startswith("http://127.0.0.1:"), "serve printed no URL"

        with urllib.request.urlopen(url + "pyodide/pyodide.asm.wasm", timeout=10) as response:
            assert response.headers.get_content_type() == "application/wasm"
        # A browser that goes away mid-download: the server must shrug, not print a traceback.
        host, port = url[len("http://"):].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"GET /pyodide/pyodide.asm.wasm HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.recv(100)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        time.sleep(0.5)

        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=15)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0, err
    assert "Stopped." in out
    assert "Traceback" not in err, err


def test_port_in_use_is_one_sentence(site_url):
    port = site_url.rstrip("/").rsplit(":", 1)[1]
    done = run_build("serve", "--port", port, timeout=60)
    assert_one_sentence_failure(done, "already in use", "--port")
