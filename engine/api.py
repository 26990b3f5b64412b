"""The JSON-in, JSON-out facade the web page calls (see docs/api.md).

``handle(request)`` takes one JSON string and returns one JSON string. Nothing raises
across this boundary: a bad program, a bad request or a bug in the engine all come back as
``{"ok": false, "error": {...}}`` with a sentence a learner can read. The output is
deterministic, so CPython and Pyodide give the same bytes for the same request.

``handle(request, source)`` also answers for a graph that is neither a preset nor a
program (a learner's own, read by :mod:`engine.foreign`): a request that names no preset
and no program is about ``source`` (docs/api.md, "A graph of your own").

The commands about the graph itself (``load``, ``nudge``) are here; every other one is a
mode's, declared in its module of ``engine/modes/`` and found by :mod:`engine.registry`.
"""

from __future__ import annotations

import json
import math
import zlib
from functools import cached_property

from . import layout as layouts
from .graph import Graph, Recomputed
from .groups import GroupError
from .layout import layout
from .level import Grouped, LevelError, grouped_graph, grouped_request
from .nudge import nudge_input
from .presets import get_preset, load_presets, visit_order_ids
from .program import LITERAL_RANGE, MAX_LITERAL, Program, ProgramError, with_inputs
from .questions import questions
from .registry import Command, Input, Param, RequestError, modes
from .text import short
from .trace import RULES, correct_backward, experiment, forward_frames, visit_texts

MAX_REQUEST_CHARS = 200_000


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


def handle(request: str | dict, source=None) -> str:
    """Answer one request (a JSON string; from Python, a dict is read as the JSON it writes)
    with one JSON string.

    ``source`` is what a request that names neither a "preset" nor a "program" is about:

    * ``{"preset": id}`` or ``{"program": text}``: as if the request named it;
    * a graph of its own, such as an :class:`engine.foreign.Foreign`: an object with

      - ``graph()``: the graph (a :class:`Graph` with its own local derivatives, whose
        ``expressions``, ``rules``, ``local_texts`` and ``forward_texts`` are its texts);
      - ``recompute(values)``: a new such graph with those inputs changed (by label;
        ``{}``: none), every other node computed again; for "values", nudge and descent;
      - optionally ``about()``: a dict the load answer carries as "graph".

      Each may refuse with a ``ValueError`` whose text says why (a graph that can't be
      computed at new values, an input it doesn't have): the answer is that sentence as an
      error of kind "graph".

    Without ``source`` (the page), such a request is an error, as it always was.
    """
    before = _RESTS[:]
    try:
        return _dumps(_answer(request, source))
    finally:
        # A graph that an answer in two parts still owes its rest is taken apart once the
        # rest is written (or another answer in two parts replaces it).
        kept = {id(program) for entry in _RESTS for program in entry.programs}
        for entry in before:
            if entry not in _RESTS:
                _release(entry.programs)
        _release([program for program in _PARSED if id(program) not in kept])
        _PARSED.clear()


# -- an answer in two parts ------------------------------------------------------------------

# From this many nodes on, a load that asks for it (``"rest_later": true``) leaves its backward
# visits' sentences and its questions for a second request, {"cmd": "rest"}: they are a third
# of a big program's answer and of the time it takes, and the page shows neither until the
# learner steps there (docs/api.md, "An answer in two parts").
REST_LATER_FROM = 300


class _Rest:
    """The rest of a load answered in two parts: its backward visits' sentences and its
    questions, worked out from the graph and its backward frames as they were whole."""

    def __init__(self, key: str, graph: Graph, backward: list[dict], checkpoints, programs: list[Program]):
        self.key = key
        self.graph = graph
        self.backward = [dict(frame) for frame in backward]  # before _sent takes pushes apart
        self.checkpoints = checkpoints
        self.programs = programs  # taken apart once the rest is written

    def answer(self) -> dict:
        return {
            "ok": True,
            "texts": visit_texts(self.graph, self.backward),
            "questions": questions(self.graph, self.backward, self.checkpoints),
        }


# The last few answers in two parts whose rest has not been asked for yet, oldest first (a
# few, for the widgets that share one engine and may each load a big graph before asking).
_RESTS: list[_Rest] = []
_RESTS_LIMIT = 4


def _keep_rest(subject, backward: list[dict], checkpoints) -> str:
    """Keep what the rest of this answer needs (the oldest kept one goes, past the limit); the
    key that asks for it: a checksum of what the graph is made from, so the same request
    always gets the same answer."""
    made_of = json.dumps([subject.preset, subject.program, getattr(subject, "values", None)], sort_keys=True)
    key = f"{zlib.crc32(made_of.encode()):08x}"
    _RESTS[:] = [kept for kept in _RESTS if kept.key != key]
    _RESTS.append(_Rest(key, subject.graph, backward, checkpoints, list(_PARSED)))
    del _RESTS[:-_RESTS_LIMIT]
    return key


def rest(request: dict, source=None) -> dict:
    """The second part of an answer in two parts: ``{"cmd": "rest", "rest": key}``, with
    the key that answer gave as its "rest"."""
    key = request.get("rest")
    found = next((kept for kept in _RESTS if kept.key == key), None)
    if found is None:
        raise RequestError(
            '"rest" gives the second part of a recent answer that came in two parts, once: '
            'its "rest" key is needed, and this one is not (or was answered already).'
        )
    _RESTS.remove(found)
    return found.answer()


def _release(programs: list[Program]) -> None:
    # The answer is plain data now; take the graphs apart so freeing them is shallow.
    for program in programs:
        program.release()


def _answer(request, source) -> dict:
    try:
        answer = _dispatch(_read(request), source)
    except ProgramError as error:
        answer = _error(error.message, "program", line=error.line, col=error.col)
    except RequestError as error:
        answer = _error(error.message, error.kind)
    except Exception as error:  # a bug: report it as data, never as a traceback
        answer = _error(f"Something went wrong inside the engine ({type(error).__name__}: {error}).", "internal")
    return answer


def _read(request) -> dict:
    if isinstance(request, dict):  # the same checks as the JSON string it writes
        try:
            request = json.dumps(request)
        except (TypeError, ValueError):
            raise RequestError("The request can't be written as JSON.") from None
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


def _dispatch(request: dict, source) -> dict:
    cmd = request["cmd"]
    if cmd == "presets":
        return {
            "ok": True,
            "presets": [
                {
                    "id": p["id"],
                    "title": p.get("title", p["id"]),
                    "summary": p.get("summary", ""),
                    "program": p["program"],
                }
                for p in load_presets()
            ],
        }
    if cmd == "preset":
        preset = dict(_preset(request.get("id")))
        preset["checkpoints"] = preset.pop("checkpoint", [])  # the TOML table is [[checkpoint]]
        return {"ok": True, "preset": preset}
    if cmd == "modes":
        return {"ok": True, "modes": [mode.describe() for mode in modes()]}
    names_graph = request.get("preset") is not None or request.get("program") is not None
    grouped_answer = getattr(source, "grouped_answer", None)
    if cmd in ("load", "expand") and not names_graph and callable(grouped_answer):
        return grouped_answer(request)  # a grouped graph (engine/network.py), at the level on screen
    if cmd in _GRAPH_COMMANDS:
        return _GRAPH_COMMANDS[cmd](request, source)
    if cmd in COMMANDS:
        return _run(COMMANDS[cmd], request, source)
    known = ["presets", "preset", "modes", *_GRAPH_COMMANDS, *COMMANDS]
    raise RequestError(f'Unknown command "{short(cmd)}"; use ' + ", ".join(known) + ".")


def _run(command: Command, request: dict, source) -> dict:
    """A command's answer: the graph the request names (if it needs one), then each of its
    parameters read and checked, in the order it declares them."""
    if command.check is not None:
        command.check(request)
    subject = _subject(request, source) if command.graph else None
    params = {param.name: param.read(request, subject) for param in command.params}
    return {"ok": True, **command.answer(subject, **params)}


def _preset(preset_id) -> dict:
    if not isinstance(preset_id, str):
        raise RequestError("A preset id must be a string.")
    try:
        return get_preset(preset_id)
    except KeyError:
        raise RequestError(f'There is no preset called "{short(preset_id)}".') from None


def warm_up() -> None:
    """Answer a big program's load, and its rest, once, and forget it: the first big graph an
    engine answers pays for code and memory nothing smaller touches (under Pyodide, V8
    compiles the interpreter's paths for it; the heap grows), ~70 ms of a learner's first
    1,000-node program. The page's worker calls this once it is idle (web/worker.js); what
    the engine keeps between requests (layouts, input spans, rests owed) is left as it was."""
    kept = (dict(layouts._RECENT), dict(_RECENT_SPANS), _RESTS[:])
    _RESTS.clear()  # set aside, so that the warm-up's own answer in two parts pushes none of them out
    try:
        answer = json.loads(handle({"cmd": "load", "program": _WARM_UP_PROGRAM, "rest_later": True}))
        handle({"cmd": "rest", "rest": answer.get("rest")})
    finally:
        layouts._RECENT.clear()
        layouts._RECENT.update(kept[0])
        _RECENT_SPANS.clear()
        _RECENT_SPANS.update(kept[1])
        _RESTS[:] = kept[2]


# 20 inputs, 5 layers of relu(x[i] * x[i+1] + 0.1), their sum: 340 nodes, an answer in two parts.
_WARM_UP_PROGRAM = "\n".join(
    [f"x{i}_0 = 0.{i + 1}" for i in range(20)]
    + [f"x{i}_{k + 1} = relu(x{i}_{k} * x{(i + 1) % 20}_{k} + 0.1)" for k in range(5) for i in range(20)]
    + ["y = " + " + ".join(f"x{i}_5" for i in range(20))]
)


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


class _Program:
    """What a request that names a preset or a program is about."""

    what = "program"

    def __init__(self, request: dict):
        self.preset, self.program, self.parsed = _program(request)
        self.graph = Graph.of(self.parsed.output, self.parsed.nodes)
        self.inputs = list(self.parsed.inputs)  # by name, every input (also one the output doesn't use)
        # The backward pass walks the order the preset's lesson walks, if it names one (new
        # input values keep the graph's shape, so the order still fits); else reverse topological.
        named = get_preset(self.preset).get("visit_order") if self.preset is not None else None
        self.order = visit_order_ids(self.graph, named) if named else None

    @cached_property
    def grads(self) -> list[float]:
        """Every node's grad after the correct backward pass (in the graph's own order)."""
        return correct_backward(self.graph, self.order)[1]

    def unused(self) -> list[str]:
        return _unused(self.parsed, self.graph)

    def forward(self) -> list[dict]:
        return forward_frames(self.graph)

    def about(self) -> None:
        return None

    def input_name(self, node: int) -> str:
        return next(name for name, leaf in self.parsed.inputs.items() if leaf is self.graph.values[node])

    def recompute(self, values: dict[str, float]) -> Program:
        """The program with inputs replaced by name (nudge, descent's steps)."""
        return Program.parse(self.program, values)

    def rewrite(self, values: dict[str, float]) -> Program:
        """The program with the new values written into its source, as a graph answer with
        "values" does (descent's moves; a reassigned input changes only where it was last set)."""
        return Program.parse(with_inputs(self.program, self.parsed.input_spans, values))


class _SourceGraph:
    """What a request that names no preset and no program is about: the ``source`` given to
    :func:`handle`, at the request's "values" (by node label)."""

    what = "graph"
    preset = program = order = None

    def __init__(self, request: dict, source):
        self.source = source
        self.values = _values(request.get("values"))
        self.graph = _asked(source.recompute, self.values) if self.values else _asked(source.graph)
        self.inputs = [self.graph.label(i) for i in self.graph.inputs]

    @cached_property
    def grads(self) -> list[float]:
        return correct_backward(self.graph)[1]

    def unused(self) -> list[str]:
        return []

    def forward(self) -> list[dict]:
        return forward_frames(self.graph, self.graph.forward_texts)

    def about(self) -> dict | None:
        about = getattr(self.source, "about", None)
        return None if about is None else _asked(about)

    def input_name(self, node: int) -> str:
        return self.graph.label(node)

    def recompute(self, values: dict[str, float]) -> Recomputed:
        return Recomputed(_asked(self.source.recompute, {**self.values, **values}))

    rewrite = recompute


def _subject(request: dict, source) -> _Program | _SourceGraph:
    """What the request is about: the preset or program it names, else ``source``'s."""
    if source is None or request.get("preset") is not None or request.get("program") is not None:
        return _Program(request)
    if isinstance(source, dict):
        return _Program({**request, **source})
    return _SourceGraph(request, source)


def _asked(call, *args):
    """``call`` (one of a source's own), with its ValueError said as an error about the graph."""
    try:
        return call(*args)
    except ValueError as error:
        raise RequestError(str(error), "graph") from None


def load(request: dict, source=None) -> dict:
    """The whole trace of a graph: graph, layout, forward and backward frames."""
    subject = _subject(request, source)
    graph = subject.graph
    parts = subject.parsed.groups if subject.what == "program" else None
    if parts and "expanded" in request:  # the graph at the level on screen, as for a learner's network
        # (before anything of the whole graph's answer: its "order" names the boxes drawn, not nodes)
        level = _level(_grouped(graph, subject.parsed), request)
        return {**level, "preset": subject.preset, "program": subject.program}
    split = request.get("rest_later") is True and len(graph) >= REST_LATER_FROM
    backward, grads = correct_backward(graph, subject.order, texts=not split)
    order = request.get("order")
    rule = _choice(request.get("rule", "push"), RULES, "rule")
    local_texts, rules = graph.local_texts, graph.rules
    answer = {
        "ok": True,
        "preset": subject.preset,
        "program": subject.program,
        "nodes": _nodes(graph, grads),
        "edges": [
            {
                "id": e.id,
                "parent": e.parent,
                "child": e.child,
                "slot": e.slot,
                "local": e.local,
                "local_text": local_texts[e.id],
                "rule": rules[e.id],
            }
            for e in graph.edges
        ],
        "output": graph.output,
        "inputs": graph.inputs,
        "unused": subject.unused(),
        "layout": layout(graph),
        "forward": _sent(subject.forward()),
        "backward": backward,
        "experiment": None,
    }
    if order is not None:
        answer["experiment"] = ran = experiment(graph, _order(graph, order), grads, rule)
        ran["frames"] = _sent(ran["frames"])
    # The questions, answered ahead with the mistakes a wrong answer may be (engine/questions.py).
    checkpoints = get_preset(subject.preset)["checkpoint"] if subject.preset is not None else None
    rest_key = _keep_rest(subject, backward, checkpoints) if split else None  # from the frames as they are now
    if not split:
        answer["questions"] = questions(graph, backward, checkpoints)
    answer["backward"] = _sent(backward)  # after the questions: they read each push whole
    about = subject.about()
    if about is not None:
        answer["graph"] = about
    if parts:  # the program's with group(...) blocks (engine/groups.py)
        grouped = _grouped(graph, subject.parsed)
        answer["groups"] = [group.as_dict() for group in grouped.groups.groups.values()]
    if rest_key is not None:
        answer["rest"] = rest_key
    return answer


def _grouped(graph: Graph, parsed) -> Grouped:
    """The graph with the program's groups (``parsed``: its walker: engine/program.py)."""
    try:
        return grouped_graph(graph, parsed.groups, parsed.group_kinds, parsed.tensor_lines)
    except GroupError as error:
        raise RequestError(str(error), "program") from None


def _level(grouped: Grouped, request: dict) -> dict:
    try:
        return grouped_request(grouped, request)
    except LevelError as error:
        raise RequestError(str(error), error.kind) from None


def expand(request: dict, source=None) -> dict:
    """A program's graph with one more of its groups open (``"group"``: its name or id)."""
    subject = _subject(request, source)
    parts = subject.parsed.groups if subject.what == "program" else None
    if not parts:
        raise RequestError('"expand" opens a group of a grouped graph, and this graph has no groups.')
    level = _level(_grouped(subject.graph, subject.parsed), request)
    return {**level, "preset": subject.preset, "program": subject.program}


def nudge(request: dict, source=None) -> dict:
    """Nudge one input by h: the output's real change next to grad × h, and the central
    finite difference (f(x+h) - f(x-h)) / 2h next to the autodiff grad."""
    subject = _subject(request, source)
    graph = subject.graph
    wrt = _WRT.read(request, subject)
    h = request.get("h", 1e-3)
    if isinstance(h, bool) or not isinstance(h, (int, float)) or not 0 < abs(h) <= 1:
        raise RequestError('"h" must be a small number, above 0 and at most 1, like 0.001.')
    return {"ok": True, **nudge_input(graph, wrt, subject.input_name(wrt), h, subject.recompute, subject.order)}


_WRT = Param("wrt", Input())

# The commands about the graph itself; the modes' commands come after them.
_GRAPH_COMMANDS = {"load": load, "nudge": nudge, "expand": expand, "rest": rest}
# Every mode's commands (engine/modes/), by name.
COMMANDS: dict[str, Command] = {command.name: command for mode in modes() for command in mode.commands}


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
        nodes.append(
            {
                "id": i,
                "label": value.label,
                "op": value._op,
                "expr": graph.expressions[i],
                "data": value.data,
                "grad": grads[i],
                "line": value.line,
                "col": value.col,
                "parents": graph.parent_edges[i],
                "children": graph.child_edges[i],
                "is_input": graph.is_input(i),
                "is_output": i == graph.output,
            }
        )
    return nodes


def _sent(frames: list[dict]) -> list[dict]:
    """Frames as a graph answer sends them (docs/api.md): each number once.

    A forward step, a seed and a push visit change exactly what the frame itself says
    (the node's data; the seed's before and after; each push's parent, before and after),
    so their ``changes`` are left out. A push leaves out what its edge says (``parent``,
    ``local``, ``rule``) and what its frame says (``upstream``). A big program's answer is
    a fifth smaller for it, and as much quicker to write, send and read. A pull visit (its
    grad is a sum the pulls don't list) is sent whole.
    """
    for frame in frames:
        kind = frame.get("kind")
        if kind in (None, "seed", "visit"):  # None: a forward step
            del frame["changes"]
        if kind == "visit":
            frame["pushes"] = [
                {
                    "edge": p["edge"],
                    "contribution": p["contribution"],
                    "before": p["before"],
                    "after": p["after"],
                    "late": p["late"],
                }
                for p in frame["pushes"]
            ]
    return frames


def _values(values) -> dict[str, float]:
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise RequestError('"values" must map input names to numbers, like {"a": 3}.')
    checked = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RequestError(f"The new value of {short(name)} must be a number.")
        if not math.isfinite(value) or abs(value) > MAX_LITERAL:
            raise RequestError(f"The new value of {short(name)} must be a finite number {LITERAL_RANGE}.")
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
            raise RequestError(f'There is no node called "{short(label)}" in this graph.', "order")
        if ids[label] in seen:
            raise RequestError(f"{short(label)} appears twice in the visit order; visit each node once.", "order")
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


__all__ = ["handle"]
