"""The table of operations (engine/ops.py): every entry's local derivatives against finite
differences, its derivative as code against the same numbers, and every entry reachable from
Value and from a program. An operation added to the table is checked here without a new test."""

import math

import pytest
import sympy as sp

from engine import Program, Value
from engine.ops import FUNCTIONS, INFIX, OPS
from engine.text import expression_text, local_text

UNARY = [op for op in OPS.values() if op.arity == 1]
BINARY = [op for op in OPS.values() if op.arity == 2]
POINTS = [0.3, 0.9, 1.7, 2.6, -0.8, -2.2]  # a function's domain may leave some out (log)
PAIRS = [(0.7, 1.3), (1.9, -0.6), (-1.1, 2.4), (2.5, 0.4)]
EXPONENTS = [2.0, 3.0, -1.0, 0.5, 1.5]


def central_difference(f, x):
    h = 1e-6 * max(1.0, abs(x))
    return (f(x + h) - f(x - h)) / (2 * h)


def test_the_table_is_what_the_engine_knows():
    assert list(OPS) == ["+", "-", "*", "/", "**", "neg", "tanh", "relu", "exp", "log", "sin", "cos", "sigmoid"]
    assert INFIX == ("+", "-", "*", "/", "**")
    assert FUNCTIONS == ("tanh", "relu", "exp", "log", "sin", "cos", "sigmoid")
    for op in OPS.values():
        assert op.arity in (1, 2) and op.written in ("infix", "prefix", "function")
        assert len(op.derivative) == (1 if op.arity == 1 or op.only_number_right else 2), op.name


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
def test_a_unary_op_differentiates_as_finite_differences_say(op):
    checked = 0
    for x in POINTS:
        value, (local,) = op.compute(x)
        if not math.isfinite(value) or not math.isfinite(local):
            continue  # outside the domain (log of a negative number)
        assert local == pytest.approx(central_difference(lambda t: op.compute(t)[0], x), rel=1e-6, abs=1e-8)
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
def test_a_binary_op_differentiates_as_finite_differences_say(op):
    pairs = [(abs(x), p) for x, _ in PAIRS for p in EXPONENTS] if op.only_number_right else PAIRS
    for x, y in pairs:
        value, locals_ = op.compute(x, y)
        assert locals_[0] == pytest.approx(
            central_difference(lambda t, y=y: op.compute(t, y)[0], x), rel=1e-6, abs=1e-8
        )
        if not op.only_number_right:
            assert locals_[1] == pytest.approx(
                central_difference(lambda t, x=x: op.compute(x, t)[0], y), rel=1e-6, abs=1e-8
            )


def _nodes_of_every_shape(op, x, y):
    """Every way a program can make a node of ``op``: Values on both sides, or a number on one."""
    a, b = Value(x, label="a"), Value(y, label="b")
    if op.arity == 1:
        shapes = [getattr(a, op.method)()]
    elif op.only_number_right:
        shapes = [getattr(a, op.method)(y)]
    else:
        shapes = [getattr(a, op.method)(b), getattr(a, op.method)(y), getattr(a, op.reflected)(y)]
    for node in shapes:
        node.label = "o"
    return shapes


def _evaluate_code(code: str, node: Value) -> float:
    """A local derivative written as code (``(1 - o.data**2)``), evaluated by sympy."""
    for value in (node, *node._prev):
        code = code.replace(f"{value.label}.data", f"({value.data!r})")
    result = sp.parse_expr(code)  # the table's own text, never a learner's
    if result in (sp.true, sp.false):  # relu's (o.data > 0)
        return 1.0 if result == sp.true else 0.0
    return float(result)


@pytest.mark.parametrize("op", list(OPS.values()), ids=lambda op: op.name)
def test_the_derivative_as_code_computes_the_local_derivative(op):
    pairs = [(abs(x), p) for x, _ in PAIRS for p in EXPONENTS] if op.only_number_right else PAIRS
    for x, y in pairs:
        for node in _nodes_of_every_shape(op, x, y):
            for slot, local in enumerate(node._local):
                code = local_text(node, slot)
                assert _evaluate_code(code, node) == pytest.approx(local, rel=1e-12, abs=1e-15), code


@pytest.mark.parametrize("op", list(OPS.values()), ids=lambda op: op.name)
def test_every_op_is_a_value_method_a_program_can_write(op):
    assert callable(getattr(Value, op.method))
    for node in _nodes_of_every_shape(op, 1.3, 2.0):
        assert node._op == op.name
        # Written out, the node reads back as the same operation with the same value.
        program = Program.parse(f"a = 1.3\nb = 2\no = {expression_text(node)}")
        assert program.output._op == op.name and program.output.data == node.data


@pytest.mark.parametrize(
    "source, written",
    [
        ("d = (a - b) - (a - b * b)", ["a - b", "b * b", "a - b*b", "a-b - (a-b*b)"]),
        ("d = (a + b) * (a / b) / (a * b)", ["a + b", "a / b", "(a+b) * a/b", "a * b", "(a+b)*a/b / (a*b)"]),
        ("d = (-a) ** 2 + (a + 1) ** -2", ["-a", "(-a) ** 2", "a + 1", "(a+1) ** (-2)", "(-a)**2 + (a+1)**(-2)"]),
        (
            "d = -(a * b) * (2 - a) + tanh(a + b) * 2",
            [
                "a * b",
                "-(a*b)",
                "2 - a",
                "-(a*b) * (2-a)",
                "a + b",
                "tanh(a+b)",
                "tanh(a+b) * 2",
                "-(a*b)*(2-a) + tanh(a+b)*2",
            ],
        ),
    ],
)
def test_precedence_and_brackets_from_the_table_write_what_python_reads(source, written):
    program = Program.parse("a = 2\nb = 3\n" + source)
    assert [expression_text(node) for node in program.nodes if node._op] == written
