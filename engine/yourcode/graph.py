"""The program's graph built with their class, by engine.program's own walker (the one that
builds the engine's graphs): each input their constructor, each operation a call of their
operator; and the operations a program needs, found before anything is built."""

from __future__ import annotations

import ast
import numbers
from dataclasses import dataclass

from ..ops import OPS
from ..presets import load_presets
from ..program import Walker
from .request import _Refusal
from .watch import _def_line, _has, _Watch


@dataclass(frozen=True)
class _Need:
    method: str  # what their class must have: "__mul__", "__rmul__", "tanh"
    name: str  # how the answer names it: the engine's operation ("*", "tanh"), or the reflected method
    text: str  # how a sentence names it
    line: int


class _Token:
    """A value of no class at all, while a program's needs are listed: none of theirs is called."""

    def __init__(self, number: float = 0.0):
        pass


class _Needs(Walker):
    """The methods a program calls on values, found without any class: each value is a token."""

    def __init__(self):
        super().__init__(_Token)
        self.needs: dict[str, _Need] = {}

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
        return _Token()


def _needs(tree: ast.Module, values: dict) -> list[_Need]:
    return list(_Needs().walk(tree, values).needs.values())


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
        if _uses_tensors(ast.parse(preset["program"])):  # not run with a learner's class yet (yourcode._run)
            continue
        needs = _PRESET_NEEDS.get(preset["id"])
        if needs is None:
            needs = tuple(need.method for need in _needs(ast.parse(preset["program"]), {}))
            _PRESET_NEEDS[preset["id"]] = needs
        if all(_has(value_class, method) for method in needs):
            ids.append(preset["id"])
    return ids


def _uses_tensors(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tensor"
        for node in ast.walk(tree)
    )


class _Builder(Walker):
    """The program's graph made of their Values: their constructor for each input, their
    operator for each operation, each call of theirs guarded (an exception of theirs comes back
    at their line). The walker names and places each node (``names``, ``places``, by id), and
    keeps every node it made alive (``_created``), so that no id is reused during the run."""

    def __init__(self, value_class: type, watch: _Watch):
        super().__init__(value_class)
        self.watch = watch
        # id(their node) of each input the program made (Value(number)), reassigned ones too:
        # any other leaf is a number their operators wrapped.
        self.input_ids: set[int] = set()

    def new_input(self, number):
        init = _def_line(getattr(self.value_class, "__init__", None))
        value = self.watch.guarded(self.value_class, number, runtime=True, line=init)
        self.input_ids.add(id(value))
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
        return result
