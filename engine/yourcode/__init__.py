"""Your code: run a learner's own ``Value`` class on a graph, and say what its backward() did.

This is the only package of the engine that executes a learner's text. ``engine.api`` never
imports it, so neither the engine's worker nor the notebook can reach it; the page's code
worker (its own Pyodide) calls :func:`run`, one JSON string in, one JSON string out, never
an exception (docs/yourcode.md has the request and the answer).

A run:

1. checks the request's program with :mod:`engine.program`'s parser (it is never run), then
   compiles the learner's module (a syntax error comes back at its line and column) and
   runs it in a fresh namespace under the file name ``<your code>``;
2. builds the program's graph with **their** ``Value``: :mod:`engine.program`'s own walker,
   handed their class, walks the program's syntax tree, and each operation is a call of their
   operator (``a * b`` calls ``a.__mul__(b)``, ``3 * a`` calls ``a.__rmul__(3)``, ``tanh(a)``
   calls ``a.tanh()``). An operation their class lacks is named before the graph is built,
   with the presets their class can build;
3. checks their engine with :func:`engine.check.check` (local derivatives against the
   rules, ``=`` against ``+=``, the visit order, the grads), on the graph read by
   :mod:`engine.foreign` with the program's names;
4. runs their ``backward()`` once more, watched by ``sys.settrace`` on their frames: each
   ``_backward`` call is a visit (recorded by :mod:`engine.check`'s wrapping, which leaves
   their code as it is; a class without ``_backward``, microgpt's way, visits the node whose
   grad its pushes pass on), and each write to a ``.grad`` is recorded with the line of the
   statement that made it, ``=`` or ``+=`` as their statement says, the grad before and after,
   and the visit it belongs to;
5. runs their ``backward()`` once more with each set of parents walked in the other order
   (:class:`_SetOrder`): Python fixes no order for a set's items, so a grad that comes out
   otherwise is named, with the line that walked the set;
6. turns what the check found into findings, one per mistake, each starting with their line
   and naming every node the mistake affected (and, for a class without ``_backward``, whose
   visits the check can't see, judges the visits seen here the way the check judges its
   own). A number their operators wrapped (``Value(other)``) is a constant, not an input.

Their code runs under a step budget (its loops' turns, or its instructions before Python
3.12), so an endless loop in plain Python ends here too; the worker's time limit is the real
guard, for loops inside C as well.
Every object of theirs is put back as it was after each phase (:func:`engine.foreign.untouched`).

The package, one job per module: ``request`` (the request checked), ``exercises`` (the
exercises and their scaffolds), ``budget`` (the step budget), ``watch`` (their module loaded,
their code guarded and traced), ``graph`` (the program built with their class), ``record``
(their backward() watched: visits, writes, the other set order) and ``findings`` (what was
found, in the catalogue's words). This module runs the phases in turn.
"""

from __future__ import annotations

import json
from dataclasses import replace

from .. import check as _check
from ..api import _dumps, handle
from ..foreign import Foreign, ForeignGraphError, rule
from .exercises import EXERCISES, exercise, scaffold_of
from .findings import _NO_BACKWARD_NOTE, _Findings
from .graph import _buildable, _Builder, _missing_text, _needs, _uses_tensors
from .record import _number_or_none, _Run, _SetOrder
from .request import _checked_program, _Refusal, _request
from .watch import LEARNER_FILE, _compiled, _grad_stores, _has, _load, _place_of, _raised_text, _Watch


def run(request_json: str) -> str:
    """Answer one request (docs/yourcode.md) with one JSON string; never raises."""
    try:
        try:
            answer = {"ok": True, **_run(_request(request_json))}
        except _Refusal as refusal:
            answer = {"ok": False, "error": refusal.error}
        except (SystemExit, KeyboardInterrupt):
            answer = {"ok": False, "error": {"kind": "internal", "message": "The run was stopped before it finished."}}
        except Exception as error:  # a bug of ours, or their code broke what ours needs: data, not a traceback
            message = f"Something went wrong inside Gradwalk ({type(error).__name__}: {error})."
            answer = {"ok": False, "error": {"kind": "internal", "message": message}}
        return _dumps(answer)
    except BaseException:  # even writing the answer failed (their code may have broken json itself)
        return _BROKEN


_BROKEN = (
    '{"ok":false,"error":{"kind":"internal","message":"Your code broke the Python it runs in, '
    'so this run could not be answered."}}'
)


def _run(request: dict) -> dict:
    tree = _checked_program(request["program"].removeprefix("\ufeff"), request["values"])
    if _uses_tensors(tree):
        # Their run is drawn on the page's own graph, whose lines' groups number a tensor
        # program's nodes in another order than their graph does: refused, not misjudged.
        raise _Refusal(
            "program",
            "Your code runs on programs of single values for now, and this one uses tensor(...): "
            "choose another preset, or write a program without tensors.",
        )
    code = _compiled(request["source"])
    watch = _Watch(_grad_stores(request["source"]))
    value_class = _load(code, watch)
    missing = [need for need in _needs(tree, request["values"]) if not _has(value_class, need.method)]
    if missing:
        message, where = _missing_text(missing)
        raise _Refusal(
            "missing",
            message,
            missing=[need.name for need in missing],
            methods=[need.method for need in missing],
            buildable=_buildable(value_class),
            **where,
        )
    built = _Builder(value_class, watch).walk(tree, request["values"])
    root = built.output
    if not callable(watch.guarded(getattr, root, "backward", None, runtime=True)):
        raise _Refusal("graph", "The graph's output has no backward() method to call: give Value a backward().")
    try:
        report = watch.guarded(_check.check, root, built.names)
    except ForeignGraphError as error:
        raised = error.__context__  # an exception of their code that made the graph unreadable
        if _place_of(raised):
            raise _Refusal("runtime", _raised_text(raised), type=type(raised).__name__, **_place_of(raised)) from None
        raise _Refusal("graph", str(error)) from None
    foreign = report.foreign
    right = _right(foreign)
    right_graph = right.graph()
    ran = _Run(foreign, right_graph, watch).run()
    labels = [node.label for node in foreign.nodes]
    # A leaf the program didn't make is a number their operator wrapped (micrograd's Value(other)).
    constants = [
        i for i, node in enumerate(foreign.nodes) if not node.parents and id(foreign.objects[i]) not in built.input_ids
    ]
    set_order = _SetOrder(foreign, watch, ran, constants).run()
    findings = _Findings(report, right_graph, ran, value_class, constants, set_order).all()
    graph = json.loads(handle({"cmd": "load"}, source=right))
    if not graph.pop("ok", False):
        raise _Refusal("graph", graph.get("error", {}).get("message", "This graph can't be drawn."))
    for node in graph["nodes"]:
        place = built.places.get(id(foreign.objects[node["id"]]))
        if place is not None:
            node["line"], node["col"] = place
        if node["id"] in constants:  # a number in an operation: drawn as a constant, never an input to edit
            node["is_input"], node["is_constant"] = False, True
    graph["inputs"] = [i for i in graph["inputs"] if i not in constants]
    return {
        "exercise": request["exercise"],
        "visits": [labels[visit.node] for visit in ran.visits],
        "writes": ran.writes_as_data(labels),
        "grads": dict(zip(labels, (_number_or_none(g) for g in ran.grads))),
        "expected": dict(report.correct_grads),
        "constants": [labels[i] for i in constants],
        "findings": findings,
        "set_order": None if set_order is None else set_order.as_data(labels),
        "notes": [note for note in report.notes if not (ran.visits and _NO_BACKWARD_NOTE in note)],
        "graph": graph,
    }


def _right(foreign: Foreign) -> Foreign:
    """The graph their class built, with each local derivative the engine's rule where the
    engine knows the operation (as engine.check judges it): the graph the page draws."""
    nodes = [
        replace(node, locals=tuple(rule(node.op, [foreign.nodes[p].data for p in node.parents], node.const)[1]))
        if node.known and node.parents
        else node
        for node in foreign.nodes
    ]
    return Foreign(nodes, [], foreign.style)


__all__ = ["run", "exercise", "scaffold_of", "EXERCISES", "LEARNER_FILE"]
