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


def short(text) -> str:
    """A learner's text quoted in a message: at most 40 characters."""
    text = str(text)
    return text if len(text) <= 40 else text[:37] + "..."


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


def rule_text(child: Value, slot: int, local: str | None = None) -> str:
    """The backward rule of one edge, as micrograd's _backward writes it (``local``: the
    edge's local_text, if already written)."""
    parent = child._prev[slot]
    if local is None:
        local = local_text(child, slot)
    return f"{code_name(parent.label)}.grad += {local} * {code_name(child.label)}.grad"


def forward_text(node: Value, symbolic: str | None = None) -> str:
    """The narration of the forward step that computes ``node`` (``symbolic``: its
    expression_text, if already written), with why it is inf or nan if it is."""
    if node._op == "":
        return f"{node.label} = {fmt(node.data)} (an input)"
    if symbolic is None:
        symbolic = expression_text(node)
    numeric = expression_text(node, names=lambda parent: fmt(parent.data))
    return add_sentence(f"{node.label} = {symbolic} = {numeric} = {fmt(node.data)}", not_finite_text(node))


def add_sentence(text: str, sentence: str) -> str:
    """``text`` followed by ``sentence`` (nothing added when it is empty), with a full stop between."""
    if not sentence:
        return text
    return f"{text}{'' if text.endswith(('.', '!', '?')) else '.'} {sentence}"


def prev_text(node: Value) -> str:
    """Where micrograd keeps the values ``node`` is made from: said once per graph, on the first
    step that names them."""
    made_from = list(dict.fromkeys(parent.label for parent in node._prev))  # a * a: a once
    if node._const is not None:  # micrograd wraps a plain number in a Value of its own
        made_from.append(f"a Value for the number {fmt(node._const[0])}")
    names = made_from[0] if len(made_from) == 1 else ", ".join(made_from[:-1]) + " and " + made_from[-1]
    return (
        f"micrograd keeps the values a node is made from in node._prev (the _children given to the "
        f"Value constructor): {node.label}._prev holds {names}."
    )


# -- inf and nan, said in plain words ------------------------------------------------------
# The engine follows IEEE-754 floating point (engine.numbers): 1/0 is inf, log(0) is -inf,
# 0/0 is nan, where plain Python would raise. The narration says why, at the step where a
# value first stops being a finite number, so a learner is never left with a bare "inf".

_IEEE = "floating point, as in NumPy and PyTorch, gives"


def operand_numbers(node: Value) -> list[float]:
    """The numbers an operation was applied to, in order (a number folded into it included)."""
    numbers = [parent.data for parent in node._prev]
    if node._const is not None:
        number, on_left = node._const
        numbers.insert(0 if on_left else 1, number)
    return numbers


def not_finite_text(node: Value) -> str:
    """Why ``node``'s value is inf or nan, as a sentence ("" when it is a finite number)."""
    x = node.data
    if math.isfinite(x) or node._op == "":
        return ""
    value = fmt(x)
    carried = [p for p in node._prev if not math.isfinite(p.data)]
    if carried:
        first = carried[0]
        if math.isnan(x) and not any(math.isnan(p.data) for p in carried):
            return (
                f"{node.label} is nan because {first.label} is {fmt(first.data)}: an infinity times 0, "
                "or minus another infinity, has no value at all."
            )
        return (
            f"{node.label} is {value} because {first.label} is already {fmt(first.data)}: inf and nan "
            "carry on into everything computed from them."
        )
    operands = operand_numbers(node)
    op = node._op
    if op == "/" and operands[1] == 0:
        if operands[0] == 0:
            return "0 / 0 has no value at all, so it is nan (not a number); plain Python would raise ZeroDivisionError."
        return (
            f"{fmt(operands[0])} / 0: dividing by zero has no finite answer, so {_IEEE} {value} "
            "where plain Python would raise ZeroDivisionError."
        )
    if op == "log" and operands[0] == 0:
        return (
            f"log(0) is -inf: the logarithm falls without limit as its input shrinks to 0, so {_IEEE} "
            "-inf where Python's math.log(0) would raise an error."
        )
    if op == "log" and operands[0] < 0:
        return (
            f"log({fmt(operands[0])}) is nan (not a number): the logarithm of a negative number is not a real number."
        )
    if op == "**" and operands[0] == 0 and operands[1] < 0:
        return (
            f"0 ** {fmt(operands[1])} divides by zero (a negative power of 0 is 1 over a power of 0), "
            f"so {_IEEE} {value} where plain Python would raise ZeroDivisionError."
        )
    if op == "**" and operands[0] < 0:
        return (
            f"({fmt(operands[0])}) ** {fmt(operands[1])} is nan (not a number): a negative number to a "
            "fractional power is not a real number."
        )
    if math.isinf(x):
        return (
            f"{node.label} is {value}: the result is larger than the biggest float (about 1.8e308), "
            "so it overflows to infinity."
        )
    return f"{node.label} is nan (not a number): this operation has no real value at these inputs."


def not_finite_push_text(child: Value, slot: int, local: float, upstream: float, contribution: float) -> str:
    """Why a push of the backward pass (local × upstream = contribution) carries inf or nan
    ("" when it carries a finite number)."""
    if math.isfinite(contribution):
        return ""
    parent = child._prev[slot].label
    if not math.isfinite(upstream):
        if local == 0:
            return f"0 × {fmt(upstream)} is nan, so {parent} gets nan."
        return f"{child.label}.grad is already {fmt(upstream)}, so what it pushes into {parent} is not finite either."
    if not math.isfinite(local):
        try:  # the rule written out, when the operation has one (a learner's own may not)
            rule = f", {local_text(child, slot)},"
        except ValueError:
            rule = ""
        return (
            f"The local derivative of {child.label} with respect to {parent}{rule} is {fmt(local)} at these "
            f"values, so {parent}.grad can't be a finite number either."
        )
    return (
        f"{fmt(local)} × {fmt(upstream)} is too large for a float (above about 1.8e308), "
        f"so the push into {parent} overflows to {fmt(contribution)}."
    )
