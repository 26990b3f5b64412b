"""The JSON-in, JSON-out facade the web page calls (see docs/api.md).

``handle(request)`` takes one JSON string and returns one JSON string. Nothing raises
across this boundary: a bad program, a bad request or a bug in the engine all come back as
``{"ok": false, "error": {...}}`` with a sentence a learner can read. The output is
deterministic, so CPython and Pyodide give the same bytes for the same request.
"""

from __future__ import annotations

import json
import math

from .graph import Graph
from .layout import layout
from .presets import get_preset, load_presets
from .program import LITERAL_RANGE, MAX_LITERAL, Program, ProgramError, with_inputs
from .text import local_text
from .again import backward_again
from .descent import MAX_STEPS, Move, descend, descend_moves
from .forward_mode import forward_mode
from .naive import naive_recursion
from .nudge import nudge_input
from .paths import FAMILIES, growth, path_sums
from .trace import correct_backward, experiment, forward_frames

MAX_REQUEST_CHARS = 200_000


class RequestError(Exception):
    def __init__(self, message: str, kind: str = "request"):
        super().__init__(message)
        self.message = message
        self.kind = kind


_PARSED: list[Program] = []  # the programs of the request being answered

# Where the inputs' number literals are in the last few programs parsed. A request
# that changes input values names a program the page has just loaded; knowing its
# spans, the new values are written into the source without parsing it first.
_RECENT_SPANS: dict[str, dict[str, tuple[int, int, int, int]]] = {}
_RECENT_LIMIT = 8


def _parse(source: str, values: dict | None = None) -> Program:
    program = Program.parse(source, values)
    _PARSED.append(program)
    if not values:
        _RECENT_SPANS.pop(source, None)
        _RECENT_SPANS[source] = dict(program.input_spans)
        while len(_RECENT_SPANS) > _RECENT_LIMIT:
            del _RECENT_SPANS[next(iter(_RECENT_SPANS))]  # the oldest
    return program


def handle(request: str) -> str:
    """Answer one request (a JSON string) with one JSON string."""
    try:
        return _dumps(_answer(request))
    finally:
        # The answer is plain data now; take the graphs apart so freeing them is shallow.
        for program in _PARSED:
            program.release()
        _PARSED.clear()


def _answer(request: str) -> dict:
    try:
        answer = _dispatch(_read(request))
    except ProgramError as error:
        answer = _error(error.message, "program", line=error.line, col=error.col)
    except RequestError as error:
        answer = _error(error.message, error.kind)
    except Exception as error:  # a bug: report it as data, never as a traceback
        answer = _error(f"Something went wrong inside the engine ({type(error).__name__}: {error}).", "internal")
    return answer


def _read(request) -> dict:
    if not isinstance(request, str):
        raise RequestError("A request must be a JSON string.")
    if len(request) > MAX_REQUEST_CHARS:
        raise RequestError(f"The request is longer than {MAX_REQUEST_CHARS:,} characters.")
    try:
        data = json.loads(request)
    except (ValueError, RecursionError):
        raise RequestError("The request isn't valid JSON.") from None
    if not isinstance(data, dict) or not isinstance(data.get("cmd"), str):
        raise RequestError('A request must be an object with a "cmd", like {"cmd": "presets"}.')
    return data


def _dispatch(request: dict) -> dict:
    cmd = request["cmd"]
    if cmd == "presets":
        return {"ok": True, "presets": [
            {"id": p["id"], "title": p.get("title", p["id"]), "summary": p.get("summary", ""),
             "program": p["program"]} for p in load_presets()]}
    if cmd == "preset":
        preset = dict(_preset(request.get("id")))
        preset["checkpoints"] = preset.pop("checkpoint", [])  # the TOML table is [[checkpoint]]
        return {"ok": True, "preset": preset}
    if cmd in _MODES:
        return _MODES[cmd](request)
    raise RequestError(f'Unknown command "{_short(cmd)}"; use ' + ", ".join(["presets", "preset", *_MODES]) + ".")


def _preset(preset_id) -> dict:
    if not isinstance(preset_id, str):
        raise RequestError("A preset id must be a string.")
    try:
        return get_preset(preset_id)
    except KeyError:
        raise RequestError(f'There is no preset called "{_short(preset_id)}".') from None


# -- load: a program (or preset) → graph, layout, frames and an optional experiment --------


def _program(request: dict) -> tuple[str | None, str, Program]:
    """The preset or program a request names, with its new input values applied."""
    preset_id, source = request.get("preset"), request.get("program")
    if (preset_id is None) == (source is None):
        raise RequestError('Give either "preset" or "program", not both or neither.')
    if preset_id is not None:
        source = _preset(preset_id)["program"]
    elif not isinstance(source, str):
        raise RequestError('"program" must be a string.')
    # A byte-order mark pasted from an editor is not part of the program (and would
    # shift the columns where new input values are written).
    source = source.removeprefix("\ufeff")
    values = _values(request.get("values"))
    if values:
        # Write the new values into the source, so the code shown matches the graph.
        source = with_inputs(source, _input_spans(source, values), values)
    return preset_id, source, _parse(source)


def _input_spans(source: str, values: dict[str, float]) -> dict[str, tuple[int, int, int, int]]:
    """Where each input's literal is in ``source``, checking that ``values`` names only inputs."""
    spans = _RECENT_SPANS.get(source)
    if spans is None:
        spans = _parse(source, values).input_spans  # raises if the program or a value is wrong
    unknown = sorted(set(values) - set(spans))
    if unknown:
        raise ProgramError(f"There is no input named {unknown[0]} to change.", 1, 1)
    return spans


def _graph(request: dict) -> tuple[Graph, list[float]]:
    program = _program(request)[2]
    graph = Graph.of(program.output, program.nodes)
    return graph, correct_backward(graph)[1]


def load(request: dict) -> dict:
    """The whole trace of a program: graph, layout, forward and backward frames."""
    preset_id, source, program = _program(request)
    graph = Graph.of(program.output, program.nodes)
    backward, grads = correct_backward(graph)
    order = request.get("order")
    mode = _choice(request.get("mode", "push"), ("push", "pull"), "mode")
    return {
        "ok": True,
        "preset": preset_id,
        "program": source,
        "nodes": _nodes(graph, grads),
        "edges": [{"id": e.id, "parent": e.parent, "child": e.child, "slot": e.slot, "local": e.local,
                   "local_text": local_text(graph.values[e.child], e.slot)} for e in graph.edges],
        "output": graph.output,
        "inputs": graph.inputs,
        "unused": _unused(program, graph),
        "layout": layout(graph),
        "forward": forward_frames(graph),
        "backward": backward,
        "experiment": None if order is None else experiment(graph, _order(graph, order), grads, mode),
    }


def naive(request: dict) -> dict:
    """The recursive backward without a topological sort (lesson 002's grad_fn)."""
    graph, grads = _graph(request)
    return {"ok": True, **naive_recursion(graph, grads)}


def forward(request: dict) -> dict:
    """One forward-mode (tangent) pass with respect to the input named by "wrt"."""
    graph, _ = _graph(request)
    return {"ok": True, **forward_mode(graph, _input(graph, request.get("wrt")))}


def paths(request: dict) -> dict:
    """Every path from the input "wrt" to the output, with products that sum to its grad."""
    graph, grads = _graph(request)
    wrt = _input(graph, request.get("wrt"))
    return {"ok": True, **path_sums(graph, wrt, grads[wrt])}


def growth_table(request: dict) -> dict:
    """Path-enumeration cost against one backward pass on ever bigger graphs."""
    family = _choice(request.get("family", "diamonds"), tuple(FAMILIES), "family")
    sizes = request.get("sizes", list(range(1, 11)))
    if (not isinstance(sizes, list) or not 0 < len(sizes) <= 60
            or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= FAMILIES[family] for n in sizes)):
        raise RequestError(f'"sizes" must be a list of whole numbers from 1 to {FAMILIES[family]}.')
    return {"ok": True, "family": family, "rows": growth(family, sizes)}


def again(request: dict) -> dict:
    """backward() called a second time: without zero_grad every grad is added twice."""
    graph, grads = _graph(request)
    return {"ok": True, **backward_again(graph, grads, _flag(request.get("zero_grad", False), "zero_grad"))}


def descent(request: dict) -> dict:
    """Gradient descent (or ascent) on chosen inputs: equal steps, or the learner's own moves."""
    _, source, program = _program(request)
    if "moves" in request:
        return {"ok": True, **descend_moves(source, _moves(request, program))}
    names = _input_names(request.get("inputs", list(program.inputs)), program)
    rate = _rate(request.get("rate", 0.1))
    steps = request.get("steps", 1)
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise RequestError(f'"steps" must be a whole number from 1 to {MAX_STEPS}.')
    ascend = _flag(request.get("ascend", False), "ascend")
    return {"ok": True, **descend(source, {}, names, rate, steps, ascend)}


def _moves(request: dict, program: Program) -> list[Move]:
    """ "moves": [{"ascend": false, "rate": 0.1, "inputs": ["x1"]}, ...], each checked like a step."""
    if any(key in request for key in ("steps", "rate", "ascend", "inputs")):
        raise RequestError('With "moves", each move has its own "ascend", "rate" and "inputs"; '
                           'leave out "steps", "rate", "ascend" and "inputs".')
    moves = request["moves"]
    if not isinstance(moves, list) or len(moves) > MAX_STEPS or not all(isinstance(m, dict) for m in moves):
        raise RequestError(f'"moves" must be a list of at most {MAX_STEPS} moves, like '
                           '[{"ascend": false, "rate": 0.1, "inputs": ["x1"]}].')
    return [Move(_flag(m.get("ascend", False), "ascend"), _rate(m.get("rate", 0.1)),
                 _input_names(m.get("inputs", list(program.inputs)), program)) for m in moves]


def _input_names(names, program: Program) -> list[str]:
    if not isinstance(names, list) or not names or not all(name in program.inputs for name in names):
        raise RequestError('"inputs" must list input names of this program, like ["x1", "x2"].')
    return names


def _rate(rate) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 10:
        raise RequestError("The learning rate must be a number above 0 and at most 10.")
    return float(rate)


def _flag(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(f'"{what}" must be true or false.')
    return value


def nudge(request: dict) -> dict:
    """Nudge one input by h: the output's real change next to grad × h, and the central
    finite difference (f(x+h) - f(x-h)) / 2h next to the autodiff grad."""
    _, source, program = _program(request)
    graph = Graph.of(program.output, program.nodes)
    wrt = _input(graph, request.get("wrt"))
    h = request.get("h", 1e-3)
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not 0 < abs(h) <= 1:
        raise RequestError('"h" must be a small number, above 0 and at most 1, like 0.001.')
    return {"ok": True, **nudge_input(source, program, graph, wrt, h)}


_MODES = {"load": load, "nudge": nudge, "naive": naive, "forward_mode": forward, "paths": paths, "growth": growth_table,
          "again": again, "descend": descent}


def _input(graph: Graph, label) -> int:
    for node in graph.inputs:
        if graph.label(node) == label:
            return node
    names = ", ".join(graph.label(n) for n in graph.inputs)
    raise RequestError(f'"wrt" must name an input of this graph: {names}.')


def _choice(value, allowed: tuple, what: str):
    if value not in allowed:
        raise RequestError(f'"{what}" must be one of ' + ", ".join(allowed) + ".")
    return value


def _unused(program: Program, graph: Graph) -> list[str]:
    """Variables the output doesn't depend on (they are not drawn)."""
    drawn = set(graph.values)
    return sorted(name for name, value in program.variables.items() if value not in drawn)


def _nodes(graph: Graph, grads) -> list[dict]:
    nodes = []
    for i, value in enumerate(graph.values):
        nodes.append({
            "id": i, "label": value.label, "op": value._op, "expr": graph.expressions[i],
            "data": value.data, "grad": grads[i], "line": value.line, "col": value.col,
            "parents": graph.parent_edges[i], "children": graph.child_edges[i],
            "is_input": graph.is_input(i), "is_output": i == graph.output,
        })
    return nodes


def _values(values) -> dict[str, float]:
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise RequestError('"values" must map input names to numbers, like {"a": 3}.')
    checked = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RequestError(f"The new value of {_short(name)} must be a number.")
        if not math.isfinite(value) or abs(value) > MAX_LITERAL:
            raise RequestError(f"The new value of {_short(name)} must be a finite number {LITERAL_RANGE}.")
        checked[name] = float(value)
    return checked


def _order(graph: Graph, order) -> list[int]:
    """A visit order given as node labels → node ids; every node exactly once."""
    if not isinstance(order, list) or not all(isinstance(label, str) for label in order):
        raise RequestError('"order" must be a list of node labels.', "order")
    ids = {graph.label(i): i for i in range(len(graph))}
    seen: dict[int, None] = {}  # insertion-ordered, and a membership test in O(1)
    for label in order:
        if label not in ids:
            raise RequestError(f'There is no node called "{_short(label)}" in this graph.', "order")
        if ids[label] in seen:
            raise RequestError(f"{_short(label)} appears twice in the visit order; visit each node once.", "order")
        seen[ids[label]] = None
    missing = [graph.label(i) for i in range(len(graph)) if i not in seen]
    if missing:
        raise RequestError(f"The visit order leaves out {missing[0]}; every node must be visited once.", "order")
    return list(seen)


# -- JSON -------------------------------------------------------------------------------------


def _error(message: str, kind: str, **where) -> dict:
    return {"ok": False, "error": {"message": message, "kind": kind, **where}}


def _dumps(answer: dict) -> str:
    try:
        return json.dumps(answer, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a nan or an inf somewhere: spell them the way docs/api.md says
        return json.dumps(_finite(answer), separators=(",", ":"), allow_nan=False)


def _finite(x):
    """Non-finite floats as the strings "NaN", "Infinity", "-Infinity" (JSON has no nan)."""
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        return x
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["handle"]
