"""The kernel side of the notebook widget: the page's JSON requests, answered in the kernel.

On the page the widget sends ``{"cmd": "load", "preset": "diamond"}`` to ``engine.api`` in
Pyodide; in a notebook it sends the same requests to :func:`handle`, which runs in the
kernel's own Python. What the widget shows decides how a request is answered:

* a preset or a program (``show("diamond")``, ``show("a = 2\\nb = a * a")``, a Gradwalk
  ``Program``): the request gets that ``preset``/``program`` filled in and goes to
  ``engine.api`` unchanged, so the answer is byte for byte the page's;
* a foreign graph (any micrograd-style value, or a Gradwalk ``Value``): ``load``, ``naive``,
  ``paths``, ``forward_mode``, ``again``, ``nudge`` and ``descend`` are answered here from
  the graph :func:`engine.foreign.read` read, in exactly the shape ``engine.api`` gives
  (docs/api.md); ``presets``, ``preset`` and ``growth`` don't depend on the graph and go to
  ``engine.api``. A request that names a ``preset`` or ``program`` of its own (the learner
  picked another graph in the widget) goes to ``engine.api`` too.

New input values (``"values": {"a": 3}``, by node label) recompute the graph with the
engine's rules at those values; the learner's objects are never touched. A graph with an
operation Gradwalk doesn't know can't be recomputed, so such an edit is refused with an
error of kind ``"graph"``.

Errors never raise across :func:`handle`, as in ``engine.api``.
"""

from __future__ import annotations

import json
import math

from engine import api
# engine.api's own helpers, so that both answer with the same words and checks. (A hook in
# engine.api that resolves a request's graph would let api answer foreign graphs itself;
# see docs/notebook.md.)
from engine.again import backward_again
from engine.api import RequestError, _choice, _dumps, _error, _input, _nodes, _order, _read, _values
from engine.check import Report
from engine.descent import MAX_STEPS
from engine.forward_mode import forward_mode
from engine.foreign import Foreign, ForeignGraphError, forward_frames, read
from engine.layout import layout
from engine.naive import naive_recursion
from engine.paths import path_sums
from engine.presets import load_presets
from engine.program import Program, ProgramError
from engine.text import fmt
from engine.trace import correct_backward, experiment


class ShowError(ValueError):
    """Text that is neither a preset nor a program Gradwalk can read."""


def target(x) -> dict | Foreign:
    """What ``show(x)`` shows: ``{"preset": id}``, ``{"program": source}``, or a foreign
    graph read from ``x`` (or checked by ``check``). Raises ForeignGraphError for anything else."""
    if isinstance(x, (dict, Foreign)):
        return x
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
            raise ShowError(f"This program can't be shown: line {error.line}, column {error.col}: "
                            f"{error.message}") from None
        return {"program": x}
    if isinstance(x, Program):
        return {"program": x.source}
    return read(x)


def handle(request, graph=None) -> str:
    """Answer one request (a JSON string or a dict) for ``graph`` (anything ``show`` takes,
    or what :func:`target` made of it) with one JSON string."""
    try:
        request = _request(request)
        shown = target(graph) if graph is not None else None
    except RequestError as error:
        return _dumps(_error(error.message, error.kind))
    except ForeignGraphError as error:
        return _dumps(_error(str(error), "graph"))
    except ShowError as error:
        return _dumps(_error(str(error), "request"))
    except Exception as error:  # never a traceback across the boundary
        return _dumps(_error(f"Something went wrong inside the engine ({type(error).__name__}: {error}).",
                             "internal"))
    names_its_own = request.get("preset") is not None or request.get("program") is not None
    if isinstance(shown, Foreign) and not names_its_own and request["cmd"] in _FOREIGN:
        return _dumps(_answer(request, shown))
    if isinstance(shown, dict) and not names_its_own:
        request = {**request, **shown}
    return api.handle(json.dumps(request))


def _request(request) -> dict:
    if isinstance(request, dict):
        try:
            request = json.dumps(request)  # the same checks as a string from the page
        except (TypeError, ValueError):
            raise RequestError("The request can't be written as JSON.") from None
    return _read(request)


def _answer(request: dict, foreign: Foreign) -> dict:
    try:
        return _FOREIGN[request["cmd"]](request, foreign)
    except ForeignGraphError as error:
        return _error(str(error), "graph")
    except RequestError as error:
        return _error(error.message, error.kind)
    except Exception as error:  # a bug: reported as data, as engine.api does
        return _error(f"Something went wrong inside the engine ({type(error).__name__}: {error}).", "internal")


def _at(request: dict, foreign: Foreign):
    """The graph at the request's input values, and its correct backward pass."""
    graph = foreign.at(_values(request.get("values"))).graph()
    frames, grads = correct_backward(graph)
    return graph, frames, grads


def about(foreign: Foreign) -> dict:
    """What the widget needs to know about a foreign graph beyond the graph answer."""
    custom = foreign.custom
    graph = foreign.graph()
    return {"source": "kernel", "style": foreign.style, "editable": not custom,
            "custom": [{"node": i, "label": graph.label(i), "op": foreign.nodes[i].op} for i in custom]}


def load(request: dict, foreign: Foreign) -> dict:
    graph, backward, grads = _at(request, foreign)
    order = request.get("order")
    mode = _choice(request.get("mode", "push"), ("push", "pull"), "mode")
    if order is not None and mode == "pull" and foreign.custom:
        raise ForeignGraphError("Pull mode writes each edge's rule from the engine's own table, which has no "
                                f"rule for {foreign.nodes[foreign.custom[0]].op!r}; use push mode for this graph.")
    return {
        "ok": True,
        "preset": None,
        "program": None,  # a foreign graph has no program text
        "nodes": _nodes(graph, grads),
        "edges": [{"id": e.id, "parent": e.parent, "child": e.child, "slot": e.slot, "local": e.local,
                   "local_text": graph.local_texts[e.id]} for e in graph.edges],
        "output": graph.output,
        "inputs": graph.inputs,
        "unused": [],
        "layout": layout(graph),
        "forward": forward_frames(graph),
        "backward": backward,
        "experiment": None if order is None else experiment(graph, _order(graph, order), grads, mode),
        "graph": about(foreign),
    }


def naive(request: dict, foreign: Foreign) -> dict:
    graph, _, grads = _at(request, foreign)
    return {"ok": True, **naive_recursion(graph, grads)}


def forward(request: dict, foreign: Foreign) -> dict:
    graph, _, _ = _at(request, foreign)
    return {"ok": True, **forward_mode(graph, _input(graph, request.get("wrt")))}


def paths(request: dict, foreign: Foreign) -> dict:
    graph, _, grads = _at(request, foreign)
    wrt = _input(graph, request.get("wrt"))
    return {"ok": True, **path_sums(graph, wrt, grads[wrt])}


def again(request: dict, foreign: Foreign) -> dict:
    graph, _, grads = _at(request, foreign)
    zero = request.get("zero_grad", False)
    if not isinstance(zero, bool):
        raise RequestError('"zero_grad" must be true or false.')
    return {"ok": True, **backward_again(graph, grads, zero)}


def nudge(request: dict, foreign: Foreign) -> dict:
    """Nudge one input by h and compare the output's change with grad × h (engine.api's
    ``nudge``, recomputing the graph with the engine's rules)."""
    values = _values(request.get("values"))
    graph, _, grads = _at(request, foreign)
    wrt = _input(graph, request.get("wrt"))
    name = graph.label(wrt)
    h = request.get("h", 1e-3)
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not 0 < abs(h) <= 1:
        raise RequestError('"h" must be a small number, above 0 and at most 1, like 0.001.')
    x, grad, base = graph.values[wrt].data, grads[wrt], graph.values[graph.output].data

    def output_at(value):
        return foreign.at({**values, name: value}).nodes[-1].data

    plus, minus = output_at(x + h), output_at(x - h)
    change, predicted, central = plus - base, grad * h, (plus - minus) / (2 * h)
    out = graph.label(graph.output)
    direction = "increases" if change > 0 else "decreases" if change < 0 else "does not change"
    text = (f"If {name} increases by {fmt(h)}, {out} {direction}" + (f" by {fmt(abs(change), 6)}" if change else "")
            + f"; {name}.grad × h = {fmt(grad)} × {fmt(h)} = {fmt(predicted, 6)}. The central difference "
            f"(f({name}+h) − f({name}−h)) / 2h = {fmt(central, 8)}, and autodiff says {name}.grad = {fmt(grad, 8)}.")
    return {"ok": True, "wrt": wrt, "h": h, "x": x, "output": base, "plus": plus, "minus": minus, "change": change,
            "predicted": predicted, "central": central, "grad": grad, "difference": central - grad, "text": text}


def descend(request: dict, foreign: Foreign) -> dict:
    """Gradient descent (or ascent) on chosen inputs (engine.api's ``descend``)."""
    if request.get("moves") is not None:
        raise RequestError('Descent with "moves" isn\'t available for a graph from your own code yet; '
                           'use "inputs", "rate" and "steps".')
    values = _values(request.get("values"))
    inputs = foreign.at(values).inputs
    names = request.get("inputs", list(inputs))
    if not isinstance(names, list) or not names or not all(name in inputs for name in names):
        raise RequestError('"inputs" must list input names of this graph, like ["x1", "x2"].')
    rate = request.get("rate", 0.1)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 10:
        raise RequestError("The learning rate must be a number above 0 and at most 10.")
    steps = request.get("steps", 1)
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise RequestError(f'"steps" must be a whole number from 1 to {MAX_STEPS}.')
    ascend = request.get("ascend", False)
    if not isinstance(ascend, bool):
        raise RequestError('"ascend" must be true or false.')
    foreign.require_known()
    sign = 1.0 if ascend else -1.0
    current = foreign.at(values)
    point = {name: current.nodes[current.inputs[name]].data for name in current.inputs}
    history, stopped = [], None
    for step in range(steps + 1):
        graph = foreign.at(point).graph()
        grads = correct_backward(graph)[1]
        output = graph.values[graph.output].data
        step_grads = {name: grads[current.inputs[name]] for name in names}
        history.append({"step": step, "values": dict(point), "output": output, "grads": step_grads})
        if not math.isfinite(output) or not all(math.isfinite(g) for g in step_grads.values()):
            stopped = "The output or a grad stopped being finite, so descent stopped here; try a smaller learning rate."
            break
        if step == steps:
            break
        moved = {name: point[name] + sign * rate * step_grads[name] for name in names}
        if any(not math.isfinite(v) or abs(v) > 1e12 for v in moved.values()):
            stopped = "An input left the range of allowed numbers, so descent stopped here; try a smaller learning rate."
            break
        point.update(moved)
    return {"ok": True, "history": history, "stopped": stopped, "ascend": ascend, "rate": float(rate),
            "inputs": names}


_FOREIGN = {"load": load, "naive": naive, "forward_mode": forward, "paths": paths, "again": again, "nudge": nudge,
            "descend": descend}

__all__ = ["handle", "target", "about", "ShowError"]
