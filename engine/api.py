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
from .program import LITERAL_RANGE, MAX_LITERAL, Program, ProgramError
from .text import expression_text, fmt, local_text
from .trace import correct_backward, experiment, forward_frames

MAX_REQUEST_CHARS = 200_000


class RequestError(Exception):
    def __init__(self, message: str, kind: str = "request"):
        super().__init__(message)
        self.message = message
        self.kind = kind


def handle(request: str) -> str:
    """Answer one request (a JSON string) with one JSON string."""
    try:
        answer = _dispatch(_read(request))
    except ProgramError as error:
        answer = _error(error.message, "program", line=error.line, col=error.col)
    except RequestError as error:
        answer = _error(error.message, error.kind)
    except Exception as error:  # a bug: report it as data, never as a traceback
        answer = _error(f"Something went wrong inside the engine ({type(error).__name__}: {error}).", "internal")
    return _dumps(answer)


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
        return {"ok": True, "preset": _preset(request.get("id"))}
    if cmd == "load":
        return load(request)
    raise RequestError(f'Unknown command "{_short(cmd)}"; use presets, preset or load.')


def _preset(preset_id) -> dict:
    if not isinstance(preset_id, str):
        raise RequestError("A preset id must be a string.")
    try:
        return get_preset(preset_id)
    except KeyError:
        raise RequestError(f'There is no preset called "{_short(preset_id)}".') from None


# -- load: a program (or preset) → graph, layout, frames and an optional experiment --------


def load(request: dict) -> dict:
    preset_id, source = request.get("preset"), request.get("program")
    if (preset_id is None) == (source is None):
        raise RequestError('Give either "preset" or "program", not both or neither.')
    if preset_id is not None:
        source = _preset(preset_id)["program"]
    elif not isinstance(source, str):
        raise RequestError('"program" must be a string.')
    values = _values(request.get("values"))
    program = Program.parse(source, values)
    if values:
        # Write the new values into the source, so the code shown matches the graph.
        source = _with_inputs(program, values)
        program = Program.parse(source)
    graph = Graph.of(program.output)
    backward, grads = correct_backward(graph)
    order = request.get("order")
    return {
        "ok": True,
        "preset": preset_id,
        "program": source,
        "nodes": _nodes(graph, grads),
        "edges": [{"id": e.id, "parent": e.parent, "child": e.child, "slot": e.slot, "local": e.local,
                   "local_text": local_text(graph.values[e.child], e.slot)} for e in graph.edges],
        "output": graph.output,
        "inputs": graph.inputs,
        "unused": sorted(name for name, value in program.variables.items() if value not in set(graph.values)),
        "layout": layout(graph),
        "forward": forward_frames(graph),
        "backward": backward,
        "experiment": None if order is None else experiment(graph, _order(graph, order), grads),
    }


def _nodes(graph: Graph, grads) -> list[dict]:
    nodes = []
    for i, value in enumerate(graph.values):
        nodes.append({
            "id": i, "label": value.label, "op": value._op, "expr": expression_text(value),
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


def _with_inputs(program: Program, values: dict[str, float]) -> str:
    """The program's source with each changed input's number literal replaced."""
    lines = program.source.splitlines(keepends=True)
    # Replace from the end so earlier positions stay valid; ast columns count UTF-8 bytes.
    spans = sorted(((program.input_spans[name], value) for name, value in values.items()), reverse=True)
    for (line, col, end_line, end_col), value in spans:
        first = lines[line - 1].encode()
        last = lines[end_line - 1].encode()
        text = first[:col] + _literal(value).encode() + last[end_col:]
        lines[line - 1:end_line] = [text.decode()]
    return "".join(lines)


def _literal(x: float) -> str:
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


def _order(graph: Graph, order) -> list[int]:
    """A visit order given as node labels → node ids; every node exactly once."""
    if not isinstance(order, list) or not all(isinstance(label, str) for label in order):
        raise RequestError('"order" must be a list of node labels.', "order")
    ids = {graph.label(i): i for i in range(len(graph))}
    seen = []
    for label in order:
        if label not in ids:
            raise RequestError(f'There is no node called "{_short(label)}" in this graph.', "order")
        if ids[label] in seen:
            raise RequestError(f"{_short(label)} appears twice in the visit order; visit each node once.", "order")
        seen.append(ids[label])
    missing = [graph.label(i) for i in range(len(graph)) if i not in set(seen)]
    if missing:
        raise RequestError(f"The visit order leaves out {missing[0]}; every node must be visited once.", "order")
    return seen


# -- JSON -------------------------------------------------------------------------------------


def _error(message: str, kind: str, **where) -> dict:
    return {"ok": False, "error": {"message": message, "kind": kind, **where}}


def _dumps(answer: dict) -> str:
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


__all__ = ["handle", "load", "fmt"]
