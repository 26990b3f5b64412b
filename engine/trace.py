"""Traces: every step of the forward and backward passes, computed once, as plain data.

Like Python Tutor, the engine runs the whole computation up front and records a *frame*
per step; the page only moves an index through the frames. A backward pass can be run in
any visit order. In a wrong order some contributions reach a node after that node has
already passed its grad on; they are recorded as *late*, and the input → output paths
they carried are reported as *lost*.
"""

from __future__ import annotations

from .graph import Graph
from .mistakes import MISTAKES, too_early_text
from .ops import OPS
from .text import add_sentence, fmt, forward_text, not_finite_push_text, prev_text

MAX_LISTED_PATHS = 50  # lost paths listed one by one; the count is always exact
MAX_SENTENCES = 6


def forward_frames(graph: Graph, texts: list[str] | None = None) -> list[dict]:
    """One frame per node, in topological order: the step that fills in its .data.

    ``texts`` is each step's narration when the graph writes its own (a graph with an
    operation the engine's table doesn't have, engine.foreign); else the engine writes it.
    """
    if texts is None:
        texts = [forward_text(value, graph.expressions[i]) for i, value in enumerate(graph.values)]
    # The first node made from others is where the narration first names a node's inputs:
    # say there, once per graph, what micrograd calls them.
    first = next((i for i in range(len(graph)) if graph.values[i]._prev), None)
    if first is not None:
        texts = list(texts)
        texts[first] = add_sentence(texts[first], prev_text(graph.values[first]))
    return [
        {
            "node": i,
            "data": value.data,
            "line": value.line,
            "text": texts[i],
            "changes": [_change(i, None, value.data, "data")],
        }
        for i, value in enumerate(graph.values)
    ]


# How a backward visit is written: push (micrograd's _backward adds into each parent) or
# pull (a node sets its own grad from the nodes that use it).
RULES = ("push", "pull")


def run_backward(
    graph: Graph, order: list[int], rule: str = "push", start: list[float] | None = None, texts: bool = True
) -> tuple[list[dict], list[float], list[dict]]:
    """Run the backward pass in ``order``; return frames, final grads and late contributions.

    ``push`` is micrograd's loop: seed the output with 1, then each visited node adds
    ``local × its grad`` into each parent. A push into a parent that was already visited
    still changes the parent's grad, but the parent never passes it on.

    ``pull`` is the formula g_p = Σ g_c · ∂c/∂p: each visited node *sets* its grad to the
    sum over its consumers, reading their grads as they are at that moment. A consumer that
    has not been visited yet has no final grad to give.

    ``start`` is the grads before the pass (all 0 unless backward runs a second time).
    ``texts=False`` (push only) leaves out each visit's sentence, for :func:`visit_texts`
    to write later from the same frames.
    """
    position = {node: step for step, node in enumerate(order)}
    grads = list(start) if start is not None else [0.0] * len(graph)
    out = graph.output
    out_label = graph.label(out)
    before = grads[out]
    grads[out] = 1.0
    frames = [
        {
            "kind": "seed",
            "node": out,
            "before": before,
            "after": 1.0,
            "line": graph.values[out].line,
            "text": f"Seed: {out_label}.grad = 1, because the output changes one for one with itself.",
            "changes": [_change(out, before, 1.0)],
        }
    ]
    late = []
    visit = _pull_visit if rule == "pull" else _push_visit
    for step, node in enumerate(order):
        frames.append(visit(graph, node, step, position, grads, late, texts))
    return frames, grads, late


def visit_texts(graph: Graph, frames: list[dict]) -> list[str | None]:
    """The sentence of each frame of a push backward pass run with ``texts=False``, in frame
    order (None for the seed, which has its own): the same words the pass writes with them.
    ``frames`` must still hold their whole pushes."""
    position = {frame["node"]: step for step, frame in enumerate(frames[1:])}
    return [None] + [
        _visit_text(graph, frame["node"], frame["upstream"], frame["pushes"], position, step)
        for step, frame in enumerate(frames[1:])
    ]


def _push_visit(graph, node, step, position, grads, late, texts=True) -> dict:
    value = graph.values[node]
    upstream = grads[node]
    pushes = []
    for edge_id in graph.parent_edges[node]:
        edge = graph.edges[edge_id]
        parent = edge.parent
        contribution = edge.local * upstream
        before = grads[parent]
        grads[parent] = after = before + contribution
        # Pushing into an input after its visit is harmless: an input passes nothing on.
        is_late = position[parent] < step and not graph.is_input(parent)
        pushes.append(
            {
                "edge": edge_id,
                "parent": parent,
                "local": edge.local,
                "upstream": upstream,
                "contribution": contribution,
                "before": before,
                "after": after,
                "late": is_late,
                "rule": graph.rules[edge_id],
            }
        )
        if is_late:
            late.append(
                {
                    "frame": step + 1,
                    "edge": edge_id,
                    "parent": parent,
                    "child": node,
                    "contribution": contribution,
                    "parent_visit_frame": position[parent] + 1,
                }
            )
    frame = {"kind": "visit", "node": node, "upstream": upstream, "line": value.line}
    if texts:
        frame["text"] = _visit_text(graph, node, upstream, pushes, position, step)
    frame["pushes"] = pushes
    frame["changes"] = [_change(p["parent"], p["before"], p["after"]) for p in pushes]
    return frame


def _pull_visit(graph, node, step, position, grads, late, texts=True) -> dict:
    """Pull: node.grad = Σ over consumers of consumer.grad × local, read right now."""
    value = graph.values[node]
    label = value.label
    if node == graph.output:
        return {
            "kind": "pull",
            "node": node,
            "upstream": grads[node],
            "line": value.line,
            "pushes": [],
            "changes": [],
            "text": f"Visit {label}: the output keeps its seed grad of 1; nothing uses it, "
            "so there is nothing to pull.",
        }
    before_visit = grads[node]
    total = 0.0
    pulls = []
    for edge_id in graph.child_edges[node]:
        edge = graph.edges[edge_id]
        child = edge.child
        child_grad = grads[child]
        contribution = edge.local * child_grad
        running_before, total = total, total + contribution
        # A consumer's grad is final once it has been visited (the output's seed always is).
        is_late = not (child == graph.output or position[child] < step)
        pulls.append(
            {
                "edge": edge_id,
                "parent": node,
                "child": child,
                "local": edge.local,
                "upstream": child_grad,
                "contribution": contribution,
                "before": running_before,
                "after": total,
                "late": is_late,
                "rule": graph.rules[edge_id],  # the graph's own text, as in push mode
            }
        )
        if is_late:
            late.append(
                {
                    "frame": step + 1,
                    "edge": edge_id,
                    "parent": node,
                    "child": child,
                    "contribution": contribution,
                    "child_visit_frame": position[child] + 1,
                }
            )
    grads[node] = total
    parts = []
    for pull in pulls:
        c = graph.label(pull["child"])
        part = f"{fmt(pull['upstream'])} × {fmt(pull['local'])} from {c}"
        if pull["late"]:
            part += f" (too early: {c} has not been visited, so its grad isn't final)"
        parts.append(part)
    text = (
        f"Visit {label}: pull from its consumers, {label}.grad = " + " + ".join(parts) + f" = {fmt(total)}."
        if pulls
        else f"Visit {label}: nothing uses it, so its grad is 0."
    )
    return {
        "kind": "pull",
        "node": node,
        "upstream": total,
        "line": value.line,
        "text": text,
        "pushes": pulls,
        "changes": [_change(node, before_visit, total)],
    }


def _change(node: int, before: float, after: float, field: str = "grad") -> dict:
    """One value a frame changes; stepping back applies ``before``, stepping forward ``after``."""
    return {"node": node, "field": field, "before": before, "after": after}


def _visit_text(graph, node, upstream, pushes, position, step) -> str:
    value = graph.values[node]
    label = value.label
    waiting = [
        graph.label(graph.edges[e].child) for e in graph.child_edges[node] if position[graph.edges[e].child] > step
    ]
    early = ""
    if waiting and not graph.is_input(node):
        early = (
            f" Too early: {_join(sorted(set(waiting)))} "
            f"{'has' if len(set(waiting)) == 1 else 'have'} not pushed into {label} yet."
        )
    if not pushes:
        return f"Visit {label}: an input, so there is nothing to pass on; {label}.grad = {fmt(upstream)}."
    # "Addition copies the grad." for a node of an op in the table with Value operands only;
    # an operation the table doesn't have (a learner's own, engine.foreign) has no note.
    entry = OPS.get(value._op)
    note = entry.note if entry is not None and value._const is None and len(value._prev) == entry.arity else ""
    prefix = f"{note} " if note else ""
    parts = []
    for push in pushes:
        p = graph.label(push["parent"])
        part = (
            f"{p}.grad += {fmt(push['local'])} × {fmt(upstream)} = {fmt(push['contribution'])}, "
            f"{fmt(push['before'])} → {fmt(push['after'])}"
        )
        if push["late"]:
            part += f" (too late: {p} was already visited)"
        parts.append(part)
    head = f"Visit {label} = {graph.expressions[node]} with {label}.grad = {fmt(upstream)}.{early} {prefix}"
    text = head + "; ".join(parts) + "."
    # A push that carries inf or nan says why (a log(0), a division by zero, an overflow).
    notes = dict.fromkeys(
        not_finite_push_text(value, graph.edges[push["edge"]].slot, push["local"], upstream, push["contribution"])
        for push in pushes
    )
    for note in notes:
        text = add_sentence(text, note)
    return text


def correct_backward(
    graph: Graph, order: list[int] | None = None, texts: bool = True
) -> tuple[list[dict], list[float]]:
    """The right backward pass: in ``order`` (a valid one, such as a preset's named order),
    else in reverse topological order (``texts``: as for :func:`run_backward`)."""
    order = order if order is not None else graph.reverse_topological_order()
    frames, grads, _ = run_backward(graph, order, texts=texts)
    return frames, grads


# -- the visit-order experiment -----------------------------------------------------------


def experiment(graph: Graph, order: list[int], correct_grads: list[float], rule: str = "push") -> dict:
    """Run the backward pass in ``order`` and explain what went wrong, if anything."""
    frames, grads, late = run_backward(graph, order, rule)
    position = {node: step for step, node in enumerate(order)}
    is_topological = all(position[e.parent] > position[e.child] for e in graph.edges)
    lost = _LostPaths(graph, position, rule)
    return {
        "rule": rule,
        "order": list(order),
        "frames": frames,
        "grads": grads,
        "correct_grads": list(correct_grads),
        "is_topological": is_topological,
        "late": late,
        "lost_paths": lost.listed,
        "lost_path_count": lost.count,
        "harmless": _harmless(graph, position, rule),
        "explanation": _explain(graph, late, lost, grads, correct_grads, rule, is_topological),
        "mistake": _mistake(graph, late, lost, grads, correct_grads, rule),
    }


class _LostPaths:
    """The input → output paths whose contribution a visit order loses.

    A path output = v0 ← v1 ← … ← vk = input carries its product of local derivatives
    only if each of its edges is *on time*:

    * push mode: the edge's parent is visited after its child has pushed into it
      (v1 after v0, v2 after v1, …); an input never needs to be visited;
    * pull mode: the edge's child is visited before its parent pulls from it
      (v1 before v2, …, v(k-1) before vk); the output's seed is always ready.

    The first edge from the output that is not on time is the *late edge*. Counting is
    a linear dynamic program; listing stops at MAX_LISTED_PATHS.
    """

    def __init__(self, graph: Graph, position: dict[int, int], rule: str):
        self.graph = graph
        self.position = position
        self.rule = rule
        self.total = [0] * len(graph)  # paths from each node down to the inputs
        self.intact = [0] * len(graph)  # of those, how many survive this order
        for node in range(len(graph)):  # topological order: parents first
            total = intact = 0
            for edge_id in graph.parent_edges[node]:
                parent = graph.edges[edge_id].parent
                below_total = 1 if graph.is_input(parent) else self.total[parent]
                below_intact = 1 if graph.is_input(parent) else self.intact[parent]
                total += below_total
                if self.on_time(graph.edges[edge_id]):
                    intact += below_intact
            self.total[node], self.intact[node] = total, intact
        out = graph.output
        self.count = self.total[out] - self.intact[out]
        self.listed = []
        if self.count:
            self._walk(out, [out], 1.0, None)

    def on_time(self, edge) -> bool:
        if self.rule == "pull":
            return edge.child == self.graph.output or self.position[edge.child] < self.position[edge.parent]
        return self.graph.is_input(edge.parent) or self.position[edge.parent] > self.position[edge.child]

    def _walk(self, node, path, product, late_edge):
        graph = self.graph
        for edge_id in graph.parent_edges[node]:
            if len(self.listed) >= MAX_LISTED_PATHS:
                return
            edge = graph.edges[edge_id]
            parent = edge.parent
            broken = late_edge
            if broken is None and not self.on_time(edge):
                broken = edge_id
            if graph.is_input(parent):
                if broken is not None:
                    self.listed.append(
                        {"nodes": [parent] + path[::-1], "product": product * edge.local, "late_edge": broken}
                    )
                continue
            # Only descend where lost paths remain below.
            lost_below = self.total[parent] if broken is not None else self.total[parent] - self.intact[parent]
            if lost_below:
                self._walk(parent, path + [parent], product * edge.local, broken)


def _harmless(graph: Graph, position, rule: str) -> list[dict]:
    notes = []
    if rule == "pull":
        out = graph.output
        label = graph.label(out)
        if position[out] != 0:
            notes.append(
                {
                    "node": out,
                    "text": (
                        f"{label} is not visited first, but in pull mode that does no harm: {label} is the output, "
                        f"its grad is the seed, and it has nothing to pull."
                    ),
                }
            )
        return notes
    for node in graph.inputs:
        consumers = sorted(
            {graph.edges[e].child for e in graph.child_edges[node] if position[graph.edges[e].child] > position[node]}
        )
        if consumers:
            label = graph.label(node)
            notes.append(
                {
                    "node": node,
                    "text": (
                        f"{label} is visited before {_join([graph.label(c) for c in consumers])}, but that does no "
                        f"harm: {label} is an input, so it has nothing to pass on."
                    ),
                }
            )
    return notes


def _explain(graph, late, lost, grads, correct, rule="push", is_topological=True) -> list[str]:
    if not late:
        if rule == "pull":
            return [
                "Every node was visited after all the nodes that use it, so each one pulled final grads "
                "and every grad is right."
            ]
        if not is_topological:
            return [
                "No contribution that gets passed on arrived late: only inputs were visited early, and an "
                "input passes nothing on, so every grad is right."
            ]
        return [
            "Every node was visited after all the nodes it feeds into, so every contribution "
            "arrived in time and every grad is right."
        ]
    sentences = []
    for item in late[:MAX_SENTENCES]:
        parent, child = graph.label(item["parent"]), graph.label(item["child"])
        paths = [p for p in lost.listed if p["late_edge"] == item["edge"]]
        shown = [" → ".join(graph.label(n) for n in p["nodes"]) for p in paths[:2]]
        inputs = sorted({p["nodes"][0] for p in paths}, key=lambda n: graph.inputs.index(n))
        wrong = [n for n in inputs if grads[n] != correct[n]]
        if rule == "pull":
            sentence = f"{parent} pulled from {child} before {child} had been visited ({child}.grad wasn't final yet)"
        else:
            sentence = f"{parent} was visited before {child} had added its contribution to {parent}"
        if shown:
            more = f" (and {len(paths) - 2} more)" if len(paths) > 2 else ""
            noun = "path" if len(paths) == 1 else "paths"
            reached = _join([graph.label(n) for n in inputs])
            sentence += f", so the {noun} {' and '.join(shown)}{more} never reached {reached}"
            if wrong:
                sentence += ": " + ", ".join(
                    f"{graph.label(n)}.grad is {fmt(grads[n])}, not {fmt(correct[n])}" for n in wrong
                )
            else:
                carried = "that path carried" if len(paths) == 1 else "those paths carried"
                sentence += f", but {carried} 0 (a local derivative on the way is 0), so no input's grad changed"
        else:
            sentence += ", but the paths through it were already cut off earlier"
        sentences.append(sentence + ".")
    if len(late) > MAX_SENTENCES:
        sentences.append(f"{len(late) - MAX_SENTENCES} more contributions arrived too late in the same way.")
    return sentences


def _mistake(graph, late, lost, grads, correct, rule="push") -> dict | None:
    """The order's mistake in the catalogue's words (engine/mistakes.py): a node visited too
    early, told by the first late contribution that lost a path and left an input's grad
    wrong (else the first that lost a path, else the first), with the wrong grads it left
    (those its explanation sentence names). None when every grad is right.
    ``{"id", "name", "mistakes", "text", "nodes", "late"}``: ``nodes`` are the labels it
    names, ``late`` the index in ``late`` of the contribution it tells (the explanation's
    sentence of the same index says what that contribution lost)."""
    if not late or all(g == c for g, c in zip(grads, correct)):
        return None

    def lost_by(item):
        return [p for p in lost.listed if p["late_edge"] == item["edge"]]

    def wrong_inputs(item):  # as the explanation names them
        inputs = sorted({p["nodes"][0] for p in lost_by(item)}, key=graph.inputs.index)
        return [n for n in inputs if grads[n] != correct[n]]

    item = next((i for i in late if wrong_inputs(i)), None) or next((i for i in late if lost_by(i)), late[0])
    effect = ", ".join(f"{graph.label(n)}.grad is {fmt(grads[n])}, not {fmt(correct[n])}" for n in wrong_inputs(item))
    entry = too_early_text(graph, item["parent"], item["child"], item["contribution"], rule, effect)
    mistake = MISTAKES["too-early"]
    return {"id": mistake.id, "name": mistake.name, **entry, "late": late.index(item)}


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
