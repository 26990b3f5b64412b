"""Tensor: a grid of numbers in a computation graph, and the tensor rules of its backward pass.

The scalar engine (:mod:`engine.value`) teaches ``parent.grad += local * child.grad``, one
number at a time. Learners who go on to PyTorch meet the same pass written for whole
matrices: ``dX = dY · Wᵀ``, ``dW = Xᵀ · dY``, a broadcast bias's grad summed over the
batch. This module is that engine, kept as small as the lesson:

* 2-D only, stored as a list of rows (``list[list[float]]``): a row vector is 1×n, a
  column n×1, a single number 1×1. Every shape a learner sees is written R×C;
* ``@``; ``+ - *`` element by element, broadcasting a 1×n row, an n×1 column (or a 1×1)
  against an m×n tensor, and a plain number on either side, which is folded into the node
  as in the scalar engine rather than becoming a node of its own; unary ``-``; ``tanh``,
  ``relu``, ``exp``, ``log``; ``sum()``, ``sum(0)``, ``sum(1)``, ``mean()``; ``.T``; and
  :func:`cross_entropy`;
* every backward step is written as a tensor rule on whole lists of rows, with the helpers
  below (:func:`matmul`, :func:`transpose`, :func:`sum_to`, ...), never as a loop over
  scalar nodes: that is the form the stage will show. Each node can also say its rule, per
  input, as data (:class:`Rule`, from :meth:`Tensor.rules`);
* shapes that don't fit raise :class:`ShapeError`, told as PyTorch explains it.

Grads accumulate with ``+=`` (into the rows, in place), so a tensor used twice receives
both paths. All transcendental arithmetic goes through :mod:`engine.numbers`, so CPython and
Pyodide compute the same bits and an overflow gives inf instead of an exception.

The notation of the rule texts: ``dY`` is the grad of the node whose backward step it is,
``·`` a matrix product (or a plain number times a tensor), ``⊙`` a product element by
element, ``ᵀ`` the transpose.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import numbers as num
from .text import fmt
from .value import topological_order

Rows = list[list[float]]
Shape = tuple[int, int]


def shape_text(shape: Shape) -> str:
    """A shape as the learner reads it: 4×3."""
    return f"{shape[0]}×{shape[1]}"


class ShapeError(ValueError):
    """Shapes an operation can't combine, said the way PyTorch explains it.

    ``str(error)`` is ``"op: body"``, for instance ``"@: 4×3 @ 2×3, the inner sizes 3 and 2
    differ"``. The body is kept apart (``error.body``) so that a caller who knows how the
    operation was written can say where it went wrong: ``error.named("X @ W")`` is
    ``"X @ W: 4×3 @ 2×3, the inner sizes 3 and 2 differ"``.
    """

    def __init__(self, op: str, body: str):
        super().__init__(f"{op}: {body}")
        self.op = op
        self.body = body

    def named(self, where: str) -> str:
        return f"{where}: {self.body}"


@dataclass(frozen=True)
class Rule:
    """One input's share of a backward step, as the stage will write it.

    ``str(rule)`` is ``"W.grad += Xᵀ · dY: 3×4 · 4×2 → 3×2"``: the formula, then the shapes
    that go into it and the shape that comes out (always the input's own shape).
    """

    parent: str  # the input whose grad grows, by its label (or the operation's default name)
    formula: str  # "W.grad += Xᵀ · dY"
    shapes: str  # "3×4 · 4×2 → 3×2"
    summed: str = ""  # for a broadcast input, what of dY is summed back: "rows", "columns", "rows and columns"

    def __str__(self) -> str:
        return f"{self.formula}: {self.shapes}"


# -- tensor arithmetic on plain lists of rows ------------------------------------------------
# The backward rules below are written with these, whole tensors at a time.


def add_up(numbers) -> float:
    """Numbers added left to right, one ``+`` at a time, as the scalar graph adds its paths.

    Not the builtin sum(): from Python 3.12 it compensates the rounding of floats and 3.11's
    does not, so the build's CPython and the page's Pyodide would disagree in the last bits.
    """
    total = 0.0
    for x in numbers:
        total += x
    return total


def shape_of(rows: Rows) -> Shape:
    return len(rows), len(rows[0])


def zeros(shape: Shape) -> Rows:
    return [[0.0] * shape[1] for _ in range(shape[0])]


def transpose(rows: Rows) -> Rows:
    return [list(column) for column in zip(*rows)]


def matmul(a: Rows, b: Rows) -> Rows:
    """The matrix product of an m×k and a k×n list of rows (shapes already checked)."""
    columns = transpose(b)
    return [[add_up(x * y for x, y in zip(row, column)) for column in columns] for row in a]


def broadcast_to(rows: Rows, shape: Shape) -> Rows:
    """A row, a column or a single number copied out to ``shape``; a fresh list of rows."""
    (r, c), (to_r, to_c) = shape_of(rows), shape
    if r not in (1, to_r) or c not in (1, to_c):
        raise ValueError(f"can't broadcast {shape_text((r, c))} to {shape_text(shape)}")
    if c != to_c:
        rows = [row * to_c for row in rows]  # a column's one number per row, copied across
    if r != to_r:
        return [list(rows[0]) for _ in range(to_r)]
    return [list(row) for row in rows]


def sum_to(grad_rows: Rows, shape: Shape) -> Rows:
    """A grad summed back to the shape of an input that was broadcast to make it.

    A 1×n bias added to m rows has reached the output m times, once per row, so its grad is
    the sum of dY's m rows; an n×1 column's grad is the sum across each row. This is the
    inverse of :func:`broadcast_to`, and the shape it gives is ``shape``. (It is also the
    forward pass of ``.sum()``, ``.sum(0)`` and ``.sum(1)``.)
    """
    (r, c), (to_r, to_c) = shape_of(grad_rows), shape
    if to_r not in (1, r) or to_c not in (1, c):
        raise ValueError(f"can't sum {shape_text((r, c))} to {shape_text(shape)}")
    if to_r != r:
        grad_rows = [[add_up(column) for column in zip(*grad_rows)]]
    if to_c != c:
        grad_rows = [[add_up(row)] for row in grad_rows]
    return [list(row) for row in grad_rows] if (to_r, to_c) == (r, c) else grad_rows  # always fresh rows


def zip_with(f: Callable[[float, float], float], a: Rows, b: Rows) -> Rows:
    """``f`` element by element, broadcasting a row, a column or a 1×1 of either side."""
    shape = (max(len(a), len(b)), max(len(a[0]), len(b[0])))
    return [list(map(f, row_a, row_b)) for row_a, row_b in zip(broadcast_to(a, shape), broadcast_to(b, shape))]


def map_rows(f: Callable[[float], float], rows: Rows) -> Rows:
    return [list(map(f, row)) for row in rows]


def add_into(grad: Rows, rows: Rows) -> None:
    """``grad += rows``, in place: grads accumulate, so a tensor used twice gets both paths."""
    for grad_row, row in zip(grad, rows):
        for j, x in enumerate(row):
            grad_row[j] += x


def broadcast_shape(op: str, a: Shape, b: Shape) -> Shape:
    """The shape of ``a op b`` element by element, or a ShapeError that says which sizes clash."""
    out, clashes = [], []
    for size_a, size_b, what in zip(a, b, ("rows", "columns")):
        if size_a == size_b or size_b == 1:
            out.append(size_a)
        elif size_a == 1:
            out.append(size_b)
        else:
            clashes.append(f"{size_a} {what} and {size_b} {what}")
    if clashes:
        raise ShapeError(op, f"{shape_text(a)} {op} {shape_text(b)} cannot broadcast: {'; '.join(clashes)}")
    return out[0], out[1]


def matmul_shape(a: Shape, b: Shape) -> Shape:
    """The shape of ``a @ b``, or a ShapeError that says which inner sizes differ."""
    if a[1] != b[0]:
        raise ShapeError("@", f"{shape_text(a)} @ {shape_text(b)}, the inner sizes {a[1]} and {b[0]} differ")
    return a[0], b[1]


# -- reading a tensor from the outside world ---------------------------------------------------

_EXAMPLE = "[[1.0, 2.0], [3.0, 4.0]]"


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)  # True is an int, but no number here


def checked_rows(rows) -> Rows:
    """``rows`` as a fresh list of rows of floats, or a TypeError or ValueError saying what is wrong.

    A tensor is rectangular, has at least one row of at least one number, and every number
    is finite. Positions are written as the learner would index them: ``rows[1][0]``.
    """
    if isinstance(rows, Tensor):
        raise TypeError("tensor() takes a list of rows, not another Tensor")
    if not isinstance(rows, (list, tuple)):
        raise TypeError(f"tensor() takes a list of rows, like {_EXAMPLE}, not {_what(rows)}")
    if not rows:
        raise ValueError("tensor([]) has no rows: a tensor needs at least one row of at least one number")
    if all(_is_number(x) for x in rows):
        numbers = ", ".join(fmt(num.as_float(x)) for x in rows[:3]) + (", ..." if len(rows) > 3 else "")
        column = ", ".join(f"[{fmt(num.as_float(x))}]" for x in rows[:3]) + (", ..." if len(rows) > 3 else "")
        raise TypeError(
            f"tensor() takes a list of rows, and [{numbers}] is one row of numbers: "
            f"write [[{numbers}]] for a 1×{len(rows)} row, or [{column}] for a {len(rows)}×1 column"
        )
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise TypeError(f"rows[{i}] is {_what(row)}, not a row: tensor() takes a list of rows, like {_EXAMPLE}")
        if not row:
            raise ValueError(f"rows[{i}] is empty: every row needs at least one number")
        if len(row) != len(rows[0]):
            raise ValueError(
                f"rows[{i}] has {_count(len(row), 'number')} but rows[0] has {len(rows[0])}: "
                "every row of a tensor has the same length"
            )
        floats = []
        for j, x in enumerate(row):
            if not _is_number(x):
                hint = ": a tensor has two dimensions, rows and columns" if isinstance(x, (list, tuple)) else ""
                raise TypeError(f"rows[{i}][{j}] is {_what(x)}, not a number{hint}")
            try:
                x = float(x)
            except OverflowError:
                raise ValueError(f"rows[{i}][{j}] is too large for a float (above about 1.8e308)") from None
            if not math.isfinite(x):
                raise ValueError(f"rows[{i}][{j}] is {fmt(x)}: every number of a tensor must be finite")
            floats.append(x)
        out.append(floats)
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _what(x) -> str:
    if isinstance(x, (list, tuple)):
        return "a list"
    text, kind = repr(x), type(x).__name__
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{text if len(text) <= 20 else text[:17] + '...'} ({article} {kind})"


# -- the tensor --------------------------------------------------------------------------------


class Tensor:
    """A 2-D grid of numbers in a computation graph: micrograd's Value, one level up.

    ``data`` and ``grad`` are lists of rows of the same shape; ``_prev`` holds the input
    tensors in operand order (``x * x`` has ``x`` twice, each a path of its own); ``_op``
    names the operation; ``_backward()`` adds this node's grad, by the operation's tensor
    rule, into its inputs' grads; :meth:`rules` says that rule per input, as text.
    """

    def __init__(self, data, label: str = ""):
        self.data = checked_rows(data)
        self.grad = zeros(self.shape)
        self._prev: tuple[Tensor, ...] = ()
        self._op = ""
        self.label = label
        self._const = None  # (number, number_is_on_the_left) when an operand was a plain number
        self._backward = _nothing
        self._describe = _no_rules

    @property
    def shape(self) -> Shape:
        return len(self.data), len(self.data[0])

    def __repr__(self):
        name = f"{self.label}: " if self.label else ""
        return f"Tensor({name}{shape_text(self.shape)}, data={self.data!r}, grad={self.grad!r})"

    def rules(self) -> tuple[Rule, ...]:
        """This node's backward step, one Rule per input tensor in operand order (none for an input)."""
        return self._describe()

    # -- operations ----------------------------------------------------------------------------

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return _not_a_tensor("@", other)
        (m, k), (_, n) = self.shape, matmul_shape(self.shape, other.shape)
        x, w = self, other
        out = _node(matmul(x.data, w.data), "@", (x, w))

        def _backward():
            add_into(x.grad, matmul(out.grad, transpose(w.data)))  # dX += dY · Wᵀ
            add_into(w.grad, matmul(transpose(x.data), out.grad))  # dW += Xᵀ · dY

        def _describe():
            name_x, name_w = _name(x, "X"), _name(w, "W")
            return (
                Rule(
                    name_x,
                    f"{name_x}.grad += dY · {name_w}ᵀ",
                    f"{shape_text((m, n))} · {shape_text((n, k))} → {shape_text((m, k))}",
                ),
                Rule(
                    name_w,
                    f"{name_w}.grad += {name_x}ᵀ · dY",
                    f"{shape_text((k, m))} · {shape_text((m, n))} → {shape_text((k, n))}",
                ),
            )

        out._backward, out._describe = _backward, _describe
        return out

    def __rmatmul__(self, other):
        return _not_a_tensor("@", other)

    def __add__(self, other):
        return _elementwise("+", self, other)

    def __radd__(self, other):
        return _elementwise("+", other, self)

    def __sub__(self, other):
        return _elementwise("-", self, other)

    def __rsub__(self, other):
        return _elementwise("-", other, self)

    def __mul__(self, other):
        return _elementwise("*", self, other)

    def __rmul__(self, other):
        return _elementwise("*", other, self)

    def __neg__(self):
        return _unary(self, "neg")

    def tanh(self):
        return _unary(self, "tanh")

    def relu(self):
        return _unary(self, "relu")

    def exp(self):
        return _unary(self, "exp")

    def log(self):
        return _unary(self, "log")

    def sum(self, dim: int | None = None):
        """All the numbers summed to 1×1; ``sum(0)`` sums down the rows to 1×n, ``sum(1)`` across each row to m×1."""
        # A sum is sum_to, forward; its backward step is broadcast_to, the other way.
        m, n = self.shape
        if dim is None:
            return _reduce(self, "sum", sum_to(self.data, (1, 1)), 1.0)
        if dim == 0 and not isinstance(dim, bool):
            return _reduce(self, "sum(0)", sum_to(self.data, (1, n)), 1.0)
        if dim == 1 and not isinstance(dim, bool):
            return _reduce(self, "sum(1)", sum_to(self.data, (m, 1)), 1.0)
        raise ValueError(
            f"sum({dim!r}): a tensor sums with sum() to 1×1, sum(0) down its rows to 1×n, "
            "or sum(1) across each row to m×1"
        )

    def mean(self):
        """The mean of all the numbers, 1×1."""
        m, n = self.shape
        return _reduce(self, "mean", [[sum_to(self.data, (1, 1))[0][0] / (m * n)]], 1.0 / (m * n))

    @property
    def T(self):
        """The transpose: row i becomes column i."""
        x = self
        out = _node(transpose(x.data), "T", (x,))

        def _backward():
            add_into(x.grad, transpose(out.grad))  # dX += dYᵀ

        def _describe():
            name = _name(x, "X")
            return (Rule(name, f"{name}.grad += dYᵀ", f"{shape_text(out.shape)} → {shape_text(x.shape)}"),)

        out._backward, out._describe = _backward, _describe
        return out

    # -- differentiation -----------------------------------------------------------------------

    def backward(self):
        """Reverse-mode autodiff from a 1×1 output: seed its grad with 1, then every node's
        tensor rule, each node after all the nodes it feeds (so its grad is complete).

        The inputs' grads accumulate, as PyTorch's leaves do: a second backward() adds the
        same grads again (zero_grad() clears them). A node made by an operation starts each
        pass from zeros, so its grad is always this pass's, and never pushes an old one on.
        """
        if self.shape != (1, 1):
            raise ShapeError(
                "backward",
                f"a {shape_text(self.shape)} tensor has no single number to start from: backward() needs a 1×1 "
                "output, such as its .sum() or .mean()",
            )
        order = topological_order(self)
        for node in order:
            if node._prev:
                node.grad = zeros(node.shape)
        self.grad = [[1.0]]
        for node in reversed(order):
            node._backward()

    def zero_grad(self):
        """Set the grad of this tensor and of everything it depends on back to zeros."""
        for node in topological_order(self):
            node.grad = zeros(node.shape)


def tensor(rows, label: str = "") -> Tensor:
    """A tensor from a list of rows: ``tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])`` is 2×3.

    The rows are checked (rectangular, not empty, numbers, finite) and copied as floats.
    """
    return Tensor(rows, label)


def _nothing():
    pass  # an input's backward step: it has nothing to pass on


def _no_rules() -> tuple[Rule, ...]:
    return ()


def _node(data: Rows, op: str, parents: tuple[Tensor, ...], const=None) -> Tensor:
    """A new node made by an operation: its data already computed, its grad zeros."""
    out = object.__new__(Tensor)
    out.data, out.grad, out._prev, out._op, out.label = data, zeros(shape_of(data)), parents, op, ""
    out._const, out._backward, out._describe = const, _nothing, _no_rules
    return out


def _name(t: Tensor, default: str) -> str:
    return t.label or default


def _not_a_tensor(op: str, other):
    if _is_number(other):
        raise TypeError(f"{op} multiplies two tensors; to multiply by a number, use *")
    return NotImplemented


# -- + - * element by element, with broadcasting ---------------------------------------------
# For each operation: the forward on two numbers, and each side's share of dY before it is
# summed back to that side's shape, as a tensor rule on (dY, left rows, right rows), with
# the same share as text (``{a}`` and ``{b}`` are the operands' names).

_ELEMENTWISE = {
    "+": (operator.add, (lambda dy, a, b: dy, "dY"), (lambda dy, a, b: dy, "dY")),
    "-": (operator.sub, (lambda dy, a, b: dy, "dY"), (lambda dy, a, b: map_rows(operator.neg, dy), "−dY")),
    "*": (
        operator.mul,
        (lambda dy, a, b: zip_with(operator.mul, dy, b), "dY ⊙ {b}"),
        (lambda dy, a, b: zip_with(operator.mul, dy, a), "dY ⊙ {a}"),
    ),
}


def _elementwise(op: str, left, right):
    """``left op right`` where one side may be a plain number (folded into the node)."""
    sides = (left, right)
    if not all(isinstance(side, Tensor) or _is_number(side) for side in sides):
        return NotImplemented
    rows = [side.data if isinstance(side, Tensor) else [[num.as_float(side)]] for side in sides]
    tensors = [side for side in sides if isinstance(side, Tensor)]
    if len(tensors) == 2:
        shape = broadcast_shape(op, left.shape, right.shape)
        const = None
    else:
        shape = tensors[0].shape
        const = (rows[0][0][0], True) if tensors[0] is right else (rows[1][0][0], False)
    forward, *shares = _ELEMENTWISE[op]
    out = _node(zip_with(forward, rows[0], rows[1]), op, tuple(tensors), const)

    def _backward():
        for side, (share, _) in zip(sides, shares):
            if isinstance(side, Tensor):
                add_into(side.grad, sum_to(share(out.grad, rows[0], rows[1]), side.shape))

    def _describe():
        # x + x is one tensor twice: one name for both sides
        defaults = ("A", "A") if left is right else ("A", "B")
        names = [
            _name(side, default) if isinstance(side, Tensor) else fmt(rows[k][0][0])
            for k, (side, default) in enumerate(zip(sides, defaults))
        ]
        rules = []
        for k, (side, (_, text)) in enumerate(zip(sides, shares)):
            if not isinstance(side, Tensor):
                continue
            other = sides[1 - k]
            share = text.format(a=names[0], b=names[1])
            inputs = shape_text(shape)
            if op == "*":
                if isinstance(other, Tensor):
                    inputs += f" ⊙ {shape_text(other.shape)}"
                else:
                    share = f"{names[1 - k]} × dY"  # a number times dY (· is a matrix product)
            summed, over = _summed_over(shape, side.shape)
            if summed:
                share = (f"({share})" if " " in share else share) + f" summed over its {over}"
            rules.append(Rule(names[k], f"{names[k]}.grad += {share}", f"{inputs} → {shape_text(side.shape)}", summed))
        return tuple(rules)

    out._backward, out._describe = _backward, _describe
    return out


def _summed_over(big: Shape, small: Shape) -> tuple[str, str]:
    """What of a big grad a broadcast input's grad sums: ("rows", "4 rows"), or ("", "") for nothing."""
    what, counts = [], []
    for size_big, size_small, name in zip(big, small, ("rows", "columns")):
        if size_big != size_small:
            what.append(name)
            counts.append(f"{size_big} {name}")
    return " and ".join(what), " and ".join(counts)


# -- functions element by element ---------------------------------------------------------
# For each: the forward on one number, its local derivative from the input x and the output
# y, and the rule as text (``{x}`` is the input's name). The backward rule of every one is
# the same tensor rule, ``X.grad += local ⊙ dY``.

_UNARY = {
    "neg": (operator.neg, lambda x, y: -1.0, "−dY"),
    "tanh": (num.tanh, lambda x, y: 1.0 - y * y, "(1 − tanh({x})²) ⊙ dY"),  # written with the output
    # as in micrograd and PyTorch, relu's slope at exactly 0 is 0
    "relu": (lambda x: 0.0 if x < 0 else x, lambda x, y: 1.0 if x > 0 else 0.0, "({x} > 0) ⊙ dY"),
    "exp": (num.exp, lambda x, y: y, "exp({x}) ⊙ dY"),  # exp is its own derivative
    "log": (num.log, lambda x, y: num.div(1.0, x), "(1 / {x}) ⊙ dY"),
}


def _unary(x: Tensor, op: str) -> Tensor:
    forward, derivative, text = _UNARY[op]
    out = _node(map_rows(forward, x.data), op, (x,))

    def _backward():
        local = zip_with(derivative, x.data, out.data)
        add_into(x.grad, zip_with(operator.mul, local, out.grad))  # dX += local ⊙ dY

    def _describe():
        name, shape = _name(x, "X"), shape_text(x.shape)
        inputs = shape if op == "neg" else f"{shape} ⊙ {shape}"
        return (Rule(name, f"{name}.grad += {text.format(x=name)}", f"{inputs} → {shape}"),)

    out._backward, out._describe = _backward, _describe
    return out


# -- sums ------------------------------------------------------------------------------------


def _reduce(x: Tensor, op: str, data: Rows, scale: float) -> Tensor:
    """A sum (scale 1) or a mean (scale 1/count) of x. Every number of x reached the output
    once, so its grad is dY copied back out to x's shape (times the scale)."""
    out = _node(data, op, (x,))

    def _backward():
        dy = out.grad if scale == 1.0 else map_rows(lambda g: g * scale, out.grad)
        add_into(x.grad, broadcast_to(dy, x.shape))  # dX += dY copied to every row or column it summed

    def _describe():
        name, (m, n) = _name(x, "X"), x.shape
        share = "dY" if scale == 1.0 else f"dY / {m * n}"
        summed, over = _summed_over(x.shape, out.shape)
        if summed == "rows and columns":
            share += f" copied to all {m * n} of its numbers"
        elif summed:
            share += f" copied to each of its {over}"
        return (Rule(name, f"{name}.grad += {share}", f"{shape_text(out.shape)} → {shape_text(x.shape)}"),)

    out._backward, out._describe = _backward, _describe
    return out


# -- softmax cross-entropy -------------------------------------------------------------------


def checked_labels(shape: Shape, labels) -> list[int]:
    """``labels`` as a list of class numbers, one per row of logits of ``shape``, or a
    TypeError, ShapeError or ValueError saying what is wrong."""
    if not isinstance(labels, (list, tuple)):
        raise TypeError(
            "cross_entropy(logits, labels): labels must be a list of ints, one per row, like [0, 2], "
            f"not {_what(labels)}"
        )
    (m, classes), labels = shape, list(labels)
    for i, label in enumerate(labels):
        if not isinstance(label, int) or isinstance(label, bool):
            raise TypeError(f"cross_entropy: labels[{i}] is {_what(label)}, not an int: a label is a class number")
    if len(labels) != m:
        raise ShapeError(
            "cross_entropy",
            f"{shape_text(shape)} logits and {_count(len(labels), 'label')}, one label per row: "
            f"the counts {m} and {len(labels)} differ",
        )
    for i, label in enumerate(labels):
        if not 0 <= label < classes:
            allowed = "0" if classes == 1 else "0 or 1" if classes == 2 else f"from 0 to {classes - 1}"
            raise ValueError(
                f"cross_entropy: labels[{i}] is {label}, but the logits have {classes} "
                f"{'class' if classes == 1 else 'classes'} (columns), so a label is {allowed}"
            )

    return labels


def cross_entropy(logits: Tensor, labels: Sequence[int]) -> Tensor:
    """Softmax cross-entropy of an m×C tensor of logits against m class labels, averaged over
    the rows: 1×1, as ``torch.nn.functional.cross_entropy``.

    Each row's loss is ``log(Σ exp(z)) − z[label]``, computed with the row's largest logit
    subtracted first so that no exp overflows. Its backward rule is the famous one: the
    logits' grad is ``(softmax(Z) − onehot(labels)) / m``, times dY.
    """
    if not isinstance(logits, Tensor):
        raise TypeError("cross_entropy(logits, labels): logits must be a Tensor, one row of class scores per example")
    labels = checked_labels(logits.shape, labels)
    m, classes = logits.shape

    probabilities, losses = [], []
    for row, label in zip(logits.data, labels):
        top = max(row)
        exps = [num.exp(z - top) for z in row]
        total = add_up(exps)
        probabilities.append([e / total for e in exps])
        losses.append(top + num.log(total) - row[label])
    out = _node([[add_up(losses) / m]], "cross_entropy", (logits,))
    onehot = [[1.0 if j == label else 0.0 for j in range(classes)] for label in labels]

    def _backward():
        share = out.grad[0][0] / m
        # dZ += (softmax(Z) − onehot(labels)) / m · dY
        add_into(logits.grad, map_rows(lambda d: d * share, zip_with(operator.sub, probabilities, onehot)))

    def _describe():
        name, shape = _name(logits, "logits"), shape_text(logits.shape)
        return (
            # (dY is one number, 1×1: it scales the matrix, written × as a number's product is)
            Rule(name, f"{name}.grad += (softmax({name}) − onehot(labels)) / {m} × dY", f"{shape} × 1×1 → {shape}"),
        )

    out._backward, out._describe = _backward, _describe
    return out
