#!/usr/bin/env python3
"""The code worker's start against the engine's own, cold, measured in the same run.

    python bench/code_worker_start.py [--rounds 7] [--dist DIR]

The code worker (web/code-worker.js, through web/boot/code-runner.js) is where a
learner's own Python runs: a second Pyodide on the page. Each round, in a rotating
order, a fresh browser context (empty HTTP cache, empty Cache Storage: a first visit)
opens an empty page of the site and starts:

  engine, cold        the engine's worker alone (boot/engine-client.js's createEngine)
  code, cold          the code worker alone (createCodeRunner().start())
  both, cold          both at the same moment, as a first visit that opens on the
                      "Your code" mode does: each one's time to ready
  code queued, cold   both asked for at the same moment, the code worker started only
                      once the engine is ready: each one's time to ready from that moment
  code, after engine  the engine first; once it is ready and has kept its memory
                      snapshot, the code worker (the mode opened later in the visit):
                      it restores that snapshot. Its entry is engine.api.handle, so
                      that the same request (a load of the diamond) then goes through
                      each worker in turn, 20 times: the round trip, p50 and p95, what
                      a run costs the sandbox (its checks) beyond the work itself

Times are ms from the call to ready, measured in the page. The code worker is ready
once its entry function is imported: engine.yourcode.run when the build has it, else
engine.api.handle (said in the output), so that the figure is the boot itself.
Prints medians with their ranges and the ratio against the engine's cold start of
the same run (target: code worker ≤ 1.5× the engine's).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from buildtools import csp  # noqa: E402

BLANK_PATH = "__bench__/blank.html"
BLANK_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
    + csp.META_TAG
    + "<link rel='icon' href='data:,'><title>bench</title></head><body></body></html>"
)
TIMEOUT_MS = 90_000
TRIPS = 20  # round trips per round, each way

START = """
async ({ variant, entry, timeoutMs, trips }) => {
  const TRIP = { cmd: "load", preset: "diamond" };
  const { createEngine } = await import("/boot/engine-client.js");
  const { createCodeRunner } = await import("/boot/code-runner.js");
  const timed = (promise, started) => promise.then(() => performance.now() - started);
  const out = {};
  const engineStart = () => {
    const started = performance.now();
    const engine = createEngine({ bootTimeoutMs: timeoutMs });
    return { engine, ready: timed(engine.ready, started) };
  };
  const codeStart = () => {
    const started = performance.now();
    const runner = createCodeRunner({ entry, bootTimeoutMs: timeoutMs });
    return { runner, ready: timed(runner.start(), started) };
  };
  if (variant === "engine") {
    out.engine = await engineStart().ready;
  } else if (variant === "code") {
    const code = codeStart();
    out.code = await code.ready;
    out.codeBoot = code.runner.bootInfo.boot;
  } else if (variant === "both") {
    const engine = engineStart();
    const code = codeStart();
    [out.engine, out.code] = await Promise.all([engine.ready, code.ready]);
    out.codeBoot = code.runner.bootInfo.boot;
  } else if (variant === "queued") {
    const engine = engineStart();
    const started = performance.now();
    out.engine = await engine.ready;
    const runner = createCodeRunner({ entry, bootTimeoutMs: timeoutMs });
    out.code = await timed(runner.start(), started);
    out.codeBoot = runner.bootInfo.boot;
  } else {
    const { engine, ready } = engineStart();
    out.engine = await ready;
    out.snapshot = await snapshotKept(30000);
    const started = performance.now();
    const runner = createCodeRunner({ entry: "engine.api.handle", bootTimeoutMs: timeoutMs });
    out.code = await timed(runner.start(), started);
    out.codeBoot = runner.bootInfo.boot;
    // The same request through each worker, in turn: what a run costs beyond the work.
    out.engineTrip = [];
    out.codeTrip = [];
    for (let i = 0; i < trips; i++) {
      let t = performance.now();
      await engine.call(TRIP);
      out.engineTrip.push(performance.now() - t);
      t = performance.now();
      await runner.run(TRIP);
      out.codeTrip.push(performance.now() - t);
    }
    out.replaced = runner.replaced;
  }
  return out;

  async function snapshotKept(waitMs) {
    for (let waited = 0; waited < waitMs; waited += 100) {
      for (const name of await caches.keys()) {
        const keys = await (await caches.open(name)).keys();
        if (keys.some((r) => new URL(r.url).pathname.endsWith("/snapshots/python.bin"))) return true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }
}
"""

VARIANTS = ("engine", "code", "both", "queued", "after")
LABELS = {
    "engine": "engine, cold",
    "code": "code, cold",
    "both": "both, cold",
    "queued": "code queued, cold",
    "after": "code, after engine",
}


def measure(browser, url: str, variant: str, entry: str) -> dict:
    context = browser.new_context(service_workers="block")
    try:
        context.route(f"**/{BLANK_PATH}", lambda r: r.fulfill(body=BLANK_HTML, content_type="text/html"))
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url + BLANK_PATH)
        return page.evaluate(START, {"variant": variant, "entry": entry, "timeoutMs": TIMEOUT_MS, "trips": TRIPS})
    finally:
        context.close()


def spread(values) -> str:
    values = [v for v in values if v is not None]
    return f"{common.fmt_ms(min(values))}–{common.fmt_ms(max(values))}" if values else "—"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--dist", type=Path, default=None, help="serve this built site instead of building dist/")
    args = parser.parse_args(argv)

    if args.dist is None:
        common.build_site()
    has_yourcode = (common.ROOT / "engine" / "yourcode").is_dir() if args.dist is None else None
    entry = "engine.yourcode.run" if has_yourcode else "engine.api.handle"

    results = {v: [] for v in VARIANTS}
    with common.serve(dist=args.dist) as url, common.chromium() as browser:
        for r in range(args.rounds):
            order = VARIANTS[r % len(VARIANTS) :] + VARIANTS[: r % len(VARIANTS)]
            for variant in order:
                out = measure(browser, url, variant, entry)
                results[variant].append(out)
                print(f"round {r + 1} {LABELS[variant]}: {out}", file=sys.stderr)

    engine_cold = common.median([o["engine"] for o in results["engine"]])
    rows = []
    for variant in VARIANTS:
        outs = results[variant]
        for who in ("engine", "code"):
            values = [o.get(who) for o in outs if o.get(who) is not None]
            if not values:
                continue
            med = common.median(values)
            boots = sorted({o.get("codeBoot") for o in outs if who == "code"} - {None})
            rows.append(
                [
                    f"{LABELS[variant]}: {who}",
                    common.fmt_ms(med),
                    spread(values),
                    common.fmt_ratio(common.ratio(med, engine_cold)),
                    ",".join(boots),
                ]
            )
    both_ratios = [o["code"] / o["engine"] for o in results["both"]]
    print(
        f"Code worker start against the engine's, cold: median of {args.rounds} rounds, ms from the call to ready "
        f"(headless Chromium, localhost; the code worker's entry: {entry})\n"
    )
    print(common.table(["start", "ready", "min–max", "/ engine, cold", "code boot"], rows))
    code_cold = common.median([o["code"] for o in results["code"]])
    both_ratio = common.median(both_ratios)
    print()
    cold_ratio = common.ratio(code_cold, engine_cold)
    print(
        f"  {common.verdict(cold_ratio, 1.5):<7} code worker, cold <= 1.5 x the engine's cold start: "
        f"{common.fmt_ratio(cold_ratio)}"
    )
    print(
        f"  {common.verdict(both_ratio, 1.5):<7} started together, code ready <= 1.5 x engine ready "
        f"(median of each round's ratio): {common.fmt_ratio(both_ratio)}"
    )
    trips = {who: [t for o in results["after"] for t in o[f"{who}Trip"]] for who in ("engine", "code")}
    print(
        "\n"
        + common.table(
            ["round trip, load diamond", "p50", "p95"],
            [
                [
                    f"{who} worker",
                    common.fmt_ms(common.percentile(v, 50), 1),
                    common.fmt_ms(common.percentile(v, 95), 1),
                ]
                for who, v in trips.items()
            ],
        )
    )
    replaced = sum(o["replaced"] for o in results["after"])
    print(f"  code workers replaced during the round trips (a clean run keeps its worker): {replaced}")
    kept = sum(1 for o in results["after"] if o.get("snapshot"))
    print(f"\n  the engine kept its snapshot before the code worker started: {kept}/{len(results['after'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
