"""exp, log, sin, cos, tanh and powers built from + - * / only, so every platform agrees.

Python's ``math.tanh``, ``math.sin`` and friends call the C library, and the C library
of CPython on Linux (glibc) and of Pyodide (musl, compiled to WebAssembly) round the
last bit differently now and then. The page promises that the numbers computed at build
time, by CPython, are byte for byte the numbers the engine computes in the browser. Basic
IEEE-754 arithmetic is exactly reproducible everywhere, so these functions use only that
(plus the exact operations ``ldexp``, ``frexp`` and ``floor``): the classic recipe of
argument reduction followed by a short polynomial. They are accurate to about one unit in
the last place for ordinary arguments, which is far beyond what a lesson needs.
"""

from __future__ import annotations

import math

INF = math.inf
NAN = math.nan

# ln 2 split in two: the high part has trailing zero bits, so k * LN2_HI is exact.
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
# π/2 split in three (the same idea): n * PIO2_1 is exact for |n| < 2**20.
PIO2_1 = 1.57079632673412561417e00
PIO2_2 = 6.07710050630396597660e-11
PIO2_3 = 2.02226624871116645580e-21
TWO_OVER_PI = 6.36619772367581382433e-01

EXP_OVERFLOW = 709.782712893384
EXP_UNDERFLOW = -745.1332191019412

_INVERSE_FACTORIALS = [1.0 / math.factorial(n) for n in range(20)]


def _horner(coefficients, x):
    result = 0.0
    for c in reversed(coefficients):
        result = result * x + c
    return result


def _expm1_small(r: float) -> float:
    """e**r - 1 for |r| <= 0.35, without the cancellation of subtracting 1."""
    return r * _horner(_INVERSE_FACTORIALS[1:16], r)


def exp(x: float) -> float:
    if x != x:
        return NAN
    if x > EXP_OVERFLOW:
        return INF
    if x < EXP_UNDERFLOW:
        return 0.0
    k = math.floor(x * INV_LN2 + 0.5)
    r = (x - k * LN2_HI) - k * LN2_LO  # |r| <= ln2 / 2
    return math.ldexp(1.0 + _expm1_small(r), k)


def expm1(x: float) -> float:
    if -0.35 <= x <= 0.35:
        return _expm1_small(x)
    return exp(x) - 1.0


def log(x: float) -> float:
    if x != x or x < 0.0:
        return NAN
    if x == 0.0:
        return -INF
    if x == INF:
        return INF
    m, e = math.frexp(x)  # x = m * 2**e, 0.5 <= m < 1
    if m < 0.7071067811865476:
        m, e = m * 2.0, e - 1
    f = m - 1.0
    s = f / (2.0 + f)  # log(m) = 2 atanh(s), |s| <= 0.172
    s2 = s * s
    series = _horner([1.0 / (2 * n + 1) for n in range(12)], s2)
    return e * LN2_HI + (e * LN2_LO + 2.0 * s * series)


def _sin_small(r: float) -> float:  # |r| <= π/4
    r2 = r * r
    return r * _horner([(-1) ** n * _INVERSE_FACTORIALS[2 * n + 1] for n in range(9)], r2)


def _cos_small(r: float) -> float:  # |r| <= π/4
    r2 = r * r
    return _horner([(-1) ** n * _INVERSE_FACTORIALS[2 * n] for n in range(10)], r2)


def _quadrant(x: float) -> tuple[int, float]:
    n = math.floor(x * TWO_OVER_PI + 0.5)
    r = ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3
    return n % 4, r


def sin(x: float) -> float:
    if x != x or x in (INF, -INF):
        return NAN
    quadrant, r = _quadrant(x)
    return (_sin_small(r), _cos_small(r), -_sin_small(r), -_cos_small(r))[quadrant]


def cos(x: float) -> float:
    if x != x or x in (INF, -INF):
        return NAN
    quadrant, r = _quadrant(x)
    return (_cos_small(r), -_sin_small(r), -_cos_small(r), _sin_small(r))[quadrant]


def tanh(x: float) -> float:
    if x != x:
        return NAN
    if x > 22.0:
        return 1.0
    if x < -22.0:
        return -1.0
    if x == 0.0:
        return x  # keeps the sign of -0.0
    e = expm1(2.0 * abs(x))
    t = e / (e + 2.0)
    return t if x > 0 else -t


def integer_power(x: float, n: int) -> float:
    """x ** n for a whole number n by repeated squaring (exact steps, every platform alike)."""
    if n < 0:
        return 1.0 / integer_power(x, -n) if x != 0.0 else INF
    result, base = 1.0, x
    while n:
        if n & 1:
            result *= base
        base *= base
        n >>= 1
    return result
