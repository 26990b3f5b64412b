"""backward() a second time: grads accumulate with +=, so without zero_grad() they pile up.

micrograd's (and PyTorch's) backward pass adds into every grad rather than setting it, so
that a value used twice gets both contributions. The price: calling backward() again adds
a second pass on top of the first. The intermediate grads double, and because they pass
their doubled totals on, the inputs get more than double. zero_grad() first puts every grad
back to 0, and the second pass then gives the same grads as the first.
"""

from __future__ import annotations

from ..graph import Graph
from ..registry import Command, Flag, Mode, Param
from ..text import fmt
from ..trace import run_backward


def backward_again(graph: Graph, grads: list[float], zero: bool, order: list[int] | None = None) -> dict:
    """A second backward pass on top of the first one's ``grads``, after zero_grad() if ``zero``,
    in the same ``order`` as the first (default: reverse topological)."""
    frames = []
    start = grads
    if zero:
        frames.append(
            {
                "kind": "zero",
                "node": graph.output,
                "line": graph.values[graph.output].line,
                "text": "zero_grad(): every grad goes back to 0 before the next backward pass.",
                "pushes": [],
                "changes": [{"node": i, "field": "grad", "before": g, "after": 0.0} for i, g in enumerate(grads)],
            }
        )
        start = [0.0] * len(graph)
    more, final, _ = run_backward(graph, order if order is not None else graph.reverse_topological_order(), start=start)
    frames += more
    if zero:
        explanation = [
            "After zero_grad() the second backward pass starts from 0 and gives the same grads as the first."
        ]
    else:
        explanation = _explain(graph, grads, final)
    return {"zero_grad": zero, "frames": frames, "start_grads": grads, "grads": final, "explanation": explanation}


def _explain(graph: Graph, first: list[float], second: list[float]) -> list[str]:
    out = graph.label(graph.output)
    middle = [i for i in range(len(graph)) if i != graph.output and not graph.is_input(i)]

    def changes(nodes):
        return ", ".join(f"{graph.label(i)}.grad {fmt(first[i])} → {fmt(second[i])}" for i in nodes)

    sentences = [
        f"backward() sets {out}.grad = 1 again, but every other grad still holds the first pass's value "
        "and += adds the second pass on top of it."
    ]
    if middle:
        sentences.append(
            f"The intermediate grads double ({changes(middle)}), and because they pass their doubled "
            f"totals on, the inputs get even more: {changes(graph.inputs)}."
        )
        sentences.append(
            "PyTorch keeps no grads on intermediate nodes, so there the inputs' grads would exactly "
            "double; micrograd keeps them, as here. Either way: call zero_grad() before backward()."
        )
    else:
        sentences.append(f"Every input's grad doubles: {changes(graph.inputs)}. Call zero_grad() before backward().")
    return sentences


ZERO_GRAD = Param("zero_grad", Flag(), False, link="zero")


def _again(subject, zero_grad: bool) -> dict:
    """backward() called a second time: without zero_grad every grad is added twice."""
    return backward_again(subject.graph, subject.grads, zero_grad, subject.order)


MODE = Mode(
    id="again",
    tab="Backward twice",
    place=50,
    commands=(Command("again", (ZERO_GRAD,), _again),),
    params=(ZERO_GRAD,),
    samples=lambda inputs, labels: [{"cmd": "again"}, {"cmd": "again", "zero_grad": True}],
)
