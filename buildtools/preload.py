"""Module preloads: every module a page's scripts import, fetched at once.

A browser discovers an ES module's imports only after the module has arrived,
so app.js -> learn/index.js -> learn/dom.js -> busy.js costs one round trip per
level before the first paint can happen. A `<link rel="modulepreload">` per
module in the page's head asks for all of them together while the HTML is still
being parsed.

The build writes those links in place of the `<!-- gw:modulepreload -->` marker
of each HTML page, from the static imports (`import ... from "./x.js"`,
`import "./x.js"`) of the page's module scripts, followed transitively. Dynamic
`import()` calls are left out on purpose: they load what is not needed at once.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from . import BuildError

MARKER = "<!-- gw:modulepreload -->"

# `<script type="module" ... src="app.js">` in either attribute order.
_MODULE_SCRIPT = re.compile(r"<script\b(?=[^>]*\btype=\"module\")[^>]*\bsrc=\"([^\"]+)\"[^>]*>")
# A static import's specifier: `from "./x.js"` or a bare `import "./x.js"`, at
# the start of a line (the modules here write one import per statement).
_STATIC_IMPORT = re.compile(r"^\s*(?:import|export)\b[^;\"'(]*?(?:\bfrom\s*)?[\"'](\.{1,2}/[^\"']+)[\"']", re.M)


def static_imports(source: str) -> list[str]:
    """The relative specifiers a module imports statically, in source order."""
    return _STATIC_IMPORT.findall(_without_comments(source))


def module_closure(site: Path, entries: list[str]) -> list[str]:
    """Every module reachable from the entry modules (site-relative paths),
    entries first, then in the order they are found."""
    seen: list[str] = []
    queue = list(entries)
    while queue:
        rel = queue.pop(0)
        if rel in seen:
            continue
        path = site / rel
        if not path.is_file():
            raise BuildError(f"{rel} is imported but missing from web/; fix the import and build again.")
        seen.append(rel)
        folder = posixpath.dirname(rel)
        for spec in static_imports(path.read_text(encoding="utf-8")):
            queue.append(posixpath.normpath(posixpath.join(folder, spec)))
    return seen


def add_module_preloads(site: Path) -> dict[str, list[str]]:
    """Replace the marker in each top-level HTML page of the site with its
    preload links; returns {page: [modules]} for the pages that had one."""
    done = {}
    for page in sorted(site.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        if MARKER not in html:
            continue
        entries = [posixpath.normpath(src) for src in _MODULE_SCRIPT.findall(html)]
        modules = module_closure(site, entries)
        # The entry scripts are already being fetched by their own tags.
        links = [f'<link rel="modulepreload" href="{rel}">' for rel in modules if rel not in entries]
        page.write_text(html.replace(MARKER, "\n  ".join(links)), encoding="utf-8")
        done[page.name] = modules
    return done


def _without_comments(source: str) -> str:
    """The source with // and /* */ comments blanked (strings are left alone:
    a specifier never contains a comment marker here)."""
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    return re.sub(r"(^|[^:\"'\\])//[^\n]*", r"\1", source)
