"""`python build.py publish DIR --base /assets/gradwalk/`: the built site's files where an
author's own site wants them, and what their host must send with them.

The widget finds every file it needs next to gradwalk.js (site.js), so the files need no
rewriting for a base path: DIR is filled with a copy of dist/ as it is, and the base path
(the URL path DIR will be served at) is only used to say what to write in a page and which
Cache-Control each path needs. DIR is replaced whole, so that no file of an older build
stays behind; a folder that holds anything else (an author's own files) is refused.

    publish(dist, target, base)  copy dist/ into target; returns what to print
    cache_rules(base)            [(URL pattern, Cache-Control)], first match wins
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from . import BuildError, csp, serve, site

# A built site's folders of content-hashed files (site.py): cached forever.
HASHED_FOLDERS = (site.PYODIDE_DIR, site.STDLIB_DIR, site.WHEELS_DIR)
# What a lesson page's Content-Security-Policy must allow for the widget, when its files
# are on the page's own origin: the site's own policy's directives that the widget uses.
PAGE_DIRECTIVES = ("script-src", "worker-src", "connect-src", "style-src", "img-src", "frame-src")
_BASE = re.compile(r"^/([A-Za-z0-9._~!$&'()*+,;=:@%-]+/)*$")


def check_base(base: str) -> str:
    """The base path, checked: absolute, ending in a slash, without a query or a host."""
    if not base.startswith("/"):
        base = "/" + base
    if not base.endswith("/"):
        base += "/"
    if not _BASE.match(base) or "/../" in base or "/./" in base:
        raise BuildError(f"--base {base!r} is not a URL path; give one like /assets/gradwalk/.")
    return base


def cache_rules(base: str) -> list[tuple[str, str]]:
    """Each URL pattern under `base` with the Cache-Control it needs; the first that matches
    a path applies (`serve.cache_control` is the same rule, for the path inside the site)."""
    rules = [(f"{base}{folder}/*", serve.IMMUTABLE) for folder in HASHED_FOLDERS]
    return [*rules, (f"{base}*", serve.REVALIDATE)]


def page_policy() -> str:
    """The directives a lesson page's Content-Security-Policy must allow for the widget."""
    values = dict(csp.DIRECTIVES)
    return "; ".join(f"{name} {values[name]}" for name in PAGE_DIRECTIVES)


def publish(dist: Path, target: Path, base: str) -> str:
    """Replace `target` with a copy of the built `dist/`; return the instructions to print."""
    base = check_base(base)
    if not (dist / site.BUILD_JSON).is_file():
        raise BuildError(f"{dist} holds no build; run `python build.py` first.")
    target = target.resolve()
    if dist.resolve() in (target, *target.parents) or target in dist.resolve().parents:
        raise BuildError(f"{target} overlaps the build itself; choose a folder outside {dist}.")
    if target.exists() and not _replaceable(target):
        raise BuildError(
            f"{target} already holds files that are not a Gradwalk build; choose an empty or new folder "
            "(publish replaces the whole folder)."
        )
    staging = target.parent / f".{target.name}-publishing"
    shutil.rmtree(staging, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(dist, staging)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return instructions(target, base)


def _replaceable(target: Path) -> bool:
    """A folder publish may replace: missing, empty, or filled by an earlier publish."""
    if not target.is_dir():
        return False
    return not any(target.iterdir()) or (target / site.BUILD_JSON).is_file() and (target / "gradwalk.js").is_file()


def instructions(target: Path, base: str) -> str:
    files = [p for p in target.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    width = max(len(pattern) for pattern, _ in cache_rules(base))
    rules = "\n".join(f"  {pattern.ljust(width)}  Cache-Control: {value}" for pattern, value in cache_rules(base))
    return f"""\
Copied the widget's files into {target} ({len(files)} files, {size / 1e6:.1f} MB),
to be served at {base}

In a page of the site:
  <script type="module" src="{base}gradwalk.js"></script>
  <grad-walk preset="diamond"></grad-walk>

Cache-Control your host must send (the first pattern that matches a path applies):
{rules}

Also send .wasm files as application/wasm, and, where the host can, the .br and .gz copies
with Content-Encoding and Vary: Accept-Encoding. The pages' Content-Security-Policy must allow:
  {page_policy()}
{base}{csp.SANDBOX_FILE} carries a policy of its own (no network: "Your code" runs in it); if
the host sends a Content-Security-Policy header, send that file without it.
"""
