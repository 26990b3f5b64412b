"""How nodes, numbers and rules are written for a learner.

One place decides how ``3 * a`` or ``tanh(n)`` reads, how a number is rounded for a
sentence, and how the backward rule of each edge reads as code, so the graph, the
narration and the code panel all say the same thing. What is op-specific (the symbol,
its precedence, its derivative as code) comes from the table in :mod:`engine.ops`.
"""

from __future__ import annotations

import math

from .ops import ATOM, OPS
from .value import Value

# A unary minus binds less tightly than **: -2 ** 2 is -(2 ** 2), so (-2) ** 2 needs brackets.
_MINUS = OPS["neg"].precedence


def fmt(x: float, digits: int = 4) -> str:
    """A number as a person writes it: 5, -1.5, 0.7071, 1e+20, nan, inf, -0."""
    # Called for every number in every sentence of a trace: the common case first.
    try:
        whole = int(x)
    except (OverflowError, ValueError):  # inf or nan
        return "nan" if x != x else "inf" if x > 0 else "-inf"
    if x == whole and abs(x) < 1e15:
        if whole == 0 and math.copysign(1.0, x) < 0:
            return "-0"
        return str(whole)
    return format(x, ".4g") if digits == 4 else f"{x:.{digits}g}"


def code_name(label: str) -> str:
    """A label as it can stand in code: x1 stays x1, x1*w1 becomes (x1*w1)."""
    return label if label.isidentifier() else f"({label})"


def expression_text(node: Value, spaced: bool = True, names=None) -> str:
    """How ``node`` is computed from its parents, e.g. ``a + 1`` or ``tanh(n)``.

    ``names`` maps a parent to the text that stands for it (its label by default); the
    narration passes numbers instead to write ``2 + 3``.
    """
    if names is None:
        names = lambda parent: parent.label or "?"  # noqa: E731 - a tiny default
    op = node._op
    if op == "":
        return fmt(node.data)
    parents = [names(p) for p in node._prev]
    entry = OPS[op]
    if entry.written == "function":
        return f"{entry.symbol}({parents[0]})"
    if entry.written == "prefix":
        return f"{entry.symbol}{_wrap(parents[0], node._prev[0], op, True)}"
    symbol = f" {entry.symbol} " if spaced else entry.symbol
    if node._const is not None:
        number, on_left = node._const
        number_text = fmt(number)
        if number < 0 and (not on_left or entry.precedence > _MINUS):
            number_text = f"({number_text})"
        if on_left:
            return f"{number_text}{symbol}{_wrap(parents[0], node._prev[0], op, True)}"
        return f"{_wrap(parents[0], node._prev[0], op, False)}{symbol}{number_text}"
    left, right = node._prev
    return f"{_wrap(parents[0], left, op, False)}{symbol}{_wrap(parents[1], right, op, True)}"


def _wrap(text: str, parent: Value, op: str, on_right: bool) -> str:
    """Parenthesise an operand only where Python's precedence needs it.

    A variable name never needs brackets. A readable label such as ``x1*w1`` or a number
    does when the operation binds tighter: ``(a+b)*c``, ``2 * (-3)``; at the same
    precedence, the op's ``brackets`` says which side needs them: ``a - (b-c)``.
    """
    entry = OPS[op]
    if text.isidentifier() or _is_number(text.lstrip("-")):
        if text.startswith("-") and (on_right or entry.precedence > _MINUS):
            return f"({text})"  # 2 * (-3), (-2) ** 2
        return text
    known = OPS.get(parent._op)
    inner = known.precedence if known else ATOM  # an input, or an op of a learner's own (written as a call)
    outer = entry.precedence
    if inner < outer or (inner == outer and (entry.brackets == "both" or on_right and entry.brackets == "right")):
        return f"({text})"
    return text


def _is_number(text: str) -> bool:
    return text in ("inf", "nan") or text.replace(".", "", 1).replace("e+", "").replace("e-", "").isdigit()


def local_text(child: Value, slot: int) -> str:
    """The local derivative d(child)/d(parent #slot), written as code (from engine/ops.py)."""
    entry = OPS.get(child._op)
    if entry is None:
        raise ValueError(f"unknown op {child._op!r}")
    operands = [f"{code_name(parent.label)}.data" for parent in child._prev]
    number_less_1 = ""
    if child._const is not None:  # a plain number folded in: on the left, 2 - a; on the right, a - 2
        number, on_left = child._const
        operands.insert(0 if on_left else 1, fmt(number))
        slot = 1 if on_left else 0  # the parent is the other operand
        number_less_1 = fmt(number - 1)
    x, y = operands if len(operands) == 2 else (operands[0], "")
    return entry.derivative[slot].format(x=x, y=y, out=f"{code_name(child.label)}.data", y_minus_1=number_less_1)


def rule_text(child: Value, slot: int) -> str:
    """The backward rule of one edge, as micrograd's _backward writes it."""
    parent = child._prev[slot]
    return f"{code_name(parent.label)}.grad += {local_text(child, slot)} * {code_name(child.label)}.grad"


def forward_text(node: Value, symbolic: str | None = None) -> str:
    """The narration of the forward step that computes ``node`` (``symbolic``: its
    expression_text, if already written)."""
    if node._op == "":
        return f"{node.label} = {fmt(node.data)} (an input)"
    if symbolic is None:
        symbolic = expression_text(node)
    numeric = expression_text(node, names=lambda parent: fmt(parent.data))
    return f"{node.label} = {symbolic} = {numeric} = {fmt(node.data)}"
