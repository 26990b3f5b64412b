"""IEEE-754 arithmetic that never raises.

Python's float operations raise on some inputs where IEEE-754 (and JavaScript, and every
GPU) quietly returns inf or nan: 1.0 / 0.0, math.log(0.0), math.exp(1000.0), 1e200 ** 2,
and (-8.0) ** 0.5 even returns a complex number. A learner who types such a program should
see inf or nan on the graph, as a real autodiff library would show, not a crash. So every
operation the engine performs goes through one of these functions.

The transcendental functions come from :mod:`engine.libm`, which uses basic arithmetic only,
so CPython and Pyodide compute the very same bits.
"""

import math

from . import libm
from .libm import cos, exp, log, sin, tanh  # noqa: F401 - the engine's functions, reproducible

INF = math.inf
NAN = math.nan


def div(x: float, y: float) -> float:
    """x / y with IEEE-754 rules for a zero divisor (1/0 = inf, 0/0 = nan)."""
    try:
        return x / y
    except ZeroDivisionError:
        if x == 0.0 or math.isnan(x):
            return NAN
        # The sign of a zero divisor matters: 1 / -0.0 is -inf.
        return math.copysign(INF, x) * math.copysign(1.0, y)


def power(x: float, p: float) -> float:
    """x ** p for real numbers; overflow gives inf, a non-real result gives nan."""
    if p != p or x != x:
        return 1.0 if p == 0.0 else NAN
    if p == math.floor(p) and abs(p) <= 2**31:
        n = int(p)
        if x == 0.0 and n < 0:
            # 0 ** -1 = inf; an odd power keeps the sign of zero: (-0.0) ** -1 = -inf.
            return math.copysign(INF, x) if n % 2 else INF
        if n < 0:
            return div(1.0, libm.integer_power(x, -n))
        return libm.integer_power(x, n)
    if abs(p) == 0.5 and x >= 0.0:
        root = math.sqrt(x)  # sqrt is correctly rounded by IEEE-754, so it is reproducible too
        return root if p > 0 else div(1.0, root)
    if x < 0.0:
        return NAN  # a negative number to a fractional power is not a real number
    if x == 0.0:
        return 0.0 if p > 0 else INF
    return libm.exp(p * libm.log(x))


def sigmoid(x: float) -> float:
    # Written two ways so that neither branch overflows for large |x|.
    if x >= 0:
        return 1.0 / (1.0 + exp(-x))
    z = exp(x)
    return z / (1.0 + z)


def close(x: float, y: float) -> bool:
    """Equal up to rounding (another library's tanh may differ in the last bits); nan is
    close to nan."""
    if x == y or (x != x and y != y):
        return True
    return math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)


def as_float(x) -> float:
    """A number from the outside world as a float; large ints that overflow become inf."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(INF, x)
