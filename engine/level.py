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

from functools import cached_property

from .flat import FlatGraph
from .graph import Graph
from .groups import Groups
from .layout import layout
from .text import fmt
from .value import Value

MAX_UNITS = 1_500  # units one view may draw (layout and frames); beyond it, open fewer groups
MAX_LISTED = 3  # a group's frame names this many of the inputs it pushes into
MAX_SENTENCES = 6


class LevelError(ValueError):
    """A view that can't be drawn (too many boxes, an unknown group), in a sentence."""


class Grouped:
    """A flat graph with its groups: the right backward pass, computed once."""

    def __init__(self, graph: FlatGraph, groups: Groups):
        self.graph = graph
        self.groups = groups

    @cached_property
    def grads(self) -> list[float]:
        return self.graph.grads(self.groups.forward_order[::-1])

    @cached_property
    def edge_start(self) -> list[int]:
        """The id of each node's first incoming edge (edges are numbered child by child)."""
        out, total = [], 0
        for parents in self.graph.parents:
            out.append(total)
            total += len(parents)
        return out

    def find(self, name: str) -> str:
        group = self.groups.by_name(name) if isinstance(name, str) else None
        if group is None:
            raise LevelError(f'There is no group called "{_short(name)}" in this graph.')
        return group.id


class View:
    """Which units are drawn when the groups in ``expanded`` (and their ancestors) are open."""

    def __init__(self, grouped: Grouped, expanded: list[str]):
        self.grouped = grouped
        groups = grouped.groups
        opened = {grouped.find(name) for name in expanded}
        for gid in list(opened):  # a group is open only if every group around it is
            opened.update(groups._group_path(gid))
        self.opened = opened
        # each group's unit: itself when collapsed, else the unit of its innermost collapsed ancestor
        self.unit_of_group: dict[str, str | None] = {}
        for gid in groups.groups:
            path = groups._group_path(gid)
            self.unit_of_group[gid] = next((g for g in path if g not in opened), None)
        owner = groups.owner
        self.unit = [self.unit_of_group[owner[v]] or v if owner[v] is not None else v for v in range(len(owner))]
        # the units in the forward order, each with its slice of that order
        self.units: list = []
        self.block: dict = {}
        order = groups.forward_order
        start = 0
        for i in range(1, len(order) + 1):
            if i == len(order) or self.unit[order[i]] != self.unit[order[start]]:
                unit = self.unit[order[start]]
                self.units.append(unit)
                self.block[unit] = (start, i)
                start = i
                if len(self.units) > MAX_UNITS:
                    raise LevelError(
                        f"Opening these groups would draw more than {MAX_UNITS:,} boxes at once; close a group, "
                        "or open one inside it instead."
                    )

    @cached_property
    def drawn(self) -> set[int]:
        """The nodes whose numbers are on screen: each node drawn, and the output each box shows."""
        groups = self.grouped.groups.groups
        return {unit if isinstance(unit, int) else groups[unit].outputs[-1] for unit in self.units}

    def name(self, unit) -> str:
        return self.grouped.groups.groups[unit].name if isinstance(unit, str) else self.grouped.graph.labels[unit]


def level_answer(grouped: Grouped, expanded: list[str], order: list[str] | None = None) -> dict:
    """The answer for the view with ``expanded`` open (docs/api.md, "A grouped graph")."""
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
        "backward": _backward(grouped, view, None)[0],
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
    main = group.outputs[-1] if group.outputs else None
    out["data"] = grouped.graph.data[main] if main is not None else None
    out["grad"] = grouped.grads[main] if main is not None else None
    return out


def _edges(grouped: Grouped, view: View) -> list[dict]:
    """One edge per (parent unit, child unit): a node-to-node edge as the graph answer writes
    it, and between boxes how many of the graph's edges it stands for."""
    graph, unit = grouped.graph, view.unit
    out: dict[tuple, dict] = {}
    for child_unit in view.units:
        start, end = view.block[child_unit]
        for v in grouped.groups.forward_order[start:end]:
            for slot, p in enumerate(graph.parents[v]):
                parent_unit = unit[p]
                if parent_unit == child_unit:
                    continue
                key = (parent_unit, child_unit)
                edge = out.get(key)
                if edge is None:
                    out[key] = edge = {"parent": parent_unit, "child": child_unit, "count": 0}
                    if isinstance(parent_unit, int) and isinstance(child_unit, int):
                        edge.update(id=grouped.edge_start[v] + slot, slot=slot, local=graph.locals[v][slot])
                edge["count"] += 1
    return list(out.values())


def _layout(view: View, edges: list[dict]) -> dict:
    """The engine's layered layout of the units, as if each were one node."""
    index = {unit: i for i, unit in enumerate(view.units)}
    values: list[Value] = []
    parents_of: list[list[int]] = [[] for _ in view.units]
    for edge in edges:
        parents_of[index[edge["child"]]].append(index[edge["parent"]])
    for i in range(len(view.units)):
        value = Value(0.0)
        value._prev = tuple(values[p] for p in sorted(set(parents_of[i])))
        value._local = (0.0,) * len(value._prev)
        value._op = "+" if value._prev else ""
        values.append(value)
    drawn = layout(Graph.of(values[-1], values))
    drawn["units"] = list(view.units)
    return drawn


def _forward(grouped: Grouped, view: View) -> list[dict]:
    graph, frames = grouped.graph, []
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
        inputs = group.inputs
        frames.append(
            {
                "kind": "group",
                "group": unit,
                "node": main,
                "data": graph.data[main],
                "text": f"{_capital(group.name)} computes its {group.size} nodes from {inputs} "
                f"input{'s' if inputs != 1 else ''}: its output {graph.labels[main]} = {fmt(graph.data[main])}.",
                "changes": [{"node": main, "field": "data", "before": None, "after": graph.data[main]}],
            }
        )
    return frames


def _backward(grouped: Grouped, view: View, order: list | None) -> tuple[list[dict], list[float], list[dict]]:
    """Seed, then one frame per unit in ``order`` (the right order by default); the grads
    after it; and every late contribution ({"parent", "child", "contribution"}, node ids)."""
    graph, forward = grouped.graph, grouped.groups.forward_order
    parents, locals_, labels = graph.parents, graph.locals, graph.labels
    units = order if order is not None else view.units[::-1]
    position = {}
    step = 0
    for unit in units:
        start, end = view.block[unit]
        for i in range(end - 1, start - 1, -1):
            position[forward[i]] = step
            step += 1
    drawn = view.drawn
    grads = [0.0] * len(graph)
    out = graph.output
    grads[out] = 1.0
    frames = [
        {
            "kind": "seed",
            "node": out,
            "before": 0.0,
            "after": 1.0,
            "text": f"Seed: {labels[out]}.grad = 1, because the output changes one for one with itself.",
            "changes": [{"node": out, "field": "grad", "before": 0.0, "after": 1.0}],
        }
    ]
    late = []
    for unit in units:
        start, end = view.block[unit]
        if isinstance(unit, int):
            upstream = grads[unit]
            changes = []
            pushes = []
            for p, local in zip(parents[unit], locals_[unit]):
                before = grads[p]
                grads[p] = after = before + local * upstream
                is_late = position[p] < position[unit] and bool(parents[p])
                if is_late:
                    late.append({"parent": p, "child": unit, "contribution": local * upstream})
                if p in drawn:
                    changes.append({"node": p, "field": "grad", "before": before, "after": after})
                pushes.append(f"{labels[p]}.grad += {fmt(local)} × {fmt(upstream)}, {fmt(before)} → {fmt(after)}")
            text = (
                f"Visit {labels[unit]} with {labels[unit]}.grad = {fmt(upstream)}: " + "; ".join(pushes) + "."
                if pushes
                else f"Visit {labels[unit]}: an input, so there is nothing to pass on; "
                f"{labels[unit]}.grad = {fmt(upstream)}."
            )
            frames.append({"kind": "visit", "node": unit, "upstream": upstream, "text": text, "changes": changes})
            continue
        # a collapsed group: its nodes visited in its own right order, one frame for all
        first_before: dict[int, float] = {}
        for i in range(end - 1, start - 1, -1):
            v = forward[i]
            upstream = grads[v]
            for p, local in zip(parents[v], locals_[v]):
                if view.unit[p] != unit:
                    first_before.setdefault(p, grads[p])
                    if position[p] < position[v] and parents[p]:
                        late.append({"parent": p, "child": v, "contribution": local * upstream})
                grads[p] += local * upstream
        group = grouped.groups.groups[unit]
        main = group.outputs[-1]
        changed = sorted(first_before)
        listed = ", ".join(f"{labels[p]}.grad {fmt(first_before[p])} → {fmt(grads[p])}" for p in changed[:MAX_LISTED])
        more = f" and {len(changed) - MAX_LISTED} more" if len(changed) > MAX_LISTED else ""
        frames.append(
            {
                "kind": "group",
                "group": unit,
                "node": main,
                "upstream": grads[main],
                "text": f"{_capital(group.name)} passed its grad to {len(changed)} "
                f"input{'s' if len(changed) != 1 else ''} (its output {labels[main]}.grad = {fmt(grads[main])}, "
                f"back through its {group.size} nodes): {listed}{more}.",
                "changes": [
                    {"node": p, "field": "grad", "before": first_before[p], "after": grads[p]}
                    for p in changed
                    if p in drawn
                ],
            }
        )
    return frames, grads, late


def _experiment(grouped: Grouped, view: View, order, correct: list[float]) -> dict:
    """The backward pass with the units visited in ``order`` (by name, every unit once)."""
    if not isinstance(order, list) or not all(isinstance(name, str) for name in order):
        raise LevelError('"order" must be a list of the names of the boxes drawn.')
    by_name = {view.name(unit): unit for unit in view.units}
    by_name.update({unit: unit for unit in view.units if isinstance(unit, str)})  # a group by its id too
    units, seen = [], set()
    for name in order:
        unit = by_name.get(name)
        if unit is None:
            raise LevelError(f'There is nothing called "{_short(name)}" drawn.')
        if unit in seen:
            raise LevelError(f"{_short(name)} appears twice in the visit order; visit each box once.")
        seen.add(unit)
        units.append(unit)
    missing = [view.name(u) for u in view.units if u not in seen]
    if missing:
        raise LevelError(f"The visit order leaves out {missing[0]}; every box must be visited once.")
    frames, grads, late = _backward(grouped, view, units)
    wrong = [v for v in range(len(grads)) if grads[v] != correct[v] and not grouped.graph.parents[v]]
    pairs: dict[tuple, int] = {}
    for item in late:
        key = (view.unit[item["parent"]], view.unit[item["child"]])
        pairs[key] = pairs.get(key, 0) + 1
    labels = grouped.graph.labels
    sentences = []
    for (parent, child), count in list(pairs.items())[:MAX_SENTENCES]:
        sentences.append(
            f"{_capital(view.name(parent))} was visited before {view.name(child)} had passed its grad into it "
            f"({count} contribution{'s' if count != 1 else ''} arrived too late), so the paths through them "
            "never reached the inputs."
        )
    if wrong:
        shown = ", ".join(f"{labels[v]}.grad is {fmt(grads[v])}, not {fmt(correct[v])}" for v in wrong[:MAX_LISTED])
        more = f" ({len(wrong) - MAX_LISTED} more inputs are wrong too)" if len(wrong) > MAX_LISTED else ""
        sentences.append(f"{shown}{more}.")
    if not late:
        sentences.append("Every box was visited after all the boxes it feeds into, so every grad is right.")
    return {
        "order": units,
        "frames": frames,
        "late": [{"parent": parent, "child": child, "count": count} for (parent, child), count in pairs.items()],
        "lost_path_count": _lost_paths(grouped.graph, grads, late),
        "wrong_inputs": len(wrong),
        "explanation": sentences,
    }


def _lost_paths(graph: FlatGraph, grads, late) -> int:
    """How many input → output paths pass through a late contribution's edge: with it cut,
    the paths below it never receive their share."""
    if not late:
        return 0
    cut = {(item["parent"], item["child"]) for item in late}
    below = [0] * len(graph)  # paths from each node down to the inputs
    for v, parents in enumerate(graph.parents):
        below[v] = sum(below[p] if graph.parents[p] else 1 for p in parents)
    above = [0] * len(graph)  # paths from the output down to each node, not through a cut edge
    above[graph.output] = 1
    lost = 0
    for v in range(len(graph) - 1, -1, -1):
        if not above[v]:
            continue
        for p in graph.parents[v]:
            if (p, v) in cut:
                lost += above[v] * (below[p] if graph.parents[p] else 1)
            else:
                above[p] += above[v]
    return lost


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["Grouped", "View", "LevelError", "level_answer", "MAX_UNITS"]
