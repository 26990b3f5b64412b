"""Forward mode: one pass per input, carrying a tangent (a dual number) along with .data.

To get d(output)/dx in forward mode, seed x's tangent with 1 and every other input's
with 0, then walk the graph in topological order: each node's tangent is the sum over its
parents of ``local × parent's tangent``. One pass gives the derivative with respect to
*one* input; reverse mode gives all of them in one backward pass. That is why training,
with one loss and millions of weights, uses reverse mode.
"""

from __future__ import annotations

from .graph import Graph
from .text import code_name, fmt


def forward_mode(graph: Graph, wrt: int) -> dict:
    """The tangent frames of one forward-mode pass, seeded at input ``wrt``."""
    x = code_name(graph.label(wrt))
    tangents = [0.0] * len(graph)
    frames = []
    for node, value in enumerate(graph.values):
        label = code_name(value.label)  # d(x1*w1)/dx1 rather than dx1*w1/dx1
        if graph.is_input(node):
            tangent = 1.0 if node == wrt else 0.0
            why = "the seed" if node == wrt else f"{label} doesn't change when {x} does"
            text = f"d{label}/d{x} = {fmt(tangent)} ({why})."
            terms = []
        else:
            terms = []
            tangent = 0.0
            for edge_id in graph.parent_edges[node]:
                edge = graph.edges[edge_id]
                contribution = edge.local * tangents[edge.parent]
                terms.append(
                    {
                        "edge": edge_id,
                        "parent": edge.parent,
                        "local": edge.local,
                        "upstream": tangents[edge.parent],
                        "contribution": contribution,
                        "before": tangent,
                        "after": tangent + contribution,
                        "late": False,
                        "rule": f"d{label} += {fmt(edge.local)} * d{code_name(graph.label(edge.parent))}",
                    }
                )
                tangent += contribution
            sums = " + ".join(f"{_factor(t['local'])} × {_factor(t['upstream'])}" for t in terms)
            text = f"d{label}/d{x} = {sums} = {fmt(tangent)}."
        tangents[node] = tangent
        frames.append(
            {
                "kind": "tangent",
                "node": node,
                "tangent": tangent,
                "line": value.line,
                "text": text,
                "pushes": terms,
                "changes": [{"node": node, "field": "tangent", "before": None, "after": tangent}],
            }
        )
    inputs = len(graph.inputs)
    edges = len(graph.edges)
    return {
        "wrt": wrt,
        "frames": frames,
        "tangents": tangents,
        "derivative": tangents[graph.output],
        "passes_for_all_inputs": inputs,
        "multiplications_per_pass": edges,
        "multiplications_forward_mode": inputs * edges,
        "multiplications_reverse_mode": edges,
        "explanation": [
            f"One forward-mode pass gives d{code_name(graph.label(graph.output))}/d{x} = "
            f"{fmt(tangents[graph.output])}: the derivative with respect to {x} only.",
            f"This graph has {inputs} input{'s' if inputs != 1 else ''}, so forward mode needs {inputs} "
            f"pass{'es' if inputs != 1 else ''} ({inputs * edges} multiplications) where one backward pass "
            f"({edges} multiplications) gives every grad at once.",
        ],
    }


def _factor(x: float) -> str:
    """A number inside a product: negative ones in brackets, 1 × (-2)."""
    text = fmt(x)
    return f"({text})" if text.startswith("-") else text
