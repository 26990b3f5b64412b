#!/usr/bin/env python3
"""Step and edit latency on the page, in headless Chromium.

    python bench/step_edit_latency.py [--steps 200] [--edits 20] [--dist DIR] [--compare DIR]

step     a key press (→ or ←) until the SVG and the table show the new frame: no
         Python involved, the page renders frame i of a trace it already has
edits    a change that needs Python, until the updated graph is drawn:
           preset   another preset in the chooser
           order    Run order in the visit-order experiment
           value    an input's value (↑ in its field)
           program  a 1,000-node program submitted from the editor (each time
                    with one edge moved, so a new shape to lay out), then a value
                    changed in it (the engine recomputes 1,000 nodes each time; a
                    value keeps the shape, so its layout is reused)

"Drawn" is the page's `gw:render` performance mark, which web/render.js sets at
the end of every render (after the SVG, the table and the narration are
updated); each latency is from the input event's own timestamp (or the moment
the change was dispatched) to the first such mark with the new graph drawn (for
a program: its nodes, the edited one among them; for a value: the first render
after the change). "frame" is to the end of the next animation frame after that
mark (so style, layout and paint are included). A big program's answer comes in
two parts (docs/api.md, "An answer in two parts"), the second one rendered once
it comes: "all in" is to the last mark the edit caused, with its sentences and
questions in. Prints p50/p95 and checks the targets: a step p95
<= 16 ms, an edit p95 <= 50 ms on the presets, <= 300 ms for 1,000 nodes,
with a verdict line for each.

With --compare DIR a second built site (say, main's dist/) gets a server and a
page of its own in the same browser, and the two are measured in turn, edit by
edit (the order turning every round), so both see the same machine.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

TIMEOUT_MS = 60_000

# Before the page's scripts: the timestamps of key presses, and of the end of
# every animation frame (just after style, layout and paint) while measuring.
PROBE = """
(() => {
  const m = (window.__gwLatency = { keys: [], frames: [], on: false });
  addEventListener("keydown", (e) => m.keys.push(e.timeStamp), true);
  const ch = new MessageChannel();
  ch.port1.onmessage = () => m.frames.push(performance.now());
  const tick = () => {
    if (!m.on) return;
    ch.port2.postMessage(0); // runs after this frame's rendering
    requestAnimationFrame(tick);
  };
  m.start = () => { if (!m.on) { m.on = true; requestAnimationFrame(tick); } };
  // At each render's mark, the edit being measured checks whether its graph is drawn.
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    const entry = mark(name, ...rest);
    if (name === "gw:render") m.onRender?.(entry.startTime);
    return entry;
  };
  m.stop = () => (m.on = false);
  // The first frame end after time t.
  m.frameAfter = (t) => m.frames.find((f) => f >= t) ?? null;
})();
"""

# Runs `action` in the page and waits until `done()` holds and no render has
# followed for `settleMs`; returns {ms: to the first gw:render with the graph drawn, frame: ms to
# after the next frame, all: to the last gw:render}.
MEASURE_EDIT = """
async ({ kind, arg, expect, settleMs, timeoutMs }) => {
  const renders = () => performance.getEntriesByName("gw:render");
  const before = renders().length;
  const root = document.getElementById("gradwalk").shadowRoot; // the widget lives in a shadow root
  const $ = (s) => root.querySelector(s);
  const checks = {
    preset: () => $("#graph")?.dataset.graph === arg,
    order: () => true,
    value: () => true,
    program: () => $("#graph")?.dataset.graph === "program"
      && root.querySelectorAll("#graph [data-node]").length >= 900
      && (!expect || root.querySelector(`#graph [data-node="${expect}"]`) !== null),
  };
  // A program or a value: the first render with the new graph (what comes with the rest of a
  // big answer follows); a preset or a visit order: the last render it caused, as ever.
  const first = kind === "program" || kind === "value";
  let drawn = null;
  window.__gwLatency.onRender = (t) => { if (first && drawn === null && checks[kind]()) drawn = t; };
  const t0 = performance.now();
  if (kind === "preset") {
    const select = $("#preset");
    select.value = arg;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  } else if (kind === "order") {
    $("#run-order").click();
  } else if (kind === "value") {
    const input = $(`[data-input="${arg}"]`) ?? $(".value-input");
    input.focus();
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true, cancelable: true }));
  } else if (kind === "program") {
    const area = $("#program-editor");
    area.value = arg;
    area.dispatchEvent(new Event("input", { bubbles: true }));
    const done = [...root.querySelectorAll("#editor button")].find((b) => b.textContent.trim() === "Done");
    done.click();  // submits at once (no typing pause)
  }
  const deadline = t0 + timeoutMs;
  let lastCount = before, lastChange = performance.now();
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
    const n = renders().length;
    if (n !== lastCount) { lastCount = n; lastChange = performance.now(); }
    if (n > before && checks[kind]() && performance.now() - lastChange >= settleMs) break;
  }
  window.__gwLatency.onRender = null;
  const all = renders();
  const last = all.length > before ? all[all.length - 1].startTime : null;
  if (!first) drawn = last;
  if (last === null || !checks[kind]() || drawn === null) return { ms: null };
  const frame = window.__gwLatency.frameAfter(drawn);
  return { ms: drawn - t0, frame: frame === null ? null : frame - t0, all: last - t0, renders: all.length - before };
}
"""

# Pairs each key press with the render it caused (the last gw:render before the
# next key press; none if the key changed nothing, e.g. → at the very end).
STEP_RESULT = """
(before) => {
  const m = window.__gwLatency;
  const keys = m.keys.slice(before);
  const marks = performance.getEntriesByName("gw:render").map((e) => e.startTime);
  return keys.map((t, i) => {
    const next = keys[i + 1] ?? Infinity;
    const mine = marks.filter((x) => x >= t && x < next);
    if (!mine.length) return { ms: null };
    const last = mine[mine.length - 1];
    const frame = m.frameAfter(last);
    return { ms: last - t, frame: frame === null || frame >= next ? null : frame - t };
  });
}
"""


def thousand_node_program() -> str:
    """20 inputs, 16 layers of relu(x[i] * x[i+1] + 0.1) (3 nodes each), a sum: 999 nodes."""
    width, layers = 20, 16
    lines = [f"x{i} = {round(0.5 + 0.01 * i, 2)}" for i in range(width)]
    prev = [f"x{i}" for i in range(width)]
    for layer in range(layers):
        names = [f"h{layer}_{i}" for i in range(width)]
        lines += [f"{names[i]} = relu({prev[i]} * {prev[(i + 1) % width]} + 0.1)" for i in range(width)]
        prev = names
    lines.append("y = " + " + ".join(prev))
    return "\n".join(lines)


def wait_ready(page):
    page.wait_for_function(
        "() => ['ready', 'error'].includes(document.documentElement.dataset.engine)", timeout=TIMEOUT_MS, polling=50
    )
    if page.evaluate("document.documentElement.dataset.engine") != "ready":
        raise RuntimeError("the engine failed to start")


def measure_steps(page, steps: int) -> list[dict]:
    before = page.evaluate("window.__gwLatency.keys.length")
    # Six steps forward, six back, over and over (each press moves one frame).
    for i in range(steps):
        key = "ArrowRight" if (i // 6) % 2 == 0 else "ArrowLeft"
        page.keyboard.press(key)
        page.wait_for_timeout(40)
    page.wait_for_timeout(100)
    return page.evaluate(STEP_RESULT, before)


def measure_edit(page, kind: str, arg=None, settle_ms: int = 120, expect: str | None = None) -> dict:
    """``expect``: the label of a node only the new graph has (a program's edit)."""
    return page.evaluate(
        MEASURE_EDIT, {"kind": kind, "arg": arg, "expect": expect, "settleMs": settle_ms, "timeoutMs": 20_000}
    )


def summary(name, samples, limit=None):
    ms = [s["ms"] for s in samples if s.get("ms") is not None]
    frame = [s["frame"] for s in samples if s.get("frame") is not None]
    every = [s.get("all", s["ms"]) for s in samples if s.get("ms") is not None]
    p95 = common.percentile(ms, 95)
    return [
        name,
        str(len(ms)),
        common.fmt_ms(common.percentile(ms, 50), 1),
        common.fmt_ms(p95, 1),
        common.fmt_ms(common.percentile(frame, 50), 1),
        common.fmt_ms(common.percentile(frame, 95), 1),
        common.fmt_ms(common.percentile(every, 50), 1),
        common.fmt_ms(common.percentile(every, 95), 1),
        "" if limit is None else f"{common.verdict(p95, limit)} (≤ {limit})",
    ], p95


LIMITS = {
    "step (key → SVG + table)": 16,
    "edit: preset": 50,
    "edit: Run order": 50,
    "edit: value (↑)": 50,
    "edit: 1,000-node program": 300,
    "edit: value in it (↑)": 300,
}


class Variant:
    """One built site in the run: its server, its own browser context and page."""

    def __init__(self, label: str, url: str, browser):
        self.label = label
        self.context = browser.new_context(service_workers="block", viewport={"width": 1400, "height": 1000})
        self.context.add_init_script(PROBE)
        self.page = self.context.new_page()
        self.page.goto(url + "?preset=double-diamond")
        wait_ready(self.page)
        self.page.locator("body").click(position={"x": 2, "y": 2})  # keys go to the page, not a field
        self.page.evaluate("window.__gwLatency.start()")
        self.results: dict[str, list[dict]] = {}
        self.notes: list[str] = []

    def add(self, name: str, sample: dict):
        self.results.setdefault(name, []).append(sample)


def rounds(variants: list[Variant], count: int):
    """(i, variant) for count rounds, each round every variant once, the order turning
    round by round, so that neither build is always measured first."""
    for i in range(count):
        shift = i % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            yield i, variant


def measure(variants: list[Variant], args) -> None:
    pages = [v.page for v in variants]
    first_keys = [p.evaluate("window.__gwLatency.keys.length") for p in pages]
    for _, v in rounds(variants, max(1, args.steps // 12)):  # 12 presses at a time, in turn
        page = v.page
        page.bring_to_front()
        for k in range(12):
            page.keyboard.press("ArrowRight" if k < 6 else "ArrowLeft")
            page.wait_for_timeout(40)
    for v, before in zip(variants, first_keys):
        v.page.wait_for_timeout(100)
        v.results["step (key → SVG + table)"] = v.page.evaluate(STEP_RESULT, before)

    presets = pages[0].eval_on_selector_all("#preset option", "os => os.map(o => o.value).filter(Boolean)")
    for i, v in rounds(variants, args.edits):
        v.add("edit: preset", measure_edit(v.page, "preset", presets[(i + 1) % len(presets)]))
    for v in variants:
        v.page.evaluate("""() => { const s = document.getElementById('gradwalk').shadowRoot.querySelector('#preset');
            s.value = 'double-diamond'; s.dispatchEvent(new Event('change', {bubbles: true})); }""")
        v.page.wait_for_function(
            "() => document.getElementById('gradwalk').shadowRoot.querySelector('#graph')?.dataset.graph"
            " === 'double-diamond'"
        )
        v.page.wait_for_timeout(200)
    for _, v in rounds(variants, args.edits):
        v.add("edit: Run order", measure_edit(v.page, "order"))
    for _, v in rounds(variants, args.edits):
        v.add("edit: value (↑)", measure_edit(v.page, "value", "a"))

    program = thousand_node_program()
    with_editor = [
        v
        for v in variants
        if v.page.evaluate("!!document.getElementById('gradwalk').shadowRoot.querySelector('#edit-program')")
    ]
    for v in variants:
        if v not in with_editor:
            v.notes.append("the page has no program editor (#edit-program): 1,000-node edits not measured")
        else:
            v.page.click("#edit-program")
    big = max(1, args.edits // 2)
    for i, v in rounds(with_editor, big):
        # The first over a preset's small graph, then each time a new shape (one edge
        # moved: the engine keeps layouts by shape, so nothing to reuse).
        program_i = program if i == 0 else program.replace("relu(x0 * x1 + 0.1)", f"relu(x0 * x{i + 1} + 0.1)")
        sample = measure_edit(v.page, "program", program_i, settle_ms=200, expect=f"x0*x{i + 1}" if i else None)
        v.add("edit: 1,000-node program", sample)
        if i == 0:
            nodes = v.page.evaluate(
                "document.getElementById('gradwalk').shadowRoot.querySelectorAll('#graph [data-node]').length"
            )
            v.notes.append(f"1,000-node program: {nodes} nodes drawn; first load {common.fmt_ms(sample['ms'])} ms")
    # The program is on screen: now change one of its values.
    for _, v in rounds(with_editor, big):
        v.add("edit: value in it (↑)", measure_edit(v.page, "value", "x0", settle_ms=200))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="key presses (default 200)")
    parser.add_argument("--edits", type=int, default=20, help="edits of each kind (default 20)")
    parser.add_argument(
        "--dist", type=Path, default=None, help="serve this built copy of the site instead of building dist/"
    )
    parser.add_argument("--label", default=None, help="its name in the table (default: the folder)")
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="a second built site (say, main's dist/), measured in turn with the first",
    )
    parser.add_argument("--compare-label", default=None, help="its name in the table (default: the folder)")
    args = parser.parse_args(argv)

    if args.dist is None:
        common.build_site()
    dist = args.dist or common.ROOT / "dist"
    sites = [(args.label or dist.name, args.dist)]
    if args.compare is not None:
        sites.append((args.compare_label or args.compare.name, args.compare))
    with contextlib.ExitStack() as stack:
        urls = [stack.enter_context(common.serve(dist=site_dist)) for _, site_dist in sites]
        browser = stack.enter_context(common.chromium())
        variants = [Variant(label, url, browser) for (label, _), url in zip(sites, urls)]
        measure(variants, args)
        for v in variants:
            v.context.close()

    rows, verdicts = [], []
    named = len(variants) > 1
    for name in LIMITS:
        for v in variants:
            if name not in v.results:
                continue
            row, p95 = summary(f"{v.label}: {name}" if named else name, v.results[name], LIMITS[name])
            rows.append(row)
            p50 = common.percentile([s["ms"] for s in v.results[name] if s.get("ms") is not None], 50)
            what = f"{v.label}: {name}" if named else name
            verdicts.append(
                (
                    f"{what}, p95 <= {LIMITS[name]} ms",
                    p95,
                    LIMITS[name],
                    f"{common.fmt_ms(p95, 1)} ms (p50 {common.fmt_ms(p50, 1)}, n {len(v.results[name])})",
                )
            )
    print(
        "\nStep and edit latency (ms, headless Chromium, localhost; to the page's gw:render mark, "
        "and to after the next frame)" + (": the builds measured in turn, in one run" if named else "") + "\n"
    )
    print(
        common.table(
            ["what", "n", "p50", "p95", "frame p50", "frame p95", "all in p50", "all in p95", "target (p95)"], rows
        )
    )
    for v in variants:
        for note in v.notes:
            print("\n" + (f"{v.label}: " if named else "") + note)
    print()
    for check in verdicts:
        common.check(*check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
