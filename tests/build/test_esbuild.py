"""esbuild runs however node_modules/ was installed (issue 32, item 9).

The build installs the npm packages with `npm ci --ignore-scripts`, but a learner or an
author may have run a plain `npm ci` first, as npm users do. That runs esbuild's install
script, which replaces node_modules/esbuild/bin/esbuild (a JavaScript launcher) with the
machine's native binary, so a build that ran that file with Node failed. The build runs
esbuild through its JavaScript API instead (buildtools/esbuild.mjs), which finds the
binary in the platform's package either way.

Each case installs, in a folder of its own, the lockfile's esbuild and its platform
packages (the lockfile's entries, integrity and all, and nothing else, so an install takes
a second or two from npm's cache instead of the whole lockfile's ~15 s; esbuild is the only
locked package with an install script, which the first test keeps true), then bundles the
notebook's module from this working tree's web/ with it.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build as build_script
from buildtools import BuildError, bundle, npm

pytestmark = pytest.mark.node  # the bundle is made by esbuild's API under Node

ROOT = build_script.ROOT
LOCK = json.loads((ROOT / npm.LOCKFILE).read_text(encoding="utf-8"))
NPM_TIMEOUT_S = 300


def test_esbuild_is_the_only_locked_package_with_an_install_script():
    # So installing esbuild alone, both ways, covers everything an install script can change.
    scripted = [name for name, entry in LOCK["packages"].items() if entry.get("hasInstallScript")]
    assert scripted == ["node_modules/esbuild"]


def esbuild_project(folder: Path) -> Path:
    """A project whose package.json and package-lock.json hold the lockfile's esbuild and
    its platform packages, exactly as package-lock.json pins them."""
    folder.mkdir()
    version = LOCK["packages"]["node_modules/esbuild"]["version"]
    manifest = {"name": "gradwalk", "private": True, "devDependencies": {"esbuild": version}}
    packages = {
        "": {"name": "gradwalk", "devDependencies": {"esbuild": version}},
        **{
            name: entry
            for name, entry in LOCK["packages"].items()
            if name == "node_modules/esbuild" or name.startswith("node_modules/@esbuild/")
        },
    }
    lock = {"name": "gradwalk", "lockfileVersion": LOCK["lockfileVersion"], "requires": True, "packages": packages}
    (folder / npm.MANIFEST).write_text(json.dumps(manifest, indent=2))
    (folder / npm.LOCKFILE).write_text(json.dumps(lock, indent=2))
    return folder


def npm_ci(project: Path, *options: str) -> None:
    """`npm ci` as a person types it, with `options` (from npm's cache when it can)."""
    found = shutil.which("npm")
    if found is None:
        pytest.fail("npm is not on PATH", pytrace=False)
    done = subprocess.run(
        [found, "ci", "--no-audit", "--no-fund", "--prefer-offline", *options],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=NPM_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr


def launcher_is_javascript(project: Path) -> bool:
    return (npm.package_dir(project, "esbuild") / "bin" / "esbuild").read_bytes().startswith(b"#!")


@pytest.fixture(scope="module")
def web_copy(tmp_path_factory) -> Path:
    """web/ with what the build writes into it, as the build bundles it."""
    return bundle.web_with_generated_files(ROOT, tmp_path_factory.mktemp("web") / "web")


@pytest.mark.parametrize("install", ["npm ci", "npm ci --ignore-scripts"])
def test_the_notebook_module_bundles_however_node_modules_was_installed(install, tmp_path, web_copy):
    project = esbuild_project(tmp_path / "project")
    npm_ci(project, *install.split()[2:])
    if install == "npm ci" and sys.platform != "win32":
        # The case this test is for: esbuild's install script put its native binary
        # where its JavaScript launcher was (on Windows it leaves the launcher).
        assert not launcher_is_javascript(project)
    if install.endswith("--ignore-scripts"):
        assert launcher_is_javascript(project)
    assert npm.ensure(project) == project / npm.MODULES  # the build takes it as installed, as it is

    done = subprocess.run([*bundle.esbuild(project), "--version"], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == LOCK["packages"]["node_modules/esbuild"]["version"], done.stderr

    entry = tmp_path / "web"
    shutil.copytree(web_copy, entry)
    out = tmp_path / "widget.js"
    bundle.notebook_module(project, entry, out)
    text = out.read_text(encoding="utf-8")
    assert len(text) > 50_000 and " as default" in text.rsplit("export{", 1)[1]  # the whole widget, one module
    assert not (entry / bundle.ENTRY).exists()  # the site never serves the entry
    assert oct(os.stat(out).st_mode & 0o777) == oct(0o644)


def test_an_esbuild_failure_is_one_sentence_with_esbuilds_words(tmp_path):
    entry = tmp_path / "broken.js"
    entry.write_text('import "./nowhere.js";\n')
    with pytest.raises(BuildError) as failure:
        bundle._esbuild(ROOT, entry, tmp_path / "out.js", {})
    message = str(failure.value)
    assert message.startswith("esbuild could not bundle web/broken.js: ") and "nowhere.js" in message, message
    assert "\n" not in message
    assert not list(tmp_path.glob(".out.js.*"))  # no partial file left behind
