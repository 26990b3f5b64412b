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
program that is ``Program.parse`` on its source; for any other graph, a :class:`~engine.graph.Recomputed`.

``{"cmd": "descent", …program…, "inputs": ["x1"], "rate": 0.1, "steps": 1, "ascend": false}``
answers with the inputs, output and grads at every step (``history``, ``stopped``).

``{"cmd": "descent", …program…, "moves": [{"ascend": false, "rate": 0.1, "inputs": ["x1"]}, …]}``
makes the learner's moves one after another (at most 200). Each move's ``ascend`` defaults to
false, its ``rate`` (in (0, 10]) to 0.1 and its ``inputs`` to all; such a request has no
``steps``, ``rate``, ``ascend`` or ``inputs`` of its own. The first point is the program (with
``"values"``, if given); each move sets every input x it names to ``x ∓ rate × x.grad`` and
runs the forward and backward passes again (the new values are written into the source, as
``load`` does)::

    {
      "ok": true,
      "history": [{"step", "values": {name: x}, "output", "grads": {name: grad}}...],  // every input
      "frames": [DescentFrame...],    // one per point: the start, then one per move made
      "stopped": null | "why the next move was not made"
    }

A move that would take an input beyond ±1e12, or make the output or a grad of an input it
moves non-finite, is not made: the answer ends before it, and ``stopped`` says why.

A DescentFrame is ``{"kind": "descent", "node": output id, "line", "pushes": [], "changes",
"text"}``; after a move also ``"ascend"``, ``"rate"`` and ``"moved"`` (the ids of the inputs it
moved that are in the graph). ``changes`` lists every node's ``data`` and ``grad`` that differ
from the point before (NaN counts as equal to NaN). The texts read ``"Start: d = 18 at a = 2."``
and ``"Step 1 (descend): a = 2 − 0.1 × 15 = 0.5. Forward and backward again: d 18 → 2.25 (down)."``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..graph import Recompute
from ..registry import Command, Flag, Inputs, Kind, Mode, Number, Param, RequestError, Whole
from ..text import fmt

MAX_STEPS = 200
NOT_FINITE = "The output or a grad stopped being finite, so descent stopped here; try a smaller learning rate."
OUT_OF_RANGE = "An input left the range of allowed numbers, so descent stopped here; try a smaller learning rate."


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


# -- the mode ---------------------------------------------------------------------------------

INPUTS = Param("inputs", Inputs())
RATE = Param("rate", Number(0, 10, "The learning rate must be a number above 0 and at most 10."), 0.1, link="lr")
STEPS = Param("steps", Whole(1, MAX_STEPS), 1, link=None)
ASCEND = Param("ascend", Flag(), False, link=None)


class Moves(Kind):
    """The learner's moves, each ``{"ascend", "rate", "inputs"}`` checked like a step's own
    parameters. A link keeps only their directions, one letter each (d: descend, a: ascend),
    and the learning rate and inputs of them all in its other parameters."""

    name = "moves"

    def read(self, param, value, subject):
        if not isinstance(value, list) or len(value) > MAX_STEPS or not all(isinstance(m, dict) for m in value):
            raise RequestError(
                f'"moves" must be a list of at most {MAX_STEPS} moves, like '
                '[{"ascend": false, "rate": 0.1, "inputs": ["x1"]}].'
            )
        return [Move(ASCEND.read(m, subject), RATE.read(m, subject), INPUTS.read(m, subject)) for m in value]

    def describe(self) -> dict:
        return {"kind": self.name, "most": MAX_STEPS}


MOVES = Param("moves", Moves())


def _descent(subject, inputs, rate, steps, ascend, moves) -> dict:
    """Gradient descent (or ascent) on chosen inputs: equal steps, or the learner's own moves."""
    if moves is not None:
        return descend_moves(subject.rewrite, moves)
    return descend(subject.recompute, inputs, rate, steps, ascend)


def _exclusive(request: dict) -> None:
    if "moves" in request and any(key in request for key in ("steps", "rate", "ascend", "inputs")):
        raise RequestError(
            'With "moves", each move has its own "ascend", "rate" and "inputs"; '
            'leave out "steps", "rate", "ascend" and "inputs".'
        )


MODE = Mode(
    id="descent",
    tab="Gradient descent",
    place=60,
    commands=(Command("descent", (INPUTS, RATE, STEPS, ASCEND, MOVES), _descent, check=_exclusive),),
    params=(RATE, INPUTS, MOVES),
    samples=lambda inputs, labels: [
        {"cmd": "descent", "steps": 3},
        {"cmd": "descent", "inputs": inputs, "ascend": True},
        {"cmd": "descent", "moves": [{"ascend": False, "rate": 0.5, "inputs": inputs[:1]}]},
        {"cmd": "descent", "steps": 0},
    ],
)
