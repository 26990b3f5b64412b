"""A grouped graph at the level on screen: its boxes, its edges, its layout and its frames.

A learner sees a grouped graph with some groups open and the rest collapsed. What is drawn are
*units*: each collapsed group (outermost first: a group inside a collapsed group is not drawn)
and each node not inside a collapsed group. :func:`level_answer` answers for one such view:

* the units in the forward order (:attr:`engine.groups.Groups.forward_order`, in which each
  group's nodes come one after another), their edges (one per pair of units, with how many
  of the graph's edges it stands for) and a layered layout of them;
* one forward frame per unit, and a seed and one backward frame per unit. A collapsed group's
  backward frame is its whole visit, "neuron 2 of layer 1 passed its grad to 17 inputs": it
  changes the grads of the nodes outside it that it pushes into, from their value before its
  first inner visit to their value after its last. Opening the group replaces that frame by
  its parts' frames, with the very same numbers, because the nodes are visited in the same
  order whatever is open. A frame's ``changes`` list only the numbers on screen: the nodes
  drawn, and the output each box shows (its last output);
* with ``order`` (units by name, every unit once), the visit-order experiment at this level:
  each collapsed group visited as a block in its own right order.

The answer holds nothing of a collapsed group's inside beyond its box, so its size follows
what is drawn, never the size of the graph: opening a group is a new request
(``"expanded"``, docs/api.md).
"""

from __future__ import annotations

import math
from functools import cached_property

from .flat import FlatGraph
from .graph import Graph
from .groups import Groups, find_groups
from .layout import layout
from .text import fmt, short
from .trace import RULES
from .value import Value

MAX_UNITS = 1_500  # units one view may draw (layout and frames); beyond it, open fewer groups
MAX_LISTED = 3  # a group's frame names this many of the inputs it pushes into
MAX_SENTENCES = 6
MAX_TERMS = 6  # a closed group's pass into one input writes this many outputs' shares, then "…"
MAX_SHARES_WORK = 2_000_000  # outputs × nodes a group's shares may cost (one sweep per output)


class LevelError(ValueError):
    """A view that can't be drawn (too many boxes, an unknown group), in a sentence."""

    kind = "graph"  # the kind of the request's error (docs/api.md)


class OrderError(LevelError):
    """A visit order for the experiment that can't be run (a name not drawn, or twice), in a sentence."""

    kind = "order"


class RequestShapeError(LevelError):
    """A request's field of the wrong type ("expanded" that is not a list of names), in a sentence."""

    kind = "request"


class Grouped:
    """A flat graph with its groups: the right backward pass, computed once."""

    def __init__(self, graph: FlatGraph, groups: Groups):
        self.graph = graph
        self.groups = groups
        self._pushes: dict[int, dict] = {}
        self._shares: dict[str, dict | None] = {}
        self.cells: dict[str, list[list[int | None]]] = {}  # a tensor's group → its elements' node ids, by row
        self.rules: dict[str, list[str]] = {}  # a tensor's group → its line's backward step, as tensor rules

    @cached_property
    def edge_start(self) -> list[int]:
        """The id of each node's first incoming edge (edges are numbered child by child)."""
        out, total = [], 0
        for parents in self.graph.parents:
            out.append(total)
            total += len(parents)
        return out

    @property
    def position(self) -> list[int]:
        """Each node's place in the forward order."""
        return self.groups.position

    @cached_property
    def grads(self) -> list[float]:
        """The right backward pass, run once: every node's grad after it. Any view's frames are
        made from these, since the nodes are visited in the same order whatever is open."""
        graph = self.graph
        parents, locals_ = graph.parents, graph.locals
        grads = [0.0] * len(graph)
        grads[graph.output] = 1.0
        for v in reversed(self.groups.forward_order):
            upstream = grads[v]
            for p, local in zip(parents[v], locals_[v]):
                grads[p] += local * upstream
        return grads

    def pushes(self, node: int) -> dict[int, tuple[float, float, int]]:
        """Each push into ``node`` in the right pass, in the order the pass makes them: edge id →
        (node's grad before it, after it, the child pushing). Worked out when a view draws the
        node, from the final grads (a child is visited with its grad complete), adding the same
        products in the same order as the pass: the very same numbers."""
        found = self._pushes.get(node)
        if found is None:
            graph, start, position, grads = self.graph, self.edge_start, self.position, self.grads
            found = {}
            grad = 1.0 if node == graph.output else 0.0
            # the latest child in the forward order is visited first; a child's edges in slot order
            for child in sorted(set(graph.consumers[node]), key=position.__getitem__, reverse=True):
                upstream = grads[child]
                for k, parent in enumerate(graph.parents[child]):
                    if parent == node:
                        after = grad + graph.locals[child][k] * upstream
                        found[start[child] + k] = (grad, after, child)
                        grad = after
            self._pushes[node] = found
        return found

    def shares(self, gid: str) -> dict[int, dict[int, float]] | None:
        """For each output of group ``gid``, ∂output/∂input for each node outside it that it
        uses: the derivative through the group's nodes (every path inside it), one backward
        sweep of its block per output. A closed group's visit passes each input
        Σ ∂output/∂input × the output's grad from outside, its shares (linearity: the very
        sum its nodes' pushes make). None when that would cost more than MAX_SHARES_WORK."""
        found = self._shares.get(gid, False)
        if found is not False:
            return found
        group, groups, graph = self.groups.groups[gid], self.groups, self.graph
        lo, hi = groups.block(gid)
        if len(group.outputs) * (hi - lo) > MAX_SHARES_WORK:
            self._shares[gid] = None
            return None
        order, position, parents, locals_ = groups.forward_order, self.position, graph.parents, graph.locals
        found = {}
        for out in group.outputs:
            adjoint = {out: 1.0}
            for i in range(position[out], lo - 1, -1):
                v = order[i]
                a = adjoint.get(v)
                if not a:
                    continue
                for p, local in zip(parents[v], locals_[v]):
                    adjoint[p] = adjoint.get(p, 0.0) + local * a
            found[out] = {p: d for p, d in adjoint.items() if not lo <= position[p] < hi}
        self._shares[gid] = found
        return found

    def uses_inside(self, gid: str, outside: dict[int, float]) -> dict[int, list[tuple[float, float]]]:
        """For each node outside group ``gid`` that its nodes use: each use, in the forward
        order, as (∂user/∂node, the user's grad when the group is visited with its outputs'
        grads ``outside``). Their products add up to what the visit passes the node: one
        backward sweep of the group's block from those grads (in a wrong visit order they are
        not the final ones, and neither are its nodes')."""
        groups, graph = self.groups, self.graph
        lo, hi = groups.block(gid)
        position, order = self.position, groups.forward_order
        adjoint = dict(outside)
        found: dict[int, list[tuple[float, float]]] = {}
        for i in range(hi - 1, lo - 1, -1):
            v = order[i]
            a = adjoint.get(v, 0.0)
            for p, local in zip(graph.parents[v], graph.locals[v]):
                if lo <= position[p] < hi:
                    adjoint[p] = adjoint.get(p, 0.0) + local * a
                else:
                    found.setdefault(p, []).append((local, a))
        for uses in found.values():
            uses.reverse()  # (swept from the last node back)
        return found

    def outside_grad(self, gid: str, out: int) -> float:
        """The grad output ``out`` of group ``gid`` holds in the right pass when the group's
        visit starts: all its consumers outside the group have pushed, none inside yet."""
        lo, hi = self.groups.block(gid)
        position = self.position
        for before, _, child in self.pushes(out).values():
            if lo <= position[child] < hi:
                return before
        return self.grads[out]

    def find(self, name: str) -> str:
        group = self.groups.by_name(name) if isinstance(name, str) else None
        if group is None:
            raise LevelError(f'There is no group called "{short(name)}" in this graph.')
        return group.id


class _UnitOf:
    """A node's unit in a view, looked up when asked: itself, or the collapsed group it is drawn in."""

    __slots__ = ("owner", "unit_of_group")

    def __init__(self, owner: list, unit_of_group: dict):
        self.owner, self.unit_of_group = owner, unit_of_group

    def __getitem__(self, v: int):
        group = self.owner[v]
        return v if group is None else self.unit_of_group[group] or v


class View:
    """Which units are drawn when the groups in ``expanded`` (and their ancestors) are open."""

    def __init__(self, grouped: Grouped, expanded: list[str]):
        self.grouped = grouped
        groups = grouped.groups
        opened = {grouped.find(name) for name in expanded}
        for gid in list(opened):  # opening a group opens every group around it too
            opened.update(groups.group_path(gid))
        self.opened = opened
        # each group's unit: itself when collapsed, else the unit of its innermost collapsed ancestor
        self.unit_of_group: dict[str, str | None] = {}
        for gid in groups.groups:
            path = groups.group_path(gid)
            self.unit_of_group[gid] = next((g for g in path if g not in opened), None)
        self.unit = _UnitOf(groups.owner, self.unit_of_group)
        # the units in the forward order, each with its slice of that order: a collapsed
        # group's nodes are one block of it (Groups.block), stepped over in one go, so a view
        # costs what it draws rather than a pass over every node of the graph
        self.units: list = []
        self.block: dict = {}
        order = groups.forward_order
        i = 0
        while i < len(order):
            unit = self.unit[order[i]]
            end = groups.block(unit)[1] if isinstance(unit, str) else i + 1
            self.units.append(unit)
            self.block[unit] = (i, end)
            i = end
            if len(self.units) > MAX_UNITS:
                if not opened:
                    raise LevelError(
                        f"Even with every group closed, this graph of {len(order):,} nodes would draw more "
                        f"than {MAX_UNITS:,} boxes at once; show a smaller part of it, for example one "
                        "sample's loss."
                    )
                raise LevelError(
                    f"Opening these groups would draw more than {MAX_UNITS:,} boxes at once; close a group, "
                    "or open one inside it instead."
                )

    @cached_property
    def drawn(self) -> set[int]:
        """The nodes whose numbers are on screen: each node drawn, and every output of each
        closed box of up to MAX_TERMS outputs or of a tensor's (a box with one output shows its
        numbers; one with several lists each in its sentences)."""
        groups = self.grouped.groups.groups
        out = set()
        for unit in self.units:
            if isinstance(unit, int):
                out.add(unit)
            elif len(groups[unit].outputs) <= MAX_TERMS or groups[unit].kind == "tensor":
                out.update(groups[unit].outputs)  # a box of many (a batch's parameters) lists none; a tensor, all
        return out

    def name(self, unit) -> str:
        return self.grouped.groups.groups[unit].name if isinstance(unit, str) else self.grouped.graph.labels[unit]

    def kind(self, unit) -> str | None:
        """A closed group's kind, None for a node."""
        return self.grouped.groups.groups[unit].kind if isinstance(unit, str) else None


def grouped_graph(
    graph: Graph, parts: list[tuple[str, list]], kinds: dict[str, str] | None = None, tensors=None
) -> Grouped:
    """A program's graph with its ``with group(...)`` blocks (each a name and the Values made in
    it, outermost first) as groups; a block's nodes the output doesn't use are left out.
    ``tensors``: a tensor line's group name → the tensor it made (engine/grid.py) and its
    backward step as tensor rules: its box draws it as a matrix (its cells: node ids, None for
    an element the output doesn't use), and its visit says the rules."""
    index = {id(value): i for i, value in enumerate(graph.values)}
    flat = FlatGraph.from_graph(graph)
    blocks = [(name, sorted(index[id(v)] for v in members if id(v) in index)) for name, members in parts]
    grouped = Grouped(flat, find_groups(flat, parts=[(name, nodes) for name, nodes in blocks if nodes], kinds=kinds))
    for name, (grid, rules) in (tensors or {}).items():
        group = grouped.groups.by_name(name)
        if group is not None:
            grouped.cells[group.id] = [[index.get(id(v)) for v in row] for row in grid.rows]
            grouped.rules[group.id] = rules
    return grouped


def grouped_request(grouped: Grouped, request: dict) -> dict:
    """A request's answer at the level on screen: ``load`` with ``"expanded"`` (default none
    open), optionally ``"order"`` and ``"rule"``; ``expand`` with ``"group"`` too, its answer
    adding that group's id and ``"inner"``, the units inside it (docs/api.md, "A grouped graph")."""
    expanded = request.get("expanded", [])
    if not isinstance(expanded, list) or not all(isinstance(name, str) for name in expanded):
        raise RequestShapeError('"expanded" must be a list of group names or ids.')
    rule = request.get("rule", "push")
    if rule not in RULES:
        raise RequestShapeError('"rule" must be one of ' + ", ".join(RULES) + ".")
    if request["cmd"] != "expand":
        return level_answer(grouped, expanded, request.get("order"), rule)
    group = request.get("group")
    if not isinstance(group, str):
        raise RequestShapeError('"expand" needs a "group": the name or id of the group to open.')
    gid = grouped.find(group)
    answer = level_answer(grouped, [*expanded, gid], request.get("order"), rule)
    groups = grouped.groups
    answer["group"] = gid
    answer["inner"] = [
        unit
        for unit in answer["units"]
        if gid in (groups.group_path(unit) if isinstance(unit, str) else groups.path(unit))
    ]
    return answer


def level_answer(grouped: Grouped, expanded: list[str], order: list[str] | None = None, rule="push") -> dict:
    """The answer for the view with ``expanded`` open (docs/api.md, "A grouped graph"); with
    ``order``, the visit-order experiment, which runs the push rule only."""
    if order is not None and rule != "push":
        raise OrderError(
            'On a graph drawn in boxes, the visit-order experiment runs the push rule only: run it with "push", '
            "or try the pull rule on a graph drawn node by node."
        )
    view = View(grouped, expanded)
    graph, groups, grads = grouped.graph, grouped.groups, grouped.grads
    nodes = [_node(grouped, v) for v in view.units if isinstance(v, int)]
    shown = [gid for gid in groups.groups if view.unit_of_group[gid] in (gid, None)]
    edges = _edges(grouped, view)
    answer = {
        "ok": True,
        "grouped": True,
        "size": {"nodes": len(graph), "edges": graph.edge_count, "groups": len(groups)},
        "output": graph.output,
        "expanded": sorted(view.opened, key=_group_key),
        "groups": [_group(grouped, gid, gid in view.opened) for gid in shown],
        "nodes": nodes,
        "units": view.units,
        "edges": edges,
        "layout": _layout(view, edges),
        "forward": _forward(grouped, view),
        "backward": _right_backward(grouped, view),
        "experiment": None,
    }
    if order is not None:
        answer["experiment"] = _experiment(grouped, view, order, grads)
    return answer


def _group_key(gid: str) -> int:
    return int(gid[1:])


def _node(grouped: Grouped, v: int) -> dict:
    graph = grouped.graph
    return {
        "id": v,
        "label": graph.labels[v],
        "op": graph.ops[v],
        "expr": graph.expression(v),
        "data": graph.data[v],
        "grad": grouped.grads[v],
        "group": grouped.groups.owner[v],
        "is_input": not graph.parents[v],
        "is_output": v == graph.output,
    }


def _group(grouped: Grouped, gid: str, is_open: bool) -> dict:
    group = grouped.groups.groups[gid]
    out = group.as_dict()
    del out["nodes"]  # its nodes are drawn (as nodes) only while it is open
    out["open"] = is_open
    # a box shows its output's numbers when it has one; with several, none of its own (each
    # output's are listed: "shown", and its frames' sentences)
    one = group.outputs[0] if len(group.outputs) == 1 else None
    out["data"] = grouped.graph.data[one] if one is not None else None
    out["grad"] = grouped.grads[one] if one is not None else None
    labels = grouped.graph.labels
    out["shown"] = [
        {"node": o, "label": labels[o], "data": grouped.graph.data[o], "grad": grouped.grads[o]}
        for o in group.outputs[:MAX_TERMS]
    ]
    cells = grouped.cells.get(gid)
    if cells is not None:  # a tensor's box draws its numbers as a matrix (web/panels/graph-matrix.js)
        data, grads = grouped.graph.data, grouped.grads
        out["shape"] = [len(cells), len(cells[0])]
        out["cells"] = cells
        out["values"] = [[None if v is None else data[v] for v in row] for row in cells]
        out["grads"] = [[None if v is None else grads[v] for v in row] for row in cells]
    return out


def _edges(grouped: Grouped, view: View) -> list[dict]:
    """One edge per (parent unit, child unit): a node-to-node edge as the graph answer writes
    it, and between boxes how many of the graph's edges it stands for."""
    graph = grouped.graph
    # view.unit[p], inlined below: a closed sample's box alone has hundreds of inputs
    owner, unit_of_group = view.unit.owner, view.unit.unit_of_group
    out: dict[tuple, dict] = {}
    for child_unit in view.units:
        if isinstance(child_unit, int):
            feeding = [(p, 1, slot) for slot, p in enumerate(graph.parents[child_unit])]
        else:
            feeding = [(p, count, None) for p, count in grouped.groups.inputs_of(child_unit).items()]
        for p, count, slot in feeding:
            group = owner[p]
            parent_unit = p if group is None else unit_of_group[group] or p
            key = (parent_unit, child_unit)
            edge = out.get(key)
            if edge is None:
                out[key] = edge = {"parent": parent_unit, "child": child_unit, "count": 0}
                if isinstance(parent_unit, int) and slot is not None:
                    edge.update(
                        id=grouped.edge_start[child_unit] + slot, slot=slot, local=graph.locals[child_unit][slot]
                    )
            edge["count"] += count
    return list(out.values())


def _layout(view: View, edges: list[dict]) -> dict:
    """The engine's layered layout of the units, as if each were one node, each open group's units
    kept together within every layer."""
    index = {unit: i for i, unit in enumerate(view.units)}
    values: list[Value] = []
    parents_of: list[list[int]] = [[] for _ in view.units]
    for edge in edges:
        parents_of[index[edge["child"]]].append(index[edge["parent"]])
    for i in range(len(view.units)):
        value = Value(0.0)
        # in the edges' own order (one edge per pair of units), so that the layout's i-th edge
        # is the answer's i-th edge
        value._prev = tuple(values[p] for p in parents_of[i])
        value._local = (0.0,) * len(value._prev)
        value._op = "+" if value._prev else ""
        values.append(value)
    groups = view.grouped.groups
    owner = groups.owner
    clusters = [
        tuple(groups.group_path(owner[unit]) if owner[unit] is not None else ())
        if isinstance(unit, int)
        else tuple(groups.group_path(unit))  # a closed group: in its own, to keep its place among its siblings
        for unit in view.units
    ]
    boxes = any(isinstance(unit, str) for unit in view.units)
    drawn = layout(Graph.of(values[-1], values), clusters if any(clusters) else None, boxes)
    drawn["units"] = list(view.units)
    return drawn


def _forward(grouped: Grouped, view: View) -> list[dict]:
    graph, frames, drawn = grouped.graph, [], view.drawn
    for unit in view.units:
        if isinstance(unit, int):
            data = graph.data[unit]
            text = (
                f"{graph.labels[unit]} is an input: {fmt(data)}."
                if not graph.parents[unit]
                else f"{graph.labels[unit]} = {graph.expression(unit)} = {fmt(data)}"
            )
            frames.append(
                {
                    "kind": "node",
                    "node": unit,
                    "data": data,
                    "text": text,
                    "changes": [{"node": unit, "field": "data", "before": None, "after": data}],
                }
            )
            continue
        group = grouped.groups.groups[unit]
        outputs = group.outputs
        main = outputs[-1]
        inputs = len(grouped.groups.inputs_of(unit))
        values = _listing([f"{graph.labels[o]} = {fmt(graph.data[o])}" for o in outputs[:MAX_TERMS]], len(outputs))
        frames.append(
            {
                "kind": "group",
                "group": unit,
                "node": main,
                "data": graph.data[main],
                "text": (
                    # a tensor written out in numbers computes nothing: its numbers are inputs
                    f"{_opening(group.name, group.kind)} holds {_count(group.size, 'input')}: {values}."
                    if not inputs and group.kind == "tensor" and all(not graph.parents[v] for v in outputs)
                    else f"{_opening(group.name, group.kind)} computes its {_count(group.size, 'node')} from "
                    f"{_count(inputs, 'input')}: its "
                    + (f"output {values}." if len(outputs) == 1 else f"{len(outputs):,} outputs {values}.")
                ),
                "changes": [  # the outputs on screen: a box of up to MAX_TERMS lists each
                    {"node": o, "field": "data", "before": None, "after": graph.data[o]} for o in outputs if o in drawn
                ],
            }
        )
    return frames


def _right_backward(grouped: Grouped, view: View) -> list[dict]:
    """The seed, then one frame per unit in the right order, read off the pass run once."""
    graph, groups, grads = grouped.graph, grouped.groups, grouped.grads
    labels, start, drawn, position = graph.labels, grouped.edge_start, view.drawn, grouped.position
    frames = [_seed(graph)]
    for unit in reversed(view.units):
        if isinstance(unit, int):
            upstream = grads[unit]
            changes, pushes, locals_ = [], [], []
            for k, p in enumerate(graph.parents[unit]):
                before, after, _ = grouped.pushes(p)[start[unit] + k]
                if p in drawn:
                    changes.append({"node": p, "field": "grad", "before": before, "after": after})
                    locals_.append(graph.locals[unit][k])
                pushes.append(
                    f"{labels[p]}.grad += {fmt(graph.locals[unit][k])} × {fmt(upstream)}, {fmt(before)} → {fmt(after)}"
                )
            frames.append(_visit_frame(graph, unit, upstream, pushes, changes, locals_))
            continue
        lo, hi = view.block[unit]
        changes = []
        for p in groups.inputs_of(unit):
            if p not in drawn:
                continue
            # its pushes into p, in the order the pass makes them: p's grad before the first, after the last
            inside = [(before, after) for before, after, c in grouped.pushes(p).values() if lo <= position[c] < hi]
            changes.append({"node": p, "field": "grad", "before": inside[0][0], "after": inside[-1][1]})
        outputs = groups.groups[unit].outputs
        listed = outputs if len(outputs) <= MAX_TERMS else [*outputs[:MAX_TERMS], outputs[-1]]
        outside = {o: grouped.outside_grad(unit, o) for o in listed}  # what the frame says of them
        frames.append(_group_frame(grouped, unit, outside, changes))
    return frames


def _seed(graph: FlatGraph) -> dict:
    out = graph.output
    return {
        "kind": "seed",
        "node": out,
        "before": 0.0,
        "after": 1.0,
        "text": f"Seed: {graph.labels[out]}.grad = 1, because the output changes one for one with itself.",
        "changes": [{"node": out, "field": "grad", "before": 0.0, "after": 1.0}],
    }


def _visit_frame(
    graph: FlatGraph, node: int, upstream: float, pushes: list[str], changes: list[dict], locals_: list[float]
) -> dict:
    """A node's visit; ``locals_``: the local derivative of each push in ``changes`` (the pushes
    into what is drawn), which the page's rule cards quote."""
    label = graph.labels[node]
    text = (
        f"Visit {label} with {label}.grad = {fmt(upstream)}: " + "; ".join(pushes) + "."
        if pushes
        else f"Visit {label}: an input, so there is nothing to pass on; {label}.grad = {fmt(upstream)}."
    )
    labels = graph.labels
    return {
        "kind": "visit",
        "node": node,
        "upstream": upstream,
        "text": text,
        "changes": changes,
        "pushes": [
            {
                "node": c["node"],
                "label": labels[c["node"]],
                "local": local,
                "contribution": local * upstream,
                "before": c["before"],
                "after": c["after"],
            }
            for c, local in zip(changes, locals_)
        ],
    }


def _group_frame(grouped: Grouped, gid: str, outside: dict[int, float], changes: list[dict]) -> dict:
    """A collapsed group's visit. Its outputs' grads (``outside``: each as its consumers outside
    the group left it) go back through its nodes; each input drawn gets one share per output
    that uses it, ∂output/∂input × the output's grad, and their sum:
    "x1.grad += 0.3895 × 0.5528 + (-0.5134) × (-0.3949) + 0.2264 × 0.3159 = 0.2153 + 0.2027 + 0.07151
    = 0.4896, 0 → 0.4896" (never one ∂group/∂x1 times one grad: a group is no node)."""
    group = grouped.groups.groups[gid]
    labels = grouped.graph.labels
    main = group.outputs[-1]
    count = len(grouped.groups.inputs_of(gid))
    many = len(group.outputs)
    # a group of more than MAX_TERMS outputs (a batch) says the sum it passes on, not its shares
    # (a tensor's line is told by its uses, x · dy, as its tensor rules are: never by shares)
    shares = grouped.shares(gid) if many <= MAX_TERMS and changes and group.kind != "tensor" else None
    # a tensor's line too big for shares: each input element's own pushes, one per use in the line
    uses = None
    if shares is None and group.kind == "tensor" and changes:
        # every output's grad (the frame lists some: the rest are the right pass's)
        every = {o: outside[o] if o in outside else grouped.outside_grad(gid, o) for o in group.outputs}
        uses = grouped.uses_inside(gid, every)
    passes = [_pass(labels, c, outside, shares, uses) for c in changes]
    grads = _listing([f"{labels[o]}.grad = {fmt(outside[o])}" for o in group.outputs[:MAX_TERMS]], many)
    held = f"its output's grad, {grads}," if many == 1 else f"its {many:,} outputs' grads, {grads},"
    listed = "; ".join(f"{p['rule_numbers']}" for p in passes[:MAX_LISTED])
    more = f"; and {len(passes) - MAX_LISTED} more inputs" if len(passes) > MAX_LISTED else ""
    for p in passes:
        del p["rule_numbers"]
    rules = grouped.rules.get(gid) or []
    if rules and many > 1:  # a tensor's grads are drawn in its box: named as a whole, dH
        name = group.name.split(" ", 1)[0]
        whole = f"d({name})" if len(name) == 1 and name.islower() else f"d{name}"  # "do" is a word
        held = f"{whole}, its {many:,} outputs' grads,"
    through = f"back through its {_count(group.size, 'node')} to {_count(count, 'input')}"
    into = f"{held} {'goes' if many == 1 or rules else 'go'} {through}"
    if rules and listed:  # a tensor's line: its rules in matrix form, then element by element
        text = f"Visit {group.name}: {into}. In matrix form: {_matrix_form(rules)}. Element by element: {listed}{more}."
    elif count:
        text = f"Visit {group.name}: {into}" + (f": {listed}{more}." if listed else ".")
    else:
        text = f"{_opening(group.name, group.kind)} takes nothing from outside it, so its visit passes nothing " + (
            "on: its 1 node now holds its grad."
            if group.size == 1
            else f"on: its {group.size:,} nodes now hold their grads."
        )
    frame = {
        "kind": "group",
        "group": gid,
        "node": main,
        "upstream": outside[main],
        "outputs": [{"node": o, "label": labels[o], "grad": outside[o]} for o in group.outputs[:MAX_TERMS]],
        "passes": passes,
        "text": text,
        "changes": changes,
    }
    if rules:
        frame["rules"] = rules  # each with its shapes, for the details (web/panels/details.js)
    return frame


def _matrix_form(rules: list[str]) -> str:
    """What a tensor line's visit adds to the tensors outside it, its tensor rules without their
    shapes: "X.grad += d(X @ W) · Wᵀ; W.grad += Xᵀ · d(X @ W); b.grad += d(X @ W + b) summed
    over its 4 rows" (the details list every rule, the line's own parts too, with shapes)."""
    return "; ".join(rule.rsplit(": ", 1)[0] for rule in rules if ".grad +=" in rule)


def _pass(labels, change: dict, outside: dict[int, float], shares, uses=None) -> dict:
    """What a closed group's visit passes into one input: ``rule``, the shares in symbols
    ("x1.grad += ∂h1/∂x1 × h1.grad + …"); ``math``, the same in numbers with their sum; and
    ``rule_numbers``, the whole push as the visit's sentence says it. ``uses``, for a tensor's
    line: each input's uses in it, (local derivative, the grad of the node that uses it)."""
    p, before, after = change["node"], change["before"], change["after"]
    x = labels[p]
    added = after - before
    if shares is None and uses and uses.get(p):  # W[0,0]: x · dy over the rows, one push per use
        used = uses[p]
        products = _terms_of([f"{_num(d)} × {_num(g)}" for d, g in used])
        math_text = f"{' + '.join(products)} = {fmt(added)}"
        if len(used) > MAX_TERMS:
            math_text += f" ({len(used):,} uses)"
        rule = f"{x}.grad += ∂u/∂{_name(x)} × u.grad, for each of its {len(used):,} uses u in the line"
    elif shares is None:  # too big to break into shares: the sum alone
        math_text = fmt(added)
        rule = f"{x}.grad += the shares of its outputs"
    else:
        terms = [(o, shares[o][p], g) for o, g in outside.items() if shares[o].get(p)]
        rule = f"{x}.grad += " + " + ".join(_terms_of([f"∂{_name(labels[o])}/∂{_name(x)} × {_name(labels[o])}.grad"
                                                       for o, _, _ in terms]))  # fmt: skip
        products = _terms_of([f"{_num(d)} × {_num(g)}" for _, d, g in terms])
        if len(terms) == 1:
            math_text = f"{' + '.join(products)} = {fmt(added)}"
        else:
            each = _terms_of([_num(d * g) for _, d, g in terms])
            math_text = f"{' + '.join(products)} = {' + '.join(each)} = {fmt(added)}"
        if len(terms) > MAX_TERMS:
            math_text += f" ({len(terms):,} shares)"
    return {
        "node": p,
        "label": x,
        "before": before,
        "after": after,
        "rule": rule,
        "math": math_text,
        "rule_numbers": f"{x}.grad += {math_text}, {fmt(before)} → {fmt(after)}",
    }


def _terms_of(texts: list[str]) -> list[str]:
    """At most MAX_TERMS terms: the first ones, "…", the last."""
    if len(texts) <= MAX_TERMS:
        return texts
    return [*texts[: MAX_TERMS - 2], "…", texts[-1]]


def _num(x: float) -> str:
    """A number inside a sum or a product: a negative one in brackets."""
    return f"({fmt(x)})" if x < 0 else fmt(x)


def _name(label: str) -> str:
    """A label inside ∂…/∂…: an expression label in brackets, ∂(h1*v1)/∂h1."""
    return label if label.isidentifier() else f"({label})"


def _listing(texts: list[str], total: int | None = None) -> str:
    """ "a", "a and b", "a, b and c"; after MAX_TERMS (of ``total``, when more than are given), "and N more"."""
    total = len(texts) if total is None else total
    if total > MAX_TERMS:
        return ", ".join(texts[:MAX_TERMS]) + f" and {total - MAX_TERMS:,} more"
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def _backward(grouped: Grouped, view: View, units: list) -> tuple[list[dict], list[float], list[dict]]:
    """The backward pass with the units visited in ``units`` (a collapsed group's nodes in
    their own right order): the seed and a frame per unit, the grads after it, and every
    late contribution ({"parent", "child", "contribution"}, node ids): a push into a node
    that had already been visited, which it never passes on."""
    graph, forward = grouped.graph, grouped.groups.forward_order
    parents, locals_, labels = graph.parents, graph.locals, graph.labels
    step, visited_at = 0, [0] * len(graph)
    for unit in units:
        lo, hi = view.block[unit]
        for i in range(hi - 1, lo - 1, -1):
            visited_at[forward[i]] = step
            step += 1
    drawn = view.drawn
    grads = [0.0] * len(graph)
    grads[graph.output] = 1.0
    frames = [_seed(graph)]
    late = []
    for unit in units:
        lo, hi = view.block[unit]
        first_before: dict[int, float] = {}
        pushes, node_changes, node_locals = [], [], []
        outside = (
            {o: grads[o] for o in grouped.groups.groups[unit].outputs} if isinstance(unit, str) else None
        )  # its outputs' grads as the visit starts
        for i in range(hi - 1, lo - 1, -1):
            v = forward[i]
            upstream = grads[v]
            for p, local in zip(parents[v], locals_[v]):
                if view.unit[p] != unit:
                    first_before.setdefault(p, grads[p])
                    if visited_at[p] < visited_at[v] and parents[p]:
                        late.append({"parent": p, "child": v, "contribution": local * upstream})
                before = grads[p]
                grads[p] = after = before + local * upstream
                if isinstance(unit, int):  # a node's visit: one change per push, as the pass makes them
                    pushes.append(f"{labels[p]}.grad += {fmt(local)} × {fmt(upstream)}, {fmt(before)} → {fmt(after)}")
                    if p in drawn:
                        node_changes.append({"node": p, "field": "grad", "before": before, "after": after})
                        node_locals.append(local)
        if isinstance(unit, int):
            frames.append(_visit_frame(graph, unit, grads[unit], pushes, node_changes, node_locals))
            continue
        changes = [
            {"node": p, "field": "grad", "before": first_before[p], "after": grads[p]}
            for p in sorted(first_before)
            if p in drawn
        ]
        frames.append(_group_frame(grouped, unit, outside, changes))
    return frames, grads, late


def _experiment(grouped: Grouped, view: View, order, correct: list[float]) -> dict:
    """The backward pass with the units visited in ``order`` (by name, every unit once)."""
    if not isinstance(order, list) or not all(isinstance(name, str) for name in order):
        raise OrderError('"order" must be a list of the names of the boxes drawn.')
    by_name = {view.name(unit): unit for unit in view.units}
    by_name.update({unit: unit for unit in view.units if isinstance(unit, str)})  # a group by its id too
    units, seen = [], set()
    for name in order:
        unit = by_name.get(name)
        if unit is None:
            raise OrderError(f'There is nothing called "{short(name)}" drawn.')
        if unit in seen:
            raise OrderError(f"{short(name)} appears twice in the visit order; visit each box once.")
        seen.add(unit)
        units.append(unit)
    missing = [view.name(u) for u in view.units if u not in seen]
    if missing:
        raise OrderError(f"The visit order leaves out {missing[0]}; every box must be visited once.")
    frames, grads, late = _backward(grouped, view, units)
    lost, reached = _lost_paths(grouped.graph, late)
    # an input is wrong only if a lost path reaches it and what it lost shows: a grad summed in
    # another order may differ in its last bits (0.1 + 0.2 + 0.3 against 0.3 + 0.2 + 0.1)
    wrong = [v for v in reached if not math.isclose(grads[v], correct[v], rel_tol=1e-9, abs_tol=1e-12)]
    pairs: dict[tuple, int] = {}
    for item in late:
        key = (view.unit[item["parent"]], view.unit[item["child"]])
        pairs[key] = pairs.get(key, 0) + 1
    labels = grouped.graph.labels
    sentences = []
    for (parent, child), count in list(pairs.items())[:MAX_SENTENCES]:
        sentences.append(
            f"{_opening(view.name(parent), view.kind(parent))} was visited before {view.name(child)} "
            "had passed its grad into it "
            f"({count} contribution{'s' if count != 1 else ''} arrived too late), so the paths through them "
            "never reached the inputs."
        )
    if wrong:
        shown = ", ".join(f"{labels[v]}.grad is {fmt(grads[v])}, not {fmt(correct[v])}" for v in wrong[:MAX_LISTED])
        more = f" ({len(wrong) - MAX_LISTED} more inputs are wrong too)" if len(wrong) > MAX_LISTED else ""
        sentences.append(f"{shown}{more}.")
    elif late:
        sentences.append("Those paths carried 0 (a local derivative on the way is 0), so no input's grad changed.")
    if not late:
        sentences.append("Every box was visited after all the boxes it feeds into, so every grad is right.")
    return {
        "order": units,
        "frames": frames,
        "late": [{"parent": parent, "child": child, "count": count} for (parent, child), count in pairs.items()],
        "lost_path_count": lost,
        "wrong_inputs": len(wrong),
        "explanation": sentences,
    }


def _lost_paths(graph: FlatGraph, late) -> tuple[int, list[int]]:
    """How many input → output paths pass through a late contribution's edge (with it cut,
    the paths below it never receive their share), and the inputs those paths reach."""
    if not late:
        return 0, []
    cut = {(item["parent"], item["child"]) for item in late}
    below = [0] * len(graph)  # paths from each node down to the inputs
    for v, parents in enumerate(graph.parents):
        below[v] = sum(below[p] if graph.parents[p] else 1 for p in parents)
    above = [0] * len(graph)  # paths from the output down to each node, not through a cut edge
    above[graph.output] = 1
    lost = 0
    cut_off = []  # the parent of each cut edge a path still reaches
    for v in range(len(graph) - 1, -1, -1):
        if not above[v]:
            continue
        for p in graph.parents[v]:
            if (p, v) in cut:
                lost += above[v] * (below[p] if graph.parents[p] else 1)
                cut_off.append(p)
            else:
                above[p] += above[v]
    seen, stack, reached = set(cut_off), cut_off, []
    while stack:
        v = stack.pop()
        if not graph.parents[v]:
            reached.append(v)
        for p in graph.parents[v]:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return lost, sorted(reached)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _opening(name: str, kind: str | None) -> str:
    """A name at the start of a sentence; ``kind``: its group's (engine/groups.py), None for a
    node. A group's name of words ("neuron 2 of layer 1", "sum of 5 terms") is capitalised; a
    name that is code (a tensor's line ``b (1×2)``, a node ``a``) means what it says, so it gets
    "The group" or "The node" before it instead of a capital that would make ``b`` into ``B``."""
    first = name.split(" ", 1)[0]
    if kind not in (None, "tensor") and len(first) > 1 and first.isalpha():
        return name[:1].upper() + name[1:]
    if name[:1].isalpha() and name[:1].islower():
        return f"The {'node' if kind is None else 'group'} {name}"
    return name


__all__ = [
    "Grouped",
    "View",
    "LevelError",
    "OrderError",
    "RequestShapeError",
    "grouped_request",
    "level_answer",
    "MAX_UNITS",
]
