"""Traces: every step of the forward and backward passes, computed once, as plain data.

Like Python Tutor, the engine runs the whole computation up front and records a *frame*
per step; the page only moves an index through the frames. A backward pass can be run in
any visit order. In a wrong order some contributions reach a node after that node has
already passed its grad on; they are recorded as *late*, and the input → output paths
they carried are reported as *lost*.
"""

from __future__ import annotations

from .graph import Graph
from .text import expression_text, fmt, forward_text, rule_text

MAX_LISTED_PATHS = 50  # lost paths listed one by one; the count is always exact
MAX_SENTENCES = 6


def forward_frames(graph: Graph) -> list[dict]:
    """One frame per node, in topological order: the step that fills in its .data."""
    return [
        {"node": i, "data": value.data, "line": value.line, "text": forward_text(value)}
        for i, value in enumerate(graph.values)
    ]


def run_backward(graph: Graph, order: list[int]) -> tuple[list[dict], list[float], list[dict]]:
    """Run the push-style backward pass in ``order``; return frames, final grads, late pushes.

    Exactly micrograd's loop: seed the output with 1, then each visited node adds
    ``local × its grad`` into each parent's grad. A push into a parent that was already
    visited still changes the parent's grad, but the parent will never pass it on.
    """
    position = {node: step for step, node in enumerate(order)}
    grads = [0.0] * len(graph)
    out = graph.output
    out_label = graph.label(out)
    grads[out] = 1.0
    frames = [{
        "kind": "seed", "node": out, "before": 0.0, "after": 1.0, "line": graph.values[out].line,
        "text": f"Seed: {out_label}.grad = 1, because the output changes one for one with itself.",
    }]
    late = []
    for step, node in enumerate(order):
        frame_index = step + 1
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
            pushes.append({
                "edge": edge_id, "parent": parent, "local": edge.local, "upstream": upstream,
                "contribution": contribution, "before": before, "after": after, "late": is_late,
                "rule": rule_text(value, edge.slot),
            })
            if is_late:
                late.append({
                    "frame": frame_index, "edge": edge_id, "parent": parent, "child": node,
                    "contribution": contribution, "parent_visit_frame": position[parent] + 1,
                })
        frames.append({
            "kind": "visit", "node": node, "upstream": upstream, "line": value.line,
            "text": _visit_text(graph, node, upstream, pushes, position, step), "pushes": pushes,
        })
    return frames, grads, late


def _visit_text(graph, node, upstream, pushes, position, step) -> str:
    value = graph.values[node]
    label = value.label
    waiting = [graph.label(graph.edges[e].child) for e in graph.child_edges[node]
               if position[graph.edges[e].child] > step]
    early = ""
    if waiting and not graph.is_input(node):
        early = (f" Too early: {_join(sorted(set(waiting)))} "
                 f"{'has' if len(set(waiting)) == 1 else 'have'} not pushed into {label} yet.")
    if not pushes:
        return f"Visit {label}: an input, so there is nothing to pass on; {label}.grad = {fmt(upstream)}."
    pattern = {"+": "Addition copies the grad. ", "*": "Multiplication swaps: each side gets the other's value. "}
    prefix = pattern.get(value._op, "") if value._const is None else ""
    parts = []
    for push in pushes:
        p = graph.label(push["parent"])
        part = (f"{p}.grad += {fmt(push['local'])} × {fmt(upstream)} = {fmt(push['contribution'])}, "
                f"{fmt(push['before'])} → {fmt(push['after'])}")
        if push["late"]:
            part += f" (too late: {p} was already visited)"
        parts.append(part)
    return f"Visit {label} = {expression_text(value)} with {label}.grad = {fmt(upstream)}.{early} {prefix}" + "; ".join(parts) + "."


def correct_backward(graph: Graph) -> tuple[list[dict], list[float]]:
    frames, grads, _ = run_backward(graph, graph.reverse_topological_order())
    return frames, grads


# -- the visit-order experiment -----------------------------------------------------------


def experiment(graph: Graph, order: list[int], correct_grads: list[float]) -> dict:
    """Run the backward pass in ``order`` and explain what went wrong, if anything."""
    frames, grads, late = run_backward(graph, order)
    position = {node: step for step, node in enumerate(order)}
    is_topological = all(position[e.parent] > position[e.child] for e in graph.edges)
    lost = _LostPaths(graph, position)
    return {
        "order": list(order),
        "frames": frames,
        "grads": grads,
        "correct_grads": list(correct_grads),
        "is_topological": is_topological,
        "late": late,
        "lost_paths": lost.listed,
        "lost_path_count": lost.count,
        "harmless": _harmless(graph, position),
        "explanation": _explain(graph, late, lost, grads, correct_grads),
    }


class _LostPaths:
    """The input → output paths whose contribution a visit order loses.

    A path output = v0 ← v1 ← … ← vk = input carries its product of local derivatives only
    if every node on it, except the input, is visited after the node before it
    (v1 after v0, v2 after v1, …). The first place that fails is the *late edge*.
    Counting is a linear dynamic program; listing stops at MAX_LISTED_PATHS.
    """

    def __init__(self, graph: Graph, position: dict[int, int]):
        self.graph = graph
        self.position = position
        self.total = [0] * len(graph)  # paths from each node down to the inputs
        self.intact = [0] * len(graph)  # of those, how many survive this order
        for node in range(len(graph)):  # topological order: parents first
            total = intact = 0
            for edge_id in graph.parent_edges[node]:
                parent = graph.edges[edge_id].parent
                if graph.is_input(parent):
                    total += 1
                    intact += 1
                else:
                    total += self.total[parent]
                    if position[parent] > position[node]:
                        intact += self.intact[parent]
            self.total[node], self.intact[node] = total, intact
        out = graph.output
        self.count = self.total[out] - self.intact[out]
        self.listed = []
        if self.count:
            self._walk(out, [out], 1.0, None)

    def _walk(self, node, path, product, late_edge):
        graph = self.graph
        for edge_id in graph.parent_edges[node]:
            if len(self.listed) >= MAX_LISTED_PATHS:
                return
            edge = graph.edges[edge_id]
            parent = edge.parent
            broken = late_edge
            if broken is None and not graph.is_input(parent) and self.position[parent] < self.position[node]:
                broken = edge_id
            if graph.is_input(parent):
                if broken is not None:
                    self.listed.append({"nodes": [parent] + path[::-1], "product": product * edge.local,
                                        "late_edge": broken})
                continue
            # Only descend where lost paths remain below.
            lost_below = self.total[parent] if broken is not None else self.total[parent] - self.intact[parent]
            if lost_below:
                self._walk(parent, path + [parent], product * edge.local, broken)


def _harmless(graph: Graph, position) -> list[dict]:
    notes = []
    for node in graph.inputs:
        consumers = sorted({graph.edges[e].child for e in graph.child_edges[node]
                            if position[graph.edges[e].child] > position[node]})
        if consumers:
            label = graph.label(node)
            notes.append({"node": node, "text": (
                f"{label} is visited before {_join([graph.label(c) for c in consumers])}, but that does no "
                f"harm: {label} is an input, so it has nothing to pass on.")})
    return notes


def _explain(graph, late, lost, grads, correct) -> list[str]:
    if not late:
        return ["Every node was visited after all the nodes it feeds into, so every contribution "
                "arrived in time and every grad is right."]
    sentences = []
    for item in late[:MAX_SENTENCES]:
        parent, child = graph.label(item["parent"]), graph.label(item["child"])
        paths = [p for p in lost.listed if p["late_edge"] == item["edge"]]
        shown = [" → ".join(graph.label(n) for n in p["nodes"]) for p in paths[:2]]
        inputs = sorted({p["nodes"][0] for p in paths}, key=lambda n: graph.inputs.index(n))
        wrong = [n for n in inputs if grads[n] != correct[n]]
        sentence = f"{parent} was visited before {child} had added its contribution to {parent}"
        if shown:
            more = f" (and {len(paths) - 2} more)" if len(paths) > 2 else ""
            noun = "path" if len(paths) == 1 else "paths"
            reached = _join([graph.label(n) for n in inputs])
            sentence += f", so the {noun} {' and '.join(shown)}{more} never reached {reached}"
            if wrong:
                sentence += ": " + ", ".join(
                    f"{graph.label(n)}.grad is {fmt(grads[n])}, not {fmt(correct[n])}" for n in wrong)
            else:
                carried = "that path carried" if len(paths) == 1 else "those paths carried"
                sentence += f", but {carried} 0 (a local derivative on the way is 0), so no input's grad changed"
        else:
            sentence += ", but the paths through it were already cut off earlier"
        sentences.append(sentence + ".")
    if len(late) > MAX_SENTENCES:
        sentences.append(f"{len(late) - MAX_SENTENCES} more contributions arrived too late in the same way.")
    return sentences


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
