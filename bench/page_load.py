#!/usr/bin/env python3
"""Page load: the fast path (cold and warm) against stock Pyodide, side by side.

    python bench/page_load.py [--rounds 7] [--preset diamond] [--dist DIR]
                              [--compare DIR] [--label NAME] [--compare-label NAME]

Each round, in a rotating order:

  fast, cold    a fresh browser context (empty HTTP cache, no service worker)
                opens the page: precompiled stdlib + engine, prerendered first paint
  fast, warm    the same context opens the page again in a new tab, once the
                service worker has cached the build and the engine's worker has
                kept its memory snapshot (a second visit: boot "snapshot")
  stock, cold   a fresh context opens the page with ?boot=stock: the source-only
                stdlib, loadPyodide, then micropip installing the engine wheel

With --compare DIR a second built site (say, main's dist/) gets a server of its
own and its "fast, cold" and "fast, warm" join the rotation, so that two builds
are measured side by side in one run.

Measured in the page (ms after navigation start), without any help from it:
  first paint   the first animation frame in which the graph's SVG has a node
                (bench/first_paint.py measures it against a floor page)
  engine ready  <html data-engine="ready">: the engine in Pyodide answered
  longest task  the longest main-thread task (Long Tasks API) before engine ready
The boot each visit used is the `gw:worker-ready` mark's detail (the worker's
ready message: "fast", "snapshot" or "stock").

Prints medians and the ratios, and checks them against the page-load targets
(bench/README.md). Needs `pip install -e '.[test]'` (Playwright) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
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
  const observer = new MutationObserver(check);
  observer.observe(document, {
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
    boot: performance.getEntriesByName("gw:worker-ready")[0]?.detail?.boot ?? null,
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

# Waits until the engine's worker has kept its memory snapshot in the build's
# cache (web/boot/snapshot.js), so that the warm visit can restore it.
SNAPSHOT_KEPT = """
async () => {
  const kept = async () => {
    for (const name of await caches.keys()) {
      const keys = await (await caches.open(name)).keys();
      if (keys.some((r) => new URL(r.url).pathname.endsWith("/snapshots/python.bin"))) return true;
    }
    return false;
  };
  for (let waited = 0; waited < 15000; waited += 100) {
    if (await kept()) return "kept";
    await new Promise((r) => setTimeout(r, 100));
  }
  return "none after 15 s";
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
        snapshot = page.evaluate(SNAPSHOT_KEPT)
        page.close()
        time.sleep(0.3)
        warm, page = visit(context, url)
        page.close()
        warm["sw"] = sw
        warm["snapshot"] = snapshot
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
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7; at least 7 for the targets)")
    parser.add_argument("--preset", default="diamond", help="the preset to open (default diamond)")
    parser.add_argument(
        "--dist", type=Path, default=None, help="serve this built copy of the site instead of building dist/"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="a second built site whose fast path (cold and warm) joins the rotation",
    )
    parser.add_argument("--label", default="this", help="the name of --dist's (or dist/'s) rows with --compare")
    parser.add_argument("--compare-label", default="base", help="the name of --compare's rows")
    args = parser.parse_args(argv)

    if args.dist is None:
        common.build_site()
    this = f"{args.label}: " if args.compare else ""
    base = f"{args.compare_label}: "
    runs = {f"{this}fast, cold": [], f"{this}fast, warm": [], f"{this}stock, cold": []}
    if args.compare:
        runs.update({f"{base}fast, cold": [], f"{base}fast, warm": []})
    with contextlib.ExitStack() as stack:
        site = stack.enter_context(common.serve(dist=args.dist))
        other = stack.enter_context(common.serve(dist=args.compare)) if args.compare else None
        browser = stack.enter_context(common.chromium())
        fast_url = with_query(site, preset=args.preset)
        stock_url = with_query(site, preset=args.preset, boot="stock")
        variants = ["fast", "stock"] + (["base"] if other else [])
        # One unmeasured visit warms the OS file cache and the server.
        round_stock(browser, fast_url)
        for i in range(args.rounds):
            shift = i % len(variants)
            for which in variants[shift:] + variants[:shift]:
                if which == "stock":
                    runs[f"{this}stock, cold"].append(round_stock(browser, stock_url))
                    continue
                prefix, url = (this, fast_url) if which == "fast" else (base, with_query(other, preset=args.preset))
                cold, warm = round_fast(browser, url)
                runs[f"{prefix}fast, cold"].append(cold)
                runs[f"{prefix}fast, warm"].append(warm)
            last = {k: round(v[-1]["ready"]) for k, v in runs.items()}
            print(f"round {i + 1}/{args.rounds}: engine ready {last}", file=sys.stderr)

    med = {
        name: {key: common.median([r[key] for r in rs]) for key in ("firstPaint", "ready", "longest")}
        for name, rs in runs.items()
    }
    worst_task = {name: max(r["longest"] for r in rs) for name, rs in runs.items()}
    boots = {
        name: ", ".join(f"{b} {n}" for b, n in sorted(Counter(r.get("boot") or "?" for r in rs).items()))
        for name, rs in runs.items()
    }
    rows = [
        [
            name,
            common.fmt_ms(m["firstPaint"]),
            common.fmt_ms(m["ready"]),
            common.fmt_ms(min(r["ready"] for r in runs[name]))
            + "–"
            + common.fmt_ms(max(r["ready"] for r in runs[name])),
            common.fmt_ms(m["longest"]),
            common.fmt_ms(worst_task[name]),
            boots[name],
        ]
        for name, m in med.items()
    ]
    cold, warm, stock = (med[f"{this}{v}"]["ready"] for v in ("fast, cold", "fast, warm", "stock, cold"))
    ready_ratio = common.ratio(cold, stock)
    warm_ratio = common.ratio(warm, stock)
    warm_cold = common.ratio(warm, cold)
    rows.append(
        [
            f"{this}ratio fast cold / stock",
            common.fmt_ratio(
                common.ratio(med[f"{this}fast, cold"]["firstPaint"], med[f"{this}stock, cold"]["firstPaint"])
            ),
            common.fmt_ratio(ready_ratio),
            "",
            "",
            "",
            "",
        ]
    )
    rows.append([f"{this}ratio fast warm / stock", "", common.fmt_ratio(warm_ratio), "", "", "", ""])
    rows.append([f"{this}ratio fast warm / fast cold", "", common.fmt_ratio(warm_cold), "", "", "", ""])
    if args.compare:
        b_cold, b_warm = med[f"{base}fast, cold"]["ready"], med[f"{base}fast, warm"]["ready"]
        rows.append(
            [f"{base}ratio fast warm / fast cold", "", common.fmt_ratio(common.ratio(b_warm, b_cold)), "", "", "", ""]
        )
        rows.append(
            [f"{this}fast, cold / {base}fast, cold", "", common.fmt_ratio(common.ratio(cold, b_cold)), "", "", "", ""]
        )

    print(
        f"\nPage load, preset {args.preset}: median of {args.rounds} rounds, "
        "ms after navigation start (headless Chromium, localhost)\n"
    )
    print(common.table(["path", "first paint", "engine ready", "min–max", "longest task", "worst task", "boot"], rows))
    for prefix in [this] + ([base] if args.compare else []):
        warm_runs = runs[f"{prefix}fast, warm"]
        warm_sw = {r.get("sw") for r in warm_runs}
        warm_controlled = sum(r["controlled"] for r in warm_runs)
        kept = Counter(r.get("snapshot") for r in warm_runs)
        print(
            f"\n{prefix}warm visits served by the service worker: {warm_controlled}/{len(warm_runs)} "
            f"({', '.join(sorted(warm_sw))}); snapshot before the warm visit: "
            + ", ".join(f"{k} {n}" for k, n in kept.items())
        )
    marks = runs[f"{this}fast, cold"][-1]["marks"]
    if marks:
        print(f"{this}page marks (last cold visit): " + ", ".join(f"{n} {t}" for n, t in marks))
    marks = runs[f"{this}fast, warm"][-1]["marks"]
    if marks:
        print(f"{this}page marks (last warm visit): " + ", ".join(f"{n} {t}" for n, t in marks))

    longest_boot_task = max(worst_task[f"{this}fast, cold"], worst_task[f"{this}fast, warm"])
    checks = [
        ("first paint, cold <= 220 ms (no worse than before)", med[f"{this}fast, cold"]["firstPaint"], 220),
        ("engine ready, cold <= 1500 ms", cold, 1500),
        ("engine ready, cold <= 0.45 x stock", ready_ratio, 0.45),
        ("engine ready, warm <= 800 ms", warm, 800),
        ("engine ready, second visit <= 0.6 x the cold fast path", warm_cold, 0.6),
        ("no main-thread task over 50 ms during boot (fast, any run)", longest_boot_task, 50),
    ]
    print()
    for label, value, limit in checks:
        shown = common.fmt_ratio(value) if limit < 1 else f"{common.fmt_ms(value)} ms"
        if label.startswith("engine ready, second visit"):
            shown += f" ({common.fmt_ms(warm)} against {common.fmt_ms(cold)} ms)"
        common.check(f"{this}{label}", value, limit, shown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
