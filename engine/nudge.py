"""Nudge one input by h and watch the output: what a derivative means, measured.

The grad says how much the output moves per unit of the input, for a small move. Nudging
input x by h and computing the graph again shows the output's real change next to the
prediction ``x.grad × h``; the central difference (f(x+h) - f(x-h)) / 2h, the usual
numerical check of a gradient, lands next to the autodiff grad.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .graph import Graph
from .text import fmt
from .trace import correct_backward

if TYPE_CHECKING:
    from .graph import Recompute


def nudge_input(
    graph: Graph, wrt: int, name: str, h: float, recompute: Recompute, order: list[int] | None = None
) -> dict:
    """The output at x+h and x-h (x: the input node ``wrt``, changed as ``name`` through
    ``recompute``) against what its grad predicts (the grad of a backward pass in ``order``,
    the one the graph's table shows)."""
    grads = correct_backward(graph, order)[1]
    x, grad, base = graph.values[wrt].data, grads[wrt], graph.values[graph.output].data

    def output_at(value):
        nudged = recompute({name: value})
        nudged.release()  # only the number is needed; the graph goes away without deep recursion
        return nudged.output.data

    plus, minus = output_at(x + h), output_at(x - h)
    change, predicted, central = plus - base, grad * h, (plus - minus) / (2 * h)
    out = graph.label(graph.output)
    direction = "increases" if change > 0 else "decreases" if change < 0 else "does not change"
    text = (
        f"If {name} increases by {fmt(h)}, {out} {direction}"
        + (f" by {fmt(abs(change), 6)}" if change else "")
        + f"; {name}.grad × h = {fmt(grad)} × {fmt(h)} = {fmt(predicted, 6)}. "
        f"The central difference (f({name}+h) − f({name}−h)) / 2h = {fmt(central, 8)}, "
        f"and autodiff says {name}.grad = {fmt(grad, 8)}."
    )
    return {
        "wrt": wrt,
        "h": h,
        "x": x,
        "output": base,
        "plus": plus,
        "minus": minus,
        "change": change,
        "predicted": predicted,
        "central": central,
        "grad": grad,
        "difference": central - grad,
        "text": text,
    }
