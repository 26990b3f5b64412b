"""One ES module for the notebook: the page's widget bundled by esbuild.

A notebook front end (anywidget) is a single module handed to the browser as text,
so it cannot import the site's other files. web/notebook.js mounts the same widget
as the page, with the kernel as its engine; esbuild follows its imports (and the
widget's stylesheets, imported as text) into gradwalk/static/widget.js, which the
Python package ships (gradwalk/widget.py reads it).

esbuild is pinned like Pyodide: the platform's binary package from npm
(`@esbuild/linux-x64`, ...), checked against its sha512 integrity before use.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from . import BuildError, fetch, widget_markup

ESBUILD_VERSION = "0.28.2"
# npm's sha512 integrity of each platform's binary package at that version.
ESBUILD_INTEGRITY = {
    "linux-x64": "sha512-4xTZr1FUmSoQW4XIWmit3tzQrUTZM+N3P0XV8xROKYF50XfI7xeO90+1bZvNwxIufQ9hDQVRJH5YhgPVF8A/HQ==",
    "linux-arm64": "sha512-pW4AC0P3it8c7do9MVM4p51FzHzdM/TZrerurgRcHJ2WTa1VQ1CIq18xncfpBJw4ojkiZZrKW2yIBWBP92j6Ug==",
}
ENTRY = "notebook.js"
OUTPUT = Path("gradwalk") / "static" / "widget.js"
BUNDLE_TIMEOUT_S = 120


def esbuild(cache: Path, log) -> Path:
    """The pinned esbuild binary for this machine, from the cache or npm."""
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    key = f"{platform.system().lower()}-{machine}"
    if key not in ESBUILD_INTEGRITY:
        raise BuildError(
            f"the build pins esbuild for {', '.join(ESBUILD_INTEGRITY)} only, not {key}; add this "
            f"platform's @esbuild package and its integrity to buildtools/bundle.py."
        )
    binary = cache / "esbuild" / ESBUILD_VERSION / key / "esbuild"
    if not binary.exists():  # extracted once from the verified tarball, like every cached download
        tgz = fetch.npm_package(cache, f"@esbuild/{key}", ESBUILD_VERSION, ESBUILD_INTEGRITY[key], log)
        binary.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tgz) as tar:
            member = tar.extractfile("package/bin/esbuild")
            if member is None:
                raise BuildError(f"{tgz.name} has no package/bin/esbuild; delete it and run the build again.")
            staged = _unique_partial(binary)
            staged.write_bytes(member.read())
        staged.chmod(0o755)
        staged.replace(binary)
    return binary


def notebook_module(web_copy: Path, out: Path, cache: Path, log) -> None:
    """Bundle `web_copy/notebook.js` (a copy of web/ with the widget's markup already
    written, see widget_markup) into `out`, then drop the entry from the copy: the
    site itself never serves it."""
    entry = web_copy / ENTRY
    if not entry.is_file():
        raise BuildError(f"web/{ENTRY} is missing; restore it and run the build again.")
    out.parent.mkdir(parents=True, exist_ok=True)
    _esbuild(cache, log, entry, out, ["--loader:.css=text", "--minify"])
    entry.unlink()


# The module each page loads (its one <script type="module">): bundled in place.
PAGE_ENTRIES = ("page.js", "gradwalk.js")


def page_modules(site: Path, cache: Path, log) -> list[str]:
    """Bundle each page's module (index.html's page.js, lesson.html's gradwalk.js)
    with everything it imports into one file at the same address, so that a page
    has its whole script after one request instead of a module graph ~25 files wide
    and three imports deep. The modules stay in the site as they are (a host may
    import widget.js itself; the service worker and the tests use them); the worker
    is bundled on its own (worker_module), started by URL. A bundle sits at the
    site's root like its entry, so site.js's import.meta.url still names the root."""
    done = []
    for name in PAGE_ENTRIES:
        entry = site / name
        if not entry.is_file():
            raise BuildError(f"web/{name} is missing; restore it and run the build again.")
        _esbuild(cache, log, entry, site / name, ["--minify"])
        done.append(name)
    return done


# The engine's worker (started by URL: boot/engine-client.js, boot-early.js): its
# modules (worker/*.js) bundled into it in place, so that it starts after one request.
WORKER_ENTRY = "worker.js"


def worker_module(site: Path, cache: Path, log) -> None:
    """Bundle the site's worker.js with the modules it imports into one file at the
    same address (the modules stay in the site as they are, like the pages')."""
    entry = site / WORKER_ENTRY
    if not entry.is_file():
        raise BuildError(f"web/{WORKER_ENTRY} is missing; restore it and run the build again.")
    _esbuild(cache, log, entry, entry, ["--minify"])


def _esbuild(cache: Path, log, entry: Path, out: Path, options: list[str]) -> None:
    """esbuild `entry` with its imports into `out` (written whole or not at all)."""
    staged = _unique_partial(out)  # builds running at once (serve, pip, tests) never share one
    command = [
        str(esbuild(cache, log)),
        str(entry),
        "--bundle",
        "--format=esm",
        *options,
        "--legal-comments=none",
        "--log-level=warning",
        f"--outfile={staged}",
        "--allow-overwrite",
    ]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=BUNDLE_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
        if result.returncode != 0:
            first = (result.stderr or result.stdout).strip().splitlines()[:3]
            raise BuildError(f"esbuild could not bundle web/{entry.name}: {' '.join(first)}")
        staged.chmod(0o644)  # mkstemp made it private; it is served like every file
        staged.replace(out)
    except subprocess.TimeoutExpired:
        raise BuildError(
            f"esbuild took longer than {BUNDLE_TIMEOUT_S} s on web/{entry.name}; run the build again."
        ) from None
    finally:
        staged.unlink(missing_ok=True)  # gone already when it became `out`


def _unique_partial(path: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    return Path(name)


def notebook_module_from_source(root: Path, cache: Path, log=lambda *a: None) -> Path:
    """Build gradwalk/static/widget.js from web/ without building the whole site (what
    `pip install .` runs, through setup.py)."""
    out = root / OUTPUT
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "web"
        shutil.copytree(root / "web", copy)
        widget_markup.write(copy)
        notebook_module(copy, out, cache, log)
    return out
