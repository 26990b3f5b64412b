"""The network benchmark's timed work, the same in CPython (network_show.py) and in Pyodide
(network_pyodide.mjs loads this file, micrograd's and gradwalk/kernel.py into Pyodide's file
system): stdlib only, and the kernel module is passed in.

Each round, in turn:

* baseline: micrograd's `loss.backward()` (its topological sort and every `_backward`), the
  grads set to zero before it;
* kernel: what the widget's first request costs: `kernel.target(loss, model)` (read the graph,
  group it, the right backward pass) and the collapsed `load` answer as the JSON string the
  widget receives;
* expand: one `expand` request, opening a neuron inside an open sample and layer (the whole view
  answered again, as the widget asks for it).
"""

from __future__ import annotations

import gc
import json
import time

EXPANDED = ["batch", "sample 1", "layer 2 in sample 1"]
EXPAND = {"cmd": "expand", "group": "neuron 2 of layer 2 in sample 1", "expanded": EXPANDED}


def zero_grads(loss):
    stack, seen = [loss], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        v.grad = 0
        stack.extend(v._prev)


def measure(loss, model, kernel, rounds: int, cpu_clock=time.process_time) -> dict:
    """Seconds per round of each (lists), the baseline's and the kernel's CPU seconds too (a
    machine shared with other work slows wall time far more), the answers' bytes, and the
    collapsed answer's "size" (nodes, edges, groups)."""
    baseline, kernel_s, expand_s, sizes = [], [], [], []
    baseline_cpu, kernel_cpu = [], []
    for _ in range(rounds):
        zero_grads(loss)
        gc.collect()
        cpu, started = cpu_clock(), time.perf_counter()
        loss.backward()
        baseline.append(time.perf_counter() - started)
        baseline_cpu.append(cpu_clock() - cpu)

        gc.collect()
        cpu, started = cpu_clock(), time.perf_counter()
        shown = kernel.target(loss, model)
        answer = kernel.handle({"cmd": "load"}, shown)
        kernel_s.append(time.perf_counter() - started)
        kernel_cpu.append(cpu_clock() - cpu)
        sizes.append(len(answer.encode()))
        decoded = json.loads(answer)
        assert decoded["ok"], decoded

        started = time.perf_counter()
        opened = kernel.handle(EXPAND, shown)
        expand_s.append(time.perf_counter() - started)
        assert json.loads(opened)["ok"]
        del shown
    return {
        "baseline": baseline,
        "kernel": kernel_s,
        "expand": expand_s,
        "baseline_cpu": baseline_cpu,
        "kernel_cpu": kernel_cpu,
        "bytes": sizes,
        "size": decoded["size"],
    }
