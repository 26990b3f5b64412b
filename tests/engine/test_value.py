"""Value: micrograd-compatible arithmetic, edges that carry their local derivatives, and
IEEE-754 results instead of exceptions."""

import math
import time

import pytest

from engine import Value, cos, exp, log, relu, sigmoid, sin, tanh, topological_order


def test_micrograd_style_expression_and_grads():
    a, b, c = Value(2.0, label="a"), Value(3.0, label="b"), Value(4.0, label="c")
    e = (a + b) * c
    e.backward()
    assert (e.data, a.grad, b.grad, c.grad) == (20.0, 4.0, 4.0, 5.0)


def test_numbers_on_either_side_of_every_operator():
    a = Value(2.0)
    results = [a + 1, 1 + a, a - 1, 1 - a, a * 3, 3 * a, a / 4, 4 / a, a**2, -a]
    assert [r.data for r in results] == [3.0, 3.0, 1.0, -1.0, 6.0, 6.0, 0.5, 2.0, 4.0, -2.0]
    assert [r._local for r in results] == [
        (1.0,),
        (1.0,),
        (1.0,),
        (-1.0,),
        (3.0,),
        (3.0,),
        (0.25,),
        (-1.0,),
        (4.0,),
        (-1.0,),
    ]
    # a number is folded into the node: one parent, one edge
    assert all(r._prev == (a,) for r in results)


def test_a_value_used_twice_has_two_edges_that_both_count():
    a = Value(3.0)
    b = a * a
    assert b._prev == (a, a) and b._local == (3.0, 3.0)
    b.backward()
    assert a.grad == 6.0  # overwriting instead of += would give 3


def test_each_edge_stores_its_local_derivative():
    x, y = Value(2.0), Value(5.0)
    assert (x * y)._local == (5.0, 2.0)  # multiplication swaps
    assert (x / y)._local == (0.2, -2.0 / 25.0)
    assert (x - y)._local == (1.0, -1.0)
    t = Value(0.5).tanh()
    assert t._local == (1 - math.tanh(0.5) ** 2,)


@pytest.mark.parametrize(
    "name, f, df",
    [
        ("tanh", math.tanh, lambda x: 1 - math.tanh(x) ** 2),
        ("exp", math.exp, math.exp),
        ("log", math.log, lambda x: 1 / x),
        ("sin", math.sin, math.cos),
        ("cos", math.cos, lambda x: -math.sin(x)),
        ("sigmoid", lambda x: 1 / (1 + math.exp(-x)), lambda x: math.exp(-x) / (1 + math.exp(-x)) ** 2),
        ("relu", lambda x: max(x, 0.0), lambda x: 1.0 if x > 0 else 0.0),
    ],
)
@pytest.mark.parametrize("x", [0.3, 1.7])
def test_functions_as_methods_and_free_functions(name, f, df, x):
    free = {"tanh": tanh, "exp": exp, "log": log, "sin": sin, "cos": cos, "sigmoid": sigmoid, "relu": relu}[name]
    v = Value(x)
    out = getattr(v, name)()
    assert out.data == pytest.approx(f(x), rel=1e-12)
    assert free(Value(x)).data == out.data
    out.backward()
    assert v.grad == pytest.approx(df(x), rel=1e-12)


def test_relu_of_a_negative_number_and_at_zero():
    for x, data, grad in [(-2.0, 0.0, 0.0), (0.0, 0.0, 0.0), (3.0, 3.0, 1.0)]:
        v = Value(x)
        out = v.relu()
        out.backward()
        assert (out.data, v.grad) == (data, grad)


def test_exponent_must_be_a_number():
    with pytest.raises(TypeError, match="plain number"):
        Value(2.0) ** Value(3.0)
    with pytest.raises(TypeError):
        2 ** Value(3.0)


def test_backward_twice_doubles_and_zero_grad_fixes_it():
    a = Value(2.0)
    b = a * a
    b.backward()
    b.backward()
    assert a.grad == 8.0  # += accumulates, as in micrograd and PyTorch
    b.zero_grad()
    b.backward()
    assert a.grad == 4.0


@pytest.mark.parametrize(
    "make, data",
    [
        (lambda: Value(0.0).log(), -math.inf),
        (lambda: Value(-1.0).log(), math.nan),
        (lambda: Value(1.0) / 0, math.inf),
        (lambda: Value(-1.0) / Value(0.0), -math.inf),
        (lambda: Value(0.0) / 0, math.nan),
        (lambda: 1 / Value(-0.0), -math.inf),
        (lambda: Value(1000.0).exp(), math.inf),
        (lambda: Value(-8.0) ** 0.5, math.nan),
        (lambda: Value(1e200) ** 2, math.inf),
        (lambda: Value(-1e200) ** 3, -math.inf),
        (lambda: Value(0.0) ** -1, math.inf),
        (lambda: Value(1e308) * 10, math.inf),
        (lambda: Value(math.inf).sin(), math.nan),
        (lambda: Value(-1000.0).sigmoid(), 0.0),
    ],
)
def test_numeric_edge_cases_give_inf_or_nan_never_an_exception(make, data):
    out = make()
    if math.isnan(data):
        assert math.isnan(out.data)
    else:
        assert out.data == data
    out.backward()  # differentiating through inf/nan never raises either
    for node in topological_order(out):
        assert isinstance(node.grad, float)


def test_topological_order_puts_every_node_after_its_parents():
    a = Value(2.0)
    b = a + 1
    c = 3 * a
    d = b * c
    order = topological_order(d)
    where = {id(v): i for i, v in enumerate(order)}
    assert order[-1] is d and len(order) == 4
    for v in order:
        assert all(where[id(p)] < where[id(v)] for p in v._prev)


def test_a_100000_deep_chain_differentiates_without_recursion_error():
    x = Value(1.0)
    y = x
    start = time.perf_counter()
    for _ in range(100_000):
        y = y * 1.0 + 1.0
    built = time.perf_counter()
    y.backward()
    done = time.perf_counter()
    assert x.grad == 1.0
    assert y.data == 100_001.0
    # Not a timing assertion: a record of build vs backward for the closing note (pytest -s).
    print(f"\n200,000-node chain: build {built - start:.3f} s, backward {done - built:.3f} s")
