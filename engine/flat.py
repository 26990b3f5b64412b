"""A big graph as flat lists, read quickly from a learner's micrograd-style value.

:mod:`engine.foreign` reads a graph node by node with every safeguard: it calls each node's
own ``_backward`` to measure its local derivatives, fingerprints subgraphs to order a set's
operands, and mirrors every node in the engine's :class:`~engine.value.Value`. That is right
for the small graphs of a lesson, and far too slow for a network's loss over a batch (65,818
nodes for micrograd's demo). This module reads such a graph in one pass into
:class:`FlatGraph`, plain lists indexed by node, and runs the backward pass on them:

* operand order comes from the graph itself: ``_children`` (a tuple), a tuple ``_prev``, or
  micrograd's ``_backward`` closure over ``self`` and ``other``; a node where none of them
  says it makes the read give up (:class:`NotFlat`), and the caller reads it the careful way;
* the operation: :func:`engine.ops.infer_op`, as :mod:`engine.foreign` reads it (the ``_op``
  text, or for a node without one the table's one operation that fits its numbers);
* local derivatives: ``_local_grads`` when the graph stores them; else the engine's rule for
  the node's operation (``+ * ReLU tanh exp **k``...), *checked* against the graph's own
  ``_backward`` on the first few nodes of each class and operation (every attribute put back
  afterwards). A node whose ``_backward`` disagrees with the rule, or whose operation the
  engine doesn't know, makes the read give up too.

Nodes are numbered in a topological order: each node's parents in operand order, depth first,
as micrograd's own ``build_topo`` visits them, so the same graph always gives the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from .numbers import as_float, close
from .ops import OPS, infer_op
from .text import fmt

CHECKED_PER_KIND = 3  # nodes of each (class, operation) whose _backward is compared with the rule
ON_PATH = -1  # read_flat: a node whose parents are being numbered


class NotFlat(Exception):
    """This graph can't be read the quick way; :mod:`engine.foreign` reads it instead."""


class TooBig(Exception):
    """The graph has more nodes than the reader was told to read."""


@dataclass
class FlatGraph:
    """A graph as lists indexed by node id (a topological order; the output is last)."""

    data: list[float]
    ops: list[str]  # the engine's symbol ("" for an input)
    parents: list[tuple[int, ...]]  # per node, one per edge, in operand order
    locals: list[tuple[float, ...]]  # per node, d(node)/d(parent) per edge
    labels: list[str]
    objects: list = field(repr=False, default_factory=list)  # the learner's nodes, same order
    consts: dict[int, tuple] = field(default_factory=dict)  # node → its exponent, for **

    def __len__(self) -> int:
        return len(self.data)

    @property
    def output(self) -> int:
        return len(self.data) - 1

    @cached_property
    def edge_count(self) -> int:
        return sum(map(len, self.parents))

    @cached_property
    def node_of(self) -> dict[int, int]:
        """Each of the learner's nodes by ``id()``: its node id (read_flat keeps the one it made)."""
        return {id(obj): i for i, obj in enumerate(self.objects)}

    @cached_property
    def consumers(self) -> list[list[int]]:
        """Per node, the nodes that use it (once per edge, in edge order)."""
        out = [[] for _ in self.data]
        for child, parents in enumerate(self.parents):
            for parent in parents:
                out[parent].append(child)
        return out

    @classmethod
    def from_graph(cls, graph, objects: list | None = None) -> FlatGraph:
        """An engine :class:`~engine.graph.Graph` (whose output is its last node) as flat lists;
        ``objects``: the learner's nodes it mirrors, in the same order (default: its Values)."""
        values, edges = graph.values, graph.edges
        return cls(
            data=[value.data for value in values],
            ops=[value._op for value in values],
            parents=[tuple(edges[e].parent for e in ids) for ids in graph.parent_edges],
            locals=[tuple(edges[e].local for e in ids) for ids in graph.parent_edges],
            labels=[value.label for value in values],
            objects=list(values if objects is None else objects),
            consts={i: value._const for i, value in enumerate(values) if value._const is not None},
        )

    def expression(self, node: int) -> str:
        """How ``node`` is computed from its parents, by their labels: ``t3 * w1``."""
        op = self.ops[node]
        if not op:
            return fmt(self.data[node])
        names = [self.labels[p] for p in self.parents[node]]
        entry = OPS.get(op)
        if op == "**":
            return f"{names[0]} ** {fmt(self.consts[node][0])}"
        if entry is not None and entry.arity == 1:
            return f"{entry.symbol}({names[0]})" if entry.written == "function" else f"{entry.symbol}{names[0]}"
        symbol = entry.symbol if entry is not None else op
        return f" {symbol} ".join(names)


def read_flat(root, check: int = CHECKED_PER_KIND, limit: int | None = None) -> FlatGraph:
    """Read the graph of ``root`` without changing it; raises :class:`NotFlat` when only the
    careful reader can read it, and :class:`TooBig` past ``limit`` nodes."""
    operands_of = _Operands().read
    most = limit if limit is not None else math.inf
    # index: a node's number once numbered, ON_PATH while it waits on the stack for its parents
    # (met again then: a cycle). One dict lookup per edge.
    index: dict[int, int] = {id(root): ON_PATH}
    objects: list = []
    found: list[tuple] = []
    root_ops = operands_of(root)
    stack = [(root, root_ops, iter(root_ops[0]))]
    # Depth first, parents in operand order: a node is numbered once all its parents are.
    while stack:
        obj, obj_ops, it = stack[-1]
        for parent in it:
            key = id(parent)
            at = index.get(key)
            if at is not None:
                if at == ON_PATH:
                    raise NotFlat("a cycle")
                continue
            ops = operands_of(parent)
            if len(index) >= most:
                raise TooBig(limit)
            if ops[0]:
                index[key] = ON_PATH
                stack.append((parent, ops, iter(ops[0])))
                break
            index[key] = len(objects)
            objects.append(parent)
            found.append(ops)
        else:
            stack.pop()
            index[id(obj)] = len(objects)
            objects.append(obj)
            found.append(obj_ops)
    return _assemble(objects, found, index, check)


def _assemble(objects: list, found: list[tuple], index: dict[int, int], check: int) -> FlatGraph:
    from .foreign import rule  # (here: the page, which never reads a learner's graph, never loads it)

    data, ops_, parents, locals_, labels, consts = [], [], [], [], [], {}
    # per (_op text, operand count): the engine's operation and constant, and per class how
    # many of its nodes were checked against the rule (looked up by text first: no tuple made)
    kinds: dict[str, dict[int, _Kind]] = {}
    at = index.__getitem__
    for i, (obj, (operands, op_text, stored)) in enumerate(zip(objects, found)):
        x = obj.data
        data.append(x if type(x) is float else as_float(x))
        labels.append(getattr(obj, "label", "") or "")
        if not operands:
            parents.append(())
            ops_.append("")
            locals_.append(())
            continue
        arity = len(operands)
        if arity == 2:
            a, b = operands
            ids = (at(id(a)), at(id(b)))
        else:
            ids = tuple([at(id(p)) for p in operands])
        parents.append(ids)
        by_arity = kinds.get(op_text)
        if by_arity is None:
            by_arity = kinds[op_text] = {}
        kind = by_arity.get(arity)
        if kind is None:  # by its _op text alone, so the same for every node of the kind
            named = infer_op(op_text, [data[p] for p in ids]) if op_text else None
            kind = by_arity[arity] = _Kind(*(named or (None, None)))
        op, const = kind.op, kind.const
        if const is not None:
            consts[i] = const
        if stored is not None:
            local = tuple([as_float(v) for v in stored])
            locals_.append(local)
            if op is None and not op_text:  # microgpt keeps no _op: the operation that fits
                op, const = infer_op("", [data[p] for p in ids], data[i], local) or (None, None)
                if const is not None:
                    consts[i] = const
            ops_.append(op or op_text or "f")
            continue
        if op is None:
            raise NotFlat(f"the operation {op_text!r}")
        if op == "+":
            local = _ONE_ONE
        elif op == "*":
            local = (data[ids[1]], data[ids[0]])
        else:
            local = tuple(rule(op, [data[p] for p in ids], const)[1])
        checked = kind.checked
        seen = checked.get(type(obj), 0)
        if seen < check:
            checked[type(obj)] = seen + 1
            _check_rule(obj, operands, local)
        ops_.append(op)
        locals_.append(local)
    graph = FlatGraph(data, ops_, parents, locals_, _names(labels, data, ops_), objects, consts)
    graph.node_of = index  # every node is numbered by now
    return graph


_ONE_ONE = (1.0, 1.0)


class _Kind:
    """The engine's operation for one _op text and operand count, and per class how many of
    its nodes had their _backward checked."""

    __slots__ = ("op", "const", "checked")

    def __init__(self, op: str | None, const: tuple | None):
        self.op, self.const, self.checked = op, const, {}


_NO_OPERANDS = ((), "", None)  # an input's: no parents, no operation


class _Operands:
    """Reads a node's (parents in operand order, _op text, stored local derivatives or None),
    remembering per class which shape it has and per closure where self and other are."""

    def __init__(self):
        self.shapes: dict[type, str] = {}
        self.slots: dict[object, tuple[int | None, int | None]] = {}

    def read(self, obj) -> tuple[list | tuple, str, list | None]:
        shape = self.shapes.get(type(obj))
        if shape is None:
            shape = "children" if getattr(obj, "_children", None) is not None else "prev"
            self.shapes[type(obj)] = shape
        if shape == "children":  # microgpt: ordered, with its local derivatives
            children = getattr(obj, "_children", None)
            stored = getattr(obj, "_local_grads", None)
            if children is None or stored is None or len(stored) != len(children):
                raise NotFlat("_children without _local_grads")
            return list(children), getattr(obj, "_op", "") or "", list(stored)
        try:
            prev = obj._prev
        except AttributeError:
            raise NotFlat("no _prev") from None
        if not prev:
            return _NO_OPERANDS
        op_text = getattr(obj, "_op", "") or ""
        if type(prev) is not set:
            if not isinstance(prev, (tuple, list)):
                raise NotFlat("a _prev that is neither a set nor a sequence")
            stored = getattr(obj, "_local", None)
            fits = isinstance(stored, tuple) and len(stored) == len(prev)
            return list(prev), op_text, (list(stored) if fits else None)
        # a set: micrograd's closure over self (and other) gives the order
        try:
            function = obj._backward
            code, cells = function.__code__, function.__closure__
        except AttributeError:
            code = cells = None
        if code is None or not cells:
            raise NotFlat("no closure to order the operands")
        where = self.slots.get(code)
        if where is None:
            names = code.co_freevars
            where = self.slots[code] = (
                names.index("self") if "self" in names else None,
                names.index("other") if "other" in names else None,
            )
        me_at, other_at = where
        me = cells[me_at].cell_contents if me_at is not None else None
        other = cells[other_at].cell_contents if other_at is not None else None
        count = len(prev)
        if count == 2 and me in prev and other in prev and me is not other:
            return (me, other), op_text, None
        if count == 1 and me in prev:
            return ((me, me) if other is me else (me,)), op_text, None
        raise NotFlat("operands the closure doesn't name")


def _check_rule(obj, operands: list, local: tuple):
    """The node's own _backward against the rule: node.grad = 1, its parents' grads 0, call
    it, read them back (summed over the slots a parent fills). Everything is put back."""
    from .foreign import untouched

    distinct = list({id(p): p for p in operands}.values())
    expected = {}
    for parent, value in zip(operands, local):
        expected[id(parent)] = expected.get(id(parent), 0.0) + value
    with untouched([obj, *distinct]):
        try:
            obj.grad = 1.0
            for parent in distinct:
                parent.grad = 0.0
            obj._backward()
            found = {id(p): float(p.grad) for p in distinct}
        except Exception as error:
            raise NotFlat(f"its _backward raised {type(error).__name__}") from None
    if not all(close(found[k], expected[k]) for k in expected):
        raise NotFlat("a _backward that differs from the rule")


def _names(labels: list[str], data: list[float], ops: list[str]) -> list[str]:
    """Unique labels: the graph's own first (repeats get #2, #3), an unlabelled input by
    its number, any other node t1, t2, ..."""
    taken: dict[str, int] = {}
    out = []
    temp = 0
    # A big graph's nodes are mostly unlabelled: their names t1, t2, ... can't repeat each
    # other, so they are counted only if a label of the graph's own could be one of them.
    own = [label for label in labels if label]
    careful = any(label[:1] == "t" and label[1:].isdigit() for label in own)
    for label, x, op in zip(labels, data, ops):
        if not label:
            if op:
                temp += 1
                label = f"t{temp}"
                if not careful:
                    out.append(label)
                    continue
            else:
                label = fmt(x)
        count = taken.get(label, 0) + 1
        taken[label] = count
        out.append(label if count == 1 else f"{label}#{count}")
    return out


__all__ = ["FlatGraph", "NotFlat", "TooBig", "read_flat"]
