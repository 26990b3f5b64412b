"""Every operation the engine knows, in one table: what it computes and how it differentiates.

This is the first place to look to see how an operation differentiates. Each entry says

* ``compute``: the forward value *and* the local derivatives, side by side in one small
  function. ``mul(x, y)`` returns ``x * y`` and ``(y, x)``: d(x*y)/dx is y and d(x*y)/dy
  is x. The backward pass then needs one rule for every operation,
  ``parent.grad += local * child.grad`` (see :meth:`engine.value.Value.backward`);
* ``derivative``: the same local derivatives written as code, one per operand, as a
  micrograd-style ``_backward`` would write them (``"{y}"`` for the left operand of ``*``).
  In a template, ``{x}`` and ``{y}`` are the operands (``a.data``, or a plain number folded
  into the node), ``{out}`` is the node's own value (``o.data``) and ``{y_minus_1}`` is a
  number operand less one (only ``**`` uses it);
* how it is written: ``infix`` (``a + b``), ``prefix`` (``-a``) or ``function``
  (``tanh(a)``), with Python's precedence, so that :mod:`engine.text` writes ``(a + b) * c``
  with exactly the brackets it needs;
* ``method``: the Value method that performs it (``__mul__``; the reflected ``__rmul__``,
  for ``3 * a``, is made from it), so ``a * b``, ``3 * a`` and ``a.tanh()`` all come from
  here (:mod:`engine.value` builds them), and a program may use an operation exactly when
  it is in this table (:mod:`engine.program`);
* ``note``: what the backward narration says about the operation, if anything.

The table is the one list of operations. Everything else that names them is made from it:

* :mod:`engine.value`: Value's operators and methods, and the free functions ``tanh(x)``...;
* :mod:`engine`: exports those functions (``from engine import tanh``);
* :mod:`engine.program`: which calls and operators a program may use, and its messages;
* the program editor's help on the page (``buildtools/op_registry.py`` writes the site's
  ``ops.js`` from this table);
* :func:`infer_op` (below): what operation a node of a learner's own graph is, by its ``_op``
  text or by its numbers, for both readers of such graphs (:mod:`engine.foreign`, node by
  node, and :mod:`engine.flat`, a big graph in one pass), so they always agree.

Adding an operation is one entry here (plus its tests in tests/engine/test_ops_table.py;
tests/engine/test_op_registry.py checks that every entry reaches every consumer).
All arithmetic goes through :mod:`engine.numbers`, so 1/0, log(0) or exp(1000) give inf or
nan, as in any IEEE-754 library, instead of raising.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import numbers as num


@dataclass(frozen=True)
class Op:
    name: str  # as a node's "op" in the engine's answers: "+", "neg", "tanh"
    arity: int  # 1 or 2 operands
    compute: Callable  # (x) or (x, y) -> (value, (d/dx, d/dy)): forward and local derivatives
    derivative: tuple[str, ...]  # each operand's local derivative, as code (see above)
    written: str  # "infix" (a + b), "prefix" (-a) or "function" (tanh(a))
    symbol: str  # what is written: "+", "-", "tanh"
    precedence: int  # how tightly it binds when written (higher binds tighter)
    method: str  # the Value method: "__add__", "__neg__", "tanh"
    brackets: str = ""  # an operand of the same precedence needs brackets: "" never, "right", "both"
    note: str = ""  # said when the backward pass visits a node of this op (Value operands only)
    only_number_right: str = ""  # if set, the right operand must be a number: why, when it isn't
    only_number_reflected: str = ""  # ... and why a Value can't stand on the right of a number

    @property
    def reflected(self) -> str:
        """The method for a plain number on the left: ``__radd__`` for ``2 + a``."""
        return "__r" + self.method[2:]


# -- forward and local derivatives, side by side ----------------------------------------------
# Each returns (the value, the local derivative with respect to each operand).

_ONE_ONE = (1.0, 1.0)


def add(x, y):
    return x + y, _ONE_ONE  # addition copies the grad to both sides


def sub(x, y):
    return x - y, (1.0, -1.0)


def mul(x, y):
    return x * y, (y, x)  # multiplication swaps: each side's derivative is the other side


def div(x, y):
    return num.div(x, y), (num.div(1.0, y), num.div(-x, y * y))


def power(x, p):
    return num.power(x, p), (p * num.power(x, p - 1.0),)  # the exponent p is always a number


def neg(x):
    return -x, (-1.0,)


def tanh(x):
    t = num.tanh(x)
    return t, (1.0 - t * t,)  # written with the output: 1 - tanh(x)**2


def relu(x):
    # As in micrograd: negative inputs give 0, and the slope at exactly 0 is 0.
    return (0.0 if x < 0 else x), (1.0 if x > 0 else 0.0,)


def exp(x):
    e = num.exp(x)
    return e, (e,)  # exp is its own derivative


def log(x):
    return num.log(x), (num.div(1.0, x),)


def sin(x):
    return num.sin(x), (num.cos(x),)


def cos(x):
    return num.cos(x), (-num.sin(x),)


def sigmoid(x):
    s = num.sigmoid(x)
    return s, (s * (1.0 - s),)


# -- the table ----------------------------------------------------------------------------------

ATOM = 5  # a name, a number or a call such as tanh(a): binds tighter than any operator

OPS: dict[str, Op] = {
    op.name: op
    for op in (
        # name, arity, compute, each operand's derivative as code, written, symbol, precedence, method
        Op("+", 2, add, ("1.0", "1.0"), "infix", "+", 1, "__add__", note="Addition copies the grad."),
        Op("-", 2, sub, ("1.0", "-1.0"), "infix", "-", 1, "__sub__", brackets="right"),
        Op(
            "*",
            2,
            mul,
            ("{y}", "{x}"),
            "infix",
            "*",
            2,
            "__mul__",
            note="Multiplication swaps: each side gets the other's value.",
        ),
        Op("/", 2, div, ("1 / {y}", "-{x} / {y}**2"), "infix", "/", 2, "__truediv__", brackets="right"),
        Op(
            "**",
            2,
            power,
            ("{y} * {x}**{y_minus_1}",),
            "infix",
            "**",
            4,
            "__pow__",
            brackets="both",
            only_number_right="the exponent of ** must be a plain number, like x ** 2",
            only_number_reflected="a Value can't be an exponent; only a plain number can, like x ** 2",
        ),
        Op("neg", 1, neg, ("-1.0",), "prefix", "-", 3, "__neg__"),
        Op("tanh", 1, tanh, ("(1 - {out}**2)",), "function", "tanh", ATOM, "tanh"),
        Op("relu", 1, relu, ("({out} > 0)",), "function", "relu", ATOM, "relu"),
        Op("exp", 1, exp, ("{out}",), "function", "exp", ATOM, "exp"),
        Op("log", 1, log, ("1 / {x}",), "function", "log", ATOM, "log"),
        Op("sin", 1, sin, ("cos({x})",), "function", "sin", ATOM, "sin"),
        Op("cos", 1, cos, ("-sin({x})",), "function", "cos", ATOM, "cos"),
        Op("sigmoid", 1, sigmoid, ("{out} * (1 - {out})",), "function", "sigmoid", ATOM, "sigmoid"),
    )
}

# The operations a program writes as name(x) or x.name(), and those it writes between operands.
FUNCTIONS = tuple(op.name for op in OPS.values() if op.written == "function")
INFIX = tuple(op.symbol for op in OPS.values() if op.written == "infix")


MAX_EXPONENT = 100.0  # the largest exponent of ** a program may write, or a graph's node be read as


# -- which operation a node of someone else's graph is ---------------------------------------


def infer_op(
    text: str,
    xs: Sequence[float],
    data: float | None = None,
    local: Sequence[float] | None = None,
    const: tuple | None = None,
) -> tuple[str, tuple | None] | None:
    """The operation of this table that a node of a learner's graph performs, with its folded
    number (``**``'s exponent, as ``Value._const``), or None when no entry is certain.

    ``text`` is the graph's own ``_op``: a name of the table, in any case (micrograd writes
    ``ReLU``), or micrograd's ``**2``. Without one (microgpt keeps none), the operation is
    the one entry that reproduces the node's ``data`` from its parents' data ``xs``; when
    several do (2 + 2 and 2 * 2), the one whose local derivatives are the node's ``local``
    (one per operand slot); a single operand may also be a power, its exponent read off the
    local derivative. ``xs`` holds one number per operand slot (an operand used twice is in
    it twice); ``const`` is a plain number the node folds in (Gradwalk's own ``a * 3``).
    The operation must take as many operands as ``xs`` has, else None.
    """
    if text:
        found = named_op(text)
        if found is None:
            return None
        name, folded = found
        const = const if const is not None else folded
        return (name, const) if _fits(OPS[name], len(xs), const) else None
    if data is None:
        return None
    return _fitting(data, xs, local)


def named_op(text: str) -> tuple[str, tuple | None] | None:
    """The operation a graph's own ``_op`` text names, however many operands it has (what
    :func:`infer_op` reads first): ``"ReLU"`` gives ``("relu", None)``, ``"**2"`` gives
    ``("**", (2.0, False))``, an unknown text None."""
    name = text.lower()
    if name in OPS:
        return name, None
    if text.startswith("**"):
        try:
            exponent = float(text[2:])
        except ValueError:
            return None
        if math.isfinite(exponent):
            return "**", (exponent, False)
    return None


def _fits(op: Op, slots: int, const: tuple | None) -> bool:
    """``op`` takes ``slots`` operands (with ``const`` folded in, if any)."""
    if op.arity == 1:
        return slots == 1 and const is None
    if const is None:
        return slots == 2 and not op.only_number_right
    return slots == 1


def _fitting(data: float, xs: Sequence[float], local: Sequence[float] | None) -> tuple[str, tuple | None] | None:
    candidates = [(op, None) for op in OPS.values() if _fits(op, len(xs), None)]
    if len(xs) == 1 and local is not None and data and xs[0]:
        # a power x ** p: its local derivative p * x**(p-1) is p * data / x
        exponent = float(f"{local[0] * xs[0] / data:.12g}")
        if math.isfinite(exponent) and abs(exponent) <= MAX_EXPONENT and exponent not in (0.0, 1.0):
            candidates.append((OPS["**"], (exponent, False)))
    fits = []
    for op, const in candidates:
        value, locals_ = op.compute(*xs, *(const[:1] if const else ()))
        if num.close(value, data):
            fits.append((op.name, const, locals_))
    if len(fits) > 1 and local is not None:
        fits = [fit for fit in fits if all(num.close(a, b) for a, b in zip(fit[2], local))]
    if len(fits) != 1:
        return None
    name, const, _ = fits[0]
    return name, const
