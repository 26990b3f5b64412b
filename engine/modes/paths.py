"""Path sums: the chain rule written out as a sum over every input → output path.

d(output)/dx is the sum, over every path from x to the output, of the product of the
local derivatives along it. Enumerating the paths gives the right answer but repeats
work: the number of paths can grow exponentially (a chain of k diamonds has 2**k), and
every input needs its own enumeration. Reverse mode shares the work: one backward pass
does one multiplication per edge and finds every input's grad.
"""

from __future__ import annotations

from ..graph import Graph
from ..program import Program
from ..registry import Choice, Command, Input, Kind, Mode, Param, RequestError
from ..text import fmt

MAX_LISTED = 200
MAX_WALKED = 100_000


def path_sums(graph: Graph, wrt: int, grad: float) -> dict:
    """Every path from input ``wrt`` to the output with its product, and their sum."""
    leads_to_x = _descendants(graph, wrt)
    paths = []
    total = 0.0
    stack = [(graph.output, [graph.output], [], 1.0)]  # walk from the output towards the inputs
    count = 0
    while stack:
        node, nodes, edges, product = stack.pop()
        if node == wrt:
            count += 1
            total += product
            if len(paths) < MAX_LISTED:
                paths.append(
                    {
                        "nodes": nodes[::-1],
                        "edges": edges[::-1],
                        "product": product,
                        "locals": [graph.edges[e].local for e in edges[::-1]],
                    }
                )
            continue
        for edge_id in reversed(graph.parent_edges[node]):
            edge = graph.edges[edge_id]
            if edge.parent in leads_to_x:
                stack.append((edge.parent, nodes + [edge.parent], edges + [edge_id], product * edge.local))
        if count > MAX_WALKED:
            break  # listed up to MAX_LISTED, counted exactly in costs()
    x = graph.label(wrt)
    frames = []
    running = 0.0
    for path in paths:
        before, running = running, running + path["product"]
        factors = " × ".join(fmt(local) for local in path["locals"])
        route = " → ".join(graph.label(n) for n in path["nodes"])
        text = f"Path {route}: {factors} = {fmt(path['product'])}; running sum {fmt(before)} → {fmt(running)}."
        frames.append(
            {
                "kind": "path",
                "node": wrt,
                "nodes": path["nodes"],
                "edges": path["edges"],
                "product": path["product"],
                "line": graph.values[wrt].line,
                "text": text,
                "changes": [{"node": wrt, "field": "pathsum", "before": before, "after": running}],
                "pushes": [],
            }
        )
    return {
        "wrt": wrt,
        "paths": paths,
        "path_count": count,
        "sum": total,
        "grad": grad,
        "frames": frames,
        "cost": costs(graph),
        "explanation": [
            f"The {count} path{'s' if count != 1 else ''} from {x} sum to {fmt(total)}; "
            f"the backward pass gives {x}.grad = {fmt(grad)}."
        ],
    }


def _descendants(graph: Graph, node: int) -> set[int]:
    """``node`` and every node computed from it: the only places a path from it can pass."""
    seen = {node}
    stack = [node]
    while stack:
        for edge_id in graph.child_edges[stack.pop()]:
            child = graph.edges[edge_id].child
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def costs(graph: Graph) -> dict:
    """Multiplications: enumerating every path for every input vs one backward pass.

    A path of k edges costs k - 1 multiplications to form its product; a backward pass
    costs one multiplication (local × upstream) per edge. Counted exactly with a dynamic
    program, so a graph with billions of paths is counted without enumerating them.
    """
    count = [0] * len(graph)  # paths from each node down to the inputs
    length = [0] * len(graph)  # their edges, summed
    for node in range(len(graph)):
        for edge_id in graph.parent_edges[node]:
            parent = graph.edges[edge_id].parent
            below = 1 if graph.is_input(parent) else count[parent]
            count[node] += below
            length[node] += below + (0 if graph.is_input(parent) else length[parent])
    out = graph.output
    return {
        "nodes": len(graph),
        "edges": len(graph.edges),
        "inputs": len(graph.inputs),
        "paths": count[out],
        "path_multiplications": length[out] - count[out],
        "backward_multiplications": len(graph.edges),
    }


def family_program(family: str, n: int) -> str:
    """A bigger graph of size ``n`` to watch the two costs grow."""
    if family == "diamonds":  # a chain of n diamonds: 2**n paths
        lines = ["x0 = 1.1"]
        for i in range(n):
            lines += [f"l{i} = x{i} * 0.9", f"r{i} = x{i} + 0.1", f"x{i + 1} = l{i} * r{i}"]
        return "\n".join(lines)
    if family == "neuron":  # a neuron with n inputs: many inputs, few paths each
        lines = [f"x{i} = {0.5 + 0.1 * i:g}\nw{i} = {-0.3 + 0.05 * i:g}" for i in range(n)]
        lines.append("b = 0.1")
        lines.append("s = " + " + ".join(f"x{i} * w{i}" for i in range(n)) + " + b")
        lines.append("o = tanh(s)")
        return "\n".join(lines)
    raise ValueError(family)


FAMILIES = {"diamonds": 30, "neuron": 60}  # largest n for each family


def growth(family: str, sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        program = Program.parse(family_program(family, n))
        rows.append({"n": n, **costs(Graph.of(program.output, program.nodes))})
        program.release()
    return rows


# -- the mode ---------------------------------------------------------------------------------

WRT = Param("wrt", Input())
FAMILY = Param("family", Choice(tuple(FAMILIES)), "diamonds")
SIZES = Param("sizes", Kind(), list(range(1, 11)), link=None)  # checked against the family


def _paths(subject, wrt: int) -> dict:
    """Every path from the input "wrt" to the output, with products that sum to its grad."""
    return path_sums(subject.graph, wrt, subject.grads[wrt])


def _growth(subject, family: str, sizes) -> dict:
    """Path-enumeration cost against one backward pass on ever bigger graphs (graphs of its own)."""
    if (
        not isinstance(sizes, list)
        or not 0 < len(sizes) <= 60
        or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= FAMILIES[family] for n in sizes)
    ):
        raise RequestError(f'"sizes" must be a list of whole numbers from 1 to {FAMILIES[family]}.')
    return {"family": family, "rows": growth(family, sizes)}


MODE = Mode(
    id="paths",
    tab="Path sums",
    place=10,
    commands=(Command("paths", (WRT,), _paths), Command("growth", (FAMILY, SIZES), _growth, graph=False)),
    params=(WRT, FAMILY),
    fields=("pathsum",),
    samples=lambda inputs, labels: [
        *({"cmd": "paths", "wrt": name} for name in inputs),
        *({"cmd": "growth", "family": family, "sizes": [1, 2, 3]} for family in FAMILIES),
        {"cmd": "growth", "sizes": [0]},
    ],
)
