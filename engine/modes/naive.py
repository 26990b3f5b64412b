"""The naive recursive backward pass, and where it double counts.

A natural first attempt at backpropagation (it is the ``grad_fn`` code of many tutorials)
has no topological sort: each node adds the incoming contribution to its grad and then
immediately calls its own backward with its *running total*:

    def backward(node, grad):
        for parent, local in zip(node.parents, node.locals):
            parent.grad += grad * local
            if parent has parents of its own:
                backward(parent, parent.grad)      # the running total, not the new part

When an intermediate node is used twice, its second call re-sends the first contribution
along with the new one, so everything above it is counted twice. On
``a = 1; b = a + a; c = b + b`` it gives a.grad = 6 where the truth is 4. When only inputs
are shared (a·a, x·x + x·y, the diamond) every intermediate is called once and the answer
is right.

The recursion is simulated with an explicit stack, so deep graphs don't overflow Python's
stack, and stops after MAX_FRAMES frames: on shared nodes it grows exponentially.

The answer to ``{"cmd": "naive", …program…}``::

    {
      "ok": true,
      "frames": [NaiveFrame...],      // the seed, then one frame per send (at most 2,000)
      "grads": [numbers],             // what the recursion leaves in every grad (by id)
      "correct_grads": [numbers],
      "resends": [{"frame", "node", "resent", "total"}],   // every repeat call
      "received": [{"node": input id, "parts": [{"frame", "contribution", "resent"}]}],
      "shared_intermediates": [ids],  // intermediates used more than once: where it double counts
      "truncated": bool,              // stopped after 2,000 frames
      "explanation": ["sentence", ...]
    }

The seed frame is ``{"kind": "seed", "node", "before", "after", "line", "text", "changes",
"upstream_resent": 0.0, "carried": [], "calls": null}``. Each send is ``{"kind": "naive",
"node", "upstream", "depth", "line", "text", "resent", "upstream_resent", "pushes": [Push],
"changes", "carried", "calls"}``, where:

- ``upstream`` is the grad the sending node was called with; ``upstream_resent`` is how much
  of it repeats what that node passed on in earlier calls (0 on a first call);
- ``carried`` lists the edges that have carried a repeated part so far, this frame's
  included, in the order they first did;
- ``calls`` is ``{"node", "again"}`` when the receiving node is not an input and so calls its
  own backward with its running total (``again``: a repeat call, which re-sends ``resent``),
  else null;
- ``received`` gives, for every input in source order, each contribution it was sent, with
  ``resent`` = the part of it that repeats (``local × upstream_resent``).

On ``a = 1; b = a + a; c = b + b`` the sends are c→b, b→a, b→a (b called with 1), c→b, then
b→a, b→a with b called again with 2, of which 1 repeats: each of those two sends carries a
re-sent 1, so a.grad = 1 + 1 + 2 + 2 = 6 instead of 4.
"""

from __future__ import annotations

from ..graph import Graph
from ..registry import Command, Mode
from ..text import fmt

MAX_FRAMES = 2_000


def naive_recursion(graph: Graph, correct: list[float]) -> dict:
    """Every send of the naive recursion as a frame, and where it double counts.

    Besides the grads, each frame says what the page draws: ``upstream_resent``, how much of
    the sending call's grad repeats what that node passed on before; ``carried``, the edges
    that have carried such a repeat so far; and ``calls``, the node this send makes call its
    backward (``again`` when it is a repeat call), or None for an input. ``received`` lists
    what each input was sent, with the re-sent part of each.
    """
    out = graph.output
    grads = [0.0] * len(graph)
    grads[out] = 1.0
    sent = [0.0] * len(graph)  # what each node has already passed on, summed over its calls
    frames = [
        {
            "kind": "seed",
            "node": out,
            "before": 0.0,
            "after": 1.0,
            "line": graph.values[out].line,
            "text": f"Seed: {graph.label(out)}.grad = 1, then {graph.label(out)} calls its backward with 1.",
            "changes": [{"node": out, "field": "grad", "before": 0.0, "after": 1.0}],
            "upstream_resent": 0.0,
            "carried": [],
            "calls": None,
        }
    ]
    resends = []
    carried, carried_set = [], set()  # the edges that have carried a re-sent part so far, first come first
    received = {i: [] for i in graph.inputs}  # what each input was sent, frame by frame
    stack = [[out, 1.0, 0, 0.0]]  # (node, the grad it was called with, next parent slot, re-sent part)
    sent[out] = 1.0
    truncated = False
    while stack:
        if len(frames) >= MAX_FRAMES:
            truncated = True
            break
        call = stack[-1]
        node, grad, slot, call_resent = call
        edges = graph.parent_edges[node]
        if slot == len(edges):
            stack.pop()
            continue
        call[2] += 1
        edge = graph.edges[edges[slot]]
        parent = edge.parent
        contribution = edge.local * grad
        before = grads[parent]
        grads[parent] = after = before + contribution
        depth = len(stack) - 1  # how deep the sending call is nested
        p, n = graph.label(parent), graph.label(node)
        text = (
            f"{n} (called with {fmt(grad)}) sends {fmt(edge.local)} × {fmt(grad)} = {fmt(contribution)} "
            f"to {p}: {p}.grad {fmt(before)} → {fmt(after)}."
        )
        resent = 0.0
        calls = None
        if not graph.is_input(parent):
            # The parent now calls its own backward with its running total.
            resent = sent[parent]
            sent[parent] += after
            if resent:
                resends.append({"frame": len(frames), "node": parent, "resent": resent, "total": after})
                text += (
                    f" {p} calls its backward again with its running total {fmt(after)}, "
                    f"re-sending the {fmt(resent)} it already passed on."
                )
            else:
                text += f" {p} calls its backward with {fmt(after)}."
            stack.append([parent, after, 0, resent])
            calls = {"node": parent, "again": resent != 0}  # a repeat call, re-sending what it sent before
        else:
            received[parent].append(
                {"frame": len(frames), "contribution": contribution, "resent": edge.local * call_resent}
            )
        if call_resent and edge.id not in carried_set:
            carried_set.add(edge.id)
            carried.append(edge.id)
        frames.append(
            {
                "kind": "naive",
                "node": node,
                "upstream": grad,
                "depth": depth,
                "line": graph.values[node].line,
                "text": text,
                "resent": resent,
                "upstream_resent": call_resent,  # the part of this call's grad that was already sent once
                "pushes": [
                    {
                        "edge": edge.id,
                        "parent": parent,
                        "local": edge.local,
                        "upstream": grad,
                        "contribution": contribution,
                        "before": before,
                        "after": after,
                        "late": bool(resent),
                        "rule": graph.rules[edge.id],
                    }
                ],
                "changes": [{"node": parent, "field": "grad", "before": before, "after": after}],
                "carried": list(carried),
                "calls": calls,
            }
        )
    shared = [i for i in range(len(graph)) if not graph.is_input(i) and len(graph.child_edges[i]) > 1]
    return {
        "frames": frames,
        "grads": grads,
        "correct_grads": list(correct),
        "resends": resends,
        "received": [{"node": i, "parts": parts} for i, parts in received.items()],
        "shared_intermediates": shared,
        "truncated": truncated,
        "explanation": _explain(graph, grads, correct, shared, resends, truncated),
    }


def _explain(graph, grads, correct, shared, resends, truncated) -> list[str]:
    label = graph.label
    sentences = []
    if truncated:
        sentences.append(
            f"The recursion made more than {MAX_FRAMES:,} calls and was stopped: on shared nodes "
            "the number of calls doubles with every level."
        )
    if not shared:
        sentences.append(
            "No intermediate node is used more than once here, so every node calls its backward "
            "exactly once and the naive recursion gets every grad right; only inputs are shared, "
            "and an input passes nothing on."
        )
        return sentences
    names = ", ".join(label(i) for i in shared)
    sentences.append(
        f"{names} {'is' if len(shared) == 1 else 'are'} used more than once, so each call after the "
        "first re-sends the running total, including what was already passed on."
    )
    for item in resends[:4]:
        sentences.append(f"{label(item['node'])} re-sent {fmt(item['resent'])} (its total was {fmt(item['total'])}).")
    wrong = [i for i in graph.inputs if grads[i] != correct[i]]
    if wrong:
        sentences.append(
            "Result: " + ", ".join(f"{label(i)}.grad is {fmt(grads[i])}, not {fmt(correct[i])}" for i in wrong) + "."
        )
    return sentences


def _naive(subject) -> dict:
    """The recursive backward without a topological sort (each node calls its parents' backward)."""
    return naive_recursion(subject.graph, subject.grads)


MODE = Mode(
    id="naive",
    tab="Naive recursion",
    place=20,
    commands=(Command("naive", (), _naive),),
    samples=lambda inputs, labels: [{"cmd": "naive"}],
)
