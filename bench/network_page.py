#!/usr/bin/env python3
"""`gradwalk.show(loss, model=model)` in the notebook's browser: the widget's first paint of
micrograd's collapsed demo graph, opening and closing a neuron, and a step, in Chromium.

    pip install -e '.[bench]'          # micrograd==0.1.0
    python bench/network_page.py [--rounds 15] [--samples 100]

The front end is the notebook's own module (gradwalk/static/widget.js, written by the build),
mounted as anywidget mounts it, on a stand-in for anywidget's model that hands each request to
`gradwalk.kernel.handle` in this process (tests/notebook/test_widget_front_end.py's harness):
no network, the kernel's share included in every figure. Timed in the page
(performance.now()):

* first paint: from the module's render() to the collapsed graph's boxes drawn, the kernel's
  `load` answer included (the kernel's reading of the graph, `kernel.target`, is
  bench/network_show.py's figure; it happens before the cell's output is shown);
* expand or collapse: Enter on a neuron's box (or its open name) until the new view is drawn
  (its aria-expanded changed) and laid out, each round one open and one close, of another
  neuron each round (so that no view's layout is one the kernel has just made); the kernel's
  share of it is timed apart;
* step: Step forward's click, the widget's update and render and the layout that follows,
  along the backward pass of a view with a sample's layers open.

Budgets: first paint ≤ 2 s; expand or collapse p95 ≤ 100 ms; step p95 ≤ 16 ms. Medians and
p95 (the nearest rank). The baseline in the same run is the same step on the page's diamond
preset (a graph of 5 nodes), which says what a step costs the widget at all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from gradwalk import kernel  # noqa: E402
from gradwalk.widget import FRONT_END, source_of  # noqa: E402
from tests.notebook.test_widget_front_end import MOUNT, NOTEBOOK_PAGE  # noqa: E402
from tests.support.demo_mlp import demo_loss  # noqa: E402

FIRST_PAINT_S = 2.0
EXPAND_P95_MS = 100.0
STEP_P95_MS = 16.0
TIMEOUT_MS = 60_000

# Enter on a group's box or name; resolves when the group's aria-expanded has flipped and the
# page has laid the new view out: the milliseconds it took.
TOGGLE = """async ([name, now]) => {
  const root = document.getElementById('cell').shadowRoot;
  const sel = `[data-group="${name}"][aria-expanded="${now}"]`;
  const want = `[data-group="${name}"][aria-expanded="${now === 'false' ? 'true' : 'false'}"]`;
  const target = root.querySelector(sel);
  const started = performance.now();
  target.focus();
  target.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
  await new Promise((resolve, reject) => {
    const check = () => root.querySelector(want) && (observer.disconnect(), resolve());
    const observer = new MutationObserver(check);
    observer.observe(root, { subtree: true, attributes: true, childList: true });
    setTimeout(() => reject(new Error(`${name} did not flip`)), 20000);
    check();
  });
  root.getElementById('graph').getBoundingClientRect();
  document.body.offsetHeight;
  return performance.now() - started;
}"""

# Step forward's click and the layout it causes, `count` times: the milliseconds of each.
STEPS = """(count) => {
  const root = document.querySelector('#cell, #gradwalk, grad-walk').shadowRoot;
  const button = [...root.querySelectorAll('button')].find((b) => b.textContent.trim().startsWith('Step forward')
    || b.getAttribute('aria-label') === 'Step forward');
  const times = [];
  for (let k = 0; k < count; k++) {
    const started = performance.now();
    button.click();
    root.getElementById('graph').getBoundingClientRect();
    document.body.offsetHeight;
    times.push(performance.now() - started);
  }
  return times;
}"""


def mount(page, url, shown, handle=None):
    page.route("**/__test__/notebook.html", lambda route: route.fulfill(body=NOTEBOOK_PAGE, content_type="text/html"))
    page.route(
        "**/__test__/notebook-widget.js",
        lambda route: route.fulfill(body=FRONT_END.read_text(), content_type="text/javascript"),
    )
    page.goto(url + "__test__/notebook.html")
    page.expose_function("kernelHandle", handle or (lambda request: kernel.handle(json.loads(request), shown)))
    page.evaluate("() => { window.mountedAt = performance.now(); }")
    page.evaluate(MOUNT, source_of(shown, None))
    page.wait_for_function(
        "document.getElementById('cell').shadowRoot?.querySelector('[data-group=\"batch\"]')", timeout=TIMEOUT_MS
    )
    return page.evaluate("() => performance.now() - window.mountedAt") / 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    loss, model, _, _ = demo_loss(args.samples)
    started = time.perf_counter()
    shown = kernel.target(loss, model)
    read_s = time.perf_counter() - started
    dist = common.build_site()
    firsts, toggles, steps, base_steps = [], [], [], []
    neurons = [f"neuron {k} of layer 2 in sample 1" for k in range(1, 17)]
    kernel_ms = []

    def handle(request):
        started = time.perf_counter()
        answer = kernel.handle(json.loads(request), shown)
        kernel_ms.append((time.perf_counter() - started) * 1000)
        return answer

    with common.serve(dist=dist) as url, common.chromium() as browser:
        for _ in range(3):  # the first paint, in a fresh page each time
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            firsts.append(mount(page, url, shown))
            page.close()
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        mount(page, url, shown, handle)
        for name in ("batch", "sample 1", "layer 2 in sample 1"):
            page.evaluate(TOGGLE, [name, "false"])
        kernel_ms.clear()
        for k in range(args.rounds):
            neuron = neurons[k % len(neurons)]
            toggles.append(page.evaluate(TOGGLE, [neuron, "false"]))
            toggles.append(page.evaluate(TOGGLE, [neuron, "true"]))
        toggle_kernel_ms = list(kernel_ms)
        page.get_by_role("button", name="Start backward", exact=True).click()
        steps = page.evaluate(STEPS, 60)
        page.close()
        page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)  # (to wait on it)
        page.goto(url + "?preset=diamond")
        page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=TIMEOUT_MS)
        page.get_by_role("button", name="Start backward", exact=True).click()
        for _ in range(args.rounds):
            page.get_by_role("button", name="Reset", exact=True).click()
            base_steps += page.evaluate(STEPS, 4)
        page.close()

    units = json.loads(kernel.handle({"cmd": "load", "expanded": ["batch", "sample 1", "layer 2 in sample 1"]}, shown))
    print(f"micrograd demo loss: {len(shown.flat.objects):,} nodes; kernel.target read it in {read_s:.2f} s")
    print(f"the stepped view draws {len(units['units'])} units; {args.rounds} rounds of open + close\n")

    def row(what, samples_ms, budget="", digits=1):
        return [
            what,
            common.fmt_ms(common.median(samples_ms), digits),
            common.fmt_ms(common.percentile(samples_ms, 95), digits),
            budget,
        ]

    rows = [
        row("first paint of the collapsed graph", [s * 1000 for s in firsts], "≤ 2,000 (median)", digits=0),
        row("expand or collapse one neuron", toggles, "≤ 100 (p95)"),
        row("  of which the kernel's answer", toggle_kernel_ms),
        row("step (backward, the opened view)", steps, "≤ 16 (p95)"),
        row("step on the diamond (baseline)", base_steps),
    ]
    print(common.table(["what", "median ms", "p95 ms", "budget ms"], rows))
    print()
    first = common.median(firsts)
    common.check("first paint of the collapsed graph within 2 s", first, FIRST_PAINT_S, f"{first:.2f} s")
    toggle = common.percentile(toggles, 95)
    common.check("expand or collapse one neuron, p95 <= 100 ms", toggle, EXPAND_P95_MS, f"{toggle:.1f} ms")
    step = common.percentile(steps, 95)
    common.check("step p95 <= 16 ms", step, STEP_P95_MS, f"{step:.1f} ms")


if __name__ == "__main__":
    main()
