#!/usr/bin/env python3
"""Page load: the fast path (cold and warm) against stock Pyodide, side by side.

    python bench/page_load.py [--rounds 5] [--preset diamond]

Each round, in alternating order:

  fast, cold    a fresh browser context (empty HTTP cache, no service worker)
                opens the page: precompiled stdlib + engine, prerendered first paint
  fast, warm    the same context opens the page again in a new tab, once the
                service worker has cached the build (a second visit)
  stock, cold   a fresh context opens the page with ?boot=stock: the source-only
                stdlib, loadPyodide, then micropip installing the engine wheel

Measured in the page (ms after navigation start), without any help from it:
  first paint   the first animation frame in which the graph's SVG has a node
                (bench/first_paint.py measures it against a floor page)
  engine ready  <html data-engine="ready">: the engine in Pyodide answered
  longest task  the longest main-thread task (Long Tasks API) before engine ready

Prints medians and the fast/stock ratios, and checks them against issue 4's
targets. Needs `pip install -e '.[test]'` (Playwright) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

# Installed before any of the page's scripts run.
PROBE = """
(() => {
  const m = (window.__gwBench = { firstPaint: null, firstNodes: null, ready: null, error: null, longTasks: [] });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) m.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  // Says so on the console once both are known: the benchmark waits for that
  // message instead of polling the page (which would add tasks of its own).
  const done = () => {
    if (m.firstPaint !== null && (m.ready !== null || m.error !== null) && !m.said) {
      m.said = true;
      console.debug("__gwBench:done");
    }
  };
  // The graph is in the widget's shadow root, which neither document.querySelector
  // nor a MutationObserver on the document sees into: looked for at every frame.
  const graphNode = () => document.getElementById("gradwalk")?.shadowRoot?.querySelector("#graph [data-node]");
  const frame = () => {
    if (graphNode()) {
      m.firstNodes = m.firstPaint = performance.now();
      done();
    } else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const check = () => {
    const state = document.documentElement?.dataset.engine;
    if (m.ready === null && state === "ready") m.ready = performance.now();
    if (m.error === null && state === "error") m.error = performance.now();
    done();
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-engine"],
  });
})();
"""

COLLECT = """
() => {
  const m = window.__gwBench;
  const before = m.ready ?? Infinity;
  const boot = m.longTasks.filter(([start]) => start < before);
  return {
    firstPaint: m.firstPaint, firstNodes: m.firstNodes, ready: m.ready, error: m.error,
    longest: boot.reduce((a, [, d]) => Math.max(a, d), 0),
    longTasks: boot.length,
    controlled: !!(navigator.serviceWorker && navigator.serviceWorker.controller),
    marks: performance.getEntriesByType("mark").filter((e) => e.name.startsWith("gw:"))
      .map((e) => [e.name, Math.round(e.startTime)]),
  };
}
"""

SW_READY = """
async () => {
  if (!navigator.serviceWorker) return "no service worker support";
  const timeout = new Promise((r) => setTimeout(() => r("no active service worker after 30 s"), 30000));
  return Promise.race([navigator.serviceWorker.ready.then((r) => (r.active ? "active" : "none")), timeout]);
}
"""

TIMEOUT_MS = 60_000


def visit(context, url: str) -> dict:
    page = context.new_page()
    try:
        with page.expect_console_message(lambda m: m.text == "__gwBench:done", timeout=TIMEOUT_MS):
            page.goto(url, wait_until="commit", timeout=TIMEOUT_MS)
        result = page.evaluate(COLLECT)
        if result["error"] is not None:
            raise RuntimeError(f"the engine failed to start on {url}")
        return result, page
    except BaseException:
        page.close()
        raise


def round_fast(browser, url: str) -> tuple[dict, dict]:
    context = browser.new_context()
    try:
        context.add_init_script(PROBE)
        cold, page = visit(context, url)
        sw = page.evaluate(SW_READY)
        page.close()
        time.sleep(0.3)
        warm, page = visit(context, url)
        page.close()
        warm["sw"] = sw
        return cold, warm
    finally:
        context.close()


def round_stock(browser, url: str) -> dict:
    context = browser.new_context(service_workers="block")
    try:
        context.add_init_script(PROBE)
        stock, page = visit(context, url)
        page.close()
        return stock
    finally:
        context.close()


def with_query(url: str, **params) -> str:
    from urllib.parse import urlencode

    query = urlencode({k: v for k, v in params.items() if v})
    return url + ("?" + query if query else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5; at least 5 for the targets)")
    parser.add_argument("--preset", default="diamond", help="the preset to open (default diamond)")
    parser.add_argument("--dist", type=Path, default=None,
                        help="serve this built copy of the site instead of building dist/")
    args = parser.parse_args(argv)

    if args.dist is None:
        common.build_site()
    runs = {"fast, cold": [], "fast, warm": [], "stock, cold": []}
    with common.serve(dist=args.dist) as site, common.chromium() as browser:
        fast_url = with_query(site, preset=args.preset)
        stock_url = with_query(site, preset=args.preset, boot="stock")
        # One unmeasured visit warms the OS file cache and the server.
        round_stock(browser, fast_url)
        for i in range(args.rounds):
            order = ("fast", "stock") if i % 2 == 0 else ("stock", "fast")
            for which in order:
                if which == "fast":
                    cold, warm = round_fast(browser, fast_url)
                    runs["fast, cold"].append(cold)
                    runs["fast, warm"].append(warm)
                else:
                    runs["stock, cold"].append(round_stock(browser, stock_url))
            last = {k: round(v[-1]["ready"]) for k, v in runs.items()}
            print(f"round {i + 1}/{args.rounds}: engine ready {last}", file=sys.stderr)

    med = {name: {key: common.median([r[key] for r in rs])
                  for key in ("firstPaint", "ready", "longest")} for name, rs in runs.items()}
    worst_task = {name: max(r["longest"] for r in rs) for name, rs in runs.items()}
    rows = [[name, common.fmt_ms(m["firstPaint"]), common.fmt_ms(m["ready"]),
             common.fmt_ms(m["longest"]), common.fmt_ms(worst_task[name])]
            for name, m in med.items()]
    ready_ratio = common.ratio(med["fast, cold"]["ready"], med["stock, cold"]["ready"])
    warm_ratio = common.ratio(med["fast, warm"]["ready"], med["stock, cold"]["ready"])
    rows.append(["ratio fast cold / stock",
                 common.fmt_ratio(common.ratio(med["fast, cold"]["firstPaint"], med["stock, cold"]["firstPaint"])),
                 common.fmt_ratio(ready_ratio), "", ""])
    rows.append(["ratio fast warm / stock", "", common.fmt_ratio(warm_ratio), "", ""])

    print(f"\nPage load, preset {args.preset}: median of {args.rounds} rounds, "
          "ms after navigation start (headless Chromium, localhost)\n")
    print(common.table(["path", "first paint", "engine ready", "longest task", "worst task"], rows))
    warm_sw = {r.get("sw") for r in runs["fast, warm"]}
    warm_controlled = sum(r["controlled"] for r in runs["fast, warm"])
    print(f"\nwarm visits served by the service worker: {warm_controlled}/{len(runs['fast, warm'])} ({', '.join(sorted(warm_sw))})")
    marks = runs["fast, cold"][-1]["marks"]
    if marks:
        print("page marks (last cold visit): " + ", ".join(f"{n} {t}" for n, t in marks))

    longest_boot_task = max(worst_task["fast, cold"], worst_task["fast, warm"])
    checks = [
        ("first paint, cold <= 300 ms", med["fast, cold"]["firstPaint"], 300),
        ("engine ready, cold <= 1500 ms", med["fast, cold"]["ready"], 1500),
        ("engine ready, cold <= 0.5 x stock", ready_ratio, 0.5),
        ("engine ready, warm <= 800 ms", med["fast, warm"]["ready"], 800),
        ("no main-thread task over 50 ms during boot (fast, any run)", longest_boot_task, 50),
    ]
    print()
    for label, value, limit in checks:
        shown = common.fmt_ratio(value) if limit < 1 else f"{common.fmt_ms(value)} ms"
        print(f"  {common.verdict(value, limit):7} {label}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
