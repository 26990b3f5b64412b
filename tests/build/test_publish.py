"""`python build.py publish DIR --base PATH` (buildtools/publish.py): the built site copied where
an author's site wants it, and the caching rules it prints for that base path."""

import fnmatch
import subprocess
import sys

import pytest

import build as build_script
from buildtools import BuildError, publish, serve


def publish_cli(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "build.py", "publish", *map(str, args)],
        cwd=build_script.ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_publish_copies_the_build_and_prints_the_page_snippet_and_rules(built_dist, tmp_path):
    target = tmp_path / "site" / "assets" / "gradwalk"
    done = publish_cli(target, "--base", "/course/assets/gradwalk/", "--dist", built_dist)
    assert done.returncode == 0, done.stderr
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert copied == sorted(p.relative_to(built_dist).as_posix() for p in built_dist.rglob("*") if p.is_file())
    assert (target / "pyodide").is_dir() and (target / "anywidget.js").is_file()
    assert '<script type="module" src="/course/assets/gradwalk/gradwalk.js"></script>' in done.stdout
    assert "/course/assets/gradwalk/pyodide/*  Cache-Control: public, max-age=31536000, immutable" in done.stdout
    assert "/course/assets/gradwalk/*          Cache-Control: no-cache" in done.stdout
    assert "worker-src 'self'" in done.stdout and "'wasm-unsafe-eval'" in done.stdout


def test_the_printed_rules_give_every_file_the_header_serve_sends(built_dist):
    base = "/a/b/"
    rules = publish.cache_rules(base)
    files = [p.relative_to(built_dist).as_posix() for p in built_dist.rglob("*") if p.is_file()]
    hashed = 0
    for rel in files:
        first = next(value for pattern, value in rules if fnmatch.fnmatchcase(base + rel, pattern))
        assert first == serve.cache_control("/" + rel), rel
        hashed += first == serve.IMMUTABLE
    assert 0 < hashed < len(files)  # both kinds are there


def test_publish_replaces_an_earlier_publish_whole(built_dist, tmp_path):
    target = tmp_path / "gradwalk"
    publish.publish(built_dist, target, "/gradwalk/")
    stale = target / "pyodide" / "0123456789abcdef" / "old.wasm"
    stale.parent.mkdir()
    stale.write_bytes(b"an older build's file")
    publish.publish(built_dist, target, "/gradwalk/")
    assert not stale.parent.exists()
    assert (target / "gradwalk.js").read_bytes() == (built_dist / "gradwalk.js").read_bytes()
    assert not list(tmp_path.glob(".*publishing"))


def test_publish_refuses_a_folder_with_other_files_and_leaves_it_alone(built_dist, tmp_path):
    (tmp_path / "docs").mkdir()
    own = tmp_path / "docs" / "index.md"
    own.write_text("# An author's page\n")
    done = publish_cli(tmp_path / "docs", "--base", "/", "--dist", built_dist)
    assert done.returncode == 1
    assert "not a Gradwalk build" in done.stderr and "Traceback" not in done.stderr
    assert [p.name for p in (tmp_path / "docs").iterdir()] == ["index.md"]


@pytest.mark.parametrize("base", ["https://example.org/x/", "/a b/", "/../x/", "/x/?q=1"])
def test_a_base_that_is_not_a_url_path_is_refused(base):
    with pytest.raises(BuildError, match="not a URL path"):
        publish.check_base(base)


def test_a_base_gets_its_slashes():
    assert publish.check_base("assets/gradwalk") == "/assets/gradwalk/"
    assert publish.check_base("/") == "/"


def test_publish_needs_the_base_path():
    done = publish_cli("somewhere", timeout=60)
    assert done.returncode == 2 and "--base" in done.stderr
