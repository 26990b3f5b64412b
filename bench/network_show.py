#!/usr/bin/env python3
"""`gradwalk.show(loss, model=model)`'s kernel side on micrograd's demo loss, beside
micrograd's own `loss.backward()` on the same graph, in the same run.

    pip install -e '.[bench]'          # micrograd==0.1.0
    python bench/network_show.py [--rounds 7] [--samples 100]

The graph is micrograd's demo.ipynb loss: MLP(2, [16, 16, 1]) over 100 points with the
max-margin loss and L2 regularisation, 65,818 nodes (tests/support/demo_mlp.py builds it
deterministically). Each round times, in turn (bench/network_rounds.py, the same work that
network_pyodide.mjs times in Pyodide):

* baseline: micrograd's `loss.backward()` (its topological sort and every `_backward`);
* kernel: what the widget's first request costs in the kernel: `gradwalk.kernel.target(loss,
  model)` (read the graph, group it, the right backward pass) and the collapsed `load`
  answer as the JSON string the widget receives;
* expand: one `expand` request, opening a neuron inside an open sample and layer (the whole
  view answered again, as the widget asks for it).

Budgets: kernel ≤ 0.5 × baseline + 1 s; the collapsed answer ≤ 5 MB. Medians and p95 (the
nearest rank; with 7 rounds p95 is the slowest). The expand figure is the kernel's share of
"expand or collapse one neuron" (p95 ≤ 100 ms in the browser, drawing included), printed for
reference.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import network_rounds  # noqa: E402

from gradwalk import kernel  # noqa: E402
from tests.support.demo_mlp import demo_loss  # noqa: E402

MAX_ANSWER_BYTES = 5_000_000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    sys.setrecursionlimit(100_000)  # micrograd's recursive build_topo

    loss, model, _, _ = demo_loss(args.samples)
    figures = network_rounds.measure(loss, model, kernel, args.rounds)
    baseline, kernel_s, expand_s, sizes = (figures[k] for k in ("baseline", "kernel", "expand", "bytes"))

    size = figures["size"]
    nodes = size["nodes"]
    base_med, base_p95 = common.median(baseline), common.percentile(baseline, 95)
    kern_med, kern_p95 = common.median(kernel_s), common.percentile(kernel_s, 95)
    budget = 0.5 * base_med + 1.0
    print(f"micrograd demo loss: {nodes:,} nodes, {size['edges']:,} edges, {size['groups']:,} groups")
    print(f"{args.rounds} rounds, alternating\n")
    rows = [
        [
            "micrograd loss.backward() (baseline)",
            f"{base_med * 1000:,.0f}",
            f"{base_p95 * 1000:,.0f}",
            "1.00×",
            f"{common.median(figures['baseline_cpu']) * 1000:,.0f}",
        ],
        [
            "gradwalk.show(loss, model=...): kernel",
            f"{kern_med * 1000:,.0f}",
            f"{kern_p95 * 1000:,.0f}",
            common.fmt_ratio(common.ratio(kern_med, base_med)),
            f"{common.median(figures['kernel_cpu']) * 1000:,.0f}",
        ],
        [
            "expand one neuron (kernel's answer)",
            f"{common.median(expand_s) * 1000:,.0f}",
            f"{common.percentile(expand_s, 95) * 1000:,.0f}",
            common.fmt_ratio(common.ratio(common.median(expand_s), base_med)),
            "",
        ],
    ]
    print(common.table(["what", "median ms", "p95 ms", "vs baseline", "CPU median ms"], rows))
    print()
    print(f"collapsed answer: {max(sizes):,} bytes (budget {MAX_ANSWER_BYTES:,})")
    print(
        f"kernel time: median {kern_med:.3f} s, p95 {kern_p95:.3f} s; budget 0.5 × {base_med:.3f} s + 1 s = "
        f"{budget:.3f} s"
    )
    print(f"{common.verdict(kern_med, budget)}: kernel median within 0.5 × baseline + 1 s")
    print(f"{common.verdict(kern_p95, 0.5 * base_p95 + 1.0)}: kernel p95 within 0.5 × baseline p95 + 1 s")
    print(f"{common.verdict(max(sizes), MAX_ANSWER_BYTES)}: the answer sent to the browser within 5 MB")


if __name__ == "__main__":
    main()
