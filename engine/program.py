"""Programs: a tiny straight-line subset of Python, turned into a graph of Values.

A learner writes what they would write with micrograd::

    a = Value(2.0, label="a")
    b = a * a + 1          # numbers on either side
    c = b.tanh()           # or tanh(b)
    c += c ** 2            # augmented assignment makes a new node c'
    with group("neuron"):  # the nodes made inside are one group, drawn as one box
        n = c * 2

The source is parsed with :mod:`ast` and walked node by node against a whitelist; nothing
from it is ever handed to ``eval`` or ``exec``. Everything outside the subset raises
:class:`ProgramError` with a line, a column and one sentence a learner can act on.

The walk is :class:`Walker`'s, and it takes the class whose values it builds: the engine's
own Value for a :class:`Program`, a learner's own class in "Your code" (engine/yourcode/graph.py).
"""

from __future__ import annotations

import ast
import io
import math
import operator
import re
import tokenize
import warnings

from . import grid
from .grid import Grid
from .ops import FUNCTIONS, INFIX, MAX_EXPONENT, OPS
from .tensor import ShapeError, checked_rows, shape_text
from .tensor import cross_entropy as tensor_cross_entropy
from .text import expression_text
from .value import Value, topological_order

# Limits that keep every program small enough to draw and quick to compute.
MAX_SOURCE_CHARS = 50_000
MAX_LINES = 2_000
MAX_NODES = 2_000
MAX_DEPTH = 100  # nesting of one expression (a sum of n terms nests n deep)
MAX_OPERATORS_PER_STATEMENT = 300  # far above MAX_DEPTH, far below what overflows Pyodide's stack
MAX_LITERAL = 1e12
MAX_LABEL_CHARS = 24
MAX_GROUP_CHARS = 40  # a group's name: "neuron 2 of layer 1"
MAX_GROUP_DEPTH = 4  # with group(...) blocks inside each other
READABLE_LABEL_CHARS = 12

LITERAL_RANGE = "between -1e12 and 1e12"
ALLOWED = f"Value(...), numbers, {' '.join(INFIX)}, and the functions " + ", ".join(FUNCTIONS)


class ProgramError(Exception):
    """A program outside the subset: a message a learner understands, and where."""

    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(f"line {line}, column {col}: {message}")
        self.message = message
        self.line = line
        self.col = col


# Python constructs a learner might reach for, and how to name them in a message.
_STATEMENT_WORDS = {
    ast.For: "a for loop",
    ast.AsyncFor: "a for loop",
    ast.While: "a while loop",
    ast.If: "an if statement",
    ast.With: "a with block",
    ast.AsyncWith: "a with block",
    ast.FunctionDef: "a function definition",
    ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition",
    ast.Return: "return",
    ast.Delete: "del",
    ast.Try: "a try block",
    ast.Raise: "raise",
    ast.Assert: "assert",
    ast.Global: "global",
    ast.Nonlocal: "nonlocal",
    ast.Pass: "pass",
    ast.Break: "break",
    ast.Continue: "continue",
    ast.AnnAssign: "an annotated assignment",
    ast.Match: "a match statement",
}
if hasattr(ast, "TryStar"):
    _STATEMENT_WORDS[ast.TryStar] = "a try block"
if hasattr(ast, "TypeAlias"):
    _STATEMENT_WORDS[ast.TypeAlias] = "a type alias"

_EXPRESSION_MESSAGES = {
    ast.Lambda: "Lambdas aren't part of this language; write each step as its own assignment.",
    ast.Subscript: "Indexing with [...] isn't supported; give each value its own name.",
    ast.Compare: "Comparisons aren't supported; the graph only computes numbers.",
    ast.BoolOp: "and/or aren't supported; the graph only computes numbers.",
    ast.IfExp: "x if c else y isn't supported; a straight-line program has no branches.",
    ast.NamedExpr: "The := operator isn't supported; use a separate assignment.",
    ast.JoinedStr: "Strings aren't values here; use numbers.",
    ast.List: "Lists aren't supported; give each value its own name.",
    ast.Tuple: "Tuples aren't supported; give each value its own name.",
    ast.Set: "Sets aren't supported; give each value its own name.",
    ast.Dict: "Dictionaries aren't supported; give each value its own name.",
    ast.ListComp: "Comprehensions aren't supported; write each step as its own assignment.",
    ast.SetComp: "Comprehensions aren't supported; write each step as its own assignment.",
    ast.DictComp: "Comprehensions aren't supported; write each step as its own assignment.",
    ast.GeneratorExp: "Generators aren't supported; write each step as its own assignment.",
    ast.Await: "await isn't supported in a straight-line program.",
    ast.Yield: "yield isn't supported in a straight-line program.",
    ast.YieldFrom: "yield isn't supported in a straight-line program.",
    ast.Starred: "Starred expressions aren't supported here.",
    ast.Slice: "Slices aren't supported here.",
}

# How Python writes each of its binary operators; a program may use those in engine/ops.py.
_PYTHON_OPERATORS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
}
_BINARY_OPERATORS = {node: symbol for node, symbol in _PYTHON_OPERATORS.items() if symbol in INFIX}
_RESERVED = {"Value", "tensor", "cross_entropy", *FUNCTIONS}
_MIRRORED = {"+": operator.add, "-": operator.sub, "*": operator.mul}  # a tensor operator in engine.tensor
TENSOR_OPERATIONS = "@, + - * (broadcasting rows and columns), tanh relu exp log, .sum(), .sum(0), .sum(1), .mean(), .T"


def _code(node, side: str) -> str:
    """The code of one side of a binary operation (of ``x += y`` too: its target, its value),
    an operation in brackets, so that a rule reads it as one thing: ``X * (a + b)``."""
    part = (node.target if side == "left" else node.value) if isinstance(node, ast.AugAssign) else getattr(node, side)
    code = ast.unparse(part)
    return f"({code})" if isinstance(part, (ast.BinOp, ast.UnaryOp)) else code


def _where(node) -> tuple[int, int]:
    return getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1


def _fail(node, message):
    raise ProgramError(message, *_where(node))


class Walker:
    """A program's statements evaluated in order, every construct checked as it is reached,
    building the program's graph out of values of ``value_class``.

    The class is a parameter because two classes build programs: the engine's own
    :class:`~engine.value.Value` (:class:`Program`), and a learner's own class in "Your
    code" (engine/yourcode/graph.py), which walks here too so that both graphs are the same
    program read the same way: the same inputs, the same folding of plain numbers, the same
    names, refused with the same sentences at the same places.

    What touches the class is two methods, :meth:`new_input` and :meth:`apply`; a subclass
    replaces them to guard each call of code that isn't the engine's. Names and places are
    kept here, by ``id`` of the node, rather than written onto the nodes: a learner's objects
    are theirs, and stay as their code made them (:class:`Program` writes them onto its own
    Values once the walk is over). Every node made is kept in ``_created``, which keeps those
    ids from being reused while the walker lives.

    A value here is anything that isn't a plain number, and the walker's own numbers are
    always floats (literals, folded results, the number of ``Value(2.0)``): so whichever class
    builds the graph, ``2 * 3`` folds and ``2 * a`` calls its ``__rmul__``.
    """

    def __init__(self, value_class: type = Value):
        self.value_class = value_class
        self.variables: dict[str, object] = {}
        self.output = None
        self.inputs: dict[str, object] = {}  # each input's name → its leaf (the latest, if reassigned)
        self.input_spans: dict[str, tuple[int, int, int, int]] = {}  # literal's position
        self.names: dict[int, str] = {}  # id(node) → the label the program gave it
        self.places: dict[int, tuple[int, int]] = {}  # id(node) → (line, column) of the code that made it
        self._labels: set[str] = set()
        self._versions: dict[str, int] = {}  # how many nodes each name has labelled
        self._count = 0
        self._created: list = []  # every node this program made, for release() (and to keep ids unique)
        # Each `with group("name"):` block, outermost first: its name and the nodes made in it.
        self.groups: list[tuple[str, list]] = []
        self.group_kinds: dict[str, str] = {}  # a group that is not a with block: "tensor" (a tensor's line)
        # a tensor line's group → the tensor it made (its shape, its cells) and its backward step
        # as tensor rules (engine/grid.py's line_rules)
        self.tensor_lines: dict[str, tuple[Grid, list[str]]] = {}
        self._steps: list[Grid] = []  # the tensors the line being read has made, in order
        self._open: list[list] = []  # the blocks being read, outermost first
        self._overrides: dict[str, float] = {}

    def walk(self, tree: ast.Module, values: dict[str, float] | None = None):
        """Evaluate the statements of ``tree`` (from :func:`_parse_python`); ``values``
        replaces input values by name. Returns the walker."""
        if not tree.body:
            raise ProgramError("The program is empty; write at least one assignment, like a = 2.", 1, 1)
        self._overrides = dict(values or {})
        for index, statement in enumerate(tree.body):
            self._statement(statement, is_last=index == len(tree.body) - 1)
        unknown = sorted(set(self._overrides) - set(self.inputs))
        if unknown:
            raise ProgramError(f"There is no input named {unknown[0]} to change.", 1, 1)
        self._one_number_out(tree)
        return self

    def _one_number_out(self, tree):
        """A tensor program ends in one number, as PyTorch's backward() needs: a 1×1 tensor."""
        if isinstance(self.output, Grid):
            if self.output.shape != (1, 1):
                _fail(
                    tree.body[-1],
                    f"The last line makes a {shape_text(self.output.shape)} tensor; the backward pass starts "
                    "from one number, so end with .sum() or .mean() (or a loss).",
                )
            self.output = self.output.rows[0][0]

    # -- what touches the class -------------------------------------------------------------

    def new_input(self, number: float):
        """A leaf holding ``number``: ``Value(number)``."""
        return self.value_class(number)

    def apply(self, op: str, value, args: tuple, node, reflected: bool = False):
        """The operation ``op`` (a key of engine.ops.OPS) on ``value``, as its method:
        ``a.__mul__(b)``, ``a.__rmul__(2.0)`` for ``2 * a`` (``reflected``), ``a.tanh()``,
        ``a.__neg__()``. Each of ``args`` is a value or a plain float; ``node`` is where the
        program asks for it."""
        entry = OPS[op]
        return getattr(value, entry.reflected if reflected else entry.method)(*args)

    # -- statements ---------------------------------------------------------------------

    def _statement(self, statement, is_last):
        if isinstance(statement, (ast.Assign, ast.AugAssign)):
            # A line that makes a tensor is a group of its own (the tensor view of the line);
            # its place in self.groups is taken now, so that an outer group comes first.
            members: list = []
            place = len(self.groups)
            self._open.append(members)
            self._steps = []
            try:
                self._plain_statement(statement, is_last)
            finally:
                self._open.pop()
            name = getattr(statement.targets[0] if isinstance(statement, ast.Assign) else statement.target, "id", "")
            if isinstance(self.variables.get(name), Grid) and members:
                group = self._line_group_name(statement)
                self.groups.insert(place, (group, members))
                self.group_kinds[group] = "tensor"
                rules = grid.line_rules(self._steps, name) if self._steps else []
                self.tensor_lines[group] = (self.variables[name], rules)
                # later lines' rules name it as the line that made it does (an alias, Y = X,
                # makes no tensor: its rules say X, whose box it is)
                self.variables[name].mirror.label = name
            return
        self._plain_statement(statement, is_last)

    def _line_group_name(self, statement) -> str:
        """A tensor line's group: its code, shortened to fit, unique."""
        target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        shape = shape_text(self.variables[target.id].shape)
        if _is_call_of(getattr(statement, "value", None), "tensor"):
            text = f"{target.id} ({shape})"  # an input: its name and shape, not its numbers
        else:
            text = f"{ast.unparse(statement)} ({shape})"  # its code, spaced as Python writes it
        if len(text) > MAX_GROUP_CHARS:
            text = text[: MAX_GROUP_CHARS - 1].rstrip() + "…"
        name, count = text, 1
        while any(name == other for other, _ in self.groups):
            count += 1
            name = f"{text[: MAX_GROUP_CHARS - 4]} ({count})"
        return name

    def _plain_statement(self, statement, is_last):
        if isinstance(statement, ast.Assign):
            if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
                _fail(statement, "Assign one name at a time, like a = 2.")
            name = self._target(statement.targets[0])
            value = self._assigned(statement.value, name)
        elif isinstance(statement, ast.AugAssign):
            if not isinstance(statement.target, ast.Name):
                _fail(statement, "Assign one name at a time, like a += 2.")
            name = self._target(statement.target)
            if name not in self.variables:
                _fail(statement.target, f"{name} is used before it has a value; assign it on an earlier line.")
            op = _BINARY_OPERATORS.get(type(statement.op))
            if op is None:
                _fail(statement, f"Only {ALLOWED} are allowed.")
            value = self._binary(statement, op, self.variables[name], self._expression(statement.value, 1))
            self._label(value, name)
        elif isinstance(statement, ast.Expr) and _is_backward_call(statement.value):
            if not is_last:
                _fail(statement, "Call .backward() only on the last line.")
            target = statement.value.func.value
            if target.id not in self.variables:
                _fail(target, f"{target.id} is used before it has a value; assign it on an earlier line.")
            self.output = self.variables[target.id]
            return
        elif isinstance(statement, ast.Expr):
            self._expression(statement.value, 1)  # reports a disallowed call such as print() first
            _fail(statement, "This line computes something but doesn't store it; write name = ... .")
        elif isinstance(statement, ast.With) and _is_group_block(statement):
            self._group_block(statement, is_last)
            return
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            _fail(statement, f"Imports aren't needed or allowed here: {ALLOWED} are already available.")
        else:
            word = _STATEMENT_WORDS.get(type(statement), "this kind of statement")
            _fail(statement, f"Only straight-line assignments are allowed, so {word} can't be used.")
        self.variables[name] = value
        self.output = value

    def _group_block(self, statement: ast.With, is_last: bool):
        """``with group("neuron 1"):``: the nodes its statements make are one group, named so
        (engine/groups.py); blocks nest."""
        call = statement.items[0].context_expr
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Constant):
            _fail(call, 'group() takes the group\'s name in quotes, like with group("neuron 1"):')
        name = call.args[0].value
        if not isinstance(name, str):
            _fail(call, 'group() takes the group\'s name in quotes, like with group("neuron 1"):')
        name = " ".join(name.split())
        if not name or len(name) > MAX_GROUP_CHARS or not name.isprintable():
            _fail(call.args[0], f"A group's name must be 1 to {MAX_GROUP_CHARS} printable characters.")
        if any(name == other for other, _ in self.groups):
            _fail(call.args[0], f'There is already a group called "{name}"; give each group its own name.')
        if len(self._open) >= MAX_GROUP_DEPTH:
            _fail(statement, f"Groups can be nested at most {MAX_GROUP_DEPTH} deep.")
        members: list = []
        self.groups.append((name, members))
        self._open.append(members)
        try:
            for index, inner in enumerate(statement.body):
                self._statement(inner, is_last=is_last and index == len(statement.body) - 1)
        finally:
            self._open.pop()

    def _target(self, target: ast.Name) -> str:
        name = target.id
        if name in _RESERVED:
            _fail(target, f"{name} is the name of a function here; choose another name.")
        if name.startswith("__"):
            _fail(target, "Names starting with __ are reserved; choose another name.")
        if len(name) > MAX_LABEL_CHARS:
            _fail(target, f"Names can be at most {MAX_LABEL_CHARS} characters long.")
        return name

    def _assigned(self, expression, name):
        """The right-hand side of ``name = ...``: a new input, or a computed node."""
        if _is_call_of(expression, "tensor"):
            return self._tensor_input(expression, name)
        result = self._expression(expression, 1)
        if isinstance(result, _LiteralInput):  # name = Value(2.0, label="...")
            return self._input(float(result), result.label or name, result.node, name)
        if _is_number(result):  # name = 2, or name = 2 * 3: an input
            return self._input(result, name, expression, name)
        if isinstance(result, Grid) or id(result) not in self.names:
            self._label(result, name)  # a node this line created; b = a just gives a a second name
        return result

    def _tensor_input(self, call: ast.Call, name: str) -> Grid:
        """``X = tensor([[0.5, -1.0], [1.5, 0.3]])``: an input per number, ``X[0,1]``, each with
        its own literal (so a new value is written where it stands)."""
        example = f"like {name} = tensor([[1.0, 2.0], [3.0, 4.0]])"
        if len(call.args) != 1 or call.keywords:
            _fail(call, f"tensor() takes one list of rows, {example}.")
        rows = call.args[0]
        if not isinstance(rows, (ast.List, ast.Tuple)):
            _fail(rows, f"tensor() takes a list of rows written out in brackets, {example}.")
        numbers, places = [], []
        for row in rows.elts:
            if not isinstance(row, (ast.List, ast.Tuple)):  # checked_rows words a flat list's fix
                numbers.append(self._expression(row, 2))
                continue
            numbers.append([self._tensor_number(x) for x in row.elts])
            places.append(row.elts)
        try:
            checked_rows(numbers)
        except (TypeError, ValueError) as error:
            _fail(call, f"{error}.")
        rows = []
        for i, (row, literals) in enumerate(zip(numbers, places)):
            element = [f"{name}[{i},{j}]" for j in range(len(row))]
            rows.append([self._input(x, e, literal, e) for x, e, literal in zip(row, element, literals)])
        return Grid(rows, grid.mirror_input((len(rows), len(rows[0])), name))

    def _tensor_number(self, node) -> float:
        number = self._expression(node, 3)
        if not _is_number(number) or isinstance(number, _LiteralInput):
            _fail(node, "A tensor holds plain numbers, like 0.5 or -1; a value can't go inside one.")
        return float(number)

    def _input(self, number, label, expression, name):
        if name in self._overrides:
            number = _checked_number(self._overrides[name], expression, "The new value of " + name)
        leaf = self.new_input(number)
        self._created.append(leaf)
        for members in self._open:
            members.append(leaf)
        self.places[id(leaf)] = _where(expression)
        self._label(leaf, label)
        if name in self.inputs:
            # A reassigned input: only the latest one can be changed by name.
            del self.inputs[name]
        self.inputs[name] = leaf
        self.input_spans[name] = (
            expression.lineno,
            expression.col_offset,
            expression.end_lineno,
            expression.end_col_offset,
        )
        return leaf

    # -- expressions ----------------------------------------------------------------------

    def _expression(self, node, depth):
        """A value, or a plain float when the expression involves no value at all."""
        if depth > MAX_DEPTH:
            _fail(node, f"This expression is nested more than {MAX_DEPTH} levels deep; split it into steps.")
        if isinstance(node, ast.Constant):
            return _checked_literal(node)
        if isinstance(node, ast.Name):
            if node.id in self.variables:
                return self.variables[node.id]
            if node.id in _RESERVED:
                _fail(node, f"{node.id} is a function; call it, like {node.id}(x).")
            _fail(node, f"{node.id} is used before it has a value; assign it on an earlier line.")
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                operand = self._expression(node.operand, depth + 1)
                if isinstance(operand, Grid):
                    return self._tensors(node, lambda x, make: grid.unary("neg", x, make), operand, mirror=operator.neg)
                return -operand if _is_number(operand) else self._made(self.apply("neg", operand, (), node), node)
            if isinstance(node.op, ast.UAdd):
                return self._expression(node.operand, depth + 1)
            _fail(node, f"Only {ALLOWED} are allowed.")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            left = self._expression(node.left, depth + 1)
            right = self._expression(node.right, depth + 1)
            if not (isinstance(left, Grid) and isinstance(right, Grid)):
                _fail(node, "@ multiplies two tensors, like X @ W; to multiply by a number or a value, use *.")
            return self._tensors(node, grid.matmul, left, right, mirror=operator.matmul)
        if isinstance(node, ast.BinOp):
            op = _BINARY_OPERATORS.get(type(node.op))
            if op is None:
                _fail(node, f"The operator {_operator_text(node.op)} isn't supported; use {_INFIX_CHOICE}.")
            left = self._expression(node.left, depth + 1)
            right = self._expression(node.right, depth + 1)
            return self._binary(node, op, left, right)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            value = self._expression(node.value, depth + 1)
            if not isinstance(value, Grid):
                _fail(node, ".T transposes a tensor; a single value has nothing to transpose.")
            return self._tensors(node, lambda x, make: x.T, value, mirror=lambda x: x.T)
        if isinstance(node, ast.Attribute):
            _fail(
                node,
                f"{_attribute_text(node)} can't be used here; the allowed methods are "
                + ", ".join(f".{f}()" for f in FUNCTIONS)
                + ".",
            )
        _fail(node, _EXPRESSION_MESSAGES.get(type(node), f"Only {ALLOWED} are allowed."))

    def _binary(self, node, op, left, right):
        if isinstance(left, Grid) or isinstance(right, Grid):
            if op not in grid.ELEMENTWISE:
                _fail(node, f"Tensors take {TENSOR_OPERATIONS}; {op} isn't one of them.")
            # A single value beside a tensor acts as a 1×1 tensor, broadcast to every element.
            sides = [
                x
                if isinstance(x, Grid)
                else float(x)
                if _is_number(x)
                else Grid([[x]], grid.mirror_input((1, 1), code))
                for x, code in ((left, _code(node, "left")), (right, _code(node, "right")))
            ]
            return self._tensors(
                node, lambda a, b, make: grid.elementwise(op, a, b, make), *sides, mirror=_MIRRORED[op]
            )
        if op == "**":
            if not _is_number(right):
                _fail(node, "The exponent after ** must be a plain number, like x ** 2.")
            if abs(right) > MAX_EXPONENT:
                _fail(node, f"Exponents must be between -{MAX_EXPONENT:g} and {MAX_EXPONENT:g}.")
        # A number from Value(2.0) that meets an operator is only a number: a plain float.
        if not _is_number(left):
            result = self.apply(op, left, (float(right) if _is_number(right) else right,), node)
        elif not _is_number(right):
            result = self.apply(op, right, (float(left),), node, reflected=True)  # 2 * a
        else:  # plain numbers: folded, in floats, so it can never run long
            return float(OPS[op].compute(float(left), float(right))[0])
        return self._made(result, node)

    def _call(self, node, depth):
        function = node.func
        if isinstance(function, ast.Name) and function.id == "Value":
            return self._value_call(node)
        if isinstance(function, ast.Name) and function.id == "tensor":
            _fail(node, "Give each tensor(...) a name of its own first, like W = tensor([[1.0, 2.0]]).")
        if isinstance(function, ast.Name) and function.id == "cross_entropy":
            return self._cross_entropy(node, depth)
        if isinstance(function, ast.Attribute) and function.attr in ("sum", "mean"):
            return self._reduction(node, function, depth)
        if isinstance(function, ast.Name) and function.id in FUNCTIONS:
            if len(node.args) != 1 or node.keywords:
                _fail(node, f"{function.id}() takes exactly one value, like {function.id}(x).")
            argument = self._expression(node.args[0], depth + 1)
            return self._function(node, function.id, argument)
        if isinstance(function, ast.Attribute) and function.attr in FUNCTIONS:
            if node.args or node.keywords:
                _fail(node, f".{function.attr}() takes no arguments.")
            argument = self._expression(function.value, depth + 1)
            return self._function(node, function.attr, argument)
        if isinstance(function, ast.Attribute):
            _fail(
                function,
                f"{_attribute_text(function)}() can't be used here; the allowed methods are "
                + ", ".join(f".{f}()" for f in FUNCTIONS)
                + ".",
            )
        if isinstance(function, ast.Name):
            _fail(node, f"{function.id}() isn't available; you can call Value, " + ", ".join(FUNCTIONS) + ".")
        _fail(node, f"Only {ALLOWED} can be called.")

    def _value_call(self, node):
        """Value(2.0) or Value(2.0, label="a"): an input with a number literal."""
        if len(node.args) != 1:
            _fail(node, "Value() takes one number, like Value(2.0).")
        label = None
        for keyword in node.keywords:
            if keyword.arg != "label":
                _fail(keyword.value, "Value() only accepts a label= keyword, like Value(2.0, label='a').")
            if not (isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str)):
                _fail(keyword.value, "A label must be a short text in quotes, like label='a'.")
            label = keyword.value.value.strip()
            if not label or len(label) > MAX_LABEL_CHARS or not label.isprintable():
                _fail(keyword.value, f"A label must be 1 to {MAX_LABEL_CHARS} printable characters.")
        number = self._expression(node.args[0], 1)
        if not _is_number(number) or isinstance(number, _LiteralInput):
            _fail(node.args[0], "Value() takes a plain number, like Value(2.0), not another value.")
        # Handed back as a number that remembers it came from Value(...), so that
        # `name = Value(2.0, label="x")` can become an input labelled x.
        return _LiteralInput(number, label, node.args[0])

    def _reduction(self, node, function, depth):
        """``X.sum()``, ``X.sum(0)``, ``X.sum(1)`` or ``X.mean()``."""
        x = self._expression(function.value, depth + 1)
        if not isinstance(x, Grid):
            _fail(node, f".{function.attr}() adds up the numbers of a tensor; a single value is one number already.")
        dim = None
        if function.attr == "mean" and (node.args or node.keywords):
            _fail(node, ".mean() takes no arguments: it is the mean of every number of the tensor.")
        if node.keywords or len(node.args) > 1:
            _fail(node, ".sum() takes at most one number: .sum(), .sum(0) or .sum(1).")
        if node.args:
            arg = node.args[0]
            if not (isinstance(arg, ast.Constant) and type(arg.value) is int and arg.value in (0, 1)):
                _fail(
                    arg,
                    ".sum() sums everything; .sum(0) sums down the rows to one row, "
                    ".sum(1) across each row to one column.",
                )
            dim = arg.value
        if function.attr == "mean":
            return self._tensors(node, lambda x, make: grid.mean(x, make), x, mirror=lambda x: x.mean())
        return self._tensors(node, lambda x, make: grid.summed(x, dim, make), x, mirror=lambda x: x.sum(dim))

    def _cross_entropy(self, node, depth):
        """``cross_entropy(logits, [0, 2])``: softmax cross-entropy over each row, averaged."""
        usage = "cross_entropy() takes a tensor of logits and a list of class numbers, like cross_entropy(Z, [0, 2])."
        if len(node.args) != 2 or node.keywords:
            _fail(node, usage)
        logits = self._expression(node.args[0], depth + 1)
        if not isinstance(logits, Grid):
            _fail(node.args[0], usage)
        written = node.args[1]
        if not isinstance(written, (ast.List, ast.Tuple)) or not all(
            isinstance(x, ast.Constant) and type(x.value) is int for x in written.elts
        ):
            _fail(written, "The labels are a list of whole numbers, one class per row, like [0, 2].")
        labels = [x.value for x in written.elts]
        return self._tensors(
            node,
            lambda z, make: grid.cross_entropy(z, labels, make),
            logits,
            mirror=lambda z: tensor_cross_entropy(z, labels),
        )

    def _tensors(self, node, operation, *operands, mirror):
        """A tensor operation, its shape error said at the line with the code that wrote it;
        ``mirror``: the same operation in engine.tensor (for the line's tensor rules)."""
        try:
            result = operation(*operands, self._maker(node))
            # (an operation's code in brackets, so that it reads as one thing in a rule: d(o - y))
            code = f"({ast.unparse(node)})" if isinstance(node, (ast.BinOp, ast.UnaryOp)) else ast.unparse(node)
            self._steps.append(grid.mirrored(result, mirror, operands, code))
            return result
        except ShapeError as error:
            _fail(node, error.named(ast.unparse(node)) + ".")
        except (TypeError, ValueError) as error:  # cross_entropy's labels
            _fail(node, f"{error}.")

    def _maker(self, node):
        """The walker's way to make one scalar node of a tensor operation written at ``node``."""

        def make(op, value, args, reflected=False, label=None):
            made = self._made(self.apply(op, value, args, node, reflected), node)
            if label is not None:
                self._label(made, label)
            return made

        return make

    def _function(self, node, name, argument):
        if isinstance(argument, Grid):
            return self._tensors(
                node, lambda x, make: grid.unary(name, x, make), argument, mirror=lambda x: getattr(x, name)()
            )
        if _is_number(argument):
            return float(OPS[name].compute(float(argument))[0])  # tanh(2): a plain number
        return self._made(self.apply(name, argument, (), node), node)

    # -- bookkeeping ------------------------------------------------------------------------

    def _made(self, value, node):
        """Record a node the program just created: where it came from, and a count."""
        self._count += 1
        self._created.append(value)
        for members in self._open:
            members.append(value)
        if self._count > MAX_NODES:
            _fail(
                node, f"This program builds more than {MAX_NODES:,} nodes, which is too many to draw; make it shorter."
            )
        # The first place wins: a learner's operator may hand back a node it was given
        # (a * 1 returning a), which stays where it was made.
        self.places.setdefault(id(value), _where(node))
        return value

    def _label(self, value, name: str):
        """Give ``value`` a label nobody else has: c, then c', c'', c#4, c#5 … as c is reassigned.
        A tensor's elements are labelled ``c[i,j]`` (those that have no label yet: ``Y = X.T``
        names nothing new)."""
        if isinstance(value, Grid):
            for i, j, element in value.elements():
                if id(element) not in self.names:
                    self._label(element, f"{name}[{i},{j}]")
            return
        label = name
        version = self._versions.get(name, 1)
        while label in self._labels:
            version += 1
            label = name + "'" * (version - 1) if version <= 3 else f"{name}#{version}"
        self._versions[name] = version
        self._labels.add(label)
        self.names[id(value)] = label


class Program(Walker):
    """A parsed program: its graph of the engine's Values, its variables and its output."""

    def __init__(self, source: str):
        super().__init__(Value)
        self.source = source
        self._temp = 0
        self._nodes: list[Value] = []  # the output's graph in topological order, once parsed

    # -- the entry point ----------------------------------------------------------------

    @classmethod
    def parse(cls, source: str, values: dict[str, float] | None = None) -> Program:
        """Build the graph of ``source``; ``values`` replaces input values by name."""
        program = cls(source)
        tree = _parse_python(source)
        try:
            program.walk(tree, values)
        except ProgramError:
            program.release()  # the half-built graph goes away without deep recursion
            raise
        program._mark_nodes()
        program._nodes = topological_order(program.output)
        if program.groups:
            # In the order its lines made them, which is also a topological order: each
            # group's nodes then come one after another, so the graph drawn with every group
            # open steps exactly as the graph itself (the same frames, the same node ids).
            used = set(program._nodes)
            program._nodes = [node for node in program._created if node in used]
        program.name_intermediates()
        return program

    def _mark_nodes(self):
        """Each node's label and place written onto it, where the rest of the engine reads them."""
        for node in self._created:
            node.line, node.col = self.places[id(node)]
            label = self.names.get(id(node))
            if label:
                node.label = label

    def release(self):
        """Cut every node's links to its parents.

        Freeing a long chain of Values the ordinary way frees each node from inside its
        child's deallocation, one C stack frame per node. CPython copes; Pyodide in a
        browser worker has a much smaller stack and dies. Cutting the links first means
        every node is freed on its own. The numbers stay readable; the graph doesn't.
        """
        for node in self._created:
            node._prev = node._local = ()
        self._created = []
        self._nodes = []

    @property
    def nodes(self) -> list[Value]:
        """Every node the output depends on, in topological order (sorted once, at parse)."""
        return self._nodes

    def name_intermediates(self):
        """Readable, unique labels for the unnamed nodes (x1*w1, or t1, t2 when long)."""
        for node in self.nodes:
            if node.label:
                continue
            text = _readable(node)
            if len(text) > READABLE_LABEL_CHARS or text in self._labels:
                base = text if len(text) <= READABLE_LABEL_CHARS else None
                if base is not None:
                    suffix = 2
                    while f"{base}#{suffix}" in self._labels:
                        suffix += 1
                    text = f"{base}#{suffix}"
                else:
                    self._temp += 1
                    while f"t{self._temp}" in self._labels:
                        self._temp += 1
                    text = f"t{self._temp}"
            self._labels.add(text)
            node.label = text


class _LiteralInput(float):
    """The number from Value(...), remembered as an input rather than a folded constant."""

    def __new__(cls, number, label, node):
        self = super().__new__(cls, number)
        self.label = label
        self.node = node
        return self


# -- new input values -------------------------------------------------------------------------


def with_inputs(source: str, spans: dict, values: dict[str, float]) -> str:
    """``source`` with each changed input's number literal (at ``spans[name]``, a parsed
    program's ``input_spans``) replaced, so the code shown matches the graph."""
    lines = source.splitlines(keepends=True)
    # Replace from the end so earlier positions stay valid; ast columns count UTF-8 bytes.
    changes = sorted(((spans[name], value) for name, value in values.items()), reverse=True)
    for (line, col, end_line, end_col), value in changes:
        first = lines[line - 1].encode()
        last = lines[end_line - 1].encode()
        text = first[:col] + _literal(value).encode() + last[end_col:]
        lines[line - 1 : end_line] = [text.decode()]
    return "".join(lines)


def _literal(x: float) -> str:
    if x == 0 and math.copysign(1.0, x) < 0:
        return "-0.0"  # int() would drop the sign
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


# -- helpers ----------------------------------------------------------------------------------


def _parse_python(source) -> ast.Module:
    if not isinstance(source, str):
        raise ProgramError("The program must be text.", 1, 1)
    if len(source) > MAX_SOURCE_CHARS:
        raise ProgramError(f"This program is {len(source):,} characters long; the limit is {MAX_SOURCE_CHARS:,}.", 1, 1)
    if source.count("\n") + 1 > MAX_LINES:
        raise ProgramError(f"This program has more than {MAX_LINES:,} lines; make it shorter.", MAX_LINES + 1, 1)
    if source.startswith("\ufeff"):
        source = source[1:]  # a byte-order mark pasted from an editor is not part of the program
    if "\x00" in source:
        line, col = _position_of(source, source.index("\x00"))
        raise ProgramError("The program contains a NUL character; delete it.", line, col)
    surrogate = _SURROGATE.search(source)
    if surrogate:
        line, col = _position_of(source, surrogate.start())
        raise ProgramError("The program contains a character that isn't valid text; delete it.", line, col)
    _check_line_complexity(source)
    try:
        with warnings.catch_warnings():
            # Python warns about odd literals such as "1and"; the learner gets our message instead.
            warnings.simplefilter("ignore")
            return ast.parse(source, mode="exec")
    except SyntaxError as error:
        message = (error.msg or "invalid syntax").rstrip(".")
        if "integer string conversion" in message:
            message = f"this number has too many digits (numbers must be {LITERAL_RANGE})"
        line = error.lineno or 1
        col = error.offset or 1
        if isinstance(error, IndentationError) and line <= source.count("\n") + 1:
            # Point at the first character of the badly indented line (Python versions differ).
            text = source.splitlines()[line - 1] if source.splitlines() else ""
            col = len(text) - len(text.lstrip()) + 1
        raise ProgramError(f"Python can't read this line: {message}.", line, max(col, 1)) from None
    except (ValueError, MemoryError, RecursionError):
        raise ProgramError("Python can't read this program: it is nested too deeply or too large.", 1, 1) from None


def _check_line_complexity(source: str):
    """Refuse a statement with hundreds of operators, or brackets nested deeper than
    MAX_DEPTH, before Python's parser sees it.

    Python turns ``1+1+1+…`` into a tree as deep as the number of operators, and builds it
    with one C stack frame per level; each open bracket costs several more. CPython has
    room for thousands; Pyodide in a browser worker does not and dies outright (a fresh
    worker overflowed at 199 nested brackets, below the 200 at which Python's own
    tokenizer refuses them). Counting tokens needs no recursion at all.
    """
    if _surely_within_operator_limit(source):
        return
    count, first_line, depth = 0, 1, 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for token in tokenize.generate_tokens(io.StringIO(source).readline):
                if token.type == tokenize.OP and token.string in "([{":
                    depth += 1
                    if depth > MAX_DEPTH:
                        line, col = token.start
                        raise ProgramError(
                            f"This expression is nested more than {MAX_DEPTH} levels deep; split it into steps.",
                            line,
                            col + 1,
                        )
                elif token.type == tokenize.OP and token.string in ")]}":
                    depth -= 1
                if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                    count, first_line = 0, token.end[0] + 1
                elif token.type == tokenize.OP and token.string not in _NEUTRAL_TOKENS:
                    count += 1
                    if count > MAX_OPERATORS_PER_STATEMENT:
                        raise ProgramError(
                            f"This statement has more than {MAX_OPERATORS_PER_STATEMENT} operators and brackets, "
                            "nested too deeply or too large to read; split it into steps.",
                            first_line,
                            1,
                        )
    except (tokenize.TokenError, SyntaxError, ValueError):
        return  # not even tokens: Python's parser will say what is wrong, and where


_SURROGATE = re.compile("[\ud800-\udfff]")  # half of a UTF-16 pair: not a character on its own
_NEUTRAL_TOKENS = {")", "]", "}", ",", "=", ";", ":"}
# Every operator token (and every opening bracket) has at least one of these characters.
_OPERATOR_CHARS = re.compile(r"[+\-*/%@&|^~<>!=.(\[{]")


def _surely_within_operator_limit(source: str) -> bool:
    """A quick upper bound instead of Python's (slow, pure-Python) tokenizer.

    Without quotes or backslashes, a statement ends where a line ends with every bracket
    closed, and it cannot have more operator tokens than operator characters. True when
    no statement can reach the limit; False means "count properly".
    """
    if "'" in source or '"' in source or "\\" in source:
        return False
    depth = chars = 0
    for line in source.split("\n"):
        code = line.split("#", 1)[0]  # no strings, so '#' always starts a comment
        opening = sum(map(code.count, "([{"))
        if depth + opening > MAX_DEPTH:  # perhaps nested too deep: the tokens will tell
            return False
        depth += opening - sum(map(code.count, ")]}"))
        chars += len(_OPERATOR_CHARS.findall(code))
        if chars > MAX_OPERATORS_PER_STATEMENT:
            return False
        if depth <= 0:
            depth = chars = 0
    return True


def _position_of(source, index):
    line = source.count("\n", 0, index) + 1
    col = index - (source.rfind("\n", 0, index) + 1) + 1
    return line, col


def _checked_literal(node) -> float:
    value = node.value
    if isinstance(value, bool) or value is None or value is Ellipsis:
        _fail(node, f"{value!r} isn't a number; use numbers like 2 or -0.5.")
    if isinstance(value, complex):
        _fail(node, "Complex numbers aren't supported; use real numbers.")
    if isinstance(value, (str, bytes)):
        _fail(node, "Strings aren't values here; use numbers.")
    return _checked_number(value, node, "This number")


def _checked_number(value, node, what) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(node, f"{what} must be a number.")
    if isinstance(value, int) and abs(value) > MAX_LITERAL:
        _fail(node, f"{what} is too large; numbers must be {LITERAL_RANGE}.")
    number = float(value)
    if not math.isfinite(number):
        _fail(node, f"{what} isn't finite; numbers must be {LITERAL_RANGE}.")
    if abs(number) > MAX_LITERAL:
        _fail(node, f"{what} is too large; numbers must be {LITERAL_RANGE}.")
    return number


def _is_number(x) -> bool:
    """A plain number of the program's own, always a float (a literal, a folded result, the
    number of Value(2.0)); anything else is a value of the class building the graph."""
    return isinstance(x, float)


def _is_group_block(statement: ast.With) -> bool:
    """``with group(...):``, with nothing after ``as``: the one with block a program may hold."""
    if len(statement.items) != 1 or statement.items[0].optional_vars is not None:
        return False
    call = statement.items[0].context_expr
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "group"


def _is_call_of(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def _is_backward_call(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward"
        and isinstance(node.func.value, ast.Name)
        and not node.args
        and not node.keywords
    )


def _attribute_text(node) -> str:
    return "." + node.attr


def _operator_text(op) -> str:
    return _PYTHON_OPERATORS.get(type(op), type(op).__name__)


_INFIX_CHOICE = " ".join(INFIX[:-1]) + " or " + INFIX[-1]  # + - * / or **


def _readable(node: Value) -> str:
    """A short text for an unnamed node, from its operation and its parents' labels."""
    return expression_text(node, spaced=False)
