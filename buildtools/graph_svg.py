"""index.html with its default preset's graph already drawn in it.

The page used to draw its first graph by script, from prerender/all.json, once its
modules had arrived (~150 ms after its first paint). The build now draws the
default preset's graph (the chooser's first) with the page's own drawing modules
under Node (graph_svg.mjs, which explains how text widths are bounded there) and
writes it into the widget's declarative shadow root, so it is painted with the
page; panels/graph.js adopts that markup instead of drawing it again, and
tests/page/test_prerendered_graph.py proves it is byte for byte what the script
draws. Node runs the same modules the browser runs; no browser is needed to build.

In place of the `<!-- gw:prerendered-graph ... -->` marker (last in the head) go a
`<meta name="gw-prerendered">` naming the preset and boot/prerendered-gate.js,
which hides the graph before the first paint when the page's query asks for
something else.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from . import BuildError, prerender

SCRIPT = Path(__file__).with_name("graph_svg.mjs")
MARKER_RE = re.compile(r"<!-- gw:prerendered-graph\b.*?-->")
GATE = "boot/prerendered-gate.js"
PAGE = "index.html"
NODE_TIMEOUT_S = 60
_SVG = re.compile(r'<svg id="graph"([^>]*)></svg>')
_PLACEHOLDER = '<p id="graph-placeholder" class="graph-placeholder"'


def draw(site: Path, preset_ids: list[str]) -> dict:
    """{id: {"attributes": {...}, "markup": "..."} or {"skipped": why}} for each
    preset, drawn from site/prerender/all.json by site's own modules."""
    node = shutil.which("node")
    if node is None:
        raise BuildError("Node.js is needed to draw the first graph into index.html; install it "
                         "(https://nodejs.org) and run the build again.")
    try:
        done = subprocess.run([node, str(SCRIPT), str(site), *preset_ids], capture_output=True, text=True,
                              timeout=NODE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise BuildError(f"drawing the first graph took longer than {NODE_TIMEOUT_S} s; run the build again.") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BuildError(f"the first graph could not be drawn for index.html: {last}")
    return json.loads(done.stdout)


def svg_element(attributes: dict, markup: str, preset_id: str, head: str) -> str:
    """The whole <svg>: widget.html's own attributes (`head`), the drawn ones, and
    data-prerendered naming the preset (which the script's adoption checks)."""
    drawn = "".join(f' {k}="{_attr(v)}"' for k, v in attributes.items())
    return f'<svg id="graph"{head}{drawn} data-prerendered="{_attr(preset_id)}">{markup}</svg>'


def inline_default(site: Path, log=lambda *a: None) -> str | None:
    """Write the default preset's graph into site/index.html; returns its id, or
    None when it cannot be drawn faithfully (then the script draws it, as before)."""
    page = site / PAGE
    html = page.read_text(encoding="utf-8")
    marker = MARKER_RE.search(html)
    if marker is None:
        return None
    all_json = json.loads((site / prerender.FILE).read_text(encoding="utf-8"))
    default = all_json["presets"]["presets"][0]["id"]
    drawn = draw(site, [default])[default]
    found = _SVG.search(html)
    if "skipped" in drawn or not found or _PLACEHOLDER not in html:
        log(f"index.html: the {default} graph is drawn by script ({drawn.get('skipped', 'no <svg id=graph>')})")
        page.write_text(html.replace(marker.group(0), "", 1), encoding="utf-8")
        return None
    head = (f'<meta name="gw-prerendered" content="{_attr(default)}">\n'
            f'  <script src="{GATE}"></script>')
    html = html.replace(marker.group(0), head, 1)
    html = html.replace(found.group(0), svg_element(drawn["attributes"], drawn["markup"], default, found.group(1)), 1)
    html = html.replace(_PLACEHOLDER, _PLACEHOLDER + " data-prerendered", 1)
    page.write_text(html, encoding="utf-8")
    return default


def _attr(value: str) -> str:
    return (str(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;"))
