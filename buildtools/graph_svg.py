"""index.html with every preset's graph already drawn in it.

The page used to draw its first graph by script, from prerender/all.json, once its
modules had arrived (~150 ms after its first paint). The build now draws the
default preset's graph (the chooser's first) with the page's own drawing modules
under Node, in linkedom's DOM (graph_svg.mjs, which explains how text widths are
bounded there) and writes it into the widget's declarative shadow root, so it is
painted with the page; panels/graph.js adopts that markup instead of drawing it again, and
tests/page/test_prerendered_graph.py proves it is byte for byte what the script
draws. Node runs the same modules the browser runs; no browser is needed to build.

In place of the `<!-- gw:prerendered-graph ... -->` marker (last in the head) go a
`<meta name="gw-prerendered">` naming the preset and boot/prerendered-gate.js,
which hides the graph before the first paint when the page's query asks for
something else. Every other preset's graph goes into an inert
`<template id="gw-graph-<preset>">` in the head (inline_presets), which the gate swaps in
when the query asks for that preset's start. A small graph is also drawn laid out
down the page (`<template id="gw-graph-<preset>-down">`, every preset's, the
default's too): the gate measures the graph's box and swaps that one in when it shows
the whole graph bigger there (a phone, a lesson's column), by the rule the script
follows (panels/graph-scroll.js's pickLayout), so that the graph does not change when
the script takes over.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from . import BuildError, npm, prerender

SCRIPT = Path(__file__).with_name("graph_svg.mjs")
MARKER_RE = re.compile(r"<!-- gw:prerendered-graph\b.*?-->")
TEMPLATES_MARKER_RE = re.compile(r"<!-- gw:prerendered-graphs\b.*?-->")
GATE = "boot/prerendered-gate.js"
PAGE = "index.html"
NODE_TIMEOUT_S = 60
_SVG = re.compile(r'<svg id="graph"([^>]*)></svg>')
_PLACEHOLDER = '<p id="graph-placeholder" class="graph-placeholder"'


def draw(site: Path, preset_ids: list[str]) -> dict:
    """{id: {"attributes": {...}, "markup": "..."} or {"skipped": why}} for each
    preset, drawn from site/prerender/all.json by site's own modules."""
    try:
        done = subprocess.run(
            [npm.node(), str(SCRIPT), str(site), *preset_ids],
            capture_output=True,
            text=True,
            timeout=NODE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
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


def inline_presets(site: Path, log=lambda *a: None) -> list[str]:
    """Write every preset's graph into site/index.html: the default's (the chooser's
    first) in the widget's <svg id="graph">, each other one's in a <template> in the
    head for the gate to swap in (the gate runs again right after the widget).
    Returns the inlined ids, the default first; [] when the default cannot be drawn
    (then the script draws every graph, as before). A preset that cannot be drawn is
    left to the script."""
    page = site / PAGE
    html = page.read_text(encoding="utf-8")
    marker = MARKER_RE.search(html)
    if marker is None:
        return []
    templates = TEMPLATES_MARKER_RE.search(html)
    all_json = json.loads((site / prerender.FILE).read_text(encoding="utf-8"))
    ids = [p["id"] for p in all_json["presets"]["presets"]]
    drawn = draw(site, ids)
    default = ids[0]
    found = _SVG.search(html)
    if "skipped" in drawn[default] or not found or _PLACEHOLDER not in html or templates is None:
        log(
            f"index.html: the {default} graph is drawn by script ({drawn[default].get('skipped', 'no <svg id=graph>')})"
        )
        html = TEMPLATES_MARKER_RE.sub("", html.replace(marker.group(0), "", 1), count=1)
        page.write_text(html, encoding="utf-8")
        return []

    def svg(preset, way=None):
        picture = drawn[preset][way] if way else drawn[preset]
        return svg_element(picture["attributes"], picture["markup"], preset, found.group(1))

    others = [p for p in ids[1:] if "skipped" not in drawn[p]]
    for p in ids[1:]:
        if p not in others:
            log(f"index.html: the {p} graph is drawn by script ({drawn[p]['skipped']})")
    # The templates go in the head: parsed before the body, where nothing is painted
    # yet, so that the parser goes from the widget's <svg> to the gate's second run
    # (which swaps the asked-for one in) with little in between, where it might
    # yield and let the browser paint a frame without the graph.
    gate = f'<script src="{GATE}"></script>'
    head = (
        "".join(
            f'<template id="gw-graph-{_attr(p)}"{template_texts(texts(all_json, p))}>{svg(p)}</template>\n  '
            for p in others
        )
        + "".join(
            f'<template id="gw-graph-{_attr(p)}-down"{template_texts(texts(all_json, p))}>'
            f"{svg(p, 'down')}</template>\n  "
            for p in [default, *others]
            if "down" in drawn[p]
        )
        + f'<meta name="gw-prerendered" content="{_attr(default)}">\n  {gate}'
    )
    body = gate
    html = html.replace(marker.group(0), head, 1)
    html = html.replace(found.group(0), svg(default), 1)
    html = write_texts(html, texts(all_json, default))
    html = html.replace(_PLACEHOLDER, _PLACEHOLDER + " data-prerendered", 1)
    html = TEMPLATES_MARKER_RE.sub(lambda _: body, html, count=1)
    page.write_text(html, encoding="utf-8")
    return [default, *others]


def texts(all_json: dict, preset: str) -> dict:
    """The texts the script shows above a preset's graph (actions/load.js's showPresetText)."""
    detail = all_json["answers"][preset]["preset"]["preset"]
    return {"title": detail["title"], "summary": detail["summary"], "lesson": (detail.get("lesson") or "").strip()}


def template_texts(shown: dict) -> str:
    """A template's data-* for the gate to write: the title and summary, and whether
    there is a lesson (its text, in a closed <details>, moves nothing and is long:
    the script writes it)."""
    return f' data-title="{_attr(shown["title"])}" data-summary="{_attr(shown["summary"])}"' + (
        " data-lesson" if shown["lesson"] else ""
    )


# The graph's zoom tools as panels/graph-scroll.js's makeTools() makes them (for a
# mouse, at scale 1), but disabled: they work once the script has made its own. The
# row then stands where the script's will, and the graph below does not move when
# the script takes over. tests/page/test_prerendered_graph.py checks them against
# the script's.
_TOOL = '<button type="button" class="button small graph-tool" aria-label="{0}" title="{0}" disabled>{1}</button>'
TOOLS = (
    '<div class="graph-tool-row">'
    + _TOOL.format("Zoom out", "−")
    + '<span class="graph-zoom" aria-hidden="true">100%</span>'
    + _TOOL.format("Zoom in", "+")
    + _TOOL.format("Fit the whole graph", "Fit")
    + "</div>"
    + '<p id="graph-keys" class="graph-keys">'
    + "Drag to pan. With the graph focused: arrow keys pan, + and − zoom, 0 fits.</p>"
)
_TOOLS_EMPTY = '<div id="graph-tools" class="graph-tools"></div>'

_TEXT_RE = {
    "title": re.compile(r'(<h2 id="preset-title")>[^<]*(</h2>)'),
    "summary": re.compile(r'(<p id="preset-summary" class="summary")>[^<]*(</p>)'),
    "lesson": re.compile(r'(<p id="preset-lesson" class="lesson-body")>[^<]*(</p>)'),
}
_LESSON_MORE = '<details id="lesson-more" class="lesson-more" hidden>'
# The chooser's one option until the presets arrive: it names the preset shown (on a
# phone the chooser is the title: style.css).
_CHOOSER_WAITING = '<option value="">Loading presets…</option>'


def write_texts(html: str, shown: dict) -> str:
    """The default preset's title, summary and lesson written in place of the widget's
    "Loading…" texts (the title also as the chooser's waiting option), and the graph's
    zoom tools, so that what is above the graph does
    not move it when the script takes over. The texts are marked data-prerendered
    (hidden, in their place, when the query asks for something else: page.css; the
    script's showPresetText unmarks them)."""
    for key, pattern in _TEXT_RE.items():
        mark = "" if key == "lesson" else " data-prerendered"  # the lesson's <details> is marked
        text = _text(shown[key])
        html, n = pattern.subn(lambda m, mark=mark, text=text: f"{m.group(1)}{mark}>{text}{m.group(2)}", html, count=1)
        if n != 1:
            raise BuildError(f"widget.html has no #preset-{key} as graph_svg.py knows it")
    if _LESSON_MORE not in html:
        raise BuildError("widget.html has no #lesson-more as graph_svg.py knows it")
    details = _LESSON_MORE.replace(" hidden", " data-prerendered" + ("" if shown["lesson"] else " hidden"))
    if _CHOOSER_WAITING not in html:
        raise BuildError("widget.html has no waiting #preset option as graph_svg.py knows it")
    html = html.replace(_CHOOSER_WAITING, f'<option value="">{_text(shown["title"])}</option>', 1)
    if _TOOLS_EMPTY not in html:
        raise BuildError("widget.html has no empty #graph-tools as graph_svg.py knows it")
    html = html.replace(_TOOLS_EMPTY, _TOOLS_EMPTY.replace("></div>", f">{TOOLS}</div>"), 1)
    return html.replace(_LESSON_MORE, details, 1)


def _text(value: str) -> str:
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(value: str) -> str:
    return str(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
