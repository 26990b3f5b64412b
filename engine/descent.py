"""Gradient descent: move chosen inputs by -learning_rate × grad, recompute, repeat.

This is what gradients are for: each step nudges the inputs a little in the direction
that makes the output smaller (or larger, for ascent) and runs the forward and backward
passes again at the new point.
"""

from __future__ import annotations

import math

from .program import Program

MAX_STEPS = 200


def descend(source: str, values: dict[str, float], names: list[str], rate: float, steps: int,
            ascend: bool = False) -> dict:
    program = Program.parse(source, values)
    values = {name: program.inputs[name].data for name in program.inputs}
    program.release()
    sign = 1.0 if ascend else -1.0
    history = []
    stopped = None
    for step in range(steps + 1):
        program = Program.parse(source, values)
        program.output.backward()
        grads = {name: program.inputs[name].grad for name in names}
        history.append({"step": step, "values": dict(values), "output": program.output.data, "grads": grads})
        program.release()
        if not math.isfinite(program.output.data) or not all(math.isfinite(g) for g in grads.values()):
            stopped = "The output or a grad stopped being finite, so descent stopped here; try a smaller learning rate."
            break
        if step == steps:
            break
        moved = {name: values[name] + sign * rate * grads[name] for name in names}
        if any(not math.isfinite(v) or abs(v) > 1e12 for v in moved.values()):
            stopped = ("An input left the range of allowed numbers, so descent stopped here; "
                       "try a smaller learning rate.")
            break
        values.update(moved)
    return {"history": history, "stopped": stopped, "ascend": ascend, "rate": rate, "inputs": names}
