"""An independent oracle for the engine's gradients.

Hypothesis writes random straight-line programs in the engine's subset: a few inputs, then
statements that combine earlier names (so nodes are shared and edges can repeat) with
``+ - * /``, ``**`` with a small number exponent, unary minus, numbers on either side,
augmented assignment, and tanh/exp/sin/cos/log/relu/sigmoid as both ``f(x)`` and ``x.f()``.

Each program is checked two ways:

* **sympy**: the same expression is built symbolically, differentiated with respect to every
  input, and evaluated at the same point with 50-digit mpmath. The engine must agree to
  1e-9 relative (absolute floor 1e-12).
* **finite differences**: a central difference with h = 1e-6 (scaled by the input), using
  only the engine's forward pass, must agree to 1e-5 relative (absolute floor 1e-7).

Some points are legitimately ill-conditioned in float64 (cancellation, saturated tanh, a
gradient that is a tiny difference of large terms). The test does not paper over them with
a loose tolerance; instead it carries a first-order rounding-error bound through its own
float evaluation of the program (forward values, local derivatives and the reverse
accumulation) and skips a comparison only when that bound says float64 itself can't reach
the tolerance. Each of the two tests then checks, on the programs it drew, that most
comparisons were actually made (and the sympy one that every construct was drawn).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from engine import Program

EPS = 2.0**-53  # unit roundoff of float64
SAFETY = 8.0  # slack on the first-order error bound

SYMPY_REL, SYMPY_ABS = 1e-9, 1e-12
FD_REL, FD_ABS = 1e-5, 1e-7

INPUT_NAMES = ("a", "b", "c", "d")
FUNCTIONS = ("tanh", "exp", "sin", "cos", "log", "relu", "sigmoid")
BINARY = ("+", "-", "*", "/")
CONSTANTS = (0.5, 1.0, 2.0, 3.0)
EXPONENTS = (2, 3, 0.5, 1.5, -1, -2)
MAX_MAGNITUDE = 1e6

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


class Invalid(Exception):
    """The point is outside an operation's domain, or too close to a kink to trust."""


# -- the test's own float evaluation, with rounding-error bounds ---------------------------


class N:
    """One node of the test's own graph: float value, error bound, edges to parents."""

    __slots__ = ("v", "e", "edges")

    def __init__(self, v, e, edges=()):
        if not math.isfinite(v) or abs(v) > MAX_MAGNITUDE:
            raise Invalid(f"value {v!r} out of range")
        self.v = v
        self.e = e  # bound on |computed value - exact value| (first order)
        self.edges = tuple(edges)  # (parent, local derivative, bound on its error)


def _binary(op, L: N, R: N) -> N:
    x, y = L.v, R.v
    if op == "+":
        v = x + y
        return N(v, L.e + R.e + EPS * abs(v), [(L, 1.0, 0.0), (R, 1.0, 0.0)])
    if op == "-":
        v = x - y
        return N(v, L.e + R.e + EPS * abs(v), [(L, 1.0, 0.0), (R, -1.0, 0.0)])
    if op == "*":
        v = x * y
        return N(v, abs(y) * L.e + abs(x) * R.e + EPS * abs(v), [(L, y, R.e), (R, x, L.e)])
    if op == "/":
        if abs(y) < 0.05:
            raise Invalid("division by a small number")
        v = x / y
        e = L.e / abs(y) + abs(x) * R.e / y**2 + EPS * abs(v)
        return N(
            v,
            e,
            [
                (L, 1.0 / y, R.e / y**2 + EPS / abs(y)),
                (R, -x / (y * y), L.e / y**2 + 2 * abs(x) * R.e / abs(y) ** 3 + 3 * EPS * abs(x) / y**2),
            ],
        )
    raise AssertionError(op)


def _with_constant(op, k: float, X: N, k_on_left: bool) -> N:
    x = X.v
    if op == "+":
        v = k + x
        return N(v, X.e + EPS * abs(v), [(X, 1.0, 0.0)])
    if op == "-":
        v = k - x if k_on_left else x - k
        return N(v, X.e + EPS * abs(v), [(X, -1.0 if k_on_left else 1.0, 0.0)])
    if op == "*":
        v = k * x
        return N(v, abs(k) * X.e + EPS * abs(v), [(X, k, 0.0)])
    if op == "/":
        if not k_on_left:
            v = x / k
            return N(v, X.e / abs(k) + EPS * abs(v), [(X, 1.0 / k, EPS / abs(k))])
        if abs(x) < 0.05:
            raise Invalid("division by a small number")
        v = k / x
        return N(
            v,
            abs(k) * X.e / x**2 + EPS * abs(v),
            [(X, -k / (x * x), 2 * abs(k) * X.e / abs(x) ** 3 + 3 * EPS * abs(k) / x**2)],
        )
    raise AssertionError(op)


def _power(X: N, p) -> N:
    x = X.v
    if p != int(p) and x < 0.05:
        raise Invalid("fractional power of a small or negative number")
    if p < 0 and abs(x) < 0.05:
        raise Invalid("negative power of a small number")
    v = x**p
    local = p * x ** (p - 1)
    local_err = abs(p * (p - 1) * x ** (p - 2)) * X.e + 3 * EPS * abs(local)
    return N(v, abs(local) * X.e + 2 * EPS * abs(v), [(X, local, local_err)])


def _function(name, X: N, relu_signs: list) -> N:
    x, ex = X.v, X.e
    if name == "tanh":
        t = math.tanh(x)
        et = (1 - t * t) * ex + 2 * EPS * abs(t)
        local = 1 - t * t
        return N(t, et, [(X, local, 2 * abs(t) * et + EPS * (t * t + abs(local)))])
    if name == "exp":
        if abs(x) > 20:
            raise Invalid("exp of a large number")
        v = math.exp(x)
        e = v * ex + 2 * EPS * v
        return N(v, e, [(X, v, e)])
    if name == "log":
        if x < 0.05:
            raise Invalid("log of a small or negative number")
        v = math.log(x)
        return N(v, ex / x + 2 * EPS * abs(v), [(X, 1 / x, ex / x**2 + EPS / x)])
    if name == "sin":
        if abs(x) > 1e3:
            raise Invalid("sin of a huge number")
        s, c = math.sin(x), math.cos(x)
        return N(s, abs(c) * ex + 2 * EPS * abs(s), [(X, c, abs(s) * ex + 2 * EPS * abs(c))])
    if name == "cos":
        if abs(x) > 1e3:
            raise Invalid("cos of a huge number")
        s, c = math.sin(x), math.cos(x)
        return N(c, abs(s) * ex + 2 * EPS * abs(c), [(X, -s, abs(c) * ex + 2 * EPS * abs(s))])
    if name == "relu":
        if abs(x) < 1e-3 or ex > abs(x) / 4:
            raise Invalid("relu too close to its kink")
        relu_signs.append(x > 0)
        if x > 0:
            return N(x, ex, [(X, 1.0, 0.0)])
        return N(0.0, 0.0, [(X, 0.0, 0.0)])
    if name == "sigmoid":
        s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))
        local = s * (1 - s)
        es = local * ex + 4 * EPS * s
        return N(s, es, [(X, local, (abs(1 - s) + abs(s)) * es + 3 * EPS * abs(local))])
    raise AssertionError(name)


# -- programs as data ---------------------------------------------------------------------
# A tree is one of:
#   ("var", name)   ("bin", op, L, R)   ("const", op, k, X, k_on_left)
#   ("pow", X, p)   ("neg", X)          ("fn", name, X, as_method)


@dataclass
class Prog:
    inputs: dict  # name -> float
    statements: list = field(default_factory=list)  # (target, aug_op or None, tree)

    def source(self) -> str:
        lines = [f"{name} = {value!r}" for name, value in self.inputs.items()]
        for target, aug, tree in self.statements:
            lines.append(f"{target} {aug or ''}= {render(tree)}")
        return "\n".join(lines) + "\n"


def render(tree) -> str:
    kind = tree[0]
    if kind == "var":
        return tree[1]
    if kind == "bin":
        return f"({render(tree[2])} {tree[1]} {render(tree[3])})"
    if kind == "const":
        _, op, k, X, left = tree
        return f"({k!r} {op} {render(X)})" if left else f"({render(X)} {op} {k!r})"
    if kind == "pow":
        return f"({render(tree[1])} ** {tree[2]!r})"
    if kind == "neg":
        return f"(-{render(tree[1])})"
    if kind == "fn":
        _, name, X, as_method = tree
        return f"{render(X)}.{name}()" if as_method else f"{name}({render(X)})"
    raise AssertionError(kind)


def evaluate(tree, env: dict, nodes: list, relu_signs: list) -> N:
    """The test's own float evaluation; env maps names to N, nodes collects new ones."""
    kind = tree[0]
    if kind == "var":
        return env[tree[1]]
    if kind == "bin":
        L = evaluate(tree[2], env, nodes, relu_signs)
        R = evaluate(tree[3], env, nodes, relu_signs)
        out = _binary(tree[1], L, R)
    elif kind == "const":
        _, op, k, X, left = tree
        out = _with_constant(op, k, evaluate(X, env, nodes, relu_signs), left)
    elif kind == "pow":
        out = _power(evaluate(tree[1], env, nodes, relu_signs), tree[2])
    elif kind == "neg":
        X = evaluate(tree[1], env, nodes, relu_signs)
        out = N(-X.v, X.e, [(X, -1.0, 0.0)])
    else:
        _, name, X, _ = tree
        out = _function(name, evaluate(X, env, nodes, relu_signs), relu_signs)
    nodes.append(out)
    return out


def run_float(prog: Prog, inputs: dict | None = None):
    """(output N, input Ns, all Ns in creation order, relu branch signs)."""
    env, nodes, relu_signs = {}, [], []
    for name, value in (inputs or prog.inputs).items():
        env[name] = N(value, 0.0)
        nodes.append(env[name])
    leaves = dict(env)
    out = None
    for target, aug, tree in prog.statements:
        value = evaluate(tree, env, nodes, relu_signs)
        if aug:
            value = _binary(aug, env[target], value)
            nodes.append(value)
        env[target] = out = value
    return out, leaves, nodes, relu_signs


def gradient_error_bounds(out: N, nodes: list) -> dict[int, tuple[float, float]]:
    """Reverse sweep: for every node, (its gradient, a bound on the float error of it)."""
    grad = {id(n): 0.0 for n in nodes}
    err = {id(n): 0.0 for n in nodes}
    sum_abs = {id(n): 0.0 for n in nodes}
    count = Counter()
    grad[id(out)] = 1.0
    result = {}
    for node in reversed(nodes):  # creation order is a topological order
        k = id(node)
        # Summing `count` contributions in any order costs at most count·EPS·Σ|terms|.
        err[k] += count[k] * EPS * sum_abs[k]
        result[k] = (grad[k], err[k])
        g, eg = grad[k], err[k]
        for parent, local, local_err in node.edges:
            c = local * g
            p = id(parent)
            grad[p] += c
            err[p] += abs(local) * eg + abs(g) * local_err + EPS * abs(c)
            sum_abs[p] += abs(c)
            count[p] += 1
    return result


class Step(sp.Function):
    """relu's derivative away from 0 (the test never evaluates at the kink)."""

    def fdiff(self, argindex=1):
        return sp.S.Zero


class Relu(sp.Function):
    """relu as an opaque function: sympy can't fold it into a Piecewise and divide by 0."""

    def fdiff(self, argindex=1):
        return Step(self.args[0])


MPMATH_RELU = {
    "Relu": lambda x: x if x > 0 else mpmath.mpf(0),
    "Step": lambda x: mpmath.mpf(1) if x > 0 else mpmath.mpf(0),
}


def to_sympy(tree, env: dict):
    kind = tree[0]
    if kind == "var":
        return env[tree[1]]
    if kind == "bin":
        L, R = to_sympy(tree[2], env), to_sympy(tree[3], env)
        return {"+": L + R, "-": L - R, "*": L * R, "/": L / R}[tree[1]]
    if kind == "const":
        _, op, k, X, left = tree
        k, X = sp.Rational(k), to_sympy(X, env)
        a, b = (k, X) if left else (X, k)
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[op]
    if kind == "pow":
        return to_sympy(tree[1], env) ** sp.Rational(tree[2])
    if kind == "neg":
        return -to_sympy(tree[1], env)
    _, name, X, _ = tree
    X = to_sympy(X, env)
    if name == "relu":
        return Relu(X)
    if name == "sigmoid":
        return 1 / (1 + sp.exp(-X))
    return {"tanh": sp.tanh, "exp": sp.exp, "sin": sp.sin, "cos": sp.cos, "log": sp.log}[name](X)


def sympy_gradients(prog: Prog) -> dict[str, float]:
    symbols = {name: sp.Symbol(name) for name in prog.inputs}
    env = dict(symbols)
    out = None
    for target, aug, tree in prog.statements:
        value = to_sympy(tree, env)
        if aug:
            current = env[target]
            value = {"+": current + value, "-": current - value, "*": current * value}[aug]
        env[target] = out = value
    names = list(prog.inputs)
    derivatives = [sp.diff(out, symbols[name]) for name in names]
    f = sp.lambdify([symbols[name] for name in names], derivatives, modules=[MPMATH_RELU, "mpmath"])
    with mpmath.workdps(50):
        values = f(*[mpmath.mpf(prog.inputs[name]) for name in names])
        return {name: float(value) for name, value in zip(names, values)}


# -- generating programs ----------------------------------------------------------------


def _try(tree, env):
    """The tree's value if every operation in it is valid at this point, else None."""
    try:
        return evaluate(tree, env, [], [])
    except (Invalid, OverflowError, ZeroDivisionError, ValueError):
        return None


def _draw_tree(draw, env: dict, names: list, depth: int):
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return ("var", draw(st.sampled_from(names[::-1])))  # recent names first
    kind = draw(st.sampled_from(("bin", "bin", "bin", "fn", "fn", "fn", "pow", "neg", "const")))
    X = _draw_tree(draw, env, names, depth - 1)
    if kind == "bin":
        Y = _draw_tree(draw, env, names, depth - 1)
        candidates = [("bin", draw(st.sampled_from(BINARY)), X, Y), ("bin", "+", X, Y), ("bin", "-", X, Y)]
    elif kind == "fn":
        candidates = [("fn", draw(st.sampled_from(FUNCTIONS)), X, draw(st.booleans())), ("fn", "tanh", X, False)]
    elif kind == "pow":
        candidates = [("pow", X, draw(st.sampled_from(EXPONENTS))), ("neg", X)]
    elif kind == "neg":
        candidates = [("neg", X)]
    else:
        op, k, left = draw(st.sampled_from(BINARY)), draw(st.sampled_from(CONSTANTS)), draw(st.booleans())
        candidates = [("const", op, k, X, left), ("const", op, k, X, not left), ("const", "+", k, X, left)]
    for tree in candidates:
        if _try(tree, env) is not None:
            return tree
    return X


@st.composite
def programs(draw) -> Prog:
    n_inputs = draw(st.integers(1, len(INPUT_NAMES)))
    inputs = {}
    for name in INPUT_NAMES[:n_inputs]:
        magnitude = draw(st.floats(0.1, 3.0, allow_nan=False))
        inputs[name] = -magnitude if draw(st.booleans()) else magnitude
    prog = Prog(inputs)
    env = {name: N(value, 0.0) for name, value in inputs.items()}
    names = list(inputs)
    for i in range(draw(st.integers(1, 8))):
        tree = _draw_tree(draw, env, names, draw(st.integers(1, 3)))
        value = _try(tree, env)
        assert value is not None
        targets = [n for n in names if n.startswith("t")]
        target, aug = f"t{i}", None
        if targets and draw(st.integers(0, 4)) == 0:
            target = draw(st.sampled_from(targets))
            aug = draw(st.sampled_from(("+", "-", "*", None)))
            if aug:
                try:
                    value = _binary(aug, env[target], value)
                except Invalid:
                    aug = "+"
                    value = _binary(aug, env[target], value)
        prog.statements.append((target, aug, tree))
        env[target] = value
        if target not in names:
            names.append(target)
    return prog


def _record_shape(prog: Prog, stats: Counter):
    def walk(tree):
        kind = tree[0]
        if kind == "var":
            return
        if kind == "bin":
            stats[f"op {tree[1]}"] += 1
            if tree[2] == tree[3]:
                stats["same operand twice"] += 1
            walk(tree[2]), walk(tree[3])
        elif kind == "const":
            stats[f"number {'left' if tree[4] else 'right'}"] += 1
            walk(tree[3])
        elif kind == "pow":
            stats["op **"] += 1
            walk(tree[1])
        elif kind == "neg":
            stats["op neg"] += 1
            walk(tree[1])
        else:
            stats[f"fn {tree[1]}"] += 1
            stats["method call" if tree[3] else "function call"] += 1
            walk(tree[2])

    for target, aug, tree in prog.statements:
        walk(tree)
        if aug:
            stats[f"aug {aug}="] += 1
        elif any(t == target for t, _, _ in prog.statements[: prog.statements.index((target, aug, tree))]):
            stats["reassigned name"] += 1


def _engine(prog: Prog, values: dict | None = None) -> Program:
    program = Program.parse(prog.source(), values) if values else Program.parse(prog.source())
    program.output.backward()
    return program


def _valid(prog: Prog):
    try:
        return run_float(prog)
    except (Invalid, OverflowError, ZeroDivisionError, ValueError):
        return None


# -- the checks, one program at a time ---------------------------------------------------------


def check_against_sympy(prog: Prog, stats: Counter) -> None:
    floats = _valid(prog)
    assume(floats is not None)
    out, leaves, nodes, _ = floats
    bounds = gradient_error_bounds(out, nodes)
    engine = _engine(prog)
    assert engine.output.data == pytest.approx(out.v, rel=1e-12, abs=SAFETY * out.e + 1e-300)
    expected = sympy_gradients(prog)
    _record_shape(prog, stats)
    stats["sympy programs"] += 1
    for name, exact in expected.items():
        got = engine.inputs[name].grad
        tolerance = SYMPY_REL * abs(exact) + SYMPY_ABS
        _, float_error = bounds[id(leaves[name])]
        if SAFETY * float_error > 0.1 * tolerance:
            stats["sympy skipped (ill-conditioned)"] += 1
            event("sympy: ill-conditioned gradient skipped")
            continue
        stats["sympy compared"] += 1
        assert abs(got - exact) <= tolerance, f"d(output)/d{name}: engine {got!r}, sympy {exact!r}\n{prog.source()}"


def check_against_finite_differences(prog: Prog, stats: Counter) -> None:
    floats = _valid(prog)
    assume(floats is not None)
    out, _, _, relu_signs = floats
    engine = _engine(prog)
    stats["fd programs"] += 1
    for name, x in prog.inputs.items():
        got = engine.inputs[name].grad
        h = 1e-6 * max(1.0, abs(x))
        f = {}
        for step in (-2, -1, 1, 2):
            moved = dict(prog.inputs, **{name: x + step * h})
            try:
                _, _, _, signs = run_float(prog, moved)
            except (Invalid, OverflowError, ZeroDivisionError, ValueError):
                signs = None
            if signs != relu_signs:  # crossed a kink or left a domain: no derivative here
                break
            f[step] = Program.parse(prog.source(), {name: x + step * h}).output.data
        if len(f) < 4:
            stats["fd skipped (kink)"] += 1
            continue
        d1 = (f[1] - f[-1]) / (2 * h)
        d2 = (f[2] - f[-2]) / (4 * h)
        noise = SAFETY * out.e / h  # rounding in f, divided by the step
        truncation = abs(d1 - d2)  # about 3x d1's truncation error
        tolerance = FD_REL * abs(got) + FD_ABS
        if noise + truncation > 0.5 * tolerance:
            stats["fd skipped (ill-conditioned)"] += 1
            event("fd: ill-conditioned difference skipped")
            continue
        stats["fd compared"] += 1
        assert abs(got - d1) <= tolerance, (
            f"d(output)/d{name}: engine {got!r}, central difference {d1!r}\n{prog.source()}"
        )


# -- the tests -------------------------------------------------------------------------------
# Each runs its check on the programs Hypothesis draws, counting as it goes, then asks of
# those counts that the oracle really compared (a test that skipped everything would
# otherwise pass).


def test_grads_match_sympy():
    stats = Counter()

    @SETTINGS
    @given(programs())
    def each_program(prog):
        check_against_sympy(prog, stats)

    each_program()
    sympy_total = stats["sympy compared"] + stats["sympy skipped (ill-conditioned)"]
    assert stats["sympy programs"] > 0 and stats["sympy compared"] >= 0.8 * sympy_total, dict(stats)
    for construct in (
        [f"op {op}" for op in (*BINARY, "**", "neg")]
        + [f"fn {f}" for f in FUNCTIONS]
        + [
            "method call",
            "function call",
            "number left",
            "number right",
            "same operand twice",
            "aug +=",
            "aug -=",
            "aug *=",
        ]
    ):
        assert stats[construct] > 0, f"the generator never produced {construct}: {dict(stats)}"


def test_grads_match_finite_differences():
    stats = Counter()

    @SETTINGS
    @given(programs())
    def each_program(prog):
        check_against_finite_differences(prog, stats)

    each_program()
    fd_total = stats["fd compared"] + stats["fd skipped (ill-conditioned)"] + stats["fd skipped (kink)"]
    assert stats["fd programs"] > 0 and stats["fd compared"] >= 0.6 * fd_total, dict(stats)


def test_known_program_against_sympy():
    """A fixed program through the same machinery, so a broken oracle can't pass silently."""
    prog = Prog({"a": 2.0, "b": -3.0})
    prog.statements = [
        ("t0", None, ("bin", "*", ("var", "a"), ("var", "b"))),
        ("t1", None, ("fn", "tanh", ("bin", "+", ("var", "t0"), ("var", "a")), True)),
        ("t1", "+", ("pow", ("var", "a"), 2)),
    ]
    assert prog.source().splitlines()[2:] == ["t0 = (a * b)", "t1 = (t0 + a).tanh()", "t1 += (a ** 2)"]
    expected = sympy_gradients(prog)
    t = math.tanh(2.0 * -3.0 + 2.0)
    assert expected["a"] == pytest.approx((1 - t * t) * (-3.0 + 1) + 4.0, rel=1e-14)
    assert expected["b"] == pytest.approx((1 - t * t) * 2.0, rel=1e-14)
    engine = _engine(prog)
    for name in ("a", "b"):
        assert engine.inputs[name].grad == pytest.approx(expected[name], rel=1e-12)
