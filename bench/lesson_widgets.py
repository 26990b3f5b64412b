#!/usr/bin/env python3
"""Three widgets on one page against one widget alone, cold, side by side.

    python bench/lesson_widgets.py [--rounds 7] [--timeout 60]

Every load is cold: a fresh browser context (empty HTTP cache, service workers
blocked). The variants alternate load by load, in a rotating order (each takes
each position in turn):

  index.html            one widget: <html data-engine="ready">
  lesson.html           three <grad-walk> elements sharing one engine worker:
                        <html data-engine="ready">, which web/gradwalk.js sets
                        once every widget is ready (so: the LAST widget ready)
  lesson-iframes.html   the old way, three iframes of index.html, each with its
                        own worker and Pyodide: the last frame whose
                        <html data-engine> turns "ready"

Measured in the page, without its help: an init script (in every frame) watches
data-engine attributes with a MutationObserver and records performance.now()
when one turns "ready" (or "error"); the observer runs in the same task as the
script that set the attribute. Times are ms after the top page's navigation
start (a frame's time is moved onto the top page's clock by the difference of
their performance.timeOrigin). Also recorded: each <grad-walk>'s own ready
time, the page's gw:worker-start / gw:worker-ready marks, and the number of
engine workers started (Playwright's page.on("worker"), until the load has
settled plus a short grace); lesson.html must start exactly 1.

Prints medians, min and max, the lesson.html / index.html ratio with its target
(<= 1.3x), and the iframe page's ratio. A load that
fails (an engine error, a page crash, or no ready within --timeout) is reported
and left out of the figures.

There is no --link: bench/ has no network emulation (the server is localhost,
bytes are free); every figure here is CPU and scheduling on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

VARIANTS = {
    "index.html": "index.html",
    "lesson.html": "lesson.html",
    "lesson-iframes.html": "lesson-iframes.html",
}

# Installed in every frame before any of its scripts run.
PROBE = """
(() => {
  if (window.__gwLW) return;
  const m = (window.__gwLW = {
    origin: performance.timeOrigin, ready: null, error: null, widgets: {}, iframes: null, said: false,
    longTasks: [],
  });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) m.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch {}
  const say = (what) => console.debug("__gwLW:" + what);
  const seen = (el, state, t) => {
    if (el === document.documentElement) {
      if (state === "ready" && m.ready === null) m.ready = t;
      if (state === "error" && m.error === null) m.error = t;
      if (!m.said && (m.ready !== null || m.error !== null)) {
        m.said = true;
        say(m.error !== null ? "error" : "ready");
      }
    } else if (el.localName === "grad-walk" && (state === "ready" || state === "error")) {
      const key = el.id || el.getAttribute("preset") || "widget";
      if (!(key in m.widgets)) m.widgets[key] = { state, t };
    }
  };
  // The page's gw:* marks, each name once per frame: what a failed load got to.
  const marked = new Set();
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.name.startsWith("gw:") && !marked.has(e.name)) { marked.add(e.name); say("mark " + e.name); }
      }
    }).observe({ type: "mark", buffered: true });
  } catch {}
  new MutationObserver((records) => {
    const t = performance.now();
    for (const r of records) seen(r.target, r.target.getAttribute("data-engine"), t);
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-engine"] });
  document.addEventListener("DOMContentLoaded", () => {
    m.iframes = document.querySelectorAll("iframe").length;
    if (window === window.top) say("dom " + m.iframes);
  });
})();
"""

COLLECT = """
() => {
  const m = window.__gwLW;
  if (!m) return null;
  return {
    url: location.pathname + location.search,
    origin: m.origin, ready: m.ready, error: m.error, widgets: m.widgets, iframes: m.iframes,
    busy: m.longTasks.filter(([start]) => start < (m.ready ?? Infinity)).reduce((a, [, d]) => a + d, 0),
    marks: performance.getEntriesByType("mark").filter((e) => e.name.startsWith("gw:"))
      .map((e) => [e.name, e.startTime]),
  };
}
"""

GRACE_S = 0.3  # after the load has settled: a late second worker would still be counted


class LoadFailed(Exception):
    pass


def load(browser, url: str, timeout_s: float) -> dict:
    """One cold load; the figures, or LoadFailed with the reason."""
    context = browser.new_context(service_workers="block")
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        workers, said, problems = [], [], []
        page.on("worker", lambda w: workers.append(w.url))
        page.on("console", lambda msg: said.append(msg.text) if msg.text.startswith("__gwLW:") else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("crash", lambda p: problems.append("the page crashed"))
        page.on("response", lambda r: problems.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
        response = page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        if response is not None and not response.ok:
            raise LoadFailed(f"HTTP {response.status} for {url}")
        deadline = time.monotonic() + timeout_s

        def settled() -> bool:
            """Top page: its own ready/error. A page of iframes: one ready/error per iframe."""
            dom = [s for s in said if s.startswith("__gwLW:dom ")]
            ends = [s for s in said if s in ("__gwLW:ready", "__gwLW:error")]
            if "__gwLW:error" in ends or "the page crashed" in problems:
                return True
            if not dom:  # the top page has not parsed yet: its ready alone is not enough to know
                return False
            iframes = int(dom[0].split()[1])
            return len(ends) >= (iframes or 1)

        while not settled():
            if time.monotonic() > deadline:
                heard = ", ".join(x.removeprefix("__gwLW:") for x in said) or "nothing"
                raise LoadFailed(
                    f"no ready within {timeout_s:g} s; {len(workers)} worker(s); heard: {heard}"
                    + (f"; {problems[0]}" if problems else "")
                )
            page.wait_for_timeout(50)  # Playwright's side: no task in the page
        page.wait_for_timeout(GRACE_S * 1000)
        if "the page crashed" in problems:
            raise LoadFailed("the page crashed")

        frames = [f.evaluate(COLLECT) for f in page.frames if not f.is_detached()]
        top, children = frames[0], [f for f in frames[1:] if f]
        if top is None:
            raise LoadFailed("the probe did not run in the page")
        errors = [f["url"] for f in [top, *children] if f["error"] is not None]
        errors += [k for k, w in top["widgets"].items() if w["state"] == "error"]
        if errors:
            raise LoadFailed("engine error in " + ", ".join(errors) + (f"; {problems[0]}" if problems else ""))

        def on_top(frame, t):  # a frame's performance.now() on the top page's clock
            return None if t is None else frame["origin"] + t - top["origin"]

        def mark(frame, name):
            return next((on_top(frame, t) for n, t in frame["marks"] if n == name), None)

        if top["iframes"]:
            if len(children) < top["iframes"] or any(c["ready"] is None for c in children):
                raise LoadFailed(f"{sum(c['ready'] is not None for c in children)}/{top['iframes']} frames ready")
            ready = [on_top(c, c["ready"]) for c in children]
            sources = children
        else:
            if top["ready"] is None:
                raise LoadFailed("no ready")
            ready = sorted(w["t"] for w in top["widgets"].values()) or [top["ready"]]
            sources = [top]
        worker_start = [m for m in (mark(f, "gw:worker-start") for f in sources) if m is not None]
        worker_ready = [m for m in (mark(f, "gw:worker-ready") for f in sources) if m is not None]
        return {
            "last": (max(on_top(c, c["ready"]) for c in children) if top["iframes"] else top["ready"]),
            "first": min(ready),
            "each": sorted(ready),
            "workers": len(workers),
            "worker_start": min(worker_start) if worker_start else None,
            "worker_ready": max(worker_ready) if worker_ready else None,
            # main-thread time in tasks over 50 ms before ready, top page only (a page
            # of iframes shares its thread with them; their tasks are not all its own)
            "busy": None if top["iframes"] else top["busy"],
            "renders": sum(1 for f in sources for n, _ in f["marks"] if n == "gw:render"),
            "problems": problems,
        }
    except LoadFailed:
        raise
    except Exception as e:  # a Playwright timeout, a closed page...: reported, not fatal
        raise LoadFailed(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None
    finally:
        try:
            context.close()
        except Exception:
            pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="cold loads of each page (default 7)")
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds a load may take before it counts as failed (default 60)"
    )
    parser.add_argument(
        "--dist", type=Path, default=None, help="serve this built copy of the site instead of building dist/"
    )
    args = parser.parse_args(argv)

    if args.dist is None:
        common.build_site()
    names = list(VARIANTS)
    runs = {name: [] for name in names}
    failures = {name: [] for name in names}
    with common.serve(dist=args.dist) as site, common.chromium() as browser:
        base = site.rstrip("/") + "/"
        # One unmeasured load of each warms the OS file cache and the server.
        for name in names:
            try:
                load(browser, base + VARIANTS[name], args.timeout)
            except LoadFailed as e:
                print(f"warm-up {name}: failed ({e})", file=sys.stderr)
        for i in range(args.rounds):
            order = names[i % len(names) :] + names[: i % len(names)]
            shown = []
            for name in order:
                try:
                    r = load(browser, base + VARIANTS[name], args.timeout)
                    runs[name].append(r)
                    shown.append(f"{name} {r['last']:.0f} ms ({r['workers']} worker{'s' * (r['workers'] != 1)})")
                except LoadFailed as e:
                    failures[name].append(f"round {i + 1}: {e}")
                    shown.append(f"{name} FAILED ({e})")
            print(f"round {i + 1}/{args.rounds}: " + "; ".join(shown), file=sys.stderr)

    med = {
        name: {
            key: common.median([r[key] for r in rs])
            for key in ("worker_start", "worker_ready", "first", "last", "busy")
        }
        for name, rs in runs.items()
    }
    rows = []
    for name in names:
        rs, m = runs[name], med[name]
        lasts = [r["last"] for r in rs]
        workers = sorted({r["workers"] for r in rs})
        rows.append(
            [
                name,
                f"{len(rs)}/{len(rs) + len(failures[name])}",
                common.fmt_ms(m["worker_start"]),
                common.fmt_ms(m["worker_ready"]),
                common.fmt_ms(m["first"]),
                common.fmt_ms(m["last"]),
                common.fmt_ms(min(lasts) if lasts else None),
                common.fmt_ms(max(lasts) if lasts else None),
                ",".join(map(str, workers)) or "—",
                common.fmt_ms(m["busy"]),
            ]
        )
    print(
        f"\nThree widgets on a page against one, cold (fresh context, service workers blocked), "
        f"{args.rounds} loads each, alternating;\nms after navigation start, medians "
        "(headless Chromium, localhost, this machine's cores shared by everything)\n"
    )
    print(
        common.table(
            [
                "page",
                "ok",
                "worker start",
                "worker ready",
                "first ready",
                "last ready",
                "min",
                "max",
                "workers",
                "long tasks",
            ],
            rows,
        )
    )
    print(
        "\nworker start/ready: the gw:worker-start and gw:worker-ready marks (the iframe page: the first\n"
        "frame's start, the last frame's ready); first/last ready: the first and last widget's\n"
        'data-engine="ready"; long tasks: main-thread ms in tasks over 50 ms before ready (top page)'
    )

    lesson_ratio = common.ratio(med["lesson.html"]["last"], med["index.html"]["last"])
    iframe_ratio = common.ratio(med["lesson-iframes.html"]["last"], med["index.html"]["last"])
    # Each widget's ready on lesson.html, in order of arrival (medians): where the extra time goes.
    each = [r["each"] for r in runs["lesson.html"] if len(r["each"]) >= 2]
    if each:
        n = min(map(len, each))
        arrivals = [common.median([e[k] for e in each]) for k in range(n)]
        after_worker = common.median(
            [r["last"] - r["worker_ready"] for r in runs["lesson.html"] if r["worker_ready"] is not None]
        )
        print(
            "\nlesson.html, each widget ready (median, in order of arrival): "
            + ", ".join(common.fmt_ms(a) for a in arrivals)
            + f" ms; last ready - gw:worker-ready: {common.fmt_ms(after_worker)} ms"
        )
    single_after = common.median(
        [r["last"] - r["worker_ready"] for r in runs["index.html"] if r["worker_ready"] is not None]
    )
    print(f"index.html, ready - gw:worker-ready: {common.fmt_ms(single_after)} ms")

    print(f"\nlesson.html last ready / index.html ready: {common.fmt_ratio(lesson_ratio)}")
    print(f"lesson-iframes.html last ready / index.html ready: {common.fmt_ratio(iframe_ratio)} (reference)")
    lesson_workers = [r["workers"] for r in runs["lesson.html"]]
    one_worker = bool(lesson_workers) and all(w == 1 for w in lesson_workers)
    print(
        f"engine workers on lesson.html: {lesson_workers or 'no data'}: "
        + ("1 in every load (ok)" if one_worker else "NOT 1 in every load" if lesson_workers else "no data")
    )
    verdict = common.verdict(lesson_ratio, 1.3)
    print(f"target <= 1.3x: {verdict}")
    failed = [(name, f) for name in names for f in failures[name]]
    if failed:
        print(f"\nfailed loads (left out): {len(failed)}")
        for name, f in failed:
            print(f"  {name}, {f}")
    return 0 if failed == [] else 1


if __name__ == "__main__":
    sys.exit(main())
