"""IEEE-754 arithmetic that never raises.

Python's float operations raise on some inputs where IEEE-754 (and JavaScript, and every
GPU) quietly returns inf or nan: 1.0 / 0.0, math.log(0.0), math.exp(1000.0), 1e200 ** 2,
and (-8.0) ** 0.5 even returns a complex number. A learner who types such a program should
see inf or nan on the graph, as a real autodiff library would show, not a crash. So every
operation the engine performs goes through one of these functions.
"""

import math

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
    try:
        result = x**p
    except ZeroDivisionError:  # 0.0 ** negative
        if p == int(p) and int(p) % 2 == 1:
            return math.copysign(INF, x)
        return INF
    except OverflowError:
        if x < 0 and p == int(p) and int(p) % 2 == 1:
            return -INF
        return INF
    if isinstance(result, complex):  # a negative base to a fractional power
        return NAN
    return result


def exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def log(x: float) -> float:
    if x == 0.0:
        return -INF
    if x < 0.0 or math.isnan(x):
        return NAN
    return math.log(x)


def sin(x: float) -> float:
    return NAN if math.isinf(x) else math.sin(x)


def cos(x: float) -> float:
    return NAN if math.isinf(x) else math.cos(x)


def tanh(x: float) -> float:
    return math.tanh(x)


def sigmoid(x: float) -> float:
    # Written two ways so that neither branch overflows for large |x|.
    if x >= 0:
        return 1.0 / (1.0 + exp(-x))
    z = exp(x)
    return z / (1.0 + z)


def mul(x: float, y: float) -> float:
    # Plain float multiplication already follows IEEE-754 (overflow gives inf, inf * 0 nan).
    return x * y


def as_float(x) -> float:
    """A number from the outside world as a float; large ints that overflow become inf."""
    try:
        return float(x)
    except OverflowError:
        return math.copysign(INF, x)
