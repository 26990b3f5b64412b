#!/usr/bin/env python3
"""Tensor programs: what loading them costs the engine, and the stage's scalar view.

    python bench/tensor_stage.py [--rounds 15] [--steps 120] [--dist DIR] [--no-page]

engine   CPython's engine.api.handle, the answer the page asks for first (every tensor line
         a closed box), in rotating order, round by round, beside two scalar baselines:
           tensor 8×8      X 8×8 @ W 8×8 + b 1×8 → tanh → sum: 4 tensor operations,
                           1,287 scalar nodes (its 136 inputs included)
           scalar, 4 ops   a scalar program of the same 4 operations (the issue's baseline)
           scalar, 999     about as many nodes, wide (bench/step_edit_latency.py's program)
         A 16×16 @ 16×16 program (the issue's size) is refused: it is 9,231 scalar nodes and
         the page draws at most engine/program.py's MAX_NODES (2,000); the bench checks that
         refusal and says so.
page     in headless Chromium on the Linear layer preset: "Show as scalars" pressed, until the
         render with every element drawn (its W[2,1]), and back; then key steps (→ and ←)
         on each view, each until its render (bench/step_edit_latency.py's probe).

Targets (issue 36): the tensor program loads in ≤ 2× the time of the scalar program with the
same number of tensor operations; the scalar view of the linear layer loads in ≤ 300 ms; a
step's p95 ≤ 16 ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import common  # noqa: E402
import step_edit_latency as latency  # noqa: E402

from engine import api  # noqa: E402
from engine.program import MAX_NODES  # noqa: E402


def tensor_program(n: int) -> str:
    rows = lambda m, k, s: [[round(((i * 7 + j * 3 + s) % 11 - 5) / 10, 1) for j in range(k)] for i in range(m)]  # noqa: E731
    return "\n".join(
        [f"X = tensor({rows(n, n, 1)})", f"W = tensor({rows(n, n, 2)})", f"b = tensor({rows(1, n, 3)})",
         "H = tanh(X @ W + b)", "L = H.sum()"]
    )  # fmt: skip


SCALAR_4 = "a = 0.5\nb = -1.5\nc = 0.25\nh = tanh(a * b + c)\nL = h + 0"


def engine_rounds(rounds: int) -> dict[str, list[float]]:
    programs = {
        "tensor 8×8": tensor_program(8),
        "scalar, 4 ops": SCALAR_4,
        "scalar, 999 nodes": latency.thousand_node_program(),
    }
    times: dict[str, list[float]] = {name: [] for name in programs}
    names = list(programs)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:  # the order turns each round
            request = json.dumps({"cmd": "load", "program": programs[name], "expanded": []})
            started = time.perf_counter()
            answer = json.loads(api.handle(request))
            times[name].append((time.perf_counter() - started) * 1000)
            assert answer["ok"], answer
    return times


def refused_16() -> str:
    answer = json.loads(api.handle(json.dumps({"cmd": "load", "program": tensor_program(16), "expanded": []})))
    assert not answer["ok"], "a 16×16 @ 16×16 program was drawn"
    return answer["error"]["message"]


TOGGLE = """
async ({ expect, timeoutMs }) => {
  const root = document.getElementById("gradwalk").shadowRoot;
  const renders = () => performance.getEntriesByName("gw:render");
  const done = () => root.querySelector(`#graph [data-node="${expect}"]`) !== null;
  let drawn = null;
  window.__gwLatency.onRender = (t) => { if (drawn === null && done()) drawn = t; };
  const t0 = performance.now();
  root.getElementById("show-scalars").click();
  while (drawn === null && performance.now() - t0 < timeoutMs) await new Promise((r) => setTimeout(r, 5));
  window.__gwLatency.onRender = null;
  while (document.documentElement.dataset.busy) await new Promise((r) => setTimeout(r, 5));
  return drawn === null ? { ms: null } : { ms: drawn - t0 };
}
"""


def page_rounds(rounds: int, steps: int, dist: Path | None) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {
        "scalar view": [],
        "tensor view": [],
        "step (tensor view)": [],
        "step (scalar view)": [],
    }
    with common.serve(dist=dist) as base, common.chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(latency.PROBE)
        page.goto(f"{base.rstrip('/')}/?preset=linear-layer&cp=0")
        latency.wait_ready(page)
        page.evaluate("window.__gwLatency.start()")
        page.locator("body").click(position={"x": 2, "y": 2})  # keys go to the page, not a field
        out["step (tensor view)"] = latency.measure_steps(page, steps)
        for _ in range(rounds):
            out["scalar view"].append(page.evaluate(TOGGLE, {"expect": "W[2,1]", "timeoutMs": 20_000}))
            out["tensor view"].append(page.evaluate(TOGGLE, {"expect": "W (3×2)", "timeoutMs": 20_000}))
        page.evaluate(TOGGLE, {"expect": "W[2,1]", "timeoutMs": 20_000})
        page.locator("body").click(position={"x": 2, "y": 2})
        out["step (scalar view)"] = latency.measure_steps(page, steps)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--dist", type=Path, default=None, help="serve this built site as it is")
    parser.add_argument("--no-page", action="store_true", help="the engine's part only")
    args = parser.parse_args()

    times = engine_rounds(args.rounds)
    rows = []
    base = common.median(times["scalar, 4 ops"])
    for name, values in times.items():
        rows.append([name, common.fmt_ms(common.median(values), 1), common.fmt_ms(common.percentile(values, 95), 1),
                     common.fmt_ratio(common.ratio(common.median(values), base))])  # fmt: skip
    print(f"engine.api.handle, the first answer, {args.rounds} rounds (CPython)")
    print(common.table(["program", "median", "p95", "× scalar, 4 ops"], rows))
    print(f"16×16 @ 16×16: refused (MAX_NODES {MAX_NODES:,}): {refused_16()}")
    tensor, same_ops, same_nodes = (common.median(times[k]) for k in times)
    print(f"(per node: tensor 8×8 takes {common.fmt_ratio(common.ratio(tensor, same_nodes))} "
          "the time of a scalar program of as many nodes)")  # fmt: skip
    print()
    verdicts = [common.check("tensor 8×8 vs scalar, 4 ops", common.ratio(tensor, same_ops), 2.0, "≤ 2×")]
    if not args.no_page:
        found = page_rounds(args.rounds, args.steps, args.dist)
        rows = []
        ms = lambda k: [s["ms"] for s in found[k] if s.get("ms") is not None]  # noqa: E731
        for name in found:
            rows.append([name, str(len(ms(name))), common.fmt_ms(common.median(ms(name)), 1),
                         common.fmt_ms(common.percentile(ms(name), 95), 1)])  # fmt: skip
        print("Linear layer in Chromium (1280×800): to the render that draws it")
        print(common.table(["what", "n", "median", "p95"], rows))
        print()
        verdicts += [
            common.check("scalar view loads", common.median(ms("scalar view")), 300, "≤ 300 ms (median)"),
            common.check("step, tensor view", common.percentile(ms("step (tensor view)"), 95), 16, "p95 ≤ 16 ms"),
            common.check("step, scalar view", common.percentile(ms("step (scalar view)"), 95), 16, "p95 ≤ 16 ms"),
        ]
    return 1 if "MISSED" in verdicts else 0


if __name__ == "__main__":
    sys.exit(main())
