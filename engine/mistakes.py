"""The catalogue of mistakes learners make in backpropagation, and the wrong numbers they give.

A learner who types a wrong number has usually made one of a few well-known mistakes: a
product's own value where the other factor belongs, ``=`` where ``+=`` belongs, a local
derivative without the grad it multiplies, a visit made too early... Each one gives a
number that can be worked out from the graph itself. So for a question about a node's
``data``, its ``grad`` at some step of the backward pass, an edge's ``local`` derivative or
the ``contribution`` an edge carries, :func:`wrong_answers` lists every mistake that
applies there, with

* ``mistakes``: the ids of the mistakes that give this number (two mistakes can give the
  same one: then both are named);
* ``value``: the number;
* ``text``: what the learner did and the rule that fixes it, with this graph's numbers
  ("5 is d's own value. A product passes each side the other side's value: ∂e/∂d = c = 4.");
* ``nodes``: the labels of the nodes the sentence names, for the page to mark.

A number the right answer also gives is left out. The page compares a learner's reply with
these values; the visit-order experiment and :func:`engine.check.check` word their
findings with the same sentences (:func:`too_early_text`, :func:`grad_entry`,
:func:`local_mistake`).

A question is named the way a preset's checkpoint names it (``check`` in presets/README.md):

* ``"e.data"``: a node's value (the forward pass);
* ``"d.grad"``: a node's grad just after a given frame of the backward pass;
* ``"e->d.local"``: the local derivative ∂e/∂d of the edge from d into e;
* ``"e->d.contribution"``: what that edge adds to d.grad when e is visited.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass

from .text import code_name, fmt


@dataclass(frozen=True)
class Mistake:
    id: str
    name: str  # what the mistake is, in a few words ("one path counted alone")
    rule: str  # the rule that fixes it, in general (a question's own sentence has the numbers)


# In the order a learner meets them, from the seed down to the visit order.
MISTAKES: dict[str, Mistake] = {
    m.id: m
    for m in (
        Mistake("seed-zero", "a seed of 0", "The seed is ∂out/∂out = 1."),
        Mistake(
            "seed-output",
            "a seed of the output's value",
            "The seed is ∂out/∂out = 1, whatever the output's value.",
        ),
        Mistake(
            "output-value",
            "the output's value given for a grad",
            "A grad is a rate: how much the output moves per unit nudge of the node.",
        ),
        Mistake(
            "input-no-grad",
            "an input given no grad",
            "An input gets a grad like any other node: how much the output moves per unit nudge of it.",
        ),
        Mistake(
            "own-value",
            "a factor's own value used as its local derivative",
            "A product passes each side the other side's value: ∂(x·y)/∂x = y.",
        ),
        Mistake(
            "sum-zero",
            "a sum taken to pass on nothing",
            "A sum passes its whole grad on to each of its terms: ∂(u + v)/∂u = 1.",
        ),
        Mistake(
            "sum-halves",
            "a sum taken to split its grad between its terms",
            "A sum passes its whole grad on to each of its terms, not a share of it: ∂(u + v)/∂u = 1.",
        ),
        Mistake(
            "sub-sign",
            "a lost minus sign on a subtraction's right side",
            "∂(u − v)/∂v = −1: the right side of a subtraction gets the grad with its sign flipped.",
        ),
        Mistake(
            "tanh-input",
            "tanh′ written as 1 − x² with the input",
            "tanh′ is 1 − t² with t the output, tanh(x).",
        ),
        Mistake("tanh-itself", "tanh itself taken as its derivative", "tanh′ is 1 − t², not t."),
        Mistake(
            "power-base",
            "a power or exp differentiated at the wrong base",
            "d(xⁿ)/dx = n·xⁿ⁻¹ is taken at the base x; exp′ is exp itself, the output.",
        ),
        Mistake(
            "no-upstream",
            "the upstream grad left out",
            "The chain rule multiplies the local derivative by the grad of the node above.",
        ),
        Mistake(
            "no-local",
            "the local derivative left out",
            "Each edge multiplies the grad it carries by its local derivative.",
        ),
        Mistake(
            "factors-added",
            "factors added that should be multiplied",
            "Along one path the factors multiply: local derivative × upstream grad.",
        ),
        Mistake(
            "paths-multiplied",
            "paths multiplied that should be added",
            "The contributions of different paths add up; only the factors along one path multiply.",
        ),
        Mistake(
            "overwrite",
            "= written for += (the grad overwritten)",
            "A grad adds every contribution it receives (+=); = keeps only the last.",
        ),
        Mistake(
            "one-path",
            "one path counted alone",
            "A node used in several places gets one contribution per use, added together.",
        ),
        Mistake(
            "too-early",
            "a node visited too early (a lost path)",
            "Visit a node only after every node that uses it, so its grad is complete when it passes it on.",
        ),
    )
}

# Generated questions (a learner's program) carry a diagnosis for this many backward visits;
# the rest get the neutral line, which keeps a big program's answer small.
MAX_DIAGNOSED = 100

_CHECK = re.compile(r"^(?:(?P<child>.+?)->)?(?P<node>.+)\.(?P<what>data|grad|local|contribution)$")


class Asked:
    """What a question asks: ``what`` (data, grad, local or contribution) of ``node``, with
    ``child`` for an edge's local derivative or contribution."""

    def __init__(self, check: str):
        m = _CHECK.match(check or "")
        if m is None or (m["what"] in ("local", "contribution")) != (m["child"] is not None):
            raise ValueError(
                f'"{check}" is not a question the catalogue knows: write "x.data", "x.grad", '
                '"e->x.local" or "e->x.contribution".'
            )
        self.node, self.what, self.child = m["node"], m["what"], m["child"]


def _d(child: str, parent: str) -> str:
    """∂e/∂d; a label that is an expression is bracketed: ∂(x1-x2)**2/∂(x1-x2)."""
    return f"∂{code_name(child)}/∂{code_name(parent)}"


def _after(x: float) -> str:
    """A number after an operator: a negative one in brackets, 1 × (−2)."""
    return f"({fmt(x)})" if x < 0 else fmt(x)


# -- the numbers --------------------------------------------------------------------------------


class _Graph:
    """The graph and its correct backward frames, read the way the catalogue needs them."""

    def __init__(self, graph, backward: list[dict]):
        self.graph = graph
        self.values = graph.values
        self.backward = backward
        self.ids = {graph.label(i): i for i in range(len(graph))}
        self.out = graph.output
        # Every push of the correct pass, with the frame it happens in and the visited child.
        self.pushes_into: list[list[tuple[int, dict, int]]] = [[] for _ in range(len(graph))]
        self.visit_frame: dict[int, int] = {}
        for k, frame in enumerate(backward):
            if frame.get("kind") != "visit":
                continue
            self.visit_frame[frame["node"]] = k
            for p in frame["pushes"]:
                self.pushes_into[p["parent"]].append((k, p, frame["node"]))

    def label(self, i: int) -> str:
        return self.graph.label(i)

    def reach(self, source: int, target: int, step: int) -> float:
        """How much of one unit more in source.grad, when source is visited, has reached
        target.grad by backward frame ``step``: the sum, over the paths from source to target
        pushed by then, of the product of their local derivatives. (A softmax logit hears from
        its row's loss both directly and through its exp: both paths carry what was lost.)"""
        carried = {source: 1.0}
        for k in range(self.visit_frame[source], step + 1):
            frame = self.backward[k]
            amount = carried.get(frame["node"]) if frame.get("kind") == "visit" else None
            if amount is None:
                continue
            for p in frame["pushes"]:
                carried[p["parent"]] = carried.get(p["parent"], 0.0) + p["local"] * amount
        return carried.get(target, 0.0)

    def data(self, i: int) -> float:
        return self.values[i].data

    def op(self, i: int) -> str:
        return self.values[i]._op

    def const(self, i: int):
        return getattr(self.values[i], "_const", None)

    def edge(self, child: int, parent: int):
        for edge_id in self.graph.parent_edges[child]:
            edge = self.graph.edges[edge_id]
            if edge.parent == parent:
                return edge
        return None

    def other(self, edge) -> tuple[str, float] | None:
        """The other operand of a two-operand node, as (its name, its value): a node's label,
        or a number folded into the node."""
        child = edge.child
        parents = [self.graph.edges[e].parent for e in self.graph.parent_edges[child]]
        if len(parents) == 2:
            other = parents[1 - edge.slot]
            return (None if other == edge.parent else self.label(other)), self.data(other)
        const = self.const(child)
        if const is not None:
            return fmt(const[0]), const[0]
        return None


@dataclass
class _Wrong:
    """One mistake's number, with what the learner did ("is d's own value") and the fact that
    fixes it, written for this question."""

    id: str
    value: float
    did: str
    fix: str
    nodes: tuple[str, ...]
    work: str = ""  # the worked arithmetic the fix ends with ("3 × 3 = 9"), said once per diagnosis
    both: str = ""  # no-local's and no-upstream's fix when one number is both: the chain rule once


def _local_wrongs(g: _Graph, edge) -> list[_Wrong]:
    """The wrong local derivatives of one edge, each as a _Wrong whose value is the local."""
    child, parent = edge.child, edge.parent
    c, x = g.label(child), g.label(parent)
    op, local = g.op(child), edge.local
    d = _d(c, x)
    wrongs = []
    if op == "+":
        terms = len(g.graph.parent_edges[child]) + (1 if g.const(child) is not None else 0)
        fix = f"A sum passes its whole grad on to each term: {d} = 1."
        wrongs.append(_Wrong("sum-zero", 0.0, f"takes {d} as 0, as if the sum {c} passed nothing on", fix, (x, c)))
        if terms > 1:
            wrongs.append(
                _Wrong(
                    "sum-halves",
                    1.0 / terms,
                    f"takes {d} as 1/{terms}, as if the sum {c} split its grad between its {terms} terms",
                    fix,
                    (x, c),
                )
            )
    elif op == "*":
        other = g.other(edge)
        if other is not None and other[0] is not None:  # a * a: each side's other is itself
            name, value = other
            shown = name if name == fmt(value) else f"{name} = {fmt(value)}"
            wrongs.append(
                _Wrong(
                    "own-value",
                    g.data(parent),
                    f"uses {x}'s own value, {fmt(g.data(parent))}, for {d}",
                    f"A product passes each side the other side's value: {d} = {shown}.",
                    tuple(n for n in (x, c, name) if n in g.ids),
                )
            )
    elif op == "-" and local == -1.0:
        wrongs.append(
            _Wrong(
                "sub-sign",
                1.0,
                f"misses the minus sign: {x} is subtracted in {c} = {g.graph.expressions[child]}",
                f"The right side of a subtraction gets the grad with its sign flipped: {d} = −1.",
                (x, c),
            )
        )
    elif op == "tanh":
        t = g.data(child)
        right = f"tanh′ is 1 − t² with the output t = {c} = {fmt(t)}: {d} = 1 − {_after(t)}² = {fmt(local)}."
        xd = g.data(parent)
        wrongs.append(
            _Wrong(
                "tanh-input",
                1.0 - xd * xd,
                f"uses 1 − x² with the input {x} = {fmt(xd)}",
                right,
                (x, c),
            )
        )
        wrongs.append(_Wrong("tanh-itself", t, f"takes tanh itself, {c} = {fmt(t)}, as its derivative", right, (c,)))
    elif op == "**":
        const = g.const(child)
        if const is not None and not const[1]:
            n, out = const[0], g.data(child)
            try:
                wrong = n * out ** (n - 1)
            except (OverflowError, ZeroDivisionError, ValueError):
                wrong = math.nan
            if isinstance(wrong, float):
                wrongs.append(
                    _Wrong(
                        "power-base",
                        wrong,
                        f"takes the power rule at the output {c} = {fmt(out)} instead of the base {x}",
                        f"d(xⁿ)/dx = n·xⁿ⁻¹ at the base {x} = {fmt(g.data(parent))}: {d} = {fmt(local)}.",
                        (x, c),
                    )
                )
    elif op == "exp":
        wrongs.append(
            _Wrong(
                "power-base",
                g.data(parent),
                f"uses the input {x} = {fmt(g.data(parent))} as exp′",
                f"exp′ is exp itself, the output: {d} = {c} = {fmt(g.data(child))}.",
                (x, c),
            )
        )
    return wrongs


def _grad_wrongs(g: _Graph, node: int, step: int, visit_order: bool = True) -> tuple[float, list[_Wrong]]:
    """node.grad just after backward frame ``step``, and the mistakes' numbers for it.

    The pushes the question is about are those of frame ``step`` into the node; when that
    frame pushes nothing into it (a total asked at the end), all of its pushes so far."""
    x = g.label(node)
    if node == g.out:
        out_data = g.data(node)
        fix = f"The seed is {_d(x, x)} = 1: nudge {x} by h and {x} moves by h."
        return 1.0, [
            _Wrong("seed-zero", 0.0, f"is what {x}.grad holds before the seed", fix, (x,)),
            _Wrong("seed-output", out_data, f"is {x}'s value, not its grad", fix, (x,)),
        ]
    so_far = [(k, p, c) for k, p, c in g.pushes_into[node] if k <= step]
    if not so_far:
        return 0.0, []
    right = so_far[-1][1]["after"]
    this_frame = [item for item in so_far if item[0] == step]
    now = this_frame or so_far
    # What the node held before the pushes asked about is on screen: a mistake in them
    # keeps it, and the sentence says so.
    base = now[0][1]["before"] if this_frame else 0.0
    held = f", added to the {fmt(base)} {x}.grad held" if base else ""
    wrongs: list[_Wrong] = []
    out = g.label(g.out)
    if not g.graph.parent_edges[node]:
        got = (
            f"{_terms([p['contribution'] for _, p, _ in so_far], '+')} = {fmt(right)}"
            if len(so_far) > 1
            else f"{fmt(so_far[0][1]['local'])} × {_after(so_far[0][1]['upstream'])} = {fmt(right)}"
        )
        wrongs.append(
            _Wrong(
                "input-no-grad",
                0.0,
                f"is what {x}.grad would be if an input got no grad",
                f"An input gets a grad like any other node, from each node that uses it: {got}.",
                (x,),
                work=got,
            )
        )
    wrongs.append(
        _Wrong(
            "output-value",
            g.data(g.out),
            f"is the output's value ({out}), not a grad",
            f"{x}.grad is {_d(out, x)}: how much {out} moves per unit nudge of {x}.",
            (out, x),
        )
    )
    total = sum(p["contribution"] for _, p, _ in now)
    sums = _terms([p["contribution"] for _, p, _ in so_far], "+")
    adds = f"{x}.grad adds every contribution it receives (+=): {sums} = {fmt(right)}."
    children = tuple(dict.fromkeys(g.label(c) for _, _, c in now))

    # A wrong local derivative on one of the pushes asked about.
    for _, p, _ in now:
        edge = g.graph.edges[p["edge"]]
        for wrong in _local_wrongs(g, edge):
            value = right - p["contribution"] + wrong.value * p["upstream"]
            wrongs.append(_Wrong(wrong.id, value, wrong.did + held, wrong.fix, wrong.nodes))

    # The chain rule's two factors: one left out, or added instead of multiplied.
    def one(p, c):
        return f"{_d(g.label(c), x)} = {fmt(p['local'])}"

    locals_ = " and ".join(dict.fromkeys(one(p, c) for _, p, c in now))
    ups = [(g.label(c), p["upstream"]) for _, p, c in now]
    up_text = " and ".join(f"{name}.grad = {fmt(u)}" for name, u in dict(ups).items())
    products = ", ".join(
        dict.fromkeys(f"{fmt(p['local'])} × {_after(p['upstream'])} = {fmt(p['contribution'])}" for _, p, _ in now)
    )
    both = f"The chain rule multiplies the local derivative ({locals_}) by the upstream grad ({up_text}): {products}."
    wrongs.append(
        _Wrong(
            "no-upstream",
            right - total + sum(p["local"] for _, p, _ in now),
            f"is the local derivative alone ({locals_}){held}",
            f"The chain rule multiplies it by the upstream grad ({up_text}): {products}.",
            (x, *children),
            work=products,
            both=both,
        )
    )
    wrongs.append(
        _Wrong(
            "no-local",
            right - total + sum(p["upstream"] for _, p, _ in now),
            f"passes on the upstream grad ({up_text}) without the local derivative{held}",
            f"Each edge multiplies the grad by its local derivative ({locals_}): {products}.",
            (x, *children),
            work=products,
            both=both,
        )
    )
    # Adding the factors is a mistake worth naming only where the upstream grad is not 1:
    # "local + 1" is no one's idea of the chain rule, and it would shadow the likelier
    # mistakes whose number it happens to share.
    if all(p["upstream"] != 1.0 for _, p, _ in now):
        wrongs.append(
            _Wrong(
                "factors-added",
                right - total + sum(p["local"] + p["upstream"] for _, p, _ in now),
                f"adds the local derivative and the upstream grad{held}",
                f"Along a path they multiply: {products}.",
                (x, *children),
                work=products,
            )
        )

    # Several contributions: kept one, multiplied them.
    if len(so_far) >= 2:
        last = so_far[-1][1]["contribution"]
        wrongs.append(
            _Wrong(
                "overwrite",
                last,
                f"is only the last contribution, as if = had replaced what {x}.grad held",
                adds,
                (x, *dict.fromkeys(g.label(c) for _, _, c in so_far)),
            )
        )
        # The last one alone is also one path counted alone: both are named.
        children_so_far = [c for _, _, c in so_far]
        for _, p, c in so_far:
            through = (
                f"one use's contribution alone ({x} is used {children_so_far.count(c)} times in {g.label(c)})"
                if children_so_far.count(c) > 1
                else f"one path's contribution alone, through {g.label(c)}"
            )
            wrongs.append(
                _Wrong(
                    "one-path",
                    p["contribution"],
                    f"is {through}",
                    adds,
                    (x, g.label(c)),
                )
            )
        product = math.prod(p["contribution"] for _, p, _ in so_far)
        wrongs.append(
            _Wrong(
                "paths-multiplied",
                product,
                f"multiplies the paths' contributions ({_terms([p['contribution'] for _, p, _ in so_far], '×')})",
                f"Paths add: {sums} = {fmt(right)}; only the factors along one path multiply.",
                (x, *dict.fromkeys(g.label(c) for _, _, c in so_far)),
            )
        )

    # A node above visited too early: its grad lacked what one of its users adds to it, so
    # what reached this node from it by now (its own pushes, two for c = x * x, and its paths
    # through other nodes) was short by that times those paths' locals (g.reach). Only
    # where the visit order is part of what is asked: a question about one visit's push is
    # not about the order (a learner's answer there is some other belief).
    for c in dict.fromkeys(c for _, _, c in now) if visit_order else ():
        reached = g.reach(c, node, step)  # c's own pushes into x, and its paths through other nodes
        upstream = next(p["upstream"] for _, p, pc in now if pc == c)
        for q_child, lost in _users_adding(g, c):
            wrongs.append(
                _Wrong(
                    "too-early",
                    right - reached * lost,
                    _too_early_did(g, f"{x}.grad gets", c, q_child, lost) + held,
                    _too_early_fix(g, c, upstream),
                    (x, g.label(c), g.label(q_child)),
                )
            )
    return right, wrongs


# A sum or product of more terms than this is written with its first two and last terms: a
# node used 50 times gets up to 50 one-path entries, and each says the sum.
_LISTED_TERMS = 6


def _terms(numbers: list[float], op: str) -> str:
    """``1 + 2 + 3``; for many terms ``1 + 2 + … + 50 (50 terms)``."""
    texts = [fmt(n) if i == 0 else _after(n) for i, n in enumerate(numbers)]
    if len(texts) > _LISTED_TERMS:
        return f" {op} ".join([*texts[:2], "…", texts[-1]]) + f" ({len(texts)} terms)"
    return f" {op} ".join(texts)


def _users_adding(g: _Graph, c: int) -> list[tuple[int, float]]:
    """Each node that pushes into ``c`` in the correct pass, with all it adds to c.grad."""
    adds: dict[int, float] = {}
    for _, q, q_child in g.pushes_into[c]:
        adds[q_child] = adds.get(q_child, 0.0) + q["contribution"]
    return list(adds.items())


def _too_early_did(g: _Graph, what: str, c: int, q_child: int, lost: float) -> str:
    """``what``: "x.grad gets" or "the edge into x carries"."""
    cl, ql = g.label(c), g.label(q_child)
    return f"is what {what} if {cl} is visited before {ql} adds its {fmt(lost)} to {cl}.grad"


def _too_early_fix(g: _Graph, c: int, upstream: float) -> str:
    cl = g.label(c)
    return f"Visit {cl} only after every node that uses it: {cl}.grad = {fmt(upstream)} when it passes it on."


def _data_wrongs(g: _Graph, node: int) -> tuple[float, list[_Wrong]]:
    x = g.label(node)
    value = g.data(node)
    op = g.op(node)
    parents = [g.graph.edges[e].parent for e in g.graph.parent_edges[node]]
    numbers = [g.data(p) for p in parents]
    const = g.const(node)
    if const is not None:
        numbers.insert(0 if const[1] else 1, const[0])
    if len(numbers) != 2:
        return value, []
    a, b = numbers
    names = tuple(g.label(p) for p in parents)
    if op == "*":
        return value, [
            _Wrong(
                "factors-added",
                a + b,
                f"adds {fmt(a)} and {fmt(b)}",
                f"{x} = {g.graph.expressions[node]} multiplies: {fmt(a)} × {_after(b)} = {fmt(value)}.",
                (x, *names),
            )
        ]
    if op == "-":
        return value, [
            _Wrong(
                "sub-sign",
                a + b,
                f"adds {fmt(b)} where {x} = {g.graph.expressions[node]} subtracts it",
                f"{fmt(a)} − {_after(b)} = {fmt(value)}.",
                (x, *names),
            )
        ]
    return value, []


def _edge_wrongs(g: _Graph, child: int, parent: int, what: str, visit_order: bool = True) -> tuple[float, list[_Wrong]]:
    edge = g.edge(child, parent)
    if edge is None:
        raise ValueError(f"{g.label(parent)} is not an operand of {g.label(child)}")
    local_wrongs = _local_wrongs(g, edge)
    if what == "local":
        return edge.local, local_wrongs
    k = g.visit_frame.get(child)
    upstream = g.backward[k]["upstream"] if k is not None else 0.0
    right = edge.local * upstream
    c, x = g.label(child), g.label(parent)
    product = f"{fmt(edge.local)} × {_after(upstream)} = {fmt(right)}"
    wrongs = [_Wrong(w.id, w.value * upstream, w.did, w.fix, w.nodes) for w in local_wrongs]
    both = (
        f"The chain rule multiplies the local derivative {_d(c, x)} = {fmt(edge.local)} by the upstream grad "
        f"{c}.grad = {fmt(upstream)}: {product}."
    )
    wrongs += [
        _Wrong(
            "no-upstream",
            edge.local,
            f"is the local derivative alone, {_d(c, x)} = {fmt(edge.local)}",
            f"The chain rule multiplies it by {c}.grad = {fmt(upstream)}: {product}.",
            (x, c),
            work=product,
            both=both,
        ),
        _Wrong(
            "no-local",
            upstream,
            f"is {c}.grad passed on without the local derivative",
            f"Multiply it by {_d(c, x)} = {fmt(edge.local)}: {product}.",
            (x, c),
            work=product,
            both=both,
        ),
    ]
    if upstream != 1.0:  # as for a grad (above)
        wrongs.append(
            _Wrong(
                "factors-added",
                edge.local + upstream,
                "adds the local derivative and the upstream grad",
                f"Along a path they multiply: {product}.",
                (x, c),
                work=product,
            )
        )
    # The child visited too early: it passes on a grad short of what one of its users adds
    # (only where the visit order is part of what is asked, as for a grad).
    for q_child, lost in _users_adding(g, child) if visit_order else ():
        wrongs.append(
            _Wrong(
                "too-early",
                edge.local * (upstream - lost),
                _too_early_did(g, f"the edge into {x} carries", child, q_child, lost),
                _too_early_fix(g, child, upstream),
                (x, c, g.label(q_child)),
            )
        )
    return right, wrongs


# -- the list a question carries -----------------------------------------------------------------


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _listed(right: float, wrongs: list[_Wrong]) -> list[dict]:
    """The mistakes' numbers as the page gets them: one entry per distinct number, leaving out
    any the right answer also gives; two mistakes with one number are said together."""
    groups: list[list[_Wrong]] = []
    for wrong in wrongs:
        if not math.isfinite(wrong.value) or _same(wrong.value, right):
            continue
        group = next((grp for grp in groups if _same(grp[0].value, wrong.value)), None)
        if group is None:
            groups.append([wrong])
        elif all(w.id != wrong.id for w in group):
            group.append(wrong)
    return [_entry(group) for group in groups]


# When mistakes share a number, the likeliest are named first (a rule misapplied at this very
# edge before a slip in bookkeeping, before a coincidence such as the output's value), and
# the sentence names at most two of them.
_LIKELIEST = (
    "own-value", "sub-sign", "tanh-input", "tanh-itself", "power-base", "input-no-grad", "sum-zero", "sum-halves",
    "seed-zero", "seed-output",
    "overwrite", "one-path", "too-early", "no-local", "no-upstream", "factors-added", "paths-multiplied",
    "output-value",
)  # fmt: skip
_NAMED = 2


def _entry(group: list[_Wrong]) -> dict:
    group = sorted(group, key=lambda w: _LIKELIEST.index(w.id))
    value = group[0].value
    named = group[:_NAMED]
    did = ", or ".join(w.did for w in named)
    if {w.id for w in named} == {"no-local", "no-upstream"} and named[0].both == named[1].both:
        fixes = named[0].both  # the local derivative and the upstream grad are the same number here
    else:
        # each worked product once: "… 3 × 3 = 9. … 3 × 3 = 9." says it twice
        said, worked = [], set()
        for w in named:
            fix = w.fix.replace(f": {w.work}.", ".") if w.work and w.work in worked else w.fix
            worked.add(w.work)
            said.append(fix)
        fixes = " ".join(dict.fromkeys(said))
    return {
        "mistakes": [w.id for w in group],
        "value": value,
        "text": f"{fmt(value)} {did}. {fixes}",
        "nodes": list(dict.fromkeys(n for w in group[:_NAMED] for n in w.nodes)),
    }


def wrong_answers(
    graph,
    backward: list[dict],
    check: str,
    step: int | None = None,
    *,
    ruled_out: Collection[str] = (),
    visit_order: bool = True,
) -> dict:
    """The right answer to the question ``check`` on ``graph`` and every mistake's number.

    ``backward`` is the graph's correct backward frames as :func:`engine.trace.run_backward`
    writes them (pushes whole); ``step`` is the frame after which a grad is asked (by
    default, the end of the pass); ``ruled_out``: ids of mistakes known not to have been made
    (engine.check has tested some), left out; ``visit_order``: whether the visit order is part
    of what is asked (a learner's own engine's backward(), yes; one visit's push in a
    question, no: then a visit too early is never the diagnosis). Returns ``{"value": right,
    "wrong": [entries]}``."""
    return answerer(graph, backward, visit_order=visit_order)(check, step, ruled_out)


def answerer(graph, backward: list[dict], *, visit_order: bool = True):
    """:func:`wrong_answers` for many questions on one graph, which it reads once: a function
    of (check, step, ruled_out)."""
    g = _Graph(graph, backward)
    return lambda check, step=None, ruled_out=(): _answer(g, check, step, ruled_out, visit_order)


def _answer(g: _Graph, check: str, step: int | None, ruled_out: Collection[str] = (), visit_order: bool = True) -> dict:
    asked = Asked(check)
    backward = g.backward
    if asked.node not in g.ids or (asked.child is not None and asked.child not in g.ids):
        raise ValueError(f'"{check}" names a node the graph does not have')
    node = g.ids[asked.node]
    if asked.what == "data":
        right, wrongs = _data_wrongs(g, node)
    elif asked.what == "grad":
        right, wrongs = _grad_wrongs(g, node, len(backward) - 1 if step is None else step, visit_order)
    else:
        right, wrongs = _edge_wrongs(g, g.ids[asked.child], node, asked.what, visit_order)
    return {"value": right, "wrong": _listed(right, [w for w in wrongs if w.id not in ruled_out])}


def diagnose(entries: list[dict], reply: float, tolerance: float = 1e-3) -> dict | None:
    """The entry whose number ``reply`` is (within ``tolerance``), or None."""
    for entry in entries:
        if abs(reply - entry["value"]) <= tolerance:
            return entry
    return None


def grad_entry(graph, backward: list[dict], node: int, reply: float, ruled_out: Collection[str] = ()) -> dict | None:
    """The entry (mistakes, value, text, nodes) whose number a wrong final grad of ``node``
    is, or None: for :func:`engine.check.check`, which has the learner's number and the
    right pass, and knows some mistakes were not made (``ruled_out``)."""
    label = graph.label(node)
    try:
        found = wrong_answers(graph, backward, f"{label}.grad", ruled_out=ruled_out)
    except ValueError:
        return None
    tolerance = 1e-6 * max(1.0, abs(found["value"]))
    return diagnose(found["wrong"], reply, tolerance)


def grad_mistake(graph, backward: list[dict], node: int, reply: float) -> str | None:
    """What a wrong final grad of ``node`` says, as the catalogue's sentence (or None)."""
    entry = grad_entry(graph, backward, node, reply)
    return None if entry is None else entry["text"]


def local_mistake(graph, child: int, parent: int, given: float) -> dict | None:
    """The mistake a wrong local derivative ``given`` on the edge from ``parent`` into
    ``child`` is, or None: ``{"mistakes": [ids], "did", "fix", "nodes"}``, where ``did``
    says what the learner did ("uses 1 − x² with the input n = 0.8814") and ``fix`` the rule
    with this graph's numbers. For :func:`engine.check.check`, which words its own sentence
    around them. The number is compared as closely as check compares a local derivative."""
    g = _Graph(graph, [])  # a local derivative needs no backward pass
    edge = g.edge(child, parent)
    if edge is None or _same(given, edge.local):
        return None
    tolerance = 1e-6 * max(1.0, abs(given))
    found = [w for w in _local_wrongs(g, edge) if math.isfinite(w.value) and abs(w.value - given) <= tolerance]
    if not found:
        return None
    found.sort(key=lambda w: _LIKELIEST.index(w.id))
    return {
        "mistakes": list(dict.fromkeys(w.id for w in found)),
        "did": found[0].did,
        "fix": found[0].fix,
        "nodes": list(found[0].nodes),
    }


def too_early_text(graph, parent: int, child: int, contribution: float, rule: str = "push", effect: str = "") -> dict:
    """The visit-order experiment's mistake: ``parent`` visited before ``child`` added its
    ``contribution`` to parent.grad (push), or, with ``rule="pull"``, before ``child`` was
    visited, so parent pulled a grad that was not final. ``effect``, if given, is what it
    did to the grads ("a.grad is 9, not 15"), said before the rule. As an entry: its id,
    sentence and the nodes it names."""
    p, c = graph.label(parent), graph.label(child)
    mistake = MISTAKES["too-early"]
    if rule == "pull":
        did = (
            f"{p} was visited before {c}, which uses it, so {p} pulled {fmt(contribution)} from {c} before "
            f"{c}.grad was final, and {p}.grad came out incomplete."
        )
    else:
        did = (
            f"{p} was visited before {c} added its {fmt(contribution)} to {p}.grad, so {p} passed on an "
            "incomplete grad."
        )
    if effect:
        did = f"{did[:-1]}: {effect}."
    return {"mistakes": [mistake.id], "text": f"{did} {mistake.rule}", "nodes": [p, c]}


__all__ = [
    "MISTAKES",
    "MAX_DIAGNOSED",
    "Asked",
    "Mistake",
    "answerer",
    "diagnose",
    "grad_entry",
    "grad_mistake",
    "local_mistake",
    "too_early_text",
    "wrong_answers",
]
