"""One ES module for the notebook: the page's widget bundled by esbuild.

A notebook front end (anywidget) is a single module handed to the browser as text,
so it cannot import the site's other files. web/notebook.js mounts the same widget
as the page, with the kernel as its engine; esbuild follows its imports (and the
widget's stylesheets, imported as text) into gradwalk/static/widget.js, which the
Python package ships (gradwalk/widget.py reads it).

esbuild comes from node_modules/ like every npm tool (buildtools/npm.py), and runs through
its JavaScript API (buildtools/esbuild.mjs, under Node), which starts the binary of this
machine's platform from the package npm installed for it from package-lock.json. Never
through its bin/esbuild: a plain `npm ci` runs esbuild's install script, which puts the
native binary there in place of the JavaScript launcher.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import BuildError, mode_registry, npm, op_registry, widget_markup

ENTRY = "notebook.js"
OUTPUT = Path("gradwalk") / "static" / "widget.js"
BUNDLE_TIMEOUT_S = 120


SCRIPT = Path(__file__).with_name("esbuild.mjs")


def esbuild(root: Path) -> list[str]:
    """The command that runs the pinned esbuild's JavaScript API, without its options:
    Node, buildtools/esbuild.mjs and the folder whose node_modules/ holds esbuild."""
    if not (npm.package_dir(root, "esbuild") / "package.json").is_file():
        raise BuildError(f"{npm.MODULES}/esbuild is incomplete; delete {npm.MODULES}/ and run the build again.")
    return [npm.node(), str(SCRIPT), str(root)]


def notebook_module(root: Path, web_copy: Path, out: Path) -> None:
    """Bundle `web_copy/notebook.js` (a copy of web/ with the widget's markup already
    written, see widget_markup) into `out`, then drop the entry from the copy: the
    site itself never serves it."""
    entry = web_copy / ENTRY
    if not entry.is_file():
        raise BuildError(f"web/{ENTRY} is missing; restore it and run the build again.")
    out.parent.mkdir(parents=True, exist_ok=True)
    _esbuild(root, entry, out, {"loader": {".css": "text"}, "minify": True})
    entry.unlink()


# The module each page loads (its one <script type="module">): bundled in place.
PAGE_ENTRIES = ("page.js", "gradwalk.js")


def page_modules(root: Path, site: Path) -> list[str]:
    """Bundle each page's module (index.html's page.js, lesson.html's gradwalk.js)
    with everything it imports into one file at the same address, so that a page
    has its whole script after one request instead of a module graph ~25 files wide
    and three imports deep. The modules stay in the site as they are (a host may
    import widget.js itself; the service worker and the tests use them); the worker
    are bundled on their own (worker_modules), started by URL. A bundle sits at the
    site's root like its entry, so site.js's import.meta.url still names the root."""
    done = []
    for name in PAGE_ENTRIES:
        entry = site / name
        if not entry.is_file():
            raise BuildError(f"web/{name} is missing; restore it and run the build again.")
        _esbuild(root, entry, site / name, {"minify": True})
        done.append(name)
    return done


# The workers: the engine's, started by URL as a module worker (boot/engine-client.js,
# boot-early.js), and the code worker, where a learner's own Python runs, which the
# code sandbox starts from its text as a classic worker (a module worker cannot start
# from a blob: URL of an opaque origin: boot/code-sandbox.js), so it is one script
# with no import statement. Each has its modules (worker/*.js) bundled into it in
# place, so that it starts after one request.
WORKER_ENTRIES = (("worker.js", "esm"), ("code-worker.js", "iife"))


def worker_modules(root: Path, site: Path) -> None:
    """Bundle each of the site's workers with the modules it imports into one file at
    the same address (the modules stay in the site as they are, like the pages')."""
    for name, form in WORKER_ENTRIES:
        entry = site / name
        if not entry.is_file():
            raise BuildError(f"web/{name} is missing; restore it and run the build again.")
        _esbuild(root, entry, entry, {"minify": True, "format": form})


# Modules the page imports only when it needs them, by URL: the "Your code" mode's code
# editor (panels/code-editor.js loads it), CodeMirror bundled in, so that a page that
# never opens the mode never requests or parses it. What such a module imports with
# import() becomes a chunk beside it (code-editor-view.js's Python grammar), so that
# evaluating it is a task of its own.
LAZY_ENTRIES = ("code-editor-view.js",)
LAZY_CHUNK_NAMES = "lazy-[hash]"


def lazy_modules(root: Path, site: Path) -> None:
    """Bundle each module the page loads on demand with what it imports (npm packages
    included) into a file at the same address in `site`, and the chunks it imports
    with import() beside it. Bundled from web/ itself, not from the site's copy:
    esbuild finds an npm package in the node_modules/ of a folder above the module, and
    the site may be built anywhere."""
    for name in LAZY_ENTRIES:
        entry = root / "web" / name
        if not entry.is_file():
            raise BuildError(f"web/{name} is missing; restore it and run the build again.")
        staged = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".partial", dir=site))
        try:
            _run_esbuild(
                root,
                entry,
                {"minify": True, "splitting": True, "chunkNames": LAZY_CHUNK_NAMES, "outdir": str(staged)},
            )
            for made in sorted(staged.iterdir()):
                made.chmod(0o644)  # mkdtemp made the folder private; its files are served like every file
                made.replace(site / made.name)
        finally:
            shutil.rmtree(staged, ignore_errors=True)


def _esbuild(root: Path, entry: Path, out: Path, options: dict) -> None:
    """esbuild `entry` with its imports into `out` (written whole or not at all)."""
    staged = _unique_partial(out)  # builds running at once (serve, pip, tests) never share one
    try:
        _run_esbuild(root, entry, {**options, "outfile": str(staged), "allowOverwrite": True})
        staged.chmod(0o644)  # mkstemp made it private; it is served like every file
        staged.replace(out)
    finally:
        staged.unlink(missing_ok=True)  # gone already when it became `out`


def _run_esbuild(root: Path, entry: Path, options: dict) -> None:
    """esbuild's build() of `entry` as one ES module with its imports, with `options`
    (esbuild's JavaScript API's names: outfile, minify, ...)."""
    build = {
        "entryPoints": [str(entry)],
        "bundle": True,
        "format": "esm",
        **options,
        "legalComments": "none",
        "logLevel": "warning",
        "color": False,
    }
    command = [*esbuild(root), json.dumps(build)]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=BUNDLE_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise BuildError(
            f"esbuild took longer than {BUNDLE_TIMEOUT_S} s on web/{entry.name}; run the build again."
        ) from None
    if result.returncode != 0:
        first = [line.strip() for line in (result.stderr or result.stdout).strip().splitlines() if line.strip()][:3]
        raise BuildError(f"esbuild could not bundle web/{entry.name}: {' '.join(first)}")


def _unique_partial(path: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    return Path(name)


def notebook_module_from_source(root: Path, log=lambda *a: None) -> Path:
    """Build gradwalk/static/widget.js from web/ without building the whole site (what
    `pip install .` and `python -m build` run, through setup.py)."""
    npm.ensure(root, log)
    out = root / OUTPUT
    with tempfile.TemporaryDirectory() as tmp:
        notebook_module(root, web_with_generated_files(root, Path(tmp) / "web"), out)
    return out


def web_with_generated_files(root: Path, copy: Path) -> Path:
    """A copy of web/ at `copy` with what the build writes into it (the modes' and the
    operations' registries, the widget's markup): what the notebook's bundle is made from."""
    shutil.copytree(root / "web", copy)
    mode_registry.write(copy, mode_registry.describe(root))
    op_registry.write(copy, op_registry.describe(root))
    widget_markup.write(copy)
    return copy
