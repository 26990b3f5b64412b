"""The kernel side of the notebook widget: the page's JSON requests, answered in the kernel.

On the page the widget sends ``{"cmd": "load", "preset": "diamond"}`` to ``engine.api`` in
Pyodide; in a notebook it sends the same requests to :func:`handle`, which gives them to
``engine.api.handle`` in the kernel's own Python, with what the widget shows as the
``source`` of a request that names no preset and no program:

* a preset or a program (``show("diamond")``, ``show("a = 2\\nb = a * a")``, a Gradwalk
  ``Program``): ``{"preset": id}`` or ``{"program": source}``, so the answer is byte for
  byte the page's;
* a foreign graph (any micrograd-style value, or a Gradwalk ``Value``): the graph
  :func:`engine.foreign.read` read, which ``engine.api`` answers ``load``, ``nudge`` and
  every mode's command about a graph for, in the shape of docs/api.md; the ``load``
  answer also carries :func:`about` as ``"graph"``;
* a network (``show(loss, model=model)``, or a graph too big to draw node by node): an
  :class:`engine.network.Network`, whose ``load`` and ``expand`` are answered at the level
  on screen (docs/api.md, "A grouped graph").

A request that names a ``preset`` or ``program`` of its own (the learner picked another
graph in the widget) is answered for that, and ``presets``, ``preset``, ``modes`` and
``growth`` don't depend on the graph.

New input values (``"values": {"a": 3}``, by node label) recompute the graph with the
engine's rules at those values; the learner's objects are never touched. A graph with an
operation Gradwalk doesn't know can't be recomputed, so such an edit is refused with an
error of kind ``"graph"``.

Errors never raise across :func:`handle`, as in ``engine.api``.
"""

from __future__ import annotations

from engine import api
from engine.check import Report
from engine.foreign import Foreign, TooManyNodes, read
from engine.network import Network
from engine.presets import load_presets
from engine.program import Program, ProgramError


class ShowError(ValueError):
    """Text that is neither a preset nor a program Gradwalk can read."""


def target(x, model=None) -> dict | Foreign | Network:
    """What ``show(x)`` shows: ``{"preset": id}``, ``{"program": source}``, a foreign graph
    read from ``x`` (or checked by ``check``), or, with ``model`` or for a graph too big to draw
    node by node, a :class:`~engine.network.Network`: the graph grouped into neurons and layers.
    Raises ForeignGraphError for anything else."""
    if isinstance(x, (dict, Foreign, Network)):
        return x
    if model is not None:
        return Network(x, model)
    if isinstance(x, Report):  # a check's report: the graph it checked
        return x.foreign
    if isinstance(x, str):
        presets = [preset["id"] for preset in load_presets()]
        if x in presets:
            return {"preset": x}
        if x.strip().replace("-", "_").isidentifier():  # one word: meant as a preset
            raise ShowError(f"There is no preset called {x.strip()!r}; the presets are " + ", ".join(presets) + ".")
        try:
            Program.parse(x).release()
        except ProgramError as error:
            raise ShowError(
                f"This program can't be shown: line {error.line}, column {error.col}: {error.message}"
            ) from None
        return {"program": x}
    if isinstance(x, Program):
        return {"program": x.source}
    try:
        return read(x)
    except TooManyNodes:
        pass
    return Network(x)  # too many nodes to draw one by one: grouped, as inferred


def handle(request, graph=None) -> str:
    """Answer one request (a JSON string or a dict) for ``graph`` (anything ``show`` takes,
    or what :func:`target` made of it) with one JSON string."""
    return api.handle(request, None if graph is None else source(graph))


def source(graph) -> dict | LearnersGraph | Network | Unreadable:
    """``engine.api``'s ``source`` for what ``show(graph)`` shows."""
    try:
        shown = target(graph)
    except Exception as error:
        return Unreadable(error)
    return LearnersGraph(shown) if isinstance(shown, Foreign) else shown


class LearnersGraph:
    """A foreign graph as ``engine.api``'s source: the graph as read, the same graph
    recomputed with the engine's rules at new input values, and :func:`about` it."""

    def __init__(self, foreign: Foreign):
        self.foreign = foreign

    def graph(self):
        return self.foreign.graph()

    def recompute(self, values: dict[str, float]):
        return self.foreign.recompute(values)

    def about(self) -> dict:
        return about(self.foreign)


class Unreadable:
    """Something ``show`` can't take: a request that needs its graph is answered with why
    (kind ``"graph"``), any other (``presets``) as usual."""

    def __init__(self, error: Exception):
        self.error = error

    def graph(self):
        raise self.error

    def recompute(self, values):
        raise self.error


def about(foreign: Foreign | Network) -> dict:
    """What the widget needs to know about a foreign graph beyond the graph answer."""
    if isinstance(foreign, Network):
        return foreign.about()
    custom = foreign.custom
    graph = foreign.graph()
    return {
        "source": "kernel",
        "style": foreign.style,
        "editable": not custom,
        "custom": [{"node": i, "label": graph.label(i), "op": foreign.nodes[i].op} for i in custom],
    }


__all__ = ["handle", "target", "about", "source", "ShowError"]
