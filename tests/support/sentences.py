"""The sentence checker: what a learner reads, checked against its own arithmetic and the
engine's numbers (issue 32, "Every sentence is true").

It reads text as it is shown, with each number rounded as the page writes it (``fmt``: four
significant digits), and checks:

* every chain of arithmetic written out, ``0.7 × 0.7897 = 0.5528``, ``1 − 0.7071² = 0.5``,
  ``0.2153 + 0.2027 + 0.07151 = 0.4896``: each side equals the next, within what the rounding
  of the numbers on each side allows;
* every push written ``x.grad += <expression>, before → after``: before + expression = after;
* no sentence said twice in one message, and no worked product (``3 × 3 = 9``) either;
* every number an engine-made sentence quotes is written as the page shows it (no
  ``0.30000000000000004``), so a learner who types what they read types the shown value;
* a closed group's name is never written as if it were a node (``layer 1.grad``, ``∂layer 1``).

:func:`problems` takes one message and returns what is wrong with it, as sentences; the
test (tests/engine/test_sentences.py) runs it over every message of every preset, mode and
group level. Nothing here knows a preset or a mode by name.
"""

from __future__ import annotations

import math
import re

from engine.text import fmt

# -- reading numbers as shown -------------------------------------------------------------------

_NUMBER = r"\d+(?:\.\d+)?(?:e[+-]?\d+)?"
_FUNCTIONS = {
    "cos": math.cos,
    "sin": math.sin,
    "tanh": math.tanh,
    "exp": math.exp,
    "log": lambda x: math.log(x) if x > 0 else math.nan,
    "relu": lambda x: max(0.0, x),
    "sigmoid": lambda x: 1 / (1 + math.exp(-x)),
}
_TOKEN = re.compile(
    rf"(?P<num>(?<![\w.′'∂]){_NUMBER}(?!(?!²)[\w′']))"
    rf"|(?P<func>\b(?:{'|'.join(_FUNCTIONS)})(?=\())"
    r"|(?P<inc>\+=)"
    r"|(?P<op>\*\*|[×*+\-−/²·])"
    r"|(?P<lp>\()|(?P<rp>\))"
    r"|(?P<eq>(?<![<>!=])=(?!=))"
    r"|(?P<space>\s+)"
    r"|(?P<word>[\w′'∂.]+|.)"
)


def spread(text: str) -> float:
    """Half a unit in the last digit a shown number has, counting at least four significant
    digits (``fmt`` strips zeros: ``0.5`` is 0.5000): what its rounding may have hidden."""
    x = float(text)
    if x == 0 or not math.isfinite(x):
        return 0.0
    mantissa = text.split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(text.split("e")[1]) if "e" in text else 0
    last = 10.0 ** (exponent - decimals)  # a unit in the last digit written
    four = 10.0 ** (math.floor(math.log10(abs(x))) - 3)  # a unit in the fourth significant digit
    return 0.5 * min(last, four)


class _Expr:
    """A numeric expression read from the text: its value at the shown numbers, and how far
    the rounding of those numbers can move it (the sum of each one's effect)."""

    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.numbers = [float(t) for kind, t in tokens if kind == "num"]
        self.spreads = [spread(t) for kind, t in tokens if kind == "num"]

    def value(self, numbers=None) -> float:
        self._numbers = list(self.numbers if numbers is None else numbers)
        self._i = 0
        self._k = 0
        out = self._sum()
        if self._i != len(self.tokens):
            raise ValueError("trailing tokens")
        return out

    def slack(self) -> float:
        base = self.value()
        total = 0.0
        for i, h in enumerate(self.spreads):
            if h:
                moved = list(self.numbers)
                moved[i] += h
                up = self.value(moved)
                moved[i] -= 2 * h
                down = self.value(moved)
                total += max(abs(up - base), abs(down - base))
        return total

    # a tiny recursive descent: sum := product (('+'|'-') product)*; product := power (('×'|'*'|'/') power)*
    def _peek(self):
        return self.tokens[self._i] if self._i < len(self.tokens) else (None, None)

    def _take(self):
        token = self.tokens[self._i]
        self._i += 1
        return token

    def _sum(self) -> float:
        out = self._product()
        while self._peek()[1] in ("+", "-", "−"):
            op = self._take()[1]
            right = self._product()
            out = out + right if op == "+" else out - right
        return out

    def _product(self) -> float:
        out = self._power()
        while self._peek()[1] in ("×", "*", "/", "·"):
            op = self._take()[1]
            right = self._power()
            out = out / right if op == "/" else out * right
        return out

    def _power(self) -> float:
        base = self._unary()
        while self._peek()[1] in ("**", "²"):
            op = self._take()[1]
            base = base**2 if op == "²" else base ** self._unary()
        return base

    def _unary(self) -> float:
        kind, text = self._peek()
        if text in ("-", "−"):
            self._take()
            return -self._unary()
        if kind == "num":
            self._take()
            number = self._numbers[self._k]
            self._k += 1
            return number
        if kind == "func":
            self._take()
            return _FUNCTIONS[text](self._unary())
        if kind == "lp":
            self._take()
            out = self._sum()
            if self._peek()[0] != "rp":
                raise ValueError("unbalanced")
            self._take()
            return out
        raise ValueError(f"unexpected {text!r}")


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "space":
            continue
        out.append((kind, m.group()))
    return out


_ARITH = {"num", "op", "lp", "rp", "func"}


def _numeric(tokens: list[tuple[str, str]]) -> _Expr | None:
    """The tokens as one numeric expression, or None when they are not one (a label's
    expression such as ``3 * a``, or the tail of one: ``** 2`` after ``(x1-x2)``)."""
    if not tokens or not any(kind == "num" for kind, _ in tokens):
        return None
    if tokens[0][0] == "op" and tokens[0][1] not in ("-", "−"):
        return None
    if tokens[-1][0] == "op" and tokens[-1][1] != "²":
        return None
    expr = _Expr(tokens)
    try:
        expr.value()
    except (ValueError, ZeroDivisionError, OverflowError, IndexError):
        return None
    return expr


def chains(text: str) -> list[list[_Expr | None]]:
    """Each run of expressions joined by ``=`` (``1 × 4 = 4``), its sides read as numbers
    (None for a side that is not all numbers, such as ``d * c``)."""
    out: list[list[_Expr | None]] = []
    current: list[_Expr | None] = []  # the chain being read: its sides so far
    side: list[tuple[str, str]] = []  # the tokens since the last "=" (or the last word)

    def left_side() -> _Expr | None:
        # the arithmetic run at the end of what came before "=": "3 × 3" in "so 3 × 3"
        cut = max((i for i, (kind, _) in enumerate(side) if kind not in _ARITH), default=-1)
        before, run = side[: cut + 1], side[cut + 1 :]
        if before and run and run[0][0] == "op" and run[0][1] not in ("-", "−"):
            return None  # "(x1-x2) ** 2": the tail of a label's expression
        return _numeric(run)

    for kind, token in _tokens(text):
        if kind == "eq":
            current.append(left_side() if not current else _numeric(side))
            side = []
        elif kind in _ARITH:
            side.append((kind, token))
        else:  # a word: the end of a chain, if one is being read
            if current:
                current.append(_numeric(side))
                out.append(current)
                current = []
                side = []
            side.append((kind, token))
    if current:
        current.append(_numeric(side))
        out.append(current)
    return out


def _close(a: _Expr, b: _Expr) -> bool:
    va, vb = a.value(), b.value()
    if not (math.isfinite(va) and math.isfinite(vb)):
        return True  # inf and nan are said as words; nothing to check
    allowed = a.slack() + b.slack() + 1e-9 * max(1.0, abs(va), abs(vb))
    return abs(va - vb) <= allowed


def _text_of(expr: _Expr) -> str:
    return " ".join(t for _, t in expr.tokens)


def arithmetic_problems(text: str) -> list[str]:
    found = []
    for chain in chains(text):
        sides = [s for s in chain if s is not None]
        for a, b in zip(chain, chain[1:]):
            if a is None or b is None:
                continue
            if not _close(a, b):
                found.append(f"{_text_of(a)} = {_text_of(b)} does not hold ({a.value():.6g} against {b.value():.6g})")
        del sides
    for m in re.finditer(
        rf"\+= (?P<e>[^,;]+?), (?P<b>-?{_NUMBER}) → (?P<a>-?{_NUMBER})",
        text,
    ):
        # "x.grad += 0.7 × 0.7897 = 0.5528, 0 → 0.5528": the push, and the grad before and after it
        expr_text = m["e"].split(" = ")[-1]
        added = _numeric(_tokens(expr_text))
        before, after = _numeric(_tokens(m["b"])), _numeric(_tokens(m["a"]))
        if added is None or before is None or after is None:
            continue
        total = _Expr([*before.tokens, ("op", "+"), ("lp", "("), *added.tokens, ("rp", ")")])
        if not _close(total, after):
            found.append(f"{m['b']} + {expr_text} is not {m['a']}: {m.group()}")
    return found


# -- sentences -------------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(“\"'−-])")
_PRODUCT = re.compile(rf"\(?-?{_NUMBER}\)? × \(?-?{_NUMBER}\)? = -?{_NUMBER}")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def repeat_problems(text: str) -> list[str]:
    found = []
    said = sentences(text)
    for s in {s for s in said if said.count(s) > 1}:
        found.append(f"says twice: {s!r}")
    products = _PRODUCT.findall(text)
    for p in {p for p in products if products.count(p) > 1}:
        # the same worked product twice in one message ("… 3 × 3 = 9. … 3 × 3 = 9.")
        if not any(s.count(p) > 1 for s in said):
            found.append(f"works out {p!r} twice")
    return found


def shown_problems(text: str) -> list[str]:
    """Numbers written with more digits than the page shows them."""
    found = []
    for kind, token in _tokens(text):
        if kind != "num":
            continue
        x = float(token)
        if fmt(x) != token and fmt(x) != token.rstrip("0").rstrip(".") and len(re.sub(r"\D", "", token)) > 5:
            found.append(f"quotes {token}, shown as {fmt(x)}")
    return found


def name_problems(text: str, group_names: list[str]) -> list[str]:
    found = []
    for name in group_names:
        for bad in (f"{name}.grad", f"{name}.data", f"∂{name}", f"/∂{name}"):
            if bad in text:
                found.append(f"writes the group {name!r} as a node: {bad!r}")
    return found


def problems(text: str, *, engine_made: bool = True, group_names: list[str] = ()) -> list[str]:
    """What is wrong with one message a learner reads (empty when nothing is)."""
    found = arithmetic_problems(text) + repeat_problems(text) + name_problems(text, list(group_names))
    if engine_made:
        found += shown_problems(text)
    return found


__all__ = ["chains", "problems", "sentences", "spread"]
