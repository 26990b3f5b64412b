#!/usr/bin/env python3
"""First paint of the graph, cold, against a floor page with no script at all.

    python bench/first_paint.py [--rounds 7] [--presets diamond,double-diamond]
                                [--compare DIR] [--port 0]

Builds dist/ and serves a copy of it to which this script adds the floor pages:
index.html as built, with every script (and module preload) taken out and the
graph's SVG written in, for the default preset (the SVG the build inlines) and for
each other preset (drawn by the build's own drawer, buildtools/graph_svg.py). The
same server serves the pages and their floors; --compare serves another built site
(e.g. a copy of main's dist/) on a second server, for today's page side by side.

Each round opens, in a rotating order, every variant in a fresh browser context
(empty cache): for the default preset and each other one (`?preset=...`), the floor,
this build's page and (with --compare) the other site's page. Measured in the page
without its help (an init script): *graph* is the first animation frame in which the
widget's shadow root (document.getElementById('gradwalk').shadowRoot) has a node of
that preset's graph, shown; *FCP* is the paint timing's first-contentful-paint. The
same definition holds for every variant: for an SVG that arrives in the HTML it is
the first frame (the one the paint timing reports too), for a drawn one the frame
after the script drew it.

Prints medians, the ratios to the floor and the first-paint verdicts: the default
preset's graph <= 1.3x its floor, any other preset's <= 1.6x the floor (the
default's, as the target is worded, and each preset's own).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from buildtools import compress, graph_svg  # noqa: E402

DEFAULT_LIMIT = 1.3
OTHER_LIMIT = 1.6
TIMEOUT_MS = 30_000

# Installed before any of the page's scripts; `want` is the preset whose graph counts
# (given here, not in the page's query, which the page reads).
PROBE = """
((want) => {
  const m = (window.__gwFirstPaint = { graph: null, nodes: null });
  const shown = (svg) => svg && svg.getAttribute("data-graph") === want && svg.querySelector("[data-node]")
    && getComputedStyle(svg).display !== "none";
  const frame = (t) => {
    const svg = document.getElementById("gradwalk")?.shadowRoot?.getElementById("graph");
    if (shown(svg)) {
      m.graph = performance.now();
      console.debug("__gwFirstPaint:done");
      return;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})(%s);
"""

COLLECT = """
() => ({
  graph: window.__gwFirstPaint.graph,
  fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
})
"""


def floor_html(index_html: str, svg: str | None) -> str:
    """index.html without a script: no <script>, no module preloads, no fetch
    preload (the stylesheet preloads stay: they are the page's CSS), no gate, no
    other preset's graph (the templates the gate swaps in);
    `svg` (a whole <svg id="graph">) in place of the page's."""
    html = re.sub(r"\s*<script\b[^>]*>.*?</script>", "", index_html, flags=re.S)
    html = re.sub(r'\s*<link rel="modulepreload"[^>]*>', "", html)
    html = re.sub(r'\s*<link rel="preload"[^>]*as="fetch"[^>]*>', "", html)  # the script's data; stylesheets stay
    html = re.sub(r'\s*<meta name="gw-prerendered"[^>]*>', "", html)
    html = re.sub(r'\s*<template id="gw-graph-.*?</template>', "", html, flags=re.S)  # the other presets' graphs
    if svg is not None:
        html = re.sub(r'<svg id="graph".*?</svg>', lambda _: svg, html, count=1, flags=re.S)
        html = html.replace(
            '<p id="graph-placeholder" class="graph-placeholder">',
            '<p id="graph-placeholder" class="graph-placeholder" data-prerendered>',
            1,
        )
    return html


def make_floors(site: Path, presets: list[str]) -> str:
    """Write floor-<preset>.html for the default preset and `presets` into site;
    returns the default preset's id."""
    index = (site / "index.html").read_text(encoding="utf-8")
    default = json.loads((site / "build.json").read_text())["prerender"].get("inlined")
    if not default:
        raise SystemExit("this build does not inline its default graph; nothing to take the floor from")
    head = re.search(r'<svg id="graph"( [^>]*?) data-graph=', index).group(1)
    (site / f"floor-{default}.html").write_text(floor_html(index, None), encoding="utf-8")
    for preset, drawn in graph_svg.draw(site, presets).items():
        if "skipped" in drawn:
            raise SystemExit(f"{preset}: {drawn['skipped']}; pick another preset")
        svg = graph_svg.svg_element(drawn["attributes"], drawn["markup"], preset, head)
        (site / f"floor-{preset}.html").write_text(floor_html(index, svg), encoding="utf-8")
    # Compressed like every page of the build, so that the server sends them alike.
    floors = [p.name for p in site.glob("floor-*.html")]
    compress.precompress(
        site,
        common.ROOT / ".cache",
        skip=[p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file() and p.name not in floors],
    )
    return default


def visit(browser, url: str, preset: str) -> dict:
    context = browser.new_context()
    try:
        context.add_init_script(PROBE % json.dumps(preset))
        page = context.new_page()
        with page.expect_console_message(lambda m: m.text == "__gwFirstPaint:done", timeout=TIMEOUT_MS):
            page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        return page.evaluate(COLLECT)
    finally:
        context.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7, the targets' minimum)")
    parser.add_argument(
        "--presets",
        default="diamond,double-diamond,neuron",
        help="the other presets, or 'all' (default diamond,double-diamond,neuron)",
    )
    parser.add_argument(
        "--compare", type=Path, default=None, help="another built site to load side by side (today's page)"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="this build's server port (the comparison's is the next one)"
    )
    args = parser.parse_args(argv)
    presets = [p for p in args.presets.split(",") if p]

    dist = common.build_site()
    if presets == ["all"]:
        presets = [p["id"] for p in json.loads((dist / "prerender" / "all.json").read_text())["presets"]["presets"]][1:]
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        default = make_floors(site, presets)
        every = [default, *presets]
        variants = []  # (name, preset, which server, path)
        for preset in every:
            query = "" if preset == default else f"?preset={preset}"
            variants.append((f"floor {preset}", preset, "site", f"floor-{preset}.html"))
            variants.append((f"page {preset}", preset, "site", query))
            if args.compare:
                variants.append((f"compare {preset}", preset, "compare", query))
        runs = {name: [] for name, *_ in variants}
        with (
            common.serve(args.port, dist=site) as url,
            (
                common.serve(args.port + 1 if args.port else 0, dist=args.compare) if args.compare else _nothing()
            ) as compare_url,
            common.chromium() as browser,
        ):
            servers = {"site": url, "compare": compare_url}

            visit(browser, url, default)  # unmeasured: warms the OS cache and the server
            for i in range(args.rounds):
                shift = i % len(variants)
                for name, preset, server, path in variants[shift:] + variants[:shift]:
                    runs[name].append(visit(browser, servers[server] + path, preset))
                print(
                    f"round {i + 1}/{args.rounds}: "
                    + ", ".join(f"{name} {round(r[-1]['graph'])}" for name, r in runs.items()),
                    file=sys.stderr,
                )

    med = {name: {k: common.median([r[k] for r in rs]) for k in ("graph", "fcp")} for name, rs in runs.items()}
    floor_default = med[f"floor {default}"]["graph"]
    rows = []
    for name, *_ in variants:
        preset = name.split()[-1]
        rows.append(
            [
                name,
                common.fmt_ms(med[name]["graph"]),
                common.fmt_ms(med[name]["fcp"]),
                common.fmt_ratio(common.ratio(med[name]["graph"], med[f"floor {preset}"]["graph"])),
                common.fmt_ratio(common.ratio(med[name]["graph"], floor_default)),
            ]
        )
    print(
        f"\nFirst paint of the graph, cold, localhost: median of {args.rounds} rounds, "
        "ms after navigation start (headless Chromium)\n"
    )
    print(common.table(["variant", "graph", "FCP", "/ its floor", f"/ floor {default}"], rows))

    default_ratio = common.ratio(med[f"page {default}"]["graph"], floor_default)
    others = [(p, common.ratio(med[f"page {p}"]["graph"], floor_default)) for p in presets]
    worst = max(others, key=lambda x: x[1] or 0) if others else (None, None)
    print()
    common.check(
        f"default preset ({default}) graph <= {DEFAULT_LIMIT} x floor",
        default_ratio,
        DEFAULT_LIMIT,
        common.fmt_ratio(default_ratio),
    )
    common.check(
        f"other presets' graph <= {OTHER_LIMIT} x floor",
        worst[1],
        OTHER_LIMIT,
        f"{common.fmt_ratio(worst[1])} (worst: {worst[0]})",
    )
    own = [(p, common.ratio(med[f"page {p}"]["graph"], med[f"floor {p}"]["graph"])) for p in presets]
    worst_own = max(own, key=lambda x: x[1] or 0) if own else (None, None)
    common.check(
        f"other presets' graph <= {OTHER_LIMIT} x its own floor",
        worst_own[1],
        OTHER_LIMIT,
        f"{common.fmt_ratio(worst_own[1])} (worst: {worst_own[0]})",
    )
    return 0


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
