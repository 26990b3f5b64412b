"""index.html carries every preset's graph at its start, drawn by the build with the
page's own modules under Node (buildtools/graph_svg.py): the default's in the widget,
the others' in templates (in the head) the gate swaps in. Each must be byte for byte the SVG the
script draws for that preset, the script must adopt it (not draw it again), and a
query that asks for something else must never show one."""

import json
import re
import urllib.request
from pathlib import Path

import pytest

from buildtools import graph_svg
from tests.support.page import wait_ready
from tests.support.waits import after_frames

# The real engine's boot is tested here (real_engine), but for the comparison of every
# preset's drawing, whose subject is the markup: that one answers with the fast engine.
pytestmark = pytest.mark.browser

DEFAULT = "add-mul"  # the chooser's first preset (the build reads it from prerender/all.json)

# The graph as the page has it: every attribute of the <svg> but its style (the
# viewport's zoom, set through the CSSOM) and its markup.
SVG_NOW = """() => {
  const svg = gwRoot().getElementById('graph');
  const attrs = Object.fromEntries([...svg.attributes].filter(a => a.name !== 'style').map(a => [a.name, a.value]));
  return {attrs, markup: svg.innerHTML, nodes: svg.querySelectorAll('[data-node]').length};
}"""
DRAWN = (
    "() => gwRoot()?.getElementById?.('graph')?.querySelector('[data-node]')"
    " && !gwRoot().getElementById('graph').hasAttribute('data-prerendered')"
)
SHOWN = """() => {
  const root = gwRoot();
  const shows = (el) => getComputedStyle(el).display !== 'none' && !el.hidden;
  return {graph: shows(root.getElementById('graph')), placeholder: shows(root.getElementById('graph-placeholder'))};
}"""


def presets(built_dist):
    """Every preset's id, the default (the chooser's first) first."""
    return [p["id"] for p in json.loads((built_dist / "prerender" / "all.json").read_text())["presets"]["presets"]]


def inlined(site_url, preset=DEFAULT, direction="across"):
    """A preset's <svg id="graph"> in the built index.html, as served (the default's
    in the widget, another's in its template; laid out down, its "-down" template):
    (attributes, markup)."""
    html = urllib.request.urlopen(site_url + "index.html").read().decode("utf-8")
    if direction == "down":
        html = re.search(rf'<template id="gw-graph-{re.escape(preset)}-down"[^>]*>(.*?)</template>', html, re.S).group(
            1
        )
    elif preset != DEFAULT:
        html = re.search(rf'<template id="gw-graph-{re.escape(preset)}"[^>]*>(.*?)</template>', html, re.S).group(1)
    else:
        html = re.sub(r'<template id="gw-graph-.*?</template>', "", html, flags=re.S)
    found = re.search(r'<svg id="graph"([^>]*)>(.*?)</svg>', html, re.S)
    attrs = {"id": "graph", **dict(re.findall(r'\s([\w:-]+)="([^"]*)"', found.group(1)))}
    return attrs, found.group(2)


def without_inlined_graph(site: Path):
    """index.html as it was before the build drew its graphs (adoption off)."""
    page = site / "index.html"
    html = page.read_text(encoding="utf-8")
    html = re.sub(r'(<svg id="graph"[^>]*?) data-graph=.*?</svg>', r"\1></svg>", html, count=1, flags=re.S)
    html = re.sub(r'<template id="gw-graph-.*?</template>', "", html, flags=re.S)
    html = html.replace(" data-prerendered", "", 1).replace('<meta name="gw-prerendered" content="add-mul">', "")
    page.write_text(html, encoding="utf-8")
    for compressed in site.glob("index.html.*"):
        compressed.unlink()


def labels_blanked(markup):
    """The markup with every node's shown name taken out (a name the build shortened
    for its bound may be shortened less, or not at all, by the browser)."""
    return re.sub(r'(<text class="node-label"[^>]*>)[^<]*(</text>)', r"\1\2", markup)


def test_the_build_inlined_every_graph(site_url, built_dist):
    info = json.loads((built_dist / "build.json").read_text())
    assert info["prerender"]["inlined"] == DEFAULT
    assert info["prerender"]["inlined_others"] == presets(built_dist)[1:]
    attrs, markup = inlined(site_url)
    assert attrs["data-prerendered"] == DEFAULT and attrs["data-graph"] == DEFAULT
    assert markup.count("data-node=") == 5 and "style=" not in markup
    attrs, markup = inlined(site_url, "diamond")
    assert attrs["data-prerendered"] == "diamond" and attrs["data-graph"] == "diamond"
    assert "style=" not in markup


def test_inlined_graphs_are_what_the_script_draws(page, site_url, built_dist, serve_copy):
    """Each preset drawn by the script with adoption off (a page without the inlined
    graphs), after its first render: the very same markup, byte for byte, as the
    inlined drawing laid out the way the script chose for this box (across or down);
    and the page with its inlined graphs ends with the very same markup once the script
    has adopted it (the gate chose the same way). A graph with a name the build
    shortened (it counts 1 em a character) is the same but for those names, which the
    adoption writes as the browser fits them. At 1280×800, where both ways are drawn
    (test_whole_graph_in_view.py checks a phone's first paint against its script)."""
    copy = serve_copy(without_inlined_graph)
    shortened = []
    ways = set()
    for size, preset in [(size, p) for size in ((1280, 800),) for p in presets(built_dist)]:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        query = "" if preset == DEFAULT else f"?preset={preset}"
        page.goto(copy + query)
        page.wait_for_function(DRAWN)
        wait_ready(page)
        # Laid out again for the box, if its first measure was early: fonts in, then the
        # frames in which its resize observer, if it fires, has run.
        page.evaluate("async () => { await document.fonts.ready; }")
        after_frames(page, 3)
        drawn = page.evaluate(SVG_NOW)
        direction = drawn["attrs"]["data-direction"]
        ways.add(direction)
        attrs, markup = inlined(site_url, preset, direction)
        assert drawn["attrs"] == {k: v for k, v in attrs.items() if k != "data-prerendered"}, preset
        if "…</text>" in markup:
            shortened.append(preset)
            assert labels_blanked(drawn["markup"]) == labels_blanked(markup), preset
        else:
            assert drawn["markup"] == markup, preset
        page.goto(site_url + query)
        page.wait_for_function(DRAWN)
        assert page.evaluate(SVG_NOW) == drawn, (size, preset)
    # the presets with long names (its boxes', a tensor line's code)
    assert set(shortened) <= {"neuron", "cos", "small-network", "linear-layer", "batch-network", "softmax-ce"}
    assert ways == {"across", "down"}
    # The bound graph_svg.mjs takes for a text's width is 1 em of these sizes (measured on
    # small-network, whose first view draws every class: nodes, boxes, open groups' names).
    page.goto(copy + "?preset=small-network")
    page.wait_for_function(DRAWN)
    sizes = json.loads(re.search(r"FONT_PX = (\{.*?\});", graph_svg.SCRIPT.read_text()).group(1))
    for cls, px in sizes.items():
        got = page.evaluate("(cls) => getComputedStyle(gwRoot().querySelector('.' + cls)).fontSize", cls)
        assert got == f"{px}px", cls


@pytest.mark.real_engine
@pytest.mark.parametrize("preset", [DEFAULT, "diamond"])
def test_the_script_adopts_the_inlined_graph(page, site_url, preset):
    """The nodes painted with the page (the default's, or another preset's swapped in
    by the gate) are the ones the widget keeps (marked before the page's module runs),
    unchanged by its first render and by the engine's answer."""
    attrs, markup = inlined(site_url, preset)
    held = []
    page.route("**/page.js", lambda route: held.append(route))
    # The module's request arrives with the head; its event comes just before its route
    # (run by the next call to Playwright), held until it is continued below.
    with page.expect_request("**/page.js", timeout=10_000):
        page.goto(site_url + ("" if preset == DEFAULT else f"?preset={preset}"), wait_until="commit")
    page.wait_for_function(f"() => gwRoot()?.querySelector?.('svg[data-graph={preset}] [data-node]')")
    assert page.evaluate(SHOWN) == {"graph": True, "placeholder": False}
    page.evaluate("() => gwRoot().querySelectorAll('[data-node], .edge, .node-value').forEach(e => e.gwPainted = true)")
    assert held, "the page never asked for its module"
    held[0].continue_()
    page.wait_for_function(DRAWN)
    adopted = page.evaluate(
        "() => [...gwRoot().querySelectorAll('[data-node], .edge, .node-value')].every(e => e.gwPainted)"
    )
    assert adopted, "the script drew the graph again instead of adopting it"
    assert page.evaluate(SVG_NOW)["markup"] == markup
    wait_ready(page)
    assert page.evaluate(SVG_NOW)["markup"] == markup


@pytest.mark.real_engine
@pytest.mark.allow_console_errors
@pytest.mark.parametrize(
    "query, shown",
    [
        ("", True),
        ("?preset=add-mul", True),
        ("?boot=stock", True),
        ("?preset=diamond", True),
        ("?preset=double-diamond&boot=stock", True),
        ("?preset=neuron", True),
        ("?preset=nope", False),
        ("?embed=1", False),
        ("?preset=add-mul&start=end", False),
        ("?preset=diamond&start=end", False),
    ],
)
def test_a_query_for_another_graph_never_shows_it(page, site_url, query, shown):
    page.route(
        "**/*.js", lambda route: route.abort() if "prerendered-gate" not in route.request.url else route.continue_()
    )
    page.goto(site_url + query)
    page.wait_for_function("() => gwRoot()?.getElementById?.('graph')")
    assert page.evaluate(SHOWN) == {"graph": shown, "placeholder": not shown}


@pytest.mark.real_engine
def test_a_query_not_at_a_start_is_drawn_by_the_script(page, site_url):
    page.goto(site_url + "?preset=diamond&start=end")
    page.wait_for_function("() => gwRoot()?.querySelector?.('svg[data-graph=diamond] [data-node]')")
    assert page.evaluate(SHOWN) == {"graph": True, "placeholder": False}
    wait_ready(page)


@pytest.mark.real_engine
@pytest.mark.allow_console_errors
def test_the_texts_above_the_graph_are_the_scripts(page, site_url):
    """index.html's title, summary and zoom tools for the default preset, and those the
    gate writes for another one, are what the script shows once it has taken over
    (the zoom's figure and which buttons are disabled aside: they follow the fit),
    so the graph does not move then."""
    texts = """() => {
      const r = gwRoot();
      const tools = r.getElementById('graph-tools').innerHTML.replace(/ disabled(="")?/g, '').replace(/\\d+%/, 'N%');
      return {title: r.getElementById('preset-title').textContent,
              summary: r.getElementById('preset-summary').textContent,
              lesson: !r.getElementById('lesson-more').hidden, tools};
    }"""
    for query in ["", "?preset=diamond", "?preset=square"]:
        page.route("**/page.js", lambda route: route.abort())
        page.goto(site_url + query)
        page.wait_for_function("() => gwRoot()?.getElementById?.('graph-tools')?.firstChild")
        painted = page.evaluate(texts)
        assert painted["title"] != "Loading…"
        page.unroute("**/page.js")
        page.goto(site_url + query)
        wait_ready(page)
        assert page.evaluate(texts) == painted, query
