"""A computation graph as numbered data: nodes in topological order and their edges.

The Value objects link child → parents. The page, the traces and the layout want plain
indices instead: node ``i`` is the i-th node in topological order, edge ``j`` joins a
parent to a child through one operand slot. ``a * a`` gives two edges, slots 0 and 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from .text import expression_text, local_text, rule_text
from .value import Value, topological_order

if TYPE_CHECKING:
    from .program import Program


@dataclass(frozen=True)
class Edge:
    id: int
    parent: int
    child: int
    slot: int
    local: float


@dataclass
class Graph:
    values: list[Value]
    edges: list[Edge]
    output: int
    parent_edges: list[list[int]] = field(default_factory=list)  # node → edges into it
    child_edges: list[list[int]] = field(default_factory=list)  # node → edges out of it

    @classmethod
    def of(cls, output: Value, order: list[Value] | None = None) -> Graph:
        """The graph of ``output``; ``order`` is its topological order if already known."""
        values = order if order is not None else topological_order(output)
        index = {value: i for i, value in enumerate(values)}
        edges = []
        parent_edges = [[] for _ in values]
        child_edges = [[] for _ in values]
        for child, value in enumerate(values):
            for slot, (parent, local) in enumerate(zip(value._prev, value._local)):
                edge = Edge(len(edges), index[parent], child, slot, local)
                edges.append(edge)
                parent_edges[child].append(edge.id)
                child_edges[edge.parent].append(edge.id)
        return cls(values, edges, index[output], parent_edges, child_edges)

    def __len__(self):
        return len(self.values)

    def is_input(self, node: int) -> bool:
        return not self.parent_edges[node]

    def label(self, node: int) -> str:
        return self.values[node].label

    @cached_property
    def expressions(self) -> list[str]:
        """How each node is computed from its parents (``a + 1``), written once per graph:
        the node list, the forward narration and the backward narration all quote it."""
        return [expression_text(value) for value in self.values]

    @cached_property
    def local_texts(self) -> list[str]:
        """Each edge's local derivative written as code, ``b.data``."""
        return [local_text(self.values[edge.child], edge.slot) for edge in self.edges]

    @cached_property
    def rules(self) -> list[str]:
        """Each edge's backward rule as micrograd writes it, ``a.grad += b.data * c.grad``."""
        return [
            rule_text(self.values[edge.child], edge.slot, local) for edge, local in zip(self.edges, self.local_texts)
        ]

    @property
    def inputs(self) -> list[int]:
        """The leaves, in the order the program wrote them."""
        leaves = [i for i in range(len(self)) if self.is_input(i)]
        return sorted(leaves, key=lambda i: (self.values[i].line, self.values[i].col, i))

    def reverse_topological_order(self) -> list[int]:
        return list(range(len(self) - 1, -1, -1))


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
