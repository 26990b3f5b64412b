"""The npm side of the build: package-lock.json pins every npm package, for every desktop
platform, and buildtools/npm.py installs it with `npm ci` once, or says in one sentence
why it could not."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build as build_script
from buildtools import BuildError, bundle, npm

ROOT = build_script.ROOT
LOCK = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
DESKTOPS = [(os_name, cpu) for os_name in ("linux", "darwin", "win32") for cpu in ("x64", "arm64")]


# --- the lockfile ---------------------------------------------------------------------


@pytest.mark.parametrize("os_name, cpu", DESKTOPS)
def test_lockfile_carries_esbuilds_binary_for_every_desktop(os_name, cpu):
    esbuild = LOCK["packages"]["node_modules/esbuild"]
    binary = LOCK["packages"].get(f"node_modules/@esbuild/{os_name}-{cpu}")
    assert binary is not None, f"package-lock.json has no @esbuild/{os_name}-{cpu}"
    assert binary["version"] == esbuild["version"]
    assert binary["os"] == [os_name] and binary["cpu"] == [cpu]
    assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", binary["integrity"])
    # esbuild's API finds it because esbuild names it as an optional dependency.
    assert esbuild["optionalDependencies"][f"@esbuild/{os_name}-{cpu}"] == esbuild["version"]


def test_every_locked_package_has_an_integrity_and_comes_from_the_registry():
    packages = {name: entry for name, entry in LOCK["packages"].items() if name}  # "" is the project itself
    assert len(packages) > 50
    for name, entry in packages.items():
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==", entry.get("integrity", "")), name
        # No git, file or tarball address: every package is the registry's (npm's default,
        # which the lockfile leaves unwritten).
        assert entry.get("resolved", "https://registry.npmjs.org/").startswith("https://registry.npmjs.org/"), name
        assert not entry.get("link"), name


def test_package_json_pins_exact_versions_that_the_lockfile_installs():
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    wanted = manifest["devDependencies"]
    assert {"pyodide", "esbuild", "linkedom"} <= set(wanted)
    assert LOCK["packages"][""]["devDependencies"] == wanted
    for name, version in wanted.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned exactly: {version}"
        assert LOCK["packages"][f"node_modules/{name}"]["version"] == version, name


def test_build_py_pins_the_pyodide_the_lockfile_installs():
    assert LOCK["packages"]["node_modules/pyodide"]["version"] == build_script.PINS.pyodide_version


def test_no_build_tool_names_a_platform():
    # npm picks esbuild's binary; the build itself runs the same everywhere.
    # (Prose may say how a platform behaves: "on Windows, npm.cmd"; code names none.)
    words = re.compile(r"\b(linux|darwin|win32|x64|x86_64|arm64|aarch64)\b|platform\.|os\.name")
    found = [
        f"{path.name}: {line.strip()}"
        for path in sorted((ROOT / "buildtools").glob("*.*"))
        if path.suffix in (".py", ".mjs")
        for line in path.read_text(encoding="utf-8").splitlines()
        if words.search(line)
    ]
    assert not found, found


# --- npm.ensure -----------------------------------------------------------------------


def project(tmp_path: Path) -> Path:
    """A folder with the project's package.json and package-lock.json, and no node_modules."""
    root = tmp_path / "project"
    root.mkdir()
    for name in (npm.MANIFEST, npm.LOCKFILE):
        shutil.copyfile(ROOT / name, root / name)
    return root


def stand_in_npm(tmp_path: Path, body: str) -> str:
    """A PATH holding only an `npm` that runs `body` (Python, with `args` its arguments)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "npm"
    script.write_text(f"#!{sys.executable}\nimport os, pathlib, sys, time\nargs = sys.argv[1:]\n{body}\n")
    script.chmod(0o755)
    return str(folder)


def test_npm_ci_installs_the_lockfile_once(tmp_path, monkeypatch):
    # The real npm (from its cache when it can): a second ensure() runs nothing at all,
    # not even npm, until a package in package-lock.json changes.
    root = project(tmp_path)
    modules = npm.ensure(root)
    assert npm.installed_version(root, "pyodide") == LOCK["packages"]["node_modules/pyodide"]["version"]
    assert (npm.package_dir(root, "pyodide") / "pyodide.asm.wasm").is_file()
    assert npm.installed_version(root, "linkedom") == LOCK["packages"]["node_modules/linkedom"]["version"]
    done = subprocess.run([*bundle.esbuild(root), "--version"], capture_output=True, text=True)
    assert done.stdout.strip() == LOCK["packages"]["node_modules/esbuild"]["version"]

    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # no npm from here on
    assert npm.ensure(root) == modules
    (root / npm.LOCKFILE).write_text(json.dumps(LOCK, indent=1))  # the same packages, written otherwise
    assert npm.ensure(root) == modules
    changed = json.loads(json.dumps(LOCK))
    changed["packages"]["node_modules/linkedom"]["integrity"] = LOCK["packages"]["node_modules/pyodide"]["integrity"]
    (root / npm.LOCKFILE).write_text(json.dumps(changed))  # one package that is not what npm installed
    with pytest.raises(BuildError, match="npm was not found"):
        npm.ensure(root)


def installs(packages: dict) -> str:
    """A stand-in npm's body that records npm's list of what it installed: `packages`."""
    record = json.dumps({"name": "gradwalk", "lockfileVersion": 3, "packages": packages})
    return f"pathlib.Path('node_modules').mkdir()\npathlib.Path('node_modules/{npm.INSTALLED}').write_text({record!r})"


def test_npm_ci_is_asked_for_exactly_the_lockfile_and_not_asked_again(tmp_path, monkeypatch):
    root = project(tmp_path)
    calls = tmp_path / "calls"
    # As npm does: every package but the optional ones of other platforms (here: all of them).
    installed = {name: entry for name, entry in LOCK["packages"].items() if name and not entry.get("optional")}
    path = stand_in_npm(
        tmp_path,
        f"pathlib.Path({str(calls)!r}).open('a').write(os.getcwd() + ' ' + ' '.join(args) + '\\n')\n"
        + installs(installed),
    )
    monkeypatch.setenv("PATH", path)
    npm.ensure(root)
    npm.ensure(root)
    assert calls.read_text().splitlines() == [f"{root} ci --ignore-scripts --no-audit --no-fund"]


def test_npm_that_installs_something_else_is_one_sentence(tmp_path, monkeypatch):
    root = project(tmp_path)
    installed = {name: entry for name, entry in LOCK["packages"].items() if name and not entry.get("optional")}
    del installed["node_modules/pyodide"]
    monkeypatch.setenv("PATH", stand_in_npm(tmp_path, installs(installed)))
    with pytest.raises(BuildError) as failure:
        npm.ensure(root)
    assert_one_sentence(str(failure.value), "different from package-lock.json", "update npm")


def test_a_linked_node_modules_is_never_emptied(tmp_path, monkeypatch):
    # A node_modules/ that links to another checkout's: npm ci would empty that folder.
    root = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "kept").write_text("another checkout's")
    (root / "node_modules").symlink_to(elsewhere, target_is_directory=True)
    calls = tmp_path / "calls"
    monkeypatch.setenv("PATH", stand_in_npm(tmp_path, f"pathlib.Path({str(calls)!r}).write_text('ran')"))
    with pytest.raises(BuildError) as failure:
        npm.ensure(root)
    assert_one_sentence(str(failure.value), "links to", "npm ci")
    assert not calls.exists() and (elsewhere / "kept").read_text() == "another checkout's"


def test_missing_npm_is_one_sentence_naming_what_to_install(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(BuildError) as failure:
        npm.ensure(root)
    assert_one_sentence(str(failure.value), "npm", "install Node.js")


def test_failing_npm_is_one_sentence_with_npms_words_kept_for_verbose(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv(
        "PATH", stand_in_npm(tmp_path, "print('npm error code EINTEGRITY', file=sys.stderr); sys.exit(1)")
    )
    with pytest.raises(BuildError) as failure:
        npm.ensure(root)
    assert_one_sentence(str(failure.value), "npm ci could not install", "again")
    assert "EINTEGRITY" in str(failure.value.__cause__)


def test_npm_that_hangs_is_stopped(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.setenv("PATH", stand_in_npm(tmp_path, "time.sleep(60)"))
    monkeypatch.setattr(npm, "NPM_TIMEOUT_S", 1)
    with pytest.raises(BuildError) as failure:
        npm.ensure(root)
    assert_one_sentence(str(failure.value), "longer than 1 s")


def test_build_py_without_npm_is_one_sentence(tmp_path):
    # The build's own words, from a copy of the project that has never run npm.
    root = project(tmp_path)
    shutil.copyfile(ROOT / "build.py", root / "build.py")
    shutil.copyfile(ROOT / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(ROOT / "buildtools", root / "buildtools", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PATH": str(tmp_path / "nothing")}
    done = subprocess.run(
        [sys.executable, str(root / "build.py"), "--cache", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done
    assert "Traceback" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("build.py: npm was not found")
    assert not (root / "dist").exists()


def assert_one_sentence(message: str, *words: str) -> None:
    assert "\n" not in message and message.endswith("."), message
    for word in words:
        assert word in message, message
