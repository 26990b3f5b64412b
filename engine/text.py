"""How nodes, numbers and rules are written for a learner.

One place decides how ``3 * a`` or ``tanh(n)`` reads, how a number is rounded for a
sentence, and how the backward rule of each edge reads as code, so the graph, the
narration and the code panel all say the same thing.
"""

from __future__ import annotations

import math

from .value import Value

_FUNCTION_OPS = {"tanh", "relu", "exp", "log", "sin", "cos", "sigmoid"}
_SYMBOLS = {"+": "+", "-": "-", "*": "*", "/": "/", "**": "**"}


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
    if op in _FUNCTION_OPS:
        return f"{op}({parents[0]})"
    if op == "neg":
        return f"-{_wrap(parents[0], node._prev[0], 'neg', True)}"
    symbol = f" {_SYMBOLS[op]} " if spaced else _SYMBOLS[op]
    if node._const is not None:
        number, on_left = node._const
        number_text = fmt(number)
        if number < 0 and (not on_left or op == "**"):
            number_text = f"({number_text})"
        if on_left:
            return f"{number_text}{symbol}{_wrap(parents[0], node._prev[0], op, True)}"
        return f"{_wrap(parents[0], node._prev[0], op, False)}{symbol}{number_text}"
    left, right = node._prev
    return f"{_wrap(parents[0], left, op, False)}{symbol}{_wrap(parents[1], right, op, True)}"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3, "**": 4}


def _wrap(text: str, parent: Value, op: str, on_right: bool) -> str:
    """Parenthesise an operand only where Python's precedence needs it.

    A variable name never needs brackets. A readable label such as ``x1*w1`` or a number
    does when the operation binds tighter: ``(a+b)*c``, ``2 * (-3)``.
    """
    if text.isidentifier() or _is_number(text.lstrip("-")):
        if text.startswith("-") and (on_right or op == "**"):
            return f"({text})"  # 2 * (-3), (-2) ** 2
        return text
    inner = _PRECEDENCE.get(parent._op, 5)
    outer = _PRECEDENCE[op]
    if inner < outer or (inner == outer and (on_right and op in "-/" or op == "**")):
        return f"({text})"
    return text


def _is_number(text: str) -> bool:
    return text in ("inf", "nan") or text.replace(".", "", 1).replace("e+", "").replace("e-", "").isdigit()


def local_text(child: Value, slot: int) -> str:
    """The local derivative d(child)/d(parent #slot), written as code."""
    op = child._op
    parent = child._prev[slot]
    me = code_name(child.label)
    x = code_name(parent.label)
    if op == "+":
        return "1.0"
    if op == "-":
        if child._const is not None:
            return "-1.0" if child._const[1] else "1.0"
        return "1.0" if slot == 0 else "-1.0"
    if op == "*":
        if child._const is not None:
            return fmt(child._const[0])
        other = child._prev[1 - slot]
        return f"{code_name(other.label)}.data"
    if op == "/":
        if child._const is not None:
            number, on_left = child._const
            return f"-{fmt(number)} / {x}.data**2" if on_left else f"1 / {fmt(number)}"
        numerator, denominator = (code_name(p.label) for p in child._prev)
        return f"1 / {denominator}.data" if slot == 0 else f"-{numerator}.data / {denominator}.data**2"
    if op == "**":
        p = child._const[0]
        return f"{fmt(p)} * {x}.data**{fmt(p - 1)}"
    if op == "neg":
        return "-1.0"
    if op == "tanh":
        return f"(1 - {me}.data**2)"
    if op == "relu":
        return f"({me}.data > 0)"
    if op == "exp":
        return f"{me}.data"
    if op == "log":
        return f"1 / {x}.data"
    if op == "sin":
        return f"cos({x}.data)"
    if op == "cos":
        return f"-sin({x}.data)"
    if op == "sigmoid":
        return f"{me}.data * (1 - {me}.data)"
    raise ValueError(f"unknown op {op!r}")


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
