"""Gradient descent: move chosen inputs by -learning_rate × grad, recompute, repeat.

This is what gradients are for: each step nudges the inputs a little in the direction
that makes the output smaller (or larger, for ascent) and runs the forward and backward
passes again at the new point.

Two forms: ``descend`` takes ``steps`` equal steps and answers with the history of points;
``descend_moves`` takes a list of moves, each with its own direction, learning rate and
inputs (a learner's clicks), and also answers with frames the page steps through: one per
point, with every ``data`` and ``grad`` the step changed.

Both compute each point through a *recompute* function: new input values (by name; ``{}``:
the graph's own) → the graph computed afresh there, read as a :class:`~engine.program.Program`
reads (``inputs`` by name, ``nodes`` in topological order, ``output``, ``release()``). For a
program that is ``Program.parse`` on its source; for any other graph, a :class:`Recomputed`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .graph import Graph
from .text import fmt
from .value import Value

if TYPE_CHECKING:
    from .program import Program

MAX_STEPS = 200
NOT_FINITE = "The output or a grad stopped being finite, so descent stopped here; try a smaller learning rate."
OUT_OF_RANGE = "An input left the range of allowed numbers, so descent stopped here; try a smaller learning rate."


class Recomputed:
    """A graph computed at new input values, read the way descent and nudge read a Program:
    its inputs by label, in the graph's input order."""

    def __init__(self, graph: Graph):
        self.nodes: list[Value] = graph.values
        self.output: Value = graph.values[graph.output]
        self.inputs: dict[str, Value] = {graph.label(i): graph.values[i] for i in graph.inputs}

    def release(self):
        """Nothing to do (a Program cuts its nodes' links here): the graph is the source's own."""


Recompute = Callable[[dict[str, float]], "Program | Recomputed"]


@dataclass(frozen=True)
class Move:
    ascend: bool  # up the gradient (+ rate × grad) instead of down (− rate × grad)
    rate: float
    inputs: list[str]  # the input names it moves


@dataclass
class _Point:
    """One point of the descent: the inputs' values and what forward and backward give there."""

    values: dict[str, float]  # every input's value, by name
    output: float
    data: list[float]  # every node's data and grad, in topological order
    grads: list[float]
    input_grads: dict[str, float]  # every input's grad, by name

    @classmethod
    def of(cls, program) -> _Point:
        program.output.backward()  # the same sums, in the same order, as the graph answer's grads
        nodes = program.nodes
        point = cls(
            {name: leaf.data for name, leaf in program.inputs.items()},
            program.output.data,
            [v.data for v in nodes],
            [v.grad for v in nodes],
            {name: leaf.grad for name, leaf in program.inputs.items()},
        )
        program.release()
        return point

    def finite(self, names) -> bool:
        return math.isfinite(self.output) and all(math.isfinite(self.input_grads[n]) for n in names)

    def moved(self, move: Move) -> dict[str, float] | None:
        """The inputs after ``move``, or None if one leaves the numbers a program allows."""
        sign = 1.0 if move.ascend else -1.0
        moved = {name: self.values[name] + sign * move.rate * self.input_grads[name] for name in move.inputs}
        if any(not math.isfinite(v) or abs(v) > 1e12 for v in moved.values()):
            return None
        return {**self.values, **moved}


def descend(recompute: Recompute, names: list[str], rate: float, steps: int, ascend: bool = False) -> dict:
    """``steps`` equal steps from the graph's own values: the history."""
    move = Move(ascend, rate, names)
    program = recompute({})
    values = {name: leaf.data for name, leaf in program.inputs.items()}
    program.release()
    history = []
    stopped = None
    for step in range(steps + 1):
        point = _Point.of(recompute(values))  # every input given by name
        history.append(
            {
                "step": step,
                "values": point.values,
                "output": point.output,
                "grads": {name: point.input_grads[name] for name in names},
            }
        )
        if not point.finite(names):
            stopped = NOT_FINITE
            break
        if step == steps:
            break
        values = point.moved(move)
        if values is None:
            stopped = OUT_OF_RANGE
            break
    return {"history": history, "stopped": stopped, "ascend": ascend, "rate": rate, "inputs": names}


def descend_moves(recompute: Recompute, moves: list[Move]) -> dict:
    """The moves one after another from the graph's own values: the history, and one frame per point.

    A move that would take an input out of range, or make the output or a grad of the
    inputs it moves non-finite, is not made: the answer ends before it and says why in
    ``stopped``.
    """
    program = recompute({})
    output, out_line, out = len(program.nodes) - 1, program.output.line, program.output.label
    index = {id(node): i for i, node in enumerate(program.nodes)}
    node_of = {name: index.get(id(leaf)) for name, leaf in program.inputs.items()}  # None: not drawn
    point = _Point.of(program)
    history = [_entry(0, point)]
    frames = [
        {
            "kind": "descent",
            "node": output,
            "line": out_line,
            "pushes": [],
            "changes": [],
            "text": f"Start: {out} = {fmt(point.output)} at "
            + ", ".join(f"{name} = {fmt(v)}" for name, v in point.values.items())
            + ".",
        }
    ]
    stopped = None
    for step, move in enumerate(moves, 1):
        if not point.finite(move.inputs):
            stopped = NOT_FINITE
            break
        values = point.moved(move)
        if values is None:
            stopped = OUT_OF_RANGE
            break
        after = _Point.of(recompute(values))
        if not after.finite(move.inputs):
            stopped = NOT_FINITE
            break
        history.append(_entry(step, after))
        frames.append(
            {
                "kind": "descent",
                "node": output,
                "line": out_line,
                "pushes": [],
                "changes": _changes(point, after),
                "ascend": move.ascend,
                "rate": move.rate,
                "moved": [node_of[name] for name in move.inputs if node_of[name] is not None],
                "text": _step_text(step, move, point, after, out),
            }
        )
        point = after
    return {"history": history, "frames": frames, "stopped": stopped}


def _entry(step: int, point: _Point) -> dict:
    return {"step": step, "values": point.values, "output": point.output, "grads": point.input_grads}


def _changes(before: _Point, after: _Point) -> list[dict]:
    """Every data and grad that differs between two points (nan = nan, -0 = 0: the page's own test)."""
    changes = []
    for i, (old_data, new_data, old_grad, new_grad) in enumerate(
        zip(before.data, after.data, before.grads, after.grads)
    ):
        if not _same(old_data, new_data):
            changes.append({"node": i, "field": "data", "before": old_data, "after": new_data})
        if not _same(old_grad, new_grad):
            changes.append({"node": i, "field": "grad", "before": old_grad, "after": new_grad})
    return changes


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)


def _step_text(step: int, move: Move, before: _Point, after: _Point, out: str) -> str:
    sign = "+" if move.ascend else "−"
    moves = "; ".join(
        f"{name} = {fmt(before.values[name])} {sign} {fmt(move.rate)} × "
        f"{fmt(before.input_grads[name])} = {fmt(after.values[name])}"
        for name in move.inputs
    )
    change = "down" if after.output < before.output else "up" if after.output > before.output else "unchanged"
    return (
        f"Step {step} ({'ascend' if move.ascend else 'descend'}): {moves}. Forward and backward again: "
        f"{out} {fmt(before.output)} → {fmt(after.output)} ({change})."
    )
