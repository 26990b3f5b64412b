"""The program's graph built with their class: the program's statements walked the way
engine.program evaluates them, each operation a call of their operator; and the operations a
program needs, found before anything is built."""

from __future__ import annotations

import ast
import numbers
from dataclasses import dataclass

from ..ops import INFIX, OPS
from ..presets import load_presets
from ..program import statements
from .request import _Refusal
from .watch import _def_line, _has, _Watch

# How Python's syntax tree writes each operator the engine knows.
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}

assert set(_BINARY.values()) == set(INFIX)


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
