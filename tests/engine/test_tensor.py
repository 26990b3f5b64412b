"""The tensor engine (engine/tensor.py) against PyTorch's autograd, in float64.

Every operation is run twice, once with the engine's Tensor and once with torch, on the same
numbers: its forward values, and the grads of its inputs, must agree to 1e-9 relative. The
backward pass is started from a fixed upstream grad that differs from element to element
(``(out * G).sum()``), not from ``sum()``'s ones, so that a transposed or misplaced rule
shows. The fixed examples are checked first; then Hypothesis draws shapes and numbers.

Also here: broadcasting (a 1×n row, an n×1 column, a 1×1 and a number, on either side), a
tensor used twice, the linear layer ``tanh(X @ W + b).sum()``, cross-entropy on 3 classes,
the shape errors (word for word, and refused exactly where torch refuses), the checks on
a tensor's input, and each operation's rule as the stage will write it.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tensor import (
    Rule,
    ShapeError,
    Tensor,
    broadcast_to,
    cross_entropy,
    matmul,
    sum_to,
    tensor,
    transpose,
)

REL = 1e-9

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None)

X43 = [[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [-0.2, 0.8, 1.1], [0.9, -1.4, 0.05]]
W32 = [[0.2, -0.5], [1.3, 0.4], [-0.6, 0.9]]
B12 = [[0.1, -0.3]]
ROW13 = [[0.7, -1.2, 0.4]]
COLUMN41 = [[1.5], [-0.5], [0.25], [2.0]]
ONE11 = [[-1.75]]
POSITIVE43 = [[0.5, 1.0, 2.0], [1.5, 0.3, 0.7], [0.2, 0.8, 1.1], [0.9, 1.4, 0.05]]


# -- the oracle ---------------------------------------------------------------------------------


def upstream(shape):
    """A grad for the output that differs in every element, the same for both engines."""
    rows, cols = shape
    return [[0.5 + 0.3 * i - 0.7 * j + 0.11 * i * j for j in range(cols)] for i in range(rows)]


def flat(rows):
    return [x for row in rows for x in row]


def agree(ours_fn, torch_fn, *inputs):
    """Run both engines on the same rows; the forward values, shapes and every input's grad must agree."""
    ours_in = [tensor(rows) for rows in inputs]
    out = ours_fn(*ours_in)
    assert isinstance(out, Tensor)
    torch_in = [torch.tensor(rows, dtype=torch.float64, requires_grad=True) for rows in inputs]
    torch_out = torch_fn(*torch_in)
    # torch reduces to a 0-d tensor where the engine keeps a 1×1
    assert out.shape == (tuple(torch_out.shape) if torch_out.dim() == 2 else (1, 1))
    assert flat(out.data) == pytest.approx(torch_out.detach().flatten().tolist(), rel=REL)

    g = upstream(out.shape)
    (out * tensor(g)).sum().backward()
    (torch_out.reshape(out.shape) * torch.tensor(g, dtype=torch.float64)).sum().backward()
    for ours, theirs in zip(ours_in, torch_in):
        assert ours.shape == tuple(theirs.shape)
        assert flat(ours.grad) == pytest.approx(theirs.grad.flatten().tolist(), rel=REL)
    return out


def texts(node):
    return [str(rule) for rule in node.rules()]


# -- every operation on fixed examples ----------------------------------------------------------

OPERATIONS = {
    # name: (the engine's, torch's, the inputs)
    "matmul": (lambda x, w: x @ w, lambda x, w: x @ w, (X43, W32)),
    "add": (lambda a, b: a + b, lambda a, b: a + b, (X43, [r[::-1] for r in X43])),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, (X43, POSITIVE43)),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, (X43, POSITIVE43)),
    "neg": (lambda x: -x, lambda x: -x, (X43,)),
    "tanh": (lambda x: x.tanh(), torch.tanh, (X43,)),
    "relu": (lambda x: x.relu(), torch.relu, ([[0.0, -1.0, 2.0], [1.5, -0.0, -0.7]],)),  # its slope at 0 is 0
    "exp": (lambda x: x.exp(), torch.exp, (X43,)),
    "log": (lambda x: x.log(), torch.log, (POSITIVE43,)),
    "sum": (lambda x: x.sum(), lambda x: x.sum(), (X43,)),
    "sum(0)": (lambda x: x.sum(0), lambda x: x.sum(0, keepdim=True), (X43,)),
    "sum(1)": (lambda x: x.sum(1), lambda x: x.sum(1, keepdim=True), (X43,)),
    "mean": (lambda x: x.mean(), lambda x: x.mean(), (X43,)),
    "T": (lambda x: x.T, lambda x: x.T, (X43,)),
    "cross_entropy": (
        lambda z: cross_entropy(z, [2, 0, 1, 1]),
        lambda z: F.cross_entropy(z, torch.tensor([2, 0, 1, 1])),
        (X43,),
    ),
}


OP_NAMES = {"matmul": "@", "add": "+", "sub": "-", "mul": "*"}  # the others' _op is their name


@pytest.mark.parametrize("name", OPERATIONS)
def test_each_operation_agrees_with_pytorch(name):
    ours, theirs, inputs = OPERATIONS[name]
    out = agree(ours, theirs, *inputs)
    assert out._op == OP_NAMES.get(name, name)


def test_a_known_value_by_hand():
    # Not only agreement with torch: one case worked out with pencil and paper.
    x = tensor([[1.0, 2.0], [3.0, 4.0]], "X")
    w = tensor([[1.0], [-1.0]], "W")
    loss = (x @ w).sum()  # X @ W = [[-1], [-1]], sum -2
    loss.backward()
    assert loss.data == [[-2.0]]
    assert x.grad == [[1.0, -1.0], [1.0, -1.0]]  # dY · Wᵀ, dY all ones
    assert w.grad == [[4.0], [6.0]]  # Xᵀ · dY: each column of X summed


BROADCASTS = {
    "row on the right": (X43, ROW13),
    "row on the left": (ROW13, X43),
    "column on the right": (X43, COLUMN41),
    "column on the left": (COLUMN41, X43),
    "1×1 on the right": (X43, ONE11),
    "1×1 on the left": (ONE11, X43),
    "row with column": (ROW13, COLUMN41),  # 1×3 with 4×1 makes 4×3, as in torch
    "column with row": (COLUMN41, ROW13),
}


@pytest.mark.parametrize("op", ["+", "-", "*"])
@pytest.mark.parametrize("case", BROADCASTS)
def test_broadcasting_agrees_with_pytorch(op, case):
    f = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}[op]
    out = agree(f, f, *BROADCASTS[case])
    assert out.shape == (4, 3)


NUMBERS = {
    "X + 2.5": lambda x: x + 2.5,
    "2.5 + X": lambda x: 2.5 + x,
    "X - 1.5": lambda x: x - 1.5,
    "1 - X": lambda x: 1 - x,
    "X * -0.5": lambda x: x * -0.5,
    "2 * X": lambda x: 2 * x,
}


@pytest.mark.parametrize("case", NUMBERS)
def test_a_number_on_either_side_agrees_with_pytorch(case):
    out = agree(NUMBERS[case], NUMBERS[case], X43)
    assert len(out._prev) == 1  # the number is folded into the node, not a node of its own


USED_TWICE = {
    "x * x": lambda x: x * x,
    "x + x": lambda x: x + x,
    "x - x * 3": lambda x: x - x * 3,
    "x @ x.T": lambda x: x @ x.T,
    "tanh(x) * x + x.sum(0)": lambda x: x.tanh() * x + x.sum(0),
}


@pytest.mark.parametrize("case", USED_TWICE)
def test_a_tensor_used_twice_receives_both_paths(case):
    agree(USED_TWICE[case], USED_TWICE[case], X43)


def test_x_plus_x_gives_twice_the_grad():
    x = tensor(X43)
    (x + x).sum().backward()
    assert x.grad == [[2.0] * 3] * 4


def test_the_linear_layer_agrees_with_pytorch():
    def layer(x, w, b):
        return (x @ w + b).tanh().sum()

    loss = agree(layer, layer, X43, W32, B12)
    assert loss.shape == (1, 1)


def test_the_linear_layer_bias_grad_is_the_sum_of_dy_over_the_rows():
    x, w, b = tensor(X43, "X"), tensor(W32, "W"), tensor(B12, "b")
    z = x @ w + b
    y = z.tanh()
    y.sum().backward()
    dz = [[(1 - t * t) for t in row] for row in y.data]  # tanh's local derivative times dY = 1
    assert flat(z.grad) == pytest.approx(flat(dz), rel=REL)
    assert b.grad[0] == pytest.approx([sum(row[j] for row in dz) for j in range(2)], rel=REL)


def test_cross_entropy_on_three_classes_agrees_with_pytorch():
    logits = [[2.0, 1.0, 0.1], [0.5, 2.5, -1.0], [-0.3, 0.2, 3.0], [1.0, 1.0, 1.0]]
    labels = [0, 2, 2, 1]
    out = agree(
        lambda z: cross_entropy(z, labels),
        lambda z: F.cross_entropy(z, torch.tensor(labels)),
        logits,
    )
    # the uniform row's loss alone is log 3, a number to know by heart
    assert cross_entropy(tensor([[1.0, 1.0, 1.0]]), [1]).data[0][0] == pytest.approx(math.log(3), rel=REL)
    assert out.data[0][0] > 0


def test_cross_entropy_is_stable_for_large_logits():
    out = agree(
        lambda z: cross_entropy(z, [0, 1]),
        lambda z: F.cross_entropy(z, torch.tensor([0, 1])),
        [[1000.0, -1000.0, 0.0], [700.0, 710.0, 705.0]],
    )
    assert math.isfinite(out.data[0][0])


def test_backward_twice_adds_the_grads_again_and_zero_grad_clears_them():
    x = tensor(X43)
    square = x * x
    loss = square.sum()
    loss.backward()
    assert loss.grad == [[1.0]] and square.grad == [[1.0] * 3] * 4
    once = [row[:] for row in x.grad]
    loss.backward()  # as in torch: the input's grad doubles, the node's is this pass's
    assert x.grad == [[2 * g for g in row] for row in once]
    assert square.grad == [[1.0] * 3] * 4
    loss.zero_grad()
    assert x.grad == [[0.0] * 3] * 4


# -- every operation on drawn shapes and numbers -----------------------------------------------

VALUES = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
POSITIVES = st.floats(0.05, 5.0)
SIZES = st.integers(1, 4)


def matrices(shape, elements=VALUES):
    rows, cols = shape
    return st.lists(st.lists(elements, min_size=cols, max_size=cols), min_size=rows, max_size=rows)


@SETTINGS
@given(st.tuples(SIZES, SIZES, SIZES).flatmap(lambda s: st.tuples(matrices(s[:2]), matrices(s[1:]))))
def test_matmul_agrees_on_drawn_shapes(pair):
    agree(lambda x, w: x @ w, lambda x, w: x @ w, *pair)


def broadcastable_pairs():
    """Two shapes that broadcast: each an m×n, a 1×n, an m×1 or a 1×1, with their numbers."""

    def either(m, n):
        return st.sampled_from([(m, n), (1, n), (m, 1), (1, 1)])

    return st.tuples(SIZES, SIZES).flatmap(
        lambda mn: st.tuples(either(*mn), either(*mn)).flatmap(lambda s: st.tuples(matrices(s[0]), matrices(s[1])))
    )


@SETTINGS
@given(st.sampled_from(["+", "-", "*"]), broadcastable_pairs())
def test_elementwise_operations_agree_on_drawn_shapes(op, pair):
    f = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}[op]
    agree(f, f, *pair)


@SETTINGS
@given(
    st.sampled_from(["+", "-", "*"]),
    st.booleans(),
    st.floats(-4.0, 4.0, allow_nan=False),
    st.tuples(SIZES, SIZES).flatmap(matrices),
)
def test_a_number_on_either_side_agrees_on_drawn_shapes(op, number_left, k, rows):
    ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}

    def f(x):
        return ops[op](k, x) if number_left else ops[op](x, k)

    agree(f, f, rows)


UNARY = {
    "neg": (lambda x: -x, lambda x: -x, VALUES),
    "tanh": (lambda x: x.tanh(), torch.tanh, VALUES),
    "relu": (lambda x: x.relu(), torch.relu, VALUES),
    "exp": (lambda x: x.exp(), torch.exp, VALUES),
    "log": (lambda x: x.log(), torch.log, POSITIVES),
    "sum": (lambda x: x.sum(), lambda x: x.sum(), VALUES),
    "sum(0)": (lambda x: x.sum(0), lambda x: x.sum(0, keepdim=True), VALUES),
    "sum(1)": (lambda x: x.sum(1), lambda x: x.sum(1, keepdim=True), VALUES),
    "mean": (lambda x: x.mean(), lambda x: x.mean(), VALUES),
    "T": (lambda x: x.T, lambda x: x.T, VALUES),
}


@SETTINGS
@given(st.sampled_from(sorted(UNARY)), st.data())
def test_one_input_operations_agree_on_drawn_shapes(name, data):
    ours, theirs, elements = UNARY[name]
    rows = data.draw(st.tuples(SIZES, SIZES).flatmap(lambda s: matrices(s, elements)))
    agree(ours, theirs, rows)


@SETTINGS
@given(
    st.tuples(SIZES, st.integers(1, 5)).flatmap(
        lambda s: st.tuples(
            matrices(s, st.floats(-8.0, 8.0)), st.lists(st.integers(0, s[1] - 1), min_size=s[0], max_size=s[0])
        )
    )
)
def test_cross_entropy_agrees_on_drawn_shapes(case):
    logits, labels = case
    agree(lambda z: cross_entropy(z, labels), lambda z: F.cross_entropy(z, torch.tensor(labels)), logits)


@SETTINGS
@given(
    st.tuples(SIZES, SIZES, SIZES).flatmap(lambda s: st.tuples(matrices(s[:2]), matrices(s[1:]), matrices((1, s[2]))))
)
def test_the_linear_layer_agrees_on_drawn_shapes(case):
    def layer(x, w, b):
        return (x @ w + b).tanh().mean()

    agree(layer, layer, *case)


# -- shape errors -----------------------------------------------------------------------------


def test_a_matmul_shape_error_names_both_shapes_and_the_inner_sizes():
    with pytest.raises(ShapeError) as caught:
        tensor([[1.0] * 3] * 4) @ tensor([[1.0] * 3] * 2)
    error = caught.value
    assert str(error) == "@: 4×3 @ 2×3, the inner sizes 3 and 2 differ"
    assert error.op == "@" and error.body == "4×3 @ 2×3, the inner sizes 3 and 2 differ"
    assert error.named("X @ W") == "X @ W: 4×3 @ 2×3, the inner sizes 3 and 2 differ"
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("op", "left", "right", "message"),
    [
        ("+", (4, 3), (2, 3), "+: 4×3 + 2×3 cannot broadcast: 4 rows and 2 rows"),
        ("-", (4, 3), (4, 2), "-: 4×3 - 4×2 cannot broadcast: 3 columns and 2 columns"),
        ("*", (4, 3), (2, 2), "*: 4×3 * 2×2 cannot broadcast: 4 rows and 2 rows; 3 columns and 2 columns"),
        ("+", (2, 1), (3, 1), "+: 2×1 + 3×1 cannot broadcast: 2 rows and 3 rows"),
    ],
)
def test_a_broadcast_shape_error_names_both_shapes_and_the_sizes_that_clash(op, left, right, message):
    a, b = tensor([[1.0] * left[1]] * left[0]), tensor([[1.0] * right[1]] * right[0])
    f = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}[op]
    with pytest.raises(ShapeError) as caught:
        f(a, b)
    assert str(caught.value) == message
    assert caught.value.named(f"a {op} b") == f"a {op} b: " + message.split(": ", 1)[1]


@SETTINGS
@given(st.sampled_from(["@", "+", "*"]), st.tuples(SIZES, SIZES), st.tuples(SIZES, SIZES))
def test_shapes_are_refused_exactly_where_pytorch_refuses_them(op, left, right):
    f = {"@": lambda a, b: a @ b, "+": lambda a, b: a + b, "*": lambda a, b: a * b}[op]
    try:
        f(torch.ones(left, dtype=torch.float64), torch.ones(right, dtype=torch.float64))
        torch_refuses = False
    except RuntimeError:
        torch_refuses = True
    try:
        out = f(tensor([[1.0] * left[1]] * left[0]), tensor([[1.0] * right[1]] * right[0]))
    except ShapeError:
        assert torch_refuses
    else:
        assert not torch_refuses
        assert out.shape == tuple(f(torch.ones(left), torch.ones(right)).shape)


def test_backward_from_a_tensor_that_is_not_1x1_is_refused():
    with pytest.raises(ShapeError) as caught:
        tensor(X43).backward()
    assert str(caught.value) == (
        "backward: a 4×3 tensor has no single number to start from: "
        "backward() needs a 1×1 output, such as its .sum() or .mean()"
    )


# -- what a tensor is made from, and what an operation accepts ----------------------------------


@pytest.mark.parametrize(
    ("rows", "error", "message"),
    [
        (3, TypeError, "tensor() takes a list of rows, like [[1.0, 2.0], [3.0, 4.0]], not 3 (an int)"),
        ("ab", TypeError, "tensor() takes a list of rows, like [[1.0, 2.0], [3.0, 4.0]], not 'ab' (a str)"),
        ([], ValueError, "tensor([]) has no rows: a tensor needs at least one row of at least one number"),
        (
            [1.0, 2.5, 3.0],
            TypeError,
            "tensor() takes a list of rows, and [1, 2.5, 3] is one row of numbers: "
            "write [[1, 2.5, 3]] for a 1×3 row, or [[1], [2.5], [3]] for a 3×1 column",
        ),
        ([[]], ValueError, "rows[0] is empty: every row needs at least one number"),
        ([[1.0, 2.0], []], ValueError, "rows[1] is empty: every row needs at least one number"),
        (
            [[1.0, 2.0], [3.0]],
            ValueError,
            "rows[1] has 1 number but rows[0] has 2: every row of a tensor has the same length",
        ),
        (
            [[1.0], 2.0],
            TypeError,
            "rows[1] is 2.0 (a float), not a row: tensor() takes a list of rows, like [[1.0, 2.0], [3.0, 4.0]]",
        ),
        ([[1.0, "a"]], TypeError, "rows[0][1] is 'a' (a str), not a number"),
        ([[1.0, True]], TypeError, "rows[0][1] is True (a bool), not a number"),
        ([[1.0, None]], TypeError, "rows[0][1] is None (a NoneType), not a number"),
        ([[[1.0]]], TypeError, "rows[0][0] is a list, not a number: a tensor has two dimensions, rows and columns"),
        ([[1.0], [math.nan]], ValueError, "rows[1][0] is nan: every number of a tensor must be finite"),
        ([[-math.inf]], ValueError, "rows[0][0] is -inf: every number of a tensor must be finite"),
        ([[10**400]], ValueError, "rows[0][0] is too large for a float (above about 1.8e308)"),
    ],
)
def test_a_tensors_rows_are_checked(rows, error, message):
    with pytest.raises(error) as caught:
        tensor(rows)
    assert str(caught.value) == message


def test_a_tensor_copies_its_rows_as_floats():
    rows = [[1, 2], (3, 4.5)]
    t = tensor(rows, "X")
    rows[0][0] = 99
    assert t.data == [[1.0, 2.0], [3.0, 4.5]] and all(type(x) is float for x in flat(t.data))
    assert t.grad == [[0.0, 0.0], [0.0, 0.0]] and t.shape == (2, 2)
    assert t.label == "X" and t._op == "" and t._prev == () and t.rules() == ()
    assert Tensor([[1.0]]).shape == (1, 1)
    with pytest.raises(TypeError, match="not another Tensor"):
        tensor(t)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda z: cross_entropy(z, [0, 1]),
            ShapeError,
            "cross_entropy: 4×3 logits and 2 labels, one label per row: the counts 4 and 2 differ",
        ),
        (
            lambda z: cross_entropy(z, [0, 1, 3, 2]),
            ValueError,
            "cross_entropy: labels[2] is 3, but the logits have 3 classes (columns), so a label is from 0 to 2",
        ),
        (
            lambda z: cross_entropy(z, [0, -1, 0, 0]),
            ValueError,
            "cross_entropy: labels[1] is -1, but the logits have 3 classes (columns), so a label is from 0 to 2",
        ),
        (
            lambda z: cross_entropy(z, [0, 1.0, 0, 0]),
            TypeError,
            "cross_entropy: labels[1] is 1.0 (a float), not an int: a label is a class number",
        ),
        (
            lambda z: cross_entropy(z, 2),
            TypeError,
            "cross_entropy(logits, labels): labels must be a list of ints, one per row, like [0, 2], not 2 (an int)",
        ),
        (
            lambda z: cross_entropy(X43, [0, 0, 0, 0]),
            TypeError,
            "cross_entropy(logits, labels): logits must be a Tensor, one row of class scores per example",
        ),
        (
            lambda z: z.sum(2),
            ValueError,
            "sum(2): a tensor sums with sum() to 1×1, sum(0) down its rows to 1×n, or sum(1) across each row to m×1",
        ),
        (
            lambda z: z.sum(True),
            ValueError,
            "sum(True): a tensor sums with sum() to 1×1, sum(0) down its rows to 1×n, or sum(1) across each row to m×1",
        ),
        (lambda z: z @ 2, TypeError, "@ multiplies two tensors; to multiply by a number, use *"),
        (lambda z: 2 @ z, TypeError, "@ multiplies two tensors; to multiply by a number, use *"),
    ],
)
def test_an_operations_arguments_are_checked(call, error, message):
    with pytest.raises(error) as caught:
        call(tensor(X43))
    assert str(caught.value) == message


def test_an_operand_that_is_neither_a_tensor_nor_a_number_is_refused_by_python():
    with pytest.raises(TypeError):
        tensor(X43) + "1"
    with pytest.raises(TypeError):
        [[1.0]] * tensor(X43)


def test_cross_entropy_with_two_classes_and_one_class_says_the_labels_allowed():
    with pytest.raises(ValueError, match=r"2 classes \(columns\), so a label is 0 or 1$"):
        cross_entropy(tensor([[1.0, 2.0]]), [2])
    with pytest.raises(ValueError, match=r"1 class \(columns\), so a label is 0$"):
        cross_entropy(tensor([[1.0]]), [1])


# -- the helpers the rules are written with -------------------------------------------------


def test_sum_to_is_the_inverse_of_broadcast_to():
    grad = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert sum_to(grad, (1, 2)) == [[9.0, 12.0]]
    assert sum_to(grad, (3, 1)) == [[3.0], [7.0], [11.0]]
    assert sum_to(grad, (1, 1)) == [[21.0]]
    assert sum_to(grad, (3, 2)) == grad
    assert broadcast_to([[1.0, 2.0]], (3, 2)) == [[1.0, 2.0]] * 3
    assert broadcast_to([[1.0], [2.0]], (2, 3)) == [[1.0] * 3, [2.0] * 3]
    with pytest.raises(ValueError):
        sum_to(grad, (2, 2))
    with pytest.raises(ValueError):
        broadcast_to(grad, (6, 2))


def test_sums_add_left_to_right_the_same_on_every_python():
    # Python 3.12's sum() compensates rounding (and would give 1.0 here); 3.11's does not.
    # The engine adds one + at a time, so CPython 3.11 and Pyodide's 3.14 agree to the bit.
    column = tensor([[1e16], [1.0], [-1e16]])
    assert column.sum().data == [[0.0]]
    assert column.T.sum(1).data == [[0.0]]
    assert (tensor([[1e16, 1.0, -1e16]]) @ tensor([[1.0], [1.0], [1.0]])).data == [[0.0]]
    assert sum_to([[1e16], [1.0], [-1e16]], (1, 1)) == [[0.0]]


def test_a_sum_that_sums_nothing_is_still_a_new_list_of_rows():
    row = tensor([[1.0, 2.0]])
    summed = row.sum(0)
    summed.data[0][0] = 5.0
    assert row.data == [[1.0, 2.0]]


def test_matmul_and_transpose_on_plain_rows():
    assert transpose([[1.0, 2.0, 3.0]]) == [[1.0], [2.0], [3.0]]
    assert matmul([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]]) == [[17.0], [39.0]]


# -- each backward step, as the stage will write it -------------------------------------------


def test_the_linear_layers_rules_name_its_tensors_and_shapes():
    x, w, b = tensor(X43, "X"), tensor(W32, "W"), tensor(B12, "b")
    h = x @ w
    z = h + b
    h.label = "h"
    y = z.tanh()
    loss = y.sum()
    assert texts(h) == ["X.grad += dY · Wᵀ: 4×2 · 2×3 → 4×3", "W.grad += Xᵀ · dY: 3×4 · 4×2 → 3×2"]
    assert texts(z) == ["h.grad += dY: 4×2 → 4×2", "b.grad += dY summed over its 4 rows: 4×2 → 1×2"]
    assert z.rules()[1] == Rule("b", "b.grad += dY summed over its 4 rows", "4×2 → 1×2", "rows")
    assert z.rules()[0].summed == ""
    assert texts(y) == ["X.grad += (1 − tanh(X)²) ⊙ dY: 4×2 ⊙ 4×2 → 4×2"]  # z has no label
    assert texts(loss) == ["X.grad += dY copied to all 8 of its numbers: 1×1 → 4×2"]


def test_rules_without_labels_use_each_operations_default_names():
    a, b = tensor(X43), tensor(W32)
    assert texts(a @ b) == ["X.grad += dY · Wᵀ: 4×2 · 2×3 → 4×3", "W.grad += Xᵀ · dY: 3×4 · 4×2 → 3×2"]
    assert texts(a - tensor(COLUMN41)) == [
        "A.grad += dY: 4×3 → 4×3",
        "B.grad += −dY summed over its 3 columns: 4×3 → 4×1",
    ]
    assert texts(a * a) == ["A.grad += dY ⊙ A: 4×3 ⊙ 4×3 → 4×3"] * 2


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            lambda x, r, c: x * r,
            ["X.grad += dY ⊙ r: 4×3 ⊙ 1×3 → 4×3", "r.grad += (dY ⊙ X) summed over its 4 rows: 4×3 ⊙ 4×3 → 1×3"],
        ),
        (
            lambda x, r, c: r + c,
            ["r.grad += dY summed over its 4 rows: 4×3 → 1×3", "c.grad += dY summed over its 3 columns: 4×3 → 4×1"],
        ),
        (lambda x, r, c: 2 * x, ["X.grad += 2 × dY: 4×3 → 4×3"]),
        (lambda x, r, c: x * 0.5, ["X.grad += 0.5 × dY: 4×3 → 4×3"]),
        (lambda x, r, c: 1 - x, ["X.grad += −dY: 4×3 → 4×3"]),
        (lambda x, r, c: x + 1, ["X.grad += dY: 4×3 → 4×3"]),
        (lambda x, r, c: -x, ["X.grad += −dY: 4×3 → 4×3"]),
        (lambda x, r, c: x.relu(), ["X.grad += (X > 0) ⊙ dY: 4×3 ⊙ 4×3 → 4×3"]),
        (lambda x, r, c: x.exp(), ["X.grad += exp(X) ⊙ dY: 4×3 ⊙ 4×3 → 4×3"]),
        (lambda x, r, c: x.log(), ["X.grad += (1 / X) ⊙ dY: 4×3 ⊙ 4×3 → 4×3"]),
        (lambda x, r, c: x.sum(0), ["X.grad += dY copied to each of its 4 rows: 1×3 → 4×3"]),
        (lambda x, r, c: x.sum(1), ["X.grad += dY copied to each of its 3 columns: 4×1 → 4×3"]),
        (lambda x, r, c: r.sum(0), ["r.grad += dY: 1×3 → 1×3"]),
        (lambda x, r, c: x.mean(), ["X.grad += dY / 12 copied to all 12 of its numbers: 1×1 → 4×3"]),
        (lambda x, r, c: x.T, ["X.grad += dYᵀ: 3×4 → 4×3"]),
        (
            lambda x, r, c: cross_entropy(x, [0, 1, 2, 0]),
            ["X.grad += (softmax(X) − onehot(labels)) / 4 × dY: 4×3 × 1×1 → 4×3"],
        ),
    ],
)
def test_each_operations_rule(make, expected):
    node = make(tensor(POSITIVE43, "X"), tensor(ROW13, "r"), tensor(COLUMN41, "c"))
    assert texts(node) == expected


def test_every_node_of_a_graph_has_one_rule_per_input_tensor():
    x, w, b = tensor(X43, "X"), tensor(W32, "W"), tensor(B12, "b")
    h = (x @ w + b).relu()
    loss = cross_entropy(h * 2 - h.mean() + (1 - h).exp().log(), [0, 1, 1, 0]) + x.T.sum(1).sum(0).sum()
    seen, stack = set(), [loss]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        rules = node.rules()
        assert len(rules) == len(node._prev)
        for rule, parent in zip(rules, node._prev):
            assert rule.formula.startswith(f"{rule.parent}.grad += ")
            assert rule.shapes.endswith(f"→ {parent.shape[0]}×{parent.shape[1]}")
        stack.extend(node._prev)
    assert len(seen) > 15
