"""Their module compiled and loaded, and their code watched while it runs: every call guarded
(the step budget, their exceptions at their line in Python's words) and, while a run records,
each line and return of their frames handed to it."""

from __future__ import annotations

import ast
import sys

from .budget import _MONITORING, MAX_INSTRUCTIONS, MAX_JUMPS, _OutOfSteps, _start_counting_jumps, _stop_counting_jumps
from .request import _Refusal

LEARNER_FILE = "<your code>"  # the file name their code is compiled under, and recognised by


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
    """Their code, traced: a step budget always, and while a run records (record._Run), its events."""

    def __init__(self, stores: dict):
        self.steps = 0
        self.tool: int | None = None  # the sys.monitoring tool counting their loops' turns, if any
        self.stores = stores  # _grad_stores of their code
        self.recorder = None  # the record._Run recording this run, while one does
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
