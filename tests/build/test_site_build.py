"""build.py: what dist/ holds, the engine wheel, staying offline when nothing
changed, the server's MIME types and shutdown, and one-sentence failures."""

import base64
import csv
import gzip
import hashlib
import io
import json
import os
import re
import shutil
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
from buildtools import bundle, site
from tests.support.built_site import build_info, fetch

ROOT = build_script.ROOT
BUILD_PY = str(ROOT / "build.py")


def run_build(*args, env=None, timeout=120):
    return subprocess.run(
        [sys.executable, BUILD_PY, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def offline_env(tmp_path: Path) -> dict:
    """An environment in which npm is missing and pip cannot reach an index, so
    any attempt to download fails. Node itself stays (it downloads nothing): the
    build draws index.html's first graph with it (buildtools/graph_svg.py)."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir(exist_ok=True)
    node = shutil.which("node")
    if node and not (empty_bin / "node").exists():
        (empty_bin / "node").symlink_to(node)
    return {**os.environ, "PATH": str(empty_bin), "PIP_NO_INDEX": "1", "PIP_INDEX_URL": "http://127.0.0.1:9/simple"}


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
    info = build_info(built_dist)
    assert info["pyodide_version"] == build_script.PINS.pyodide_version
    assert re.fullmatch(r"pyodide/[0-9a-f]{16}/", info["pyodide_index"])
    for name in site.RUNTIME_FILES:
        assert (built_dist / info["pyodide_index"] / name).is_file(), name
    for rel, size in info["downloads"].items():
        assert (built_dist / rel).stat().st_size == size, rel
    assert info["engine_wheel"].endswith("/gradwalk_engine-0.1.0-py3-none-any.whl")
    wheel = built_dist / info["engine_wheel"]
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == info["engine_wheel_sha256"]
    for name in ("boot/engine-client.js", "worker/fast-boot.js"):
        assert (built_dist / name).read_bytes() == (ROOT / "web" / name).read_bytes()


def test_lock_file_points_at_the_pinned_micropip(built_dist):
    runtime = built_dist / build_info(built_dist)["pyodide_index"]
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    entry = lock["packages"]["micropip"]
    wheel = runtime / entry["file_name"]
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
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(built_dist / info["engine_wheel"]),
        ],
        check=True,
        timeout=120,
        capture_output=True,
    )
    # -I -S: no site-packages, no editable install, no repo on sys.path; only the wheel.
    code = (
        f"import sys; sys.path.insert(0, {str(target)!r}); import engine, engine.api; "
        'print(engine.__file__); print(engine.api.handle(\'{"cmd": "presets"}\'))'
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
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


def test_changed_input_rebuilds_from_the_cache_without_downloading(built_dist, tmp_path):
    # A fresh dist/ from the warm cache: assembling needs no network at all. `built_dist`
    # first, so the cache holds every compressed copy (without it, this build computed
    # all of them itself while another worker's build computed the same: 120 s on CI).
    done = run_build("--dist", str(tmp_path / "dist"), env=offline_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "dist" / "build.json").is_file()


# --- serving --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, mime",
    [
        ("{runtime}pyodide.asm.wasm", "application/wasm"),
        ("{runtime}pyodide.mjs", "text/javascript"),
        ("worker.js", "text/javascript"),
        ("build.json", "application/json"),
        ("{runtime}python_stdlib.zip", "application/zip"),
        ("{stdlib_pyc}", "application/zip"),
    ],
)
def test_server_sends_the_right_mime_types(site_url, built_dist, path, mime):
    info = build_info(built_dist)
    path = path.format(runtime=info["pyodide_index"], stdlib_pyc=info["stdlib_pyc"])
    request = urllib.request.Request(site_url + path, method="HEAD")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers.get_content_type() == mime


def test_server_sends_wheels_as_binary(site_url, built_dist):
    wheel = json.loads((built_dist / "build.json").read_text())["engine_wheel"]
    with urllib.request.urlopen(site_url + wheel, timeout=10) as response:
        assert response.headers.get_content_type() in ("application/zip", "application/octet-stream")


def server_socket_of(server_port: int, client_port: int) -> str | None:
    """The socket inode of the server's end of a local TCP connection (Linux's /proc), or None."""
    try:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        local, remote = (int(address.split(":")[1], 16) for address in fields[1:3])
        if (local, remote) == (server_port, client_port):
            return fields[9]
    return None


def holds_socket(pid: int, inode: str) -> bool:
    """Whether process `pid` still has the socket `inode` open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                return True
        except OSError:
            continue
    return False


def test_serve_command_prints_its_url_and_stops_cleanly(built_dist):
    server = subprocess.Popen(
        [sys.executable, BUILD_PY, "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:  # "up to date", then "Serving ..."
            line = server.stdout.readline()
            if "http://" in line:
                url = line[line.index("http://") :].split()[0]
        assert url and url.startswith("http://127.0.0.1:"), "serve printed no URL"

        wasm = build_info(built_dist)["pyodide_index"] + "pyodide.asm.wasm"
        with urllib.request.urlopen(url + wasm, timeout=10) as response:
            assert response.headers.get_content_type() == "application/wasm"
        # A browser that goes away mid-download: the server must shrug, not print a traceback.
        host, port = url[len("http://") :].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(f"GET /{wasm} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            sock.recv(100)
            server_end = server_socket_of(int(port), sock.getsockname()[1])
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        # The server has met the reset and closed its end of the connection (its handler is over).
        if server_end is None:
            time.sleep(0.5)  # no /proc (not Linux) to see the server's sockets: a moment instead
        else:
            deadline = time.monotonic() + 10
            while holds_socket(server.pid, server_end):
                assert time.monotonic() < deadline, "the server kept the reset connection open for 10 s"
                time.sleep(0.01)

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


# --- the fast path's files ------------------------------------------------------------


def test_runtime_files_live_in_content_hashed_folders(built_dist):
    info = build_info(built_dist)
    for rel in info["downloads"]:
        folder = rel.rsplit("/", 1)[0]
        assert re.fullmatch(r"(pyodide|stdlib|wheels)/[0-9a-f]{16}", folder), rel
    keys = ("stdlib_pyc", "stdlib_pyc_full", "engine_wheel", "engine_wheel_pyc", "engine_wheel_pyc_full")
    for key in (*keys, "micropip_wheel", "stdlib"):
        assert info[key] in info["downloads"], key
    # The wheels and the stdlib zips are named by their own content.
    for key in keys:
        rel = info[key]
        assert rel.split("/")[1] == hashlib.sha256((built_dist / rel).read_bytes()).hexdigest()[:16]


def test_precompiled_stdlib_replaces_sources_with_bytecode(built_dist):
    info = build_info(built_dist)
    source = built_dist / info["stdlib"]
    compiled = built_dist / info["stdlib_pyc_full"]
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(compiled) as pyc:
        src_names, pyc_names = src.namelist(), pyc.namelist()
        py = [n for n in src_names if n.endswith(".py")]
        assert py and all(n + "c" in pyc_names for n in py)
        assert not [n for n in pyc_names if n.endswith(".py")]
        # Data files come along unchanged, in the same order.
        others = [n for n in src_names if not n.endswith(".py")]
        assert [n for n in pyc_names if not n.endswith(".pyc")] == others
        for name in others[:20]:
            assert pyc.read(name) == src.read(name)
        # Unchecked-hash .pyc (PEP 552): no timestamp, never looks for a source.
        # (The hash and magic number are Pyodide's Python's, checked in
        # test_pyodide_parity.py, not this Python's.)
        for name in [n for n in pyc_names if n.endswith(".pyc")][:50]:
            assert int.from_bytes(pyc.read(name)[4:8], "little") == 0b01, name


def test_trimmed_stdlib_is_part_of_the_full_one_with_the_fallback(built_dist):
    # What the fast path boots: members of the full precompiled zip, byte for byte and
    # in its order, then the fallback finder and the full zip's module names.
    info = build_info(built_dist)
    with (
        zipfile.ZipFile(built_dist / info["stdlib_pyc_full"]) as full,
        zipfile.ZipFile(built_dist / info["stdlib_pyc"]) as trimmed,
    ):
        names = trimmed.namelist()
        assert names[-2:] == ["_stdlib_fallback.py", "_stdlib_full_names.py"]
        kept = names[:-2]
        assert kept == [n for n in full.namelist() if n in set(kept)]
        assert all(trimmed.read(n) == full.read(n) for n in kept)
        modules = [n for n in kept if n.endswith(".pyc")]
        assert 100 < len(modules) < len(full.namelist()) / 3
        # Pyodide's start and the engine's imports, and not what neither uses.
        assert {
            "_pyodide/_base.pyc",
            "encodings/utf_8.pyc",
            "json/__init__.pyc",
            "tomllib/__init__.pyc",
            "tokenize.pyc",
            "ast.pyc",
            "dataclasses.pyc",
        } <= set(modules)
        assert not {"fractions.pyc", "xml/__init__.pyc", "email/__init__.pyc", "unittest/__init__.pyc"} & set(modules)
        names_module = trimmed.read("_stdlib_full_names.py").decode()
        assert "'fractions'," in names_module and "'xml.dom.minidom'," in names_module
    assert (built_dist / info["stdlib_pyc"]).stat().st_size < (built_dist / info["stdlib_pyc_full"]).stat().st_size / 3


def test_precompiled_engine_wheel_has_sources_bytecode_and_a_valid_record(built_dist):
    info = build_info(built_dist)
    with zipfile.ZipFile(built_dist / info["engine_wheel"]) as plain:
        plain_names = set(plain.namelist())
    with zipfile.ZipFile(built_dist / info["engine_wheel_pyc_full"]) as whl:
        names = set(whl.namelist())
        record = whl.read("gradwalk_engine-0.1.0.dist-info/RECORD").decode()
        listed = {row[0] for row in csv.reader(io.StringIO(record))}
        assert listed == names
        for name in sorted(plain_names):
            if name.startswith("engine/") and name.endswith(".py"):
                folder, _, file = name.rpartition("/")
                pyc = whl.read(f"{folder}/__pycache__/{file[:-3]}.cpython-314.pyc")
                assert int.from_bytes(pyc[4:8], "little") == 0b01, name
    # Everything the plain wheel has (sources, presets), except its own metadata hashes.
    assert {n for n in plain_names if not n.endswith("RECORD")} <= names


def test_the_pages_engine_wheel_holds_what_the_page_imports_and_the_rest_is_found_later(built_dist):
    # buildtools/engine_split.py: the page's worker unpacks only the modules the page's
    # requests import; every other module is named in engine_later and is in the full wheel.
    from buildtools import engine_split

    info = build_info(built_dist)
    with zipfile.ZipFile(built_dist / info["engine_wheel_pyc_full"]) as full:
        full_names = set(full.namelist())
    with zipfile.ZipFile(built_dist / info["engine_wheel_pyc"]) as page:
        page_names = set(page.namelist())
        record = page.read("gradwalk_engine-0.1.0.dist-info/RECORD").decode()
        assert {row[0] for row in csv.reader(io.StringIO(record))} == page_names
    modules = {engine_split.module_of(n) for n in full_names if n.startswith("engine/")} - {None}
    page_pycs = [n for n in page_names if n.startswith("engine/") and n.endswith(".pyc")]
    page_modules = {engine_split.module_of(n.removesuffix("c")) for n in page_pycs}
    assert {"engine", "engine.api", "engine.trace", "engine.groups", "engine.registry"} <= page_modules
    assert not {"engine.yourcode", "engine.foreign", "engine.check", "engine.exercises"} & page_modules
    assert page_modules | set(info["engine_later"]) == modules
    assert not page_modules & set(info["engine_later"])
    # Each module the page has is its bytecode alone where its source was (the full wheel's
    # __pycache__ file, byte for byte); the data files all come.
    with (
        zipfile.ZipFile(built_dist / info["engine_wheel_pyc_full"]) as full,
        zipfile.ZipFile(built_dist / info["engine_wheel_pyc"]) as page,
    ):
        for name in page_names:
            if name.endswith(".pyc"):
                folder, _, file = name.rpartition("/")
                assert page.read(name) == full.read(f"{folder}/__pycache__/{file[:-4]}.cpython-314.pyc"), name
            elif "dist-info" not in name:
                assert name.startswith("engine/_presets/") and page.read(name) == full.read(name), name
    assert not [n for n in page_names if n.endswith(".py")]
    assert {n for n in full_names if n.startswith("engine/_presets/")} <= page_names
    assert (built_dist / info["engine_wheel_pyc"]).stat().st_size < 0.75 * (
        built_dist / info["engine_wheel_pyc_full"]
    ).stat().st_size


def test_precompiled_files_come_from_the_cache_on_a_rebuild(tmp_path):
    # The warm cache has the compiled stdlib and engine: no Node needed (PATH is
    # empty), and the result is byte for byte the same as dist/.
    done = run_build("--dist", str(tmp_path / "dist"), env=offline_env(tmp_path))
    assert done.returncode == 0, done.stderr
    ours, theirs = build_info(tmp_path / "dist"), build_info(ROOT / "dist")
    for key in ("stdlib_pyc", "engine_wheel_pyc", "engine_wheel_pyc_full", "engine_wheel"):
        assert ours[key] == theirs[key]


def test_prerendered_answers_are_the_engines(built_dist):
    from buildtools import prerender
    from engine import api

    info = build_info(built_dist)
    data = (built_dist / info["prerender"]["file"]).read_bytes()
    assert data == prerender.compute(api.handle)
    parsed = json.loads(data)
    assert list(parsed["answers"]) == info["prerender"]["presets"]
    diamond = parsed["answers"]["diamond"]
    assert diamond["load"] == json.loads(api.handle(json.dumps({"cmd": "load", "preset": "diamond"})))


def test_the_modes_registry_in_the_site_is_the_engines(built_dist):
    """modes/registry.js is the engine's description of its modes; modes/index.js imports
    each mode's web module by its id, in the same order; the introduction counts them."""
    from buildtools import mode_registry
    from engine import api

    modes = json.loads(api.handle({"cmd": "modes"}))["modes"]
    text = (built_dist / "modes" / "registry.js").read_text(encoding="utf-8")
    declared = json.loads(text[text.index("export const MODES = ") + 21 :].rstrip().rstrip(";").replace(",\n]", "\n]"))
    assert declared == modes and len(modes) >= 1
    index = (built_dist / "modes" / "index.js").read_text(encoding="utf-8")
    assert re.findall(r"import mode\d+ from \"\./(\w+)\.js\"", index) == [mode["id"] for mode in modes]
    assert all((built_dist / "modes" / f"{mode['id']}.js").is_file() for mode in modes)
    count = mode_registry.experiments(len(modes))
    assert f"{count} on this graph" in (built_dist / "index.html").read_text(encoding="utf-8")
    assert not (ROOT / "web" / "modes" / "index.js").exists()  # the build writes it


def test_the_operations_in_the_site_are_the_engines(built_dist):
    """ops.js, which the program editor's help lists the operations from, is engine/ops.py's
    table (tests/engine/test_op_registry.py checks the editor reads it)."""
    from buildtools import op_registry
    from engine.ops import OPS

    text = (built_dist / op_registry.OPS_JS).read_text(encoding="utf-8")
    listed = [json.loads(line.strip().rstrip(",")) for line in text.splitlines() if line.startswith("  {")]
    assert listed == [{field: getattr(op, field) for field in op_registry.FIELDS} for op in OPS.values()]
    assert not (ROOT / "web" / op_registry.OPS_JS).exists()  # the build writes it


def test_service_worker_lists_every_file_of_this_build(built_dist):
    info = build_info(built_dist)
    text = (built_dist / "sw.js").read_text()
    match = re.search(r"const MANIFEST = (\{.*?\});\n", text)
    assert match, "build.py did not fill in sw.js"
    manifest = json.loads(match.group(1))
    assert manifest["build_id"] == info["build_id"]
    on_disk = {p.relative_to(built_dist).as_posix() for p in built_dist.rglob("*") if p.is_file()}
    expected = {rel for rel in on_disk if rel != "sw.js" and not rel.endswith((".gz", ".br"))}
    assert set(manifest["files"]) == expected
    for rel, digest in manifest["files"].items():
        assert hashlib.sha256((built_dist / rel).read_bytes()).hexdigest() == digest, rel


def test_compressed_copies_match_their_files(built_dist):
    info = build_info(built_dist)
    wasm = built_dist / info["pyodide_index"] / "pyodide.asm.wasm"
    for path in (wasm, built_dist / info["stdlib_pyc"], built_dist / "index.html"):
        packed = path.with_name(path.name + ".gz")
        assert packed.is_file(), packed
        assert gzip.decompress(packed.read_bytes()) == path.read_bytes()
        assert packed.stat().st_size < path.stat().st_size


# --- serving: caching headers and compression -----------------------------------------


@pytest.mark.parametrize("key", ["wasm", "stdlib_pyc", "engine_wheel_pyc", "engine_wheel"])
def test_content_hashed_files_are_cached_forever(site_url, built_dist, key):
    info = build_info(built_dist)
    rel = info["pyodide_index"] + "pyodide.asm.wasm" if key == "wasm" else info[key]
    status, headers, _ = fetch(site_url + rel, "HEAD")
    assert status == 200
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"


@pytest.mark.parametrize(
    "path", ["", "index.html", "build.json", "sw.js", "worker.js", "widget.js", "prerender/all.json"]
)
def test_unversioned_files_are_revalidated(site_url, path):
    status, headers, _ = fetch(site_url + path, "HEAD")
    assert status == 200
    assert headers["Cache-Control"] == "no-cache"
    assert headers["ETag"]


def test_unchanged_file_revalidates_with_304(site_url):
    _, headers, _ = fetch(site_url + "index.html")
    status, _, body = fetch(site_url + "index.html", **{"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b""


def test_gzip_is_sent_only_to_browsers_that_accept_it(site_url, built_dist):
    info = build_info(built_dist)
    rel = info["pyodide_index"] + "pyodide.asm.wasm"
    original = (built_dist / rel).read_bytes()

    # (A browser that accepts br gets brotli: tests/build/test_brotli.py.)
    status, headers, body = fetch(site_url + rel, **{"Accept-Encoding": "gzip, deflate, zstd"})
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == "application/wasm"
    assert headers["Vary"] == "Accept-Encoding"
    assert int(headers["Content-Length"]) == len(body) < len(original)
    assert gzip.decompress(body) == original

    for refusal in ({}, {"Accept-Encoding": "identity"}, {"Accept-Encoding": "gzip;q=0, br;q=0"}):
        status, headers, body = fetch(site_url + rel, **refusal)
        assert status == 200 and headers["Content-Encoding"] is None, refusal
        assert headers["Vary"] == "Accept-Encoding"
        assert body == original

    status, headers, _ = fetch(site_url + "index.html", **{"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == "text/html; charset=utf-8"


def test_missing_file_is_a_404_that_is_not_cached(site_url):
    status, headers, _ = fetch(site_url + "pyodide/0123456789abcdef/nope.js")
    assert status == 404
    assert headers["Cache-Control"] == "no-cache"


def test_every_response_may_be_read_from_another_origin(site_url, built_dist):
    # A lesson page of another origin loads gradwalk.js and everything it needs in CORS
    # mode (docs/page.md, "From another site"): every answer allows any origin, and none
    # asks for credentials.
    info = build_info(built_dist)
    wasm = info["pyodide_index"] + "pyodide.asm.wasm"
    _, first, _ = fetch(site_url + "gradwalk.js")
    answers = [
        fetch(site_url + path, Origin="http://localhost:1")
        for path in ("gradwalk.js", "worker.js", "build.json", wasm, info["stdlib_pyc"], "style.css", "nope.js")
    ]
    answers.append(fetch(site_url + "gradwalk.js", **{"If-None-Match": first["ETag"]}))
    assert [status for status, _, _ in answers] == [200] * 6 + [404, 304]
    for status, headers, _ in answers:
        assert headers.get_all("Access-Control-Allow-Origin") == ["*"], status
        assert headers["Access-Control-Allow-Credentials"] is None


# ---------------------------------------------------------------- page bundles


@pytest.mark.parametrize("page, entry", [("index.html", "page.js"), ("lesson.html", "gradwalk.js")])
def test_each_page_loads_one_bundled_module(built_dist, page, entry):
    html = (built_dist / page).read_text()
    assert re.findall(r'<script type="module" src="([^"]+)">', html) == [entry]
    assert "modulepreload" not in html
    bundled = (built_dist / entry).read_text()
    # Everything it imports is inside: no import of another file is left (the
    # worker is started by URL, site.js's siteURL, and stays its own file).
    assert not re.search(r'\bimport\s*(?:\(|[^;]*?from\s*)["\']', bundled)
    assert "prerender/all.json" in bundled and "worker.js" in bundled


def test_the_engine_worker_is_one_bundled_file(built_dist):
    # web/worker.js imports its jobs from web/worker/; the worker the pages start by
    # URL is all of them in one file, so its boot starts after one request.
    bundled = (built_dist / "worker.js").read_text()
    assert not re.search(r'\bimport\s*(?:\(|[^;]*?from\s*)["\']', bundled)
    source = (ROOT / "web" / "worker.js").read_text()
    imported = re.findall(r'^import .* from "\./(worker/[\w-]+\.js)";$', source, re.MULTILINE)
    assert len(imported) >= 5
    for module in imported:  # each job's code is in the bundle (its messages, say)
        assert (built_dist / module).is_file(), module
    for said in ("Could not download build.json", "arrived damaged", "Could not load micropip", "the engine"):
        assert said in bundled, said
    # What the worker loads by URL, beside its boot, stays a file of its own.
    assert "boot/snapshot.js" in bundled


def test_the_code_editor_is_a_module_and_its_chunks_that_no_page_bundles(built_dist):
    # web/code-editor-view.js with CodeMirror bundled in, which the page fetches by URL only
    # when the "Your code" mode asks for it (panels/code-editor.js). It imports nothing but
    # its own chunks beside it, one of them Python's grammar, which it imports with import().
    bundled = (built_dist / "code-editor-view.js").read_text()
    prefix = bundle.LAZY_CHUNK_NAMES.split("[")[0]
    imports = re.compile(r'\bimport\s*(?:\(\s*|[^;"\']*?from\s*)["\']([^"\']+)["\']')
    imported = imports.findall(bundled)
    assert imported and all(re.fullmatch(rf"\./{prefix}[A-Z0-9]+\.js", name) for name in imported), imported
    chunks = sorted(built_dist.glob(f"{prefix}*.js"))
    assert {f"./{c.name}" for c in chunks} >= set(imported)
    assert any("import(" in bundled and c.name in bundled.split("import(", 1)[1] for c in chunks)
    for chunk in chunks:  # each imports only its siblings, and is precached like the workers
        text = chunk.read_text()
        assert all(n.startswith(f"./{prefix}") for n in imports.findall(text)), chunk.name
        assert chunk.name in (built_dist / "sw.js").read_text()
    assert re.search(r"export\s*\{[^}]*\bas createEditor\b|export\s*\{[^}]*\bcreateEditor\b", bundled)
    assert "cm-scroller" in bundled  # CodeMirror's own
    for entry in ("page.js", "gradwalk.js", "widget.js"):
        assert "cm-scroller" not in (built_dist / entry).read_text(), entry
    assert "code-editor-view.js" in (built_dist / "sw.js").read_text()  # precached like the workers


def test_server_sends_small_files_without_nagle_delays():
    from buildtools import serve

    # Headers and body are two writes; with Nagle's algorithm on, a kept-alive
    # connection waits for a delayed ACK between them on every small file.
    assert serve.SiteHandler.disable_nagle_algorithm is True
