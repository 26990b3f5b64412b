"""A learner's network graph, read and grouped, as what :func:`engine.api.handle` answers for.

``gradwalk.show(loss, model=model)`` makes one :class:`Network`: the graph of ``loss`` read the
quick way (:mod:`engine.flat`; the careful :mod:`engine.foreign` reader when the quick one can't
read it and the graph is small enough for it), grouped by ``model`` or by inference
(:mod:`engine.groups`), with its right backward pass computed once. Its requests are answered
at the level on screen (:mod:`engine.level`): ``load`` and ``expand`` (docs/api.md, "A grouped
graph"). The learner's objects are only read.

Budgets, instead of a fixed cap on nodes: a graph of up to :data:`MAX_READ_NODES` nodes is read
(about a second of the kernel's time per 100,000 nodes on a laptop), and one view draws up to
:data:`engine.level.MAX_UNITS` boxes. A graph beyond them is refused with a sentence that says
how to show a part of it.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

from .flat import FlatGraph, NotFlat, TooBig, read_flat
from .foreign import ForeignGraphError, read
from .groups import GroupError, NotConvex, find_groups
from .level import Grouped, LevelError, View, grouped_request
from .registry import RequestError

MAX_READ_NODES = 300_000


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for a while: reading a big graph, or answering for
    a view of it, allocates many small objects, and each collection would walk the learner's
    whole graph again (it more than doubles the time)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class Network:
    """A grouped graph of a learner's value: ``engine.api.handle``'s source for it."""

    def __init__(self, value, model=None):
        with collector_paused():
            graph = _read(value)
            try:
                groups = _groups(graph, model)
            except GroupError:
                raise
            except Exception as error:  # a bug of ours: one clear sentence, never a traceback
                raise ForeignGraphError(
                    f"Gradwalk failed while grouping this graph ({type(error).__name__}: {error}); "
                    "this is a bug in Gradwalk, not in your code."
                ) from error
            if not len(groups):
                raise ForeignGraphError(
                    f"This graph has {len(graph):,} nodes and Gradwalk found no neurons or sums in it to fold them "
                    "into boxes; pass your model too, gradwalk.show(loss, model=model), or show a smaller part of "
                    "it, for example one neuron's output."
                )
            self.grouped = Grouped(graph, groups)
            try:  # the view it opens with must fit on screen: refused now, not when the widget asks
                View(self.grouped, [])
            except LevelError as error:
                raise ForeignGraphError(str(error)) from None
            self.grads = self.grouped.grads  # the right backward pass, once
        self.style = "_children" if graph.objects and hasattr(graph.objects[-1], "_children") else "_prev"

    @property
    def flat(self) -> FlatGraph:
        return self.grouped.graph

    def graph(self):
        """What the commands other than load and expand would read: refused, in a sentence."""
        raise ForeignGraphError(
            "This grouped graph answers load and expand only: the nudge and the other experiments work on a "
            "graph drawn node by node. Show a smaller part of it to use them."
        )

    def recompute(self, values: dict[str, float]):
        """New input values (nudge, descent): refused as :meth:`graph` is."""
        return self.graph()

    def grouped_answer(self, request: dict) -> dict:
        """``load`` (with optional ``"expanded"``, ``"order"`` and ``"rule"``) and ``expand`` (``"group"``)."""
        try:
            with collector_paused():  # (a view's many small objects, beside the learner's whole graph)
                answer = grouped_request(self.grouped, request)
        except LevelError as error:
            raise RequestError(str(error), error.kind) from None
        answer["graph"] = self.about()
        return answer

    def about(self) -> dict:
        return {"source": "kernel", "style": self.style, "editable": False, "custom": [], "grouped": True}


def _groups(graph: FlatGraph, model):
    """The graph's groups, nested (layers, samples); where those can't be stepped one at a time
    (a layer applied at every step of a loop feeds back into itself), each neuron's use alone."""
    try:
        return find_groups(graph, model)
    except NotConvex:
        pass
    try:
        return find_groups(graph, model, nested=False)
    except NotConvex:
        raise GroupError(
            "Gradwalk can't fold this graph into boxes to step one at a time: a part of it is used inside a "
            "loop of the computation (the same layer applied at every step, say), so a path leaves a box and "
            "comes back into it. Show a smaller part of it without model=, for example the output of one step."
        ) from None


def _read(value) -> FlatGraph:
    """The graph of ``value``, the quick way if it can be, else the careful way (small graphs)."""
    try:
        return read_flat(value, limit=MAX_READ_NODES)
    except NotFlat:
        foreign = read(value)
        return FlatGraph.from_graph(foreign.graph(), foreign.objects)
    except TooBig:
        raise ForeignGraphError(
            f"This graph has more than {MAX_READ_NODES:,} nodes, more than Gradwalk reads in a notebook; "
            "show a part of it, for example the loss of one sample, or of a smaller batch."
        ) from None


__all__ = ["Network", "MAX_READ_NODES", "collector_paused"]
