"""Your code: run a learner's own ``Value`` class on a graph, and say what its backward() did.

This is the only module of the engine that executes a learner's text. ``engine.api`` never
imports it, so neither the engine's worker nor the notebook can reach it; the page's code
worker (its own Pyodide) calls :func:`run`, one JSON string in, one JSON string out, never
an exception (docs/yourcode.md has the request and the answer).

A run:

1. checks the request's program with :mod:`engine.program`'s parser (it is never run), then
   compiles the learner's module (a syntax error comes back at its line and column) and
   runs it in a fresh namespace under the file name ``<your code>``;
2. builds the program's graph with **their** ``Value``: the program's syntax tree is walked here
   and each operation is a call of their operator (``a * b`` calls ``a.__mul__(b)``,
   ``3 * a`` calls ``a.__rmul__(3)``, ``tanh(a)`` calls ``a.tanh()``). An operation their
   class lacks is named before the graph is built, with the presets their class can build;
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
"""

from __future__ import annotations

import ast
import json
import math
import numbers
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from . import check as _check
from .api import _dumps, handle
from .foreign import Foreign, ForeignGraphError, close, rule, untouched
from .mistakes import MISTAKES, diagnose, wrong_answers
from .ops import INFIX, OPS
from .presets import get_preset, load_presets
from .program import MAX_LITERAL, Program, ProgramError, statements
from .text import code_name, fmt
from .trace import correct_backward, experiment

LEARNER_FILE = "<your code>"  # the file name their code is compiled under, and recognised by
MAX_REQUEST_CHARS = 200_000
MAX_SOURCE_CHARS = 50_000
# How much of their code one run may execute before it is stopped as endless: jumps back (a
# loop's turns) where sys.monitoring can count them (Python 3.12 and later, so Pyodide), else
# instructions (Python 3.11's tracing; a loop on one line makes no line events to count).
MAX_JUMPS = 1_000_000
MAX_INSTRUCTIONS = 5_000_000
_MONITORING = getattr(sys, "monitoring", None)
_TOOL_NAME = "gradwalk: your code"
FULL_SWEEP_NODES = 200  # up to this many nodes, every grad is compared after every line
_EXERCISE_DIR = Path(__file__).resolve().parent / "exercises"
# The exercises, found in engine/exercises/ (one file each, <n>_<id>.py) and listed in the
# order of n: a new exercise is one new file.
_EXERCISE_FILES = {
    path.stem.split("_", 1)[1]: path
    for path in sorted(_EXERCISE_DIR.glob("[0-9]*_*.py"), key=lambda path: int(path.stem.split("_", 1)[0]))
}
EXERCISES = tuple(_EXERCISE_FILES)
_WRITE_HERE = "# >>> write here:"
_END = "# <<<"
_NO_BACKWARD_NOTE = "doesn't call a _backward on each node"  # engine.check's note, untrue once pushes show visits
# Frames of engine/check.py's wrapping sit between a visit and its caller; the file name its
# code objects carry (a precompiled engine's too) is the one to compare with.
_CHECK_FILE = _check._recorder.__code__.co_filename

# How Python's syntax tree writes each operator the engine knows.
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
assert set(_BINARY.values()) == set(INFIX)


class _Refusal(Exception):
    """An answer that is an error: its kind, its sentence and where."""

    def __init__(self, kind: str, message: str, **more):
        super().__init__(message)
        self.error = {"kind": kind, "message": message, **more}


class _OutOfSteps(BaseException):
    """Raised inside their code when it runs past the budget (a BaseException, so that an
    ``except Exception`` of theirs doesn't swallow it)."""


# -- the entry point ------------------------------------------------------------------------------


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


def exercise(exercise_id: str) -> dict:
    """One exercise as the page shows it: its title, the scaffold (the part to write left
    as ``pass``) and the solution, both whole modules."""
    if exercise_id not in EXERCISES:
        raise KeyError(exercise_id)
    solution = _EXERCISE_FILES[exercise_id].read_text(encoding="utf-8")
    title = solution.split('"""', 2)[1].strip().splitlines()[0] if solution.startswith('"""') else exercise_id
    return {"id": exercise_id, "title": title, "scaffold": scaffold_of(solution), "solution": solution}


def scaffold_of(solution: str) -> str:
    """``solution`` with the lines between each ``# >>> write here:`` and ``# <<<`` replaced
    by ``pass`` at the marker's indentation (the markers stay, so the hint does)."""
    out, inside = [], False
    for line in solution.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(_WRITE_HERE):
            out.append(line)
            out.append(line[: len(line) - len(line.lstrip())] + "pass\n")
            inside = True
        elif stripped == _END:
            out.append(line)
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def _request(request_json) -> dict:
    if not isinstance(request_json, str):
        raise _Refusal("request", "A request must be a JSON string.")
    if len(request_json) > MAX_REQUEST_CHARS:
        raise _Refusal("request", f"The request is longer than {MAX_REQUEST_CHARS:,} characters.")
    try:
        request = json.loads(request_json)
    except (ValueError, RecursionError):
        raise _Refusal("request", "The request isn't valid JSON.") from None
    if not isinstance(request, dict):
        raise _Refusal("request", "A request must be a JSON object.")
    if request.get("exercise") not in EXERCISES:
        raise _Refusal("request", '"exercise" must be one of ' + ", ".join(EXERCISES) + ".")
    source = request.get("source")
    if not isinstance(source, str):
        raise _Refusal("request", '"source" must be your code, as a string.')
    if len(source) > MAX_SOURCE_CHARS:
        raise _Refusal("request", f"Your code is {len(source):,} characters long; the limit is {MAX_SOURCE_CHARS:,}.")
    if (request.get("program") is None) == (request.get("preset") is None):
        raise _Refusal("request", 'Give either "program" or "preset", not both or neither.')
    if request.get("preset") is not None:
        try:
            request["program"] = get_preset(request["preset"])["program"]
        except (KeyError, TypeError):
            raise _Refusal("request", "There is no such preset.") from None
    if not isinstance(request["program"], str):
        raise _Refusal("request", '"program" must be a string.')
    values = request.get("values") or {}
    if not isinstance(values, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= MAX_LITERAL
        for v in values.values()
    ):
        raise _Refusal("request", '"values" must map input names to numbers, like {"a": 3}.')
    request["values"] = {name: float(v) for name, v in values.items()}
    return request


def _run(request: dict) -> dict:
    tree = _checked_program(request["program"].removeprefix("\ufeff"), request["values"])
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
    built = _Builder(value_class, watch, request["values"]).build(tree)
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
        i for i, node in enumerate(foreign.nodes) if not node.parents and id(foreign.objects[i]) not in built.inputs
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


def _checked_program(text: str, values: dict) -> ast.Module:
    """The program's syntax tree, once engine.program has accepted it (its limits and its
    subset); a program outside them is refused in engine.program's words."""
    try:
        Program.parse(text, values).release()
    except ProgramError as error:
        raise _Refusal("program", error.message, line=error.line, col=error.col) from None
    return ast.parse(text)


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


# -- their module ------------------------------------------------------------------------------------


def _compiled(source: str):
    """Their module, compiled under the name <your code>; a syntax error at its line and column."""
    try:
        code = compile(source, LEARNER_FILE, "exec", dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno or 1
        raise _Refusal(
            "syntax",
            f"{type(error).__name__}: {error.msg}",
            line=line,
            col=max(error.offset or 1, 1),
        ) from None
    except (ValueError, MemoryError, RecursionError) as error:  # a NUL character; nesting too deep
        raise _Refusal("syntax", f"Python can't read your code: {error}", line=1, col=1) from None
    return code


def _load(code, watch: _Watch) -> type:
    """Run their compiled module in a fresh namespace; its class Value. (Its __name__ is not
    "__main__", so a block of theirs under ``if __name__ == "__main__":`` doesn't run.)"""
    namespace = {"__name__": "yourcode"}
    watch.guarded(exec, code, namespace, runtime=True)
    value_class = namespace.get("Value")
    if not isinstance(value_class, type):
        raise _Refusal("value", "Your code must define a class called Value.")
    return value_class


def _has(value_class: type, method: str) -> bool:
    try:
        return callable(getattr(value_class, method, None))
    except Exception:
        return False


# Each augmented assignment as it is written: += for ast.Add, and so on.
_AUGMENTED = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=", ast.Mod: "%=",
    ast.Pow: "**=", ast.MatMult: "@=", ast.LShift: "<<=", ast.RShift: ">>=", ast.BitOr: "|=",
    ast.BitXor: "^=", ast.BitAnd: "&=",
}  # fmt: skip


def _grad_stores(source: str) -> dict[int, list[tuple[str | None, str]]]:
    """Each line of their code that writes a .grad: (the name it writes through, when it is a
    plain name such as ``self``; the operator, "=" or "+=")."""
    stores: dict[int, list[tuple[str | None, str]]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets, op = node.targets, "="
        elif isinstance(node, ast.AugAssign):
            targets, op = [node.target], _AUGMENTED[type(node.op)]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr == "grad":
                name = target.value.id if isinstance(target.value, ast.Name) else None
                stores.setdefault(node.lineno, []).append((name, op))
    return stores


def _place_of(error) -> dict:
    """The line of their code an exception came from: the last frame of theirs it passed."""
    line = None
    tb = getattr(error, "__traceback__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == LEARNER_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return {} if line is None else {"line": line}


def _raised_text(error: BaseException) -> str:
    """An exception in Python's own words: ``ZeroDivisionError: division by zero``."""
    detail = str(error)
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__


def _def_line(function) -> int | None:
    """The line of their code where ``function`` (a function, method or closure) is defined."""
    function = getattr(function, "__func__", function)
    code = getattr(function, "__code__", None)
    if code is not None and code.co_filename == LEARNER_FILE:
        return code.co_firstlineno
    return None


class _Watch:
    """Their code, traced: a step budget always, and while a :class:`_Run` records, its events."""

    def __init__(self, stores: dict):
        self.steps = 0
        self.tool: int | None = None  # the sys.monitoring tool counting their loops' turns, if any
        self.stores = stores  # _grad_stores of their code
        self.recorder: _Run | None = None
        self.line = None  # the line of theirs that ran last

    def guarded(self, function, *args, runtime: bool = False, line: int | None = None):
        """``function(*args)`` with their frames traced. An endless run is refused; with
        ``runtime``, so is an exception from their code, at its line, in Python's words
        (``line`` when no line of theirs ran: a call that doesn't fit their method's signature)."""
        trace, profile = sys.gettrace(), sys.getprofile()
        self.tool = _start_counting_jumps(self.jump)
        sys.settrace(self._call)
        if self.recorder is not None and profile is None:  # a profiler already there is left alone
            sys.setprofile(self.recorder.on_profile)
        try:
            return function(*args)
        except _OutOfSteps:
            raise _Refusal(
                "steps",
                "Your code ran too long without finishing: is there an endless loop?",
                **({} if self.line is None else {"line": self.line}),
            ) from None
        except (Exception, SystemExit) as error:
            if not runtime:
                raise
            place = _place_of(error) or ({} if line is None else {"line": line})
            raise _Refusal("runtime", _raised_text(error), type=type(error).__name__, **place) from None
        finally:
            sys.settrace(trace)
            if profile is None:
                sys.setprofile(None)
            _stop_counting_jumps(self.tool)
            self.tool = None

    def jump(self, code, offset, destination):
        """sys.monitoring's JUMP event: a loop of theirs turning once more."""
        if code.co_filename != LEARNER_FILE:
            return _MONITORING.DISABLE  # never asked again for this place in code that isn't theirs
        self.steps += 1
        if self.steps > MAX_JUMPS:
            self.line = next((line for start, end, line in code.co_lines() if start <= offset < end), self.line)
            raise _OutOfSteps
        return None

    def _call(self, frame, event, arg):
        if frame.f_code.co_filename != LEARNER_FILE:
            return None
        if self.tool is None:  # no sys.monitoring: count each instruction instead
            frame.f_trace_opcodes = True
        if self.recorder is not None:
            self.recorder.on_call(frame)
        return self._local

    def _local(self, frame, event, arg):
        if event == "opcode":
            self.steps += 1
            if self.steps > MAX_INSTRUCTIONS:
                self.line = frame.f_lineno
                raise _OutOfSteps
        elif event == "line":
            self.line = frame.f_lineno
            if self.recorder is not None:
                self.recorder.on_line(frame)
        elif self.recorder is not None:
            if event == "return":
                self.recorder.on_return(frame)
            elif event == "exception":
                self.recorder.pending.pop(frame, None)  # the statement under way didn't finish
        return self._local


def _start_counting_jumps(callback) -> int | None:
    """Have sys.monitoring call ``callback`` on every jump back, with a free tool id (None
    where there is no sys.monitoring, or no free id)."""
    if _MONITORING is None:
        return None
    for tool in (4, 3):
        if _MONITORING.get_tool(tool) is None:
            _MONITORING.use_tool_id(tool, _TOOL_NAME)
            _MONITORING.register_callback(tool, _MONITORING.events.JUMP, callback)
            _MONITORING.set_events(tool, _MONITORING.events.JUMP)
            return tool
    return None


def _stop_counting_jumps(tool: int | None):
    if tool is not None:
        _MONITORING.set_events(tool, 0)
        _MONITORING.register_callback(tool, _MONITORING.events.JUMP, None)
        _MONITORING.free_tool_id(tool)


# -- the program, built with their class ------------------------------------------------------------


class _Literal(float):
    """The number in ``Value(2.0, label="x")``: an input when assigned, a number in an expression."""

    def __new__(cls, number, label, node):
        self = super().__new__(cls, number)
        self.label = label
        self.node = node
        return self


class _Walk:
    """The program's statements, evaluated the way engine.program evaluates them (the same
    inputs, the same folding of plain numbers, the same names), with each operation on a
    value handed to :meth:`apply`. The tree has passed engine.program's checks."""

    def __init__(self, values: dict[str, float]):
        self.values = values
        self.variables: dict = {}
        self.output = None

    def build(self, tree: ast.Module):
        for statement in statements(tree.body):  # a preset's with group(...) blocks name parts only
            self.statement(statement)
        return self

    def statement(self, statement):
        if isinstance(statement, ast.Expr):  # name.backward(), on the last line: the output
            self.output = self.variables[statement.value.func.value.id]
            return
        if isinstance(statement, ast.AugAssign):
            name = statement.target.id
            left = self.variables[name]
            value = self.binary(statement, _BINARY[type(statement.op)], left, self.expression(statement.value))
            self.named(value, name)
        else:
            name = statement.targets[0].id
            result = self.expression(statement.value)
            if isinstance(result, _Literal):
                value = self.input(result, result.label or name, name, result.node)
            elif isinstance(result, float):
                value = self.input(result, name, name, statement.value)
            else:
                value = result
                if not self.has_name(value):
                    self.named(value, name)
        self.variables[name] = value
        self.output = value

    def expression(self, node):
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            return self.variables[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = self.expression(node.operand)
            if isinstance(node.op, ast.UAdd):
                return operand
            return -float(operand) if isinstance(operand, float) else self.apply("neg", operand, (), node)
        if isinstance(node, ast.BinOp):
            left, right = self.expression(node.left), self.expression(node.right)
            return self.binary(node, _BINARY[type(node.op)], left, right)
        function = node.func  # a call: Value(...), tanh(x) or x.tanh()
        if isinstance(function, ast.Name) and function.id == "Value":
            label = next((keyword.value.value.strip() for keyword in node.keywords), None)
            return _Literal(self.expression(node.args[0]), label, node.args[0])
        name, argument = (
            (function.id, node.args[0]) if isinstance(function, ast.Name) else (function.attr, function.value)
        )
        x = self.expression(argument)
        if isinstance(x, float):
            return float(OPS[name].compute(float(x))[0])
        return self.apply(name, x, (), node)

    def binary(self, node, op: str, left, right):
        if isinstance(left, float) and isinstance(right, float):
            return float(OPS[op].compute(float(left), float(right))[0])
        if not isinstance(left, float):
            return self.apply(op, left, (float(right) if isinstance(right, float) else right,), node)
        return self.apply(op, right, (float(left),), node, reflected=True)

    def input(self, number: float, label: str, name: str, node):
        raise NotImplementedError

    def apply(self, op: str, value, args: tuple, node, reflected: bool = False):
        raise NotImplementedError

    def has_name(self, value) -> bool:
        return True

    def named(self, value, name: str):
        pass


@dataclass(frozen=True)
class _Need:
    method: str  # what their class must have: "__mul__", "__rmul__", "tanh"
    name: str  # how the answer names it: the engine's operation ("*", "tanh"), or the reflected method
    text: str  # how a sentence names it
    line: int


class _Needs(_Walk):
    """The methods a program calls on values, found without any class: each value is a token."""

    def __init__(self, values):
        super().__init__(values)
        self.needs: dict[str, _Need] = {}

    def input(self, number, label, name, node):
        return object()

    def apply(self, op, value, args, node, reflected=False):
        entry = OPS[op]
        method = entry.reflected if reflected else entry.method
        if method not in self.needs:
            if reflected:
                text = f"{method} (for a number {entry.symbol} a Value)"
            elif entry.written == "function":
                text = f"{op}()"
            elif op == "neg":
                text = "__neg__ (for -x)"
            else:
                text = f"{entry.symbol} ({method})"
            self.needs[method] = _Need(method, method if reflected else op, text, node.lineno)
        return object()


def _needs(tree: ast.Module, values: dict) -> list[_Need]:
    return list(_Needs(values).build(tree).needs.values())


def _missing_text(missing: list[_Need]) -> tuple[str, dict]:
    listed = [f"{need.text}, used on line {need.line}" for need in missing]
    joined = listed[0] if len(listed) == 1 else "; ".join(listed[:-1]) + "; and " + listed[-1]
    message = f"Your Value class can't build this graph: it has no {joined} of the program."
    return message, {"program_line": missing[0].line}


_PRESET_NEEDS: dict[str, tuple[str, ...]] = {}


def _buildable(value_class: type) -> list[str]:
    """The presets whose every operation their class has, in chooser order."""
    ids = []
    for preset in load_presets():
        needs = _PRESET_NEEDS.get(preset["id"])
        if needs is None:
            needs = tuple(need.method for need in _needs(ast.parse(preset["program"]), {}))
            _PRESET_NEEDS[preset["id"]] = needs
        if all(_has(value_class, method) for method in needs):
            ids.append(preset["id"])
    return ids


class _Builder(_Walk):
    """The program's graph made of their Values: their constructor for each input, their
    operator for each operation. Each node the program names gets that name."""

    def __init__(self, value_class: type, watch: _Watch, values: dict):
        super().__init__(values)
        self.value_class = value_class
        self.watch = watch
        self.names: dict[int, str] = {}  # id(their node) -> its label, as engine.program labels it
        self.places: dict[int, tuple[int, int]] = {}  # id(their node) -> (line, column) in the program
        self.made: list = []  # every node made, kept alive so that no id is reused during the run
        self.inputs: set[int] = set()  # id(their node) of each input the program made (Value(number))
        self.versions: dict[str, int] = {}
        self.taken: set[str] = set()

    def input(self, number, label, name, node):
        number = self.values.get(name, float(number))
        init = _def_line(getattr(self.value_class, "__init__", None))
        value = self.watch.guarded(self.value_class, number, runtime=True, line=init)
        self.made.append(value)
        self.inputs.add(id(value))
        self.places[id(value)] = (node.lineno, node.col_offset + 1)
        self.named(value, label)
        return value

    def apply(self, op, value, args, node, reflected=False):
        entry = OPS[op]
        method = entry.reflected if reflected else entry.method
        function = self.watch.guarded(getattr, value, method, runtime=True)
        result = self.watch.guarded(function, *args, runtime=True, line=_def_line(function))
        if result is None or result is NotImplemented or isinstance(result, (numbers.Number, str)):
            raise _Refusal(
                "graph",
                f"Your {method} returned {repr(result)[:40]} instead of a new Value (line {node.lineno} of the "
                "program).",
                line=_def_line(getattr(self.value_class, method, None)),
            )
        self.made.append(result)
        self.places.setdefault(id(result), (node.lineno, node.col_offset + 1))
        return result

    def has_name(self, value) -> bool:
        return id(value) in self.names

    def named(self, value, name: str):
        """As engine.program names a node: c, then c', c'', c#4 … as c is assigned again."""
        label, version = name, self.versions.get(name, 1)
        while label in self.taken:
            version += 1
            label = name + "'" * (version - 1) if version <= 3 else f"{name}#{version}"
        self.versions[name] = version
        self.taken.add(label)
        self.names[id(value)] = label


# -- their backward(), watched ---------------------------------------------------------------------------


@dataclass
class _Visit:
    node: int  # the node whose grad is passed on
    line: int | None  # the line of theirs that called its _backward (or made its first push)
    upstream: object  # its grad at that moment


@dataclass
class _Write:
    node: int
    line: int | None
    op: str  # "=", "+=" (or another augmented operator), as their statement writes it
    before: object
    after: object
    visit: int | None  # index into the visits: the node passing its grad on, if any
    target: str | None  # the name the statement writes through (self, other, child), when it has one


class _Run:
    """Their backward(), run once on the graph as they built it, watched: the visits, every
    write to a grad with its line, and the grads it leaves. The graph is put back afterwards."""

    def __init__(self, foreign: Foreign, right, watch: _Watch):
        self.objects = foreign.objects
        self.output = foreign.output
        self.index = {id(obj): i for i, obj in enumerate(self.objects)}
        self.parents = [set(node.parents) for node in foreign.nodes]
        self.right = right
        self.watch = watch
        # Without any _backward (microgpt's way), a visit is inferred from the pushes.
        self.infer = not any(node.source == "_backward" for node in foreign.nodes)
        self.full = len(self.objects) <= FULL_SWEEP_NODES
        self.recorded: list = []  # (node, grad) per _backward call: engine.check's wrapping appends
        self.seen = 0  # how many of those have become visits
        self.visits: list[_Visit] = []
        self.writes: list[_Write] = []
        self.appends: list[tuple[int, int, int]] = []  # (id of the list, node, line): list.append of a node
        self.known: list = []  # each grad as last seen
        self.pending: dict = {}  # frame -> writes its current statement is making
        self.active: list = []  # (frame, visit) of the _backward calls under way, innermost last
        self.where: tuple | None = None  # (frame, line) of the statement of theirs under way
        self.inferred: tuple[int, int] | None = None  # (node, visit) of the pushes under way
        self.calling: dict = {}  # id(list) -> (the list, line) of an append under way
        self.grads: list = []

    def run(self):
        root = self.objects[self.output]
        with untouched(self.objects), _check._recording(self.objects, self.recorded):
            self.known = [self.grad(obj) for obj in self.objects]
            self.watch.recorder = self
            try:
                self.watch.guarded(root.backward, runtime=True)
            finally:
                self.watch.recorder = None
            self.catch_up()
            self.sweep()
            self.grads = [self.grad(obj) for obj in self.objects]
        return self

    @staticmethod
    def grad(obj):
        try:
            return obj.grad
        except Exception:
            return None

    # -- events (from _Watch) --

    def on_call(self, frame):
        self.sweep()
        back = frame.f_back
        if back is not None and back.f_code.co_filename == _CHECK_FILE and self.seen < len(self.recorded):
            self.catch_up()  # a _backward of theirs, called through engine.check's wrapping
            self.active.append((frame, len(self.visits) - 1))

    def catch_up(self):
        """Every _backward call recorded so far becomes a visit (one that isn't Python, such as
        a builtin, is recorded without a frame of its own)."""
        line = self.caller_line()
        while self.seen < len(self.recorded):
            node, upstream = self.recorded[self.seen]
            self.visits.append(_Visit(node, line, upstream))
            self.seen += 1

    def caller_line(self) -> int | None:
        return None if self.where is None else self.where[1]

    def on_line(self, frame):
        self.finish(frame)
        self.sweep()
        line = frame.f_lineno
        self.where = (frame, line)
        stores = self.watch.stores.get(line)
        if not stores:
            return
        local = frame.f_locals
        for name, op in stores:
            obj = local.get(name) if name is not None else None
            i = self.index.get(id(obj)) if obj is not None else None
            if i is not None:
                write = _Write(i, line, op, self.known[i], None, self.visit_of(local, i, line), name)
                self.pending.setdefault(frame, []).append(write)

    def on_return(self, frame):
        self.finish(frame)
        self.sweep()
        if self.active and self.active[-1][0] is frame:
            self.active.pop()
        caller = frame.f_back
        while caller is not None and caller.f_code.co_filename != LEARNER_FILE:
            caller = caller.f_back
        self.where = None if caller is None else (caller, caller.f_lineno)

    def on_profile(self, frame, event, arg):
        """list.append of a node, and the line that did it (a topological sort's)."""
        if event not in ("c_call", "c_return") or getattr(arg, "__name__", None) != "append":
            return
        target = getattr(arg, "__self__", None)
        if type(target) is not list or frame.f_code.co_filename != LEARNER_FILE:
            return
        if event == "c_call":
            self.calling[id(target)] = len(target)
        elif self.calling.pop(id(target), None) == len(target) - 1:
            i = self.index.get(id(target[-1]))
            if i is not None:
                self.appends.append((id(target), i, frame.f_lineno))

    # -- writes --

    def visit_of(self, local: dict, node: int, line: int) -> int | None:
        """The visit a write into ``node`` belongs to: the _backward call under way; without
        _backward, the node in the frame's variables that ``node`` is a parent of."""
        if self.active:
            return self.active[-1][1]
        if not self.infer:
            return None
        candidates = [
            j
            for j in (self.index.get(id(v)) for v in list(local.values()))
            if j is not None and node in self.parents[j]
        ]
        if not candidates:
            return None
        j = candidates[-1]
        if self.inferred is None or self.inferred[0] != j:
            self.visits.append(_Visit(j, line, self.known[j]))
            self.inferred = (j, len(self.visits) - 1)
        return self.inferred[1]

    def finish(self, frame):
        """The statement ``frame`` was making is done: its writes, with the grads they left."""
        for write in self.pending.pop(frame, ()):
            write.after = self.grad(self.objects[write.node])
            self.known[write.node] = write.after
            self.writes.append(write)

    def sweep(self):
        """A grad that changed without a statement seen to write it (a write through an
        expression, a helper that isn't theirs): recorded at the statement under way."""
        if not self.full:
            return
        busy = {write.node for writes in self.pending.values() for write in writes}
        line = self.caller_line()
        for i, obj in enumerate(self.objects):
            now = self.grad(obj)
            if i in busy or _same(now, self.known[i]):
                continue
            ops = {op for _, op in self.watch.stores.get(line, ())}
            op = ops.pop() if len(ops) == 1 else "="
            visit = self.active[-1][1] if self.active else None
            self.writes.append(_Write(i, line, op, self.known[i], now, visit, None))
            self.known[i] = now

    def writes_as_data(self, labels: list[str]) -> list[dict]:
        """The writes as the answer gives them, each on its edge where it maps to one: the
        k-th write into a parent during a visit goes on the k-th edge from that child into it."""
        counts: Counter = Counter()
        out = []
        for write in self.writes:
            edge = None
            if write.visit is not None:
                child = self.visits[write.visit].node
                edges = [e for e in self.right.parent_edges[child] if self.right.edges[e].parent == write.node]
                if edges:
                    k = counts[(write.visit, write.node)]
                    counts[(write.visit, write.node)] += 1
                    edge = edges[min(k, len(edges) - 1)]
            out.append(
                {
                    "node": labels[write.node],
                    "edge": edge,
                    "line": write.line,
                    "op": write.op,
                    "before": _number_or_none(write.before),
                    "after": _number_or_none(write.after),
                    "visit": write.visit,
                }
            )
        return out


@dataclass
class _OrderFound:
    """Their backward() gave another grad when their sets of parents were walked in another order."""

    line: int | None  # the line of theirs that walked a set of parents
    attribute: str  # the set's attribute: "_prev" (micrograd's), or "_children"
    node: int  # the node whose grad differs (the first of them)
    grad: object  # its grad in the run shown
    other: object  # its grad in the other order
    nodes: list[int]  # every node whose grad differs

    def as_data(self, labels: list[str]) -> dict:
        return {
            "line": self.line,
            "attribute": self.attribute,
            "node": labels[self.node],
            "grad": _number_or_none(self.grad),
            "other": _number_or_none(self.other),
            "nodes": [labels[i] for i in self.nodes],
        }


class _SetOrder:
    """Does their result depend on the order of a set? Python fixes no order for a set's items
    (micrograd's ``_prev`` is one, ordered by the objects' addresses, so the same code can walk
    it one way in one run and the other way in the next). Their backward() is run once more on
    the same graph with each set of parents, of two items or more, walked in the reverse of its
    own order; both orders are orders a set may have. A node whose grad comes out otherwise is
    named, with the line of theirs that walked the set. Their objects are put back afterwards;
    a second run that fails or runs too long only means no answer here."""

    ATTRIBUTES = ("_prev", "_children")

    def __init__(self, foreign: Foreign, watch: _Watch, ran: _Run, constants: list[int]):
        self.objects = foreign.objects
        self.output = foreign.output
        self.watch = watch
        self.ran = ran
        self.constants = set(constants)

    def run(self) -> _OrderFound | None:
        if not self.ran.grads:
            return None
        walked: list[int] = []  # the line of theirs at each walk of a reversed set
        steps = self.watch.steps
        try:
            with untouched(self.objects):
                found = self.watch.guarded(self.other_order, walked)
        except (_Refusal, Exception):  # an order their code can't take is not this question's to answer
            return None
        finally:
            self.watch.steps = steps  # the other order has a budget of its own
        if found is None:
            return None
        attribute, grads = found
        differ = [i for i, (g, h) in enumerate(zip(self.ran.grads, grads)) if not _close_numbers(g, h)]
        if all(i in self.constants for i in differ):
            return None  # (a constant's grad is nobody's to get right)
        node = next(i for i in differ if i not in self.constants)
        line = Counter(walked).most_common(1)[0][0] if walked else None
        return _OrderFound(line, attribute, node, self.ran.grads[node], grads[node], differ)

    def other_order(self, walked: list) -> tuple[str, list] | None:
        """Each set of parents walked backwards, then their backward(): the grads it leaves."""
        kinds = {set: _walked_backwards(set, walked), frozenset: _walked_backwards(frozenset, walked)}
        attributes = []
        for obj in self.objects:
            for name in self.ATTRIBUTES:
                parents = getattr(obj, name, None)
                if type(parents) in kinds and len(parents) >= 2:
                    setattr(obj, name, kinds[type(parents)](parents))
                    attributes.append(name)
        if not attributes:
            return None
        self.objects[self.output].backward()
        return attributes[0], [_Run.grad(obj) for obj in self.objects]


def _walked_backwards(kind: type, walked: list):
    """A subclass of set (or frozenset) whose items are walked in the reverse of the set's own
    order, noting each line of their code that walks it."""

    def __iter__(self):
        caller = sys._getframe(1)
        if caller.f_code.co_filename == LEARNER_FILE:
            walked.append(caller.f_lineno)
        return iter(list(kind.__iter__(self))[::-1])

    return type(f"reversed_{kind.__name__}", (kind,), {"__iter__": __iter__, "__slots__": ()})


def _close_numbers(x, y) -> bool:
    if isinstance(x, numbers.Real) and isinstance(y, numbers.Real):
        return _same(x, y) or close(float(x), float(y))
    return _same(x, y)


def _same(x, y) -> bool:
    if x is y:
        return True
    try:
        return bool(x == y) or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)
    except Exception:
        return False


def _number_or_none(x) -> float | None:
    return float(x) if isinstance(x, numbers.Real) else None


# -- findings ------------------------------------------------------------------------------------------


class _Findings:
    """engine.check's problems said as findings, one per mistake: the line of their code, every
    node the mistake affected, the catalogue's mistake when one applies, and a sentence that
    starts with the line. What engine.check says node by node (a wrong local derivative for
    each operand, each node listed twice, each contribution too late) is one finding per line
    of theirs; ``=`` for ``+=`` is one finding, wherever it is written. A result that depends on
    the order of a set (:class:`_SetOrder`) is said in the finding of the node it changes."""

    ORDER_KINDS = ("overwrite", "order", "repeat", "missing", "grad")  # mistakes a set's order can show

    def __init__(self, report, right, ran: _Run, value_class: type, constants=(), set_order=None):
        self.report = report
        self.foreign = report.foreign
        self.right = right
        self.ran = ran
        self.value_class = value_class
        self.constants = set(constants)
        self.set_order: _OrderFound | None = set_order
        self.labels = [node.label for node in self.foreign.nodes]
        self.ids = {label: i for i, label in enumerate(self.labels)}
        self.frames = correct_backward(right)[0]
        self.correct = [report.correct_grads[label] for label in self.labels]
        self.replayed: list[float] | None = None  # the grads the visit order seen here gives

    def all(self) -> list[dict]:
        found = self.merged(self.raw())
        if self.set_order is not None:
            self.say_set_order(found)
        self.name_wrong_grads(found)
        return [self.public(f) for f in found]

    def name_wrong_grads(self, found: list[dict]):
        """Each node whose grad their run left wrong is named by a finding (its tag on the graph
        says that finding's line): the first whose nodes it passes its value on to, since a wrong
        grad flows back from where it went wrong, else the first mistake of the order or ``=``."""
        if not found:
            return
        named = {i for f in found for i in f["nodes"]}
        wrong = [
            i
            for i in range(len(self.labels))
            if i not in named and i not in self.constants and not _close_numbers(self.ran.grads[i], self.correct[i])
        ]
        if not wrong:
            return
        parents = [node.parents for node in self.foreign.nodes]
        upstream = []  # per finding: every node that reaches one of its nodes
        for f in found:
            seen, stack = set(f["nodes"]), list(f["nodes"])
            while stack:
                for p in parents[stack.pop()]:
                    if p not in seen:
                        seen.add(p)
                        stack.append(p)
            upstream.append(seen)
        fallback = next((f for f in found if f["kind"] in self.ORDER_KINDS + ("seed",)), found[0])
        for i in wrong:
            f = next((f for f, seen in zip(found, upstream) if i in seen), fallback)
            f["nodes"].append(i)

    def raw(self) -> list[dict]:
        """One finding per problem engine.check found (and per push seen here, for a class
        without _backward), before the findings of one mistake are made one."""
        problems = self.report.problems
        kinds = {p.kind for p in problems}
        found: list[dict] = self.pushes_order() if self.ran.infer else []
        replayed = self.replayed
        judged: set[int] = set()  # the nodes whose local derivatives have been judged
        specific_order = any(p.kind == "order" and "never reached" in p for p in problems)
        for problem in problems:
            node = self.ids.get(problem.node, self.foreign.output)
            kind = problem.kind
            if kind == "order" and specific_order and "never reached" not in problem:
                continue  # the general sentence: the specific ones say it with the paths
            if kind == "grad":
                if problem.node not in self.ids:  # "3 more grads are wrong in the same way."
                    if found:
                        self.cause(found, problem)["more"] = problem.split(" ", 1)[0]
                        continue
                elif any(node in f["nodes"] for f in found) or (node in self.constants and found):
                    continue  # its node already has the mistake that made it wrong; a constant's isn't said
                elif "seed" in kinds and _same(self.ran.grads[node], 0.0):
                    self.cause(found, problem)["nodes"].append(node)  # no seed: said once, at the output
                    continue
                elif replayed is not None and _same(self.ran.grads[node], replayed[node]):
                    self.cause(found, problem)["nodes"].append(node)  # the order's sentences already said it
                    continue
                elif found:  # a consequence of a mistake found: said in its finding, with its numbers
                    cause = self.cause(found, problem)
                    cause["nodes"].append(node)
                    cause["grads"].append(node)
                    continue
            if kind == "local":
                if node not in judged:  # engine.check says one sentence per parent; all are said at once
                    judged.add(node)
                    found += self.local(node, problem)
            elif kind == "overwrite":
                if not any(f["kind"] == "overwrite" for f in found):  # one finding, for every _backward
                    found.append(self.overwrite(node, problem))
            else:
                found.append(getattr(self, kind, self.other)(node, problem))
        return found

    def cause(self, found: list[dict], problem) -> dict:
        """The finding whose mistake left a grad wrong: the wrong local derivative engine.check
        names, else the first mistake of the order, a seed or ``=``, else the first one."""
        if "because of the wrong local derivative" in problem:
            local = next((f for f in found if f["kind"] == "local"), None)
            if local is not None:
                return local
        return next((f for f in found if f["kind"] in self.ORDER_KINDS + ("seed",)), found[0])

    def merged(self, raw: list[dict]) -> list[dict]:
        """The findings of one mistake made one: all of ``=`` for ``+=``; else those of one
        kind at one line of theirs. It names every node they name, its first sentence is the
        first's (about a node that isn't a constant, if one is named), then what each other adds."""
        groups: dict[tuple, list[dict]] = {}
        for k, f in enumerate(raw):
            key = (f["kind"],) if f["kind"] == "overwrite" else (f["kind"], f["line"] if f["line"] is not None else -k)
            groups.setdefault(key, []).append(f)
        out = []
        for group in groups.values():
            if any(f["nodes"][0] not in self.constants for f in group):  # a constant's share is no one's loss
                group = [f for f in group if f["nodes"][0] not in self.constants]
            first = group[0]
            sentences = [first["sentence"]] + [f["also"] or f["sentence"] for f in group[1:]]
            out.append(
                {
                    **first,
                    "nodes": list(dict.fromkeys(n for f in group for n in f["nodes"])),
                    "sentence": " ".join(dict.fromkeys(sentences)),  # never one sentence twice
                    "after": list(dict.fromkeys(s for f in group for s in f["after"])),
                    "grads": list(dict.fromkeys(n for f in group for n in f["grads"])),
                    "more": next((f["more"] for f in group if f["more"]), None),
                }
            )
        return out

    def say_set_order(self, found: list[dict]):
        """The run's grads depend on the order of a set: said in the finding that names the
        node whose grad changes, else in the finding of a mistake an order can show, else as a
        finding of its own at the line that walks the set."""
        order = self.set_order
        x = self.labels[order.node]
        walks = f"line {order.line} walks" if order.line is not None else "your code walks"
        numbers = (
            f"In this run {x}.grad ended at {_text(order.grad)}, in the other order at {_text(order.other)}; "
            f"the right grad is {fmt(self.correct[order.node])}."
        )
        at = next((f for f in found if order.node in f["nodes"]), None)
        at = at or next((f for f in found if f["kind"] in self.ORDER_KINDS), None) or (found[0] if found else None)
        if at is None:
            sentence = (
                f"your backward() walks a node's {order.attribute}, a set, and Python doesn't fix the order of a "
                f"set's items: your grads depend on it. {numbers}"
            )
            rule_text = "A right backward() gets the same grads in every order its topological sort allows."
            found.append(self.finding(order.node, order.line, None, sentence, "set-order", rule_text))
            return
        at["after"].append(
            f"Your grads also depend on the order of a set: {walks} a node's {order.attribute}, a set, and Python "
            f"doesn't fix the order of a set's items. {numbers}"
        )
        if order.node not in at["nodes"]:
            at["nodes"].append(order.node)

    def public(self, f: dict) -> dict:
        line = f["line"]
        nodes = [i for i in f["nodes"] if i not in self.constants] or f["nodes"]
        text = " ".join([f["sentence"], *([f["rule"]] if f["rule"] else []), *self.consequences(f), *f["after"]])
        return {
            "node": self.labels[nodes[0]],
            "nodes": [self.labels[i] for i in dict.fromkeys(nodes)],
            "line": line,
            "kind": f["kind"],
            "mistake": f["mistake"],
            "text": (f"line {line}: " if line is not None else "") + text,
        }

    def consequences(self, f: dict) -> list[str]:
        """The grads a mistake left wrong, with their numbers: "After your backward(), x1.grad is
        -0.6695 instead of -1.5 and w1.grad 0.4464 instead of 1." """
        said = [
            f"{code_name(self.labels[i])}.grad {'is ' if k == 0 else ''}{_text(self.ran.grads[i])} instead of "
            f"{fmt(self.correct[i])}"
            for k, i in enumerate(f["grads"])
        ]
        if f["more"]:
            said.append(f"{f['more']} more grads are wrong too")
        if not said:
            return []
        listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
        return [f"After your backward(), {listed}."]

    def finding(self, node: int, line, mistake, sentence: str, kind: str, rule_text: str = "", also=None) -> dict:
        """A finding before merging: ``sentence`` is said first, then ``rule_text``; ``also`` is
        what it adds to another finding of the same mistake (else its sentence)."""
        return {
            "nodes": [node],
            "line": line,
            "kind": kind,
            "mistake": mistake,
            "sentence": sentence,
            "rule": rule_text,
            "also": also,
            "after": [],  # sentences said after the rule
            "grads": [],  # the nodes whose wrong grads it explains, said with their numbers
            "more": None,  # how many more wrong grads engine.check didn't list
        }

    def pushes_order(self) -> list[dict]:
        """For a class without _backward: the visits seen in its pushes, judged as engine.check
        judges the _backward calls it records (a node visited twice; a contribution too late)."""
        visits = self.ran.visits
        counts = Counter(v.node for v in visits)
        found = []
        if any(w.op == "=" and w.visit is not None and not _same(w.before, 0.0) for w in self.ran.writes):
            found.append(self.overwrite(None, None))  # engine.check can't probe pushes without a _backward
        for node, count in counts.items():
            if count > 1:
                x = self.labels[node]
                text = (
                    f"{self.head(node)}: backward() passes {x}'s grad on {count} times; a topological sort lists "
                    "each node once (is its visited set missing?)."
                )
                also = f"The same goes for {x}: its grad is passed on {count} times."
                found.append(self.finding(node, self.again(node), None, text, "repeat", also=also))
        if any(f["kind"] == "repeat" for f in found) or not visits:
            return found
        order = list(dict.fromkeys(v.node for v in visits))
        full = order + [i for i in reversed(range(len(self.labels))) if i not in order]
        result = experiment(self.right, full, self.correct)
        if result["late"]:
            self.replayed = result["grads"]
        rule_text = MISTAKES["too-early"].rule
        for item, sentence in zip(result["late"], result["explanation"]):
            if "never reached" in sentence:
                node = item["parent"]
                line = next(v.line for v in visits if v.node == node) if node in counts else self.loop_line()
                sentence = self.without_constants(sentence, item, result)
                found.append(self.finding(node, line, "too-early", sentence, "order", rule_text))
        return found

    def again(self, node: int) -> int | None:
        """The line that listed ``node`` a second time (a sort's append), else that visited it again."""
        appended: Counter = Counter()
        for target, i, line in self.ran.appends:
            appended[(target, i)] += 1
            if i == node and appended[(target, i)] == 2:
                return line
        visits = [v for v in self.ran.visits if v.node == node]
        return visits[1].line if len(visits) > 1 else self.loop_line()

    # -- where in their code --

    def method_line(self, node: int) -> int | None:
        """Where their class defines the operation that made ``node``."""
        op = self.foreign.nodes[node].op
        entry = OPS.get(op)
        return None if entry is None else _def_line(getattr(self.value_class, entry.method, None))

    def backward_line(self) -> int | None:
        return _def_line(getattr(self.value_class, "backward", None))

    def loop_line(self) -> int | None:
        """The line that called the _backward of most nodes: their backward()'s loop."""
        lines = Counter(v.line for v in self.ran.visits if v.line is not None)
        return lines.most_common(1)[0][0] if lines else self.backward_line()

    def writes_into(self, parent: int, child: int | None = None) -> list[_Write]:
        return [
            w
            for w in self.ran.writes
            if w.node == parent and (child is None or (w.visit is not None and self.ran.visits[w.visit].node == child))
        ]

    def head(self, node: int) -> str:
        return f"{self.labels[node]} = {self.right.expressions[node]}"

    # -- each kind of problem --

    def local(self, child: int, problem) -> list[dict]:
        """A wrong local derivative: one finding per parent that got one, at the line that
        pushed it (or, for _local_grads, where the operation is defined)."""
        node = self.foreign.nodes[child]
        right = rule(node.op, [self.foreign.nodes[p].data for p in node.parents], node.const)[1]
        found = []
        for parent in dict.fromkeys(node.parents):
            slots = [s for s, p in enumerate(node.parents) if p == parent]
            given = sum(node.locals[s] for s in slots)
            want = sum(right[s] for s in slots)
            if close(given, want):
                continue
            writes = self.writes_into(parent, child)
            if node.source != "_backward":
                line = self.method_line(child)
            elif writes:
                line = writes[0].line
            else:  # it wrote nothing there: its _backward is where the push is missing
                line = _def_line(getattr(self.foreign.objects[child], "_backward", None)) or self.method_line(child)
            c, x = self.labels[child], self.labels[parent]
            entry = self.catalogue(f"{c}->{x}.local", given)
            text = f"in {self.head(child)}, your code gives {x} the local derivative {fmt(given)}"
            if entry is not None:
                did, fix = entry["text"].removeprefix(fmt(entry["value"]) + " ").split(". ", 1)
                text += f", which {did}. {fix}"
                mistake = entry["mistakes"][0]
            else:
                text += f", but the rule for {node.op} gives {fmt(want)}."
                mistake = None
            also = (
                f"The same line gives {x} the local derivative {fmt(given)} in {self.head(child)}, where the rule "
                f"gives {fmt(want)}."
            )
            found.append(self.finding(parent, line, mistake, text, "local", also=also))
        return found or [self.other(child, problem)]

    def overwrite(self, child: int | None, problem) -> dict:
        """``=`` for ``+=``, one finding wherever it is written: at the first write that lost a
        contribution, naming each node that lost one (else at the first ``=``, harmless on this
        run, and said so), and the other lines that write a grad with ``=``."""
        rule_text = MISTAKES["overwrite"].rule
        writes = [w for w in self.ran.writes if w.op == "=" and w.visit is not None]
        lines = list(dict.fromkeys(w.line for w in writes if w.line is not None))
        lost: dict[int, _Write] = {}  # node -> the first write that overwrote what it held
        for w in writes:
            if not _same(w.before, 0.0):
                lost.setdefault(w.node, w)
        if lost:
            first, *more = lost.values()
            sentence = self.overwrote(first)
            for w in more:
                where = "The same line" if w.line == first.line else f"Line {w.line}"
                y = self.labels[w.node]
                sentence += (
                    f" {where} overwrote {y}'s {_text(w.before)} with {_text(w.after)} too, so {y}.grad ends at "
                    f"{_text(self.ran.grads[w.node])} instead of {fmt(self.correct[w.node])}."
                )
            found = self.finding(first.node, first.line, "overwrite", sentence, "overwrite", rule_text)
            found["nodes"] = list(lost)
            said = {w.line for w in lost.values()}
        elif writes:
            w = writes[0]
            x, target = self.labels[w.node], w.target or code_name(self.labels[w.node])
            sentence = (
                f"`{target}.grad = …` sets {x}.grad instead of adding to it: nothing was lost in this run, but a "
                "node that receives two contributions would keep only the last."
            )
            found = self.finding(w.node, w.line, "overwrite", sentence, "overwrite", rule_text)
            said = {w.line}
        else:
            node = self.foreign.output if child is None else child
            line = self.method_line(node)
            return self.finding(node, line, "overwrite", str(problem or "A _backward overwrites a grad."), "overwrite",
                                rule_text)  # fmt: skip
        others = [line for line in lines if line not in said]
        if others:
            verb = "writes" if len(others) == 1 else "write"
            found["after"].append(f"{_lines_text(others)} {verb} a grad with = too.")
        return found

    def overwrote(self, w: _Write) -> str:
        x, target = self.labels[w.node], w.target or code_name(self.labels[w.node])
        final, right = self.ran.grads[w.node], self.correct[w.node]
        return (
            f"`{target}.grad = …` overwrote {x}'s {_text(w.before)} with {_text(w.after)}, so {x}.grad ends at "
            f"{_text(final)} instead of {fmt(right)}."
        )

    def repeat(self, node: int, problem) -> dict:
        """A node visited more than once: at the line that put it in the order a second time
        (a sort without a visited set), else at the call that visited it again."""
        count = sum(1 for v in self.ran.visits if v.node == node)
        x = self.labels[node]
        also = f"The same goes for {x}: backward() calls its _backward {count} times." if count > 1 else None
        return self.finding(node, self.again(node), None, str(problem), "repeat", also=also)

    def order(self, node: int, problem) -> dict:
        visits = [v for v in self.ran.visits if v.node == node]
        line = visits[0].line if visits else self.loop_line()
        sentence = str(problem)
        result = self.report.experiment
        if result is not None:
            item = next((i for i, s in zip(result["late"], result["explanation"]) if s == sentence), None)
            if item is not None:
                sentence = self.without_constants(sentence, item, result)
        return self.finding(node, line, "too-early", sentence, "order", MISTAKES["too-early"].rule)

    def without_constants(self, sentence: str, item: dict, result: dict) -> str:
        """The visit-order experiment's sentence about a contribution that came too late
        (engine.trace's words), with the paths that start at a constant left out: a number in
        an operation is no input, and its grad nobody's to get right."""
        graph = self.right
        paths = [p for p in result["lost_paths"] if p["late_edge"] == item["edge"]]
        kept = [p for p in paths if p["nodes"][0] not in self.constants]
        if len(kept) == len(paths) or not kept or "never reached" not in sentence:
            return sentence
        parent, child = graph.label(item["parent"]), graph.label(item["child"])
        shown = [" → ".join(graph.label(n) for n in p["nodes"]) for p in kept[:2]]
        more = f" (and {len(kept) - 2} more)" if len(kept) > 2 else ""
        inputs = sorted({p["nodes"][0] for p in kept}, key=graph.inputs.index)
        wrong = [n for n in inputs if not _close_numbers(result["grads"][n], self.correct[n])]
        names = [graph.label(n) for n in inputs]
        reached = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        text = (
            f"{parent} was visited before {child} had added its contribution to {parent}, so the "
            f"{'path' if len(kept) == 1 else 'paths'} {' and '.join(shown)}{more} never reached {reached}"
        )
        if wrong:
            text += ": " + ", ".join(
                f"{graph.label(n)}.grad is {fmt(result['grads'][n])}, not {fmt(self.correct[n])}" for n in wrong
            )
        else:
            text += f", but {'that path' if len(kept) == 1 else 'those paths'} carried 0, so no input's grad changed"
        return text + "."

    def missing(self, node: int, problem) -> dict:
        return self.finding(node, self.loop_line(), None, str(problem), "missing")

    def seed(self, node: int, problem) -> dict:
        first = next((v.upstream for v in self.ran.visits if v.node == node), self.ran.grads[node])
        data = self.foreign.nodes[node].data
        mistake = "seed-output" if isinstance(first, numbers.Real) and close(first, data) and data != 0 else "seed-zero"
        seeds = [w for w in self.writes_into(node) if w.visit is None]
        line = seeds[-1].line if seeds else self.backward_line()
        rule_text = "" if "The seed is" in problem else MISTAKES[mistake].rule  # the catalogue's sentence said it
        return self.finding(node, line, mistake, str(problem), "seed", rule_text)

    def grad(self, node: int, problem) -> dict:
        writes = self.writes_into(node)
        line = writes[-1].line if writes else self.loop_line()
        got = self.ran.grads[node]
        # The catalogue says why a grad is wrong only when nothing else did: a wrong local
        # derivative or order upstream makes numbers a mistake of the catalogue may share.
        alone = all(p.kind == "grad" for p in self.report.problems)
        entry = self.catalogue(f"{self.labels[node]}.grad", got) if alone and isinstance(got, numbers.Real) else None
        if entry is None:
            return self.finding(node, line, None, str(problem), "grad")
        return self.finding(node, line, entry["mistakes"][0], f"{problem} {entry['text']}", "grad")

    def data(self, node: int, problem) -> dict:
        return self.finding(node, self.method_line(node), None, str(problem), "data")

    def other(self, node: int, problem) -> dict:
        writes = [w for w in self.ran.writes if w.visit is not None and self.ran.visits[w.visit].node == node]
        line = writes[0].line if writes else self.method_line(node) or self.backward_line()
        return self.finding(node, line, None, str(problem), problem.kind)

    def catalogue(self, question: str, reply) -> dict | None:
        """The catalogue's entry for ``reply`` as the answer to ``question`` on the right graph."""
        try:
            found = wrong_answers(self.right, self.frames, question)
        except ValueError:
            return None
        tolerance = 1e-6 * max(1.0, abs(found["value"]))
        return diagnose(found["wrong"], float(reply), tolerance)


def _lines_text(lines: list[int]) -> str:
    """``Line 26``, ``Lines 26 and 39``, ``Lines 25, 26 and 39``."""
    numbers_ = [str(line) for line in sorted(lines)]
    if len(numbers_) == 1:
        return f"Line {numbers_[0]}"
    return "Lines " + ", ".join(numbers_[:-1]) + " and " + numbers_[-1]


def _text(x) -> str:
    return fmt(float(x)) if isinstance(x, numbers.Real) else repr(x)


__all__ = ["run", "exercise", "scaffold_of", "EXERCISES", "LEARNER_FILE"]
