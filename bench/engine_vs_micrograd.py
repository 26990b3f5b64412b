#!/usr/bin/env python3
"""The engine against micrograd in CPython: build + backward of the same
~100,000-node graph, alternating runs, medians and the ratio.

    pip install -e '.[bench]'          # micrograd==0.1.0, for this benchmark only
    python bench/engine_vs_micrograd.py [--rounds 7] [--width 100] [--depth 333]

The graph: `width` lanes of inputs; each of `depth` layers computes, for every
lane i, relu(x[i] * w[i] + x[i+1]) from the previous layer; the output sums the
last layer. Only Value-with-Value operations (* + relu), so both libraries
build exactly the same nodes (3 * width * depth + 2 * width inputs + width - 1
sums). micrograd 0.1.0 has no tanh, and its recursive topological sort needs a
raised recursion limit and a big thread stack for a graph this deep; both run
in that same thread.

Our engine keeps its teaching details while doing it: every node holds its
ordered parents, each edge's local derivative, a label and a source position.
Both libraries' gradients are checked against each other before timing counts.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from engine import Value as EngineValue  # noqa: E402


def build_graph(Value, width: int, depth: int, label: bool):
    """Return (output, inputs) for the lanes graph."""
    if label:
        xs = [Value(0.5 + 0.001 * i, label=f"x{i}") for i in range(width)]
        ws = [Value(0.9 - 0.002 * i, label=f"w{i}") for i in range(width)]
    else:
        xs = [Value(0.5 + 0.001 * i) for i in range(width)]
        ws = [Value(0.9 - 0.002 * i) for i in range(width)]
    lanes = xs
    for _ in range(depth):
        lanes = [(lanes[i] * ws[i] + lanes[(i + 1) % width]).relu() for i in range(width)]
    out = lanes[0]
    for lane in lanes[1:]:
        out = out + lane
    return out, xs + ws


def run_once(Value, width: int, depth: int, label: bool, collect: bool = True) -> dict:
    gc.collect()
    if not collect:
        gc.disable()
    try:
        started = time.perf_counter()
        out, inputs = build_graph(Value, width, depth, label)
        built = time.perf_counter()
        out.backward()
        done = time.perf_counter()
    finally:
        gc.enable()
    return {
        "build": built - started,
        "backward": done - built,
        "total": done - started,
        "grads": [v.grad for v in inputs],
        "out": out.data,
    }


def count_nodes(root) -> int:
    from engine.value import topological_order

    return len(topological_order(root))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="runs of each (default 7; at least 5)")
    parser.add_argument("--width", type=int, default=100)
    parser.add_argument("--depth", type=int, default=333)
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="switch Python's cyclic garbage collector off while timing (micrograd's "
        "closures make cycles that the collector keeps scanning; ours makes none)",
    )
    args = parser.parse_args(argv)
    collect = not args.no_gc

    try:
        from micrograd.engine import Value as MicrogradValue
    except ImportError:
        print("micrograd is not installed; run `python -m pip install -e '.[bench]'`.", file=sys.stderr)
        return 1

    results = {"engine": [], "micrograd": []}
    failure = []

    def work():
        try:
            sys.setrecursionlimit(max(sys.getrecursionlimit(), 20 * args.depth + 10 * args.width + 1000))
            out, _ = build_graph(EngineValue, args.width, args.depth, True)
            results["nodes"] = count_nodes(out)
            del out
            # One unmeasured run of each warms the allocator and the caches.
            run_once(EngineValue, args.width, args.depth, True)
            run_once(MicrogradValue, args.width, args.depth, False)
            for i in range(args.rounds):
                order = [("engine", EngineValue, True), ("micrograd", MicrogradValue, False)]
                for name, Value, label in order if i % 2 == 0 else order[::-1]:
                    results[name].append(run_once(Value, args.width, args.depth, label, collect))
                e, m = results["engine"][-1], results["micrograd"][-1]
                print(
                    f"round {i + 1}/{args.rounds}: engine {e['total'] * 1000:.0f} ms, "
                    f"micrograd {m['total'] * 1000:.0f} ms",
                    file=sys.stderr,
                )
        except BaseException as error:  # reported from the main thread
            failure.append(error)

    threading.stack_size(512 * 1024 * 1024)
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]

    e, m = results["engine"][-1], results["micrograd"][-1]
    same = math.isclose(e["out"], m["out"], rel_tol=1e-12) and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(e["grads"], m["grads"])
    )
    if not same:
        print("the two libraries disagree on the gradients; the timing means nothing", file=sys.stderr)
        return 1

    med = {
        name: {k: common.median([r[k] * 1000 for r in results[name]]) for k in ("build", "backward", "total")}
        for name in ("engine", "micrograd")
    }
    rows = [
        [name, common.fmt_ms(v["build"]), common.fmt_ms(v["backward"]), common.fmt_ms(v["total"])]
        for name, v in med.items()
    ]
    rows.append(
        [
            "ratio engine / micrograd",
            *(
                common.fmt_ratio(common.ratio(med["engine"][k], med["micrograd"][k]))
                for k in ("build", "backward", "total")
            ),
        ]
    )
    print(
        f"\nEngine vs micrograd 0.1.0 in CPython {sys.version.split()[0]}: {results['nodes']:,} nodes "
        f"({args.width} lanes x {args.depth} layers), median of {args.rounds} alternating runs, ms, "
        f"garbage collector {'on' if collect else 'off'}\n"
    )
    print(common.table(["library", "build", "backward", "build + backward"], rows))
    total_ratio = common.ratio(med["engine"]["total"], med["micrograd"]["total"])
    print(
        f"\n  {common.verdict(total_ratio, 0.6):7} build + backward <= 0.6 x micrograd: "
        f"{common.fmt_ratio(total_ratio)}   (gradients agree: yes)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
