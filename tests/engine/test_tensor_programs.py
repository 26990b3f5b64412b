"""Tensor programs (engine/program.py with engine/grid.py): a program that writes
``tensor([[...]])``, ``@``, broadcasting and ``.sum()`` builds the scalar graph those tensor
operations are made of. Every element's value and grad is checked against PyTorch in
float64, on fixed programs and on Hypothesis-drawn ones; shape errors are said at their line
as PyTorch explains them; each tensor line is a group, named by its code and shape.

The oracle runs the same program text in PyTorch: the text is this file's own (or drawn
here), never a learner's.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import api
from engine.presets import get_preset
from engine.program import MAX_NODES, Program, ProgramError, with_inputs
from tests.support.presets import PRESET_IDS

torch = pytest.importorskip("torch")
F = torch.nn.functional

LINEAR = """X = tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [0.2, 0.4, -1.2], [-0.3, 0.8, 1.0]])
W = tensor([[0.1, -0.2], [0.4, 0.3], [-0.5, 0.6]])
b = tensor([[0.05, -0.1]])
H = tanh(X @ W + b)
L = H.sum()
"""


def torch_run(source: str) -> dict:
    """Each tensor input's grad, by name, and the output, from PyTorch running ``source``."""
    leaves = {}

    def tensor(rows):
        t = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
        leaves[id(t)] = t
        return t

    namespace = {
        "tensor": tensor,
        "tanh": torch.tanh,
        "relu": torch.relu,
        "exp": torch.exp,
        "log": torch.log,
        "cross_entropy": lambda z, labels: F.cross_entropy(z, torch.tensor(labels)),
    }
    # PyTorch drops the summed dimension; the program's .sum(0) keeps it (1×n), as keepdim does.
    text = source.replace(".sum(0)", ".sum(0, keepdim=True)").replace(".sum(1)", ".sum(1, keepdim=True)")
    exec(compile(text, "<oracle>", "exec"), namespace)  # the test's own program text
    names = {name: t for name, t in namespace.items() if isinstance(t, torch.Tensor) and id(t) in leaves}
    output = namespace[source.strip().splitlines()[-1].split("=")[0].strip()]
    output.sum().backward()
    return {"output": float(output.detach().sum()), **{name: t.grad.tolist() for name, t in names.items()}}


def engine_run(source: str) -> tuple[Program, dict]:
    program = Program.parse(source)
    program.output.backward()
    by_label = {node.label: node for node in program.nodes}
    return program, by_label


def assert_matches_torch(source: str):
    program, by_label = engine_run(source)
    expected = torch_run(source)
    assert math.isclose(program.output.data, expected.pop("output"), rel_tol=1e-12, abs_tol=1e-12)
    for name, grads in expected.items():
        for i, row in enumerate(grads):
            for j, grad in enumerate(row):
                node = by_label.get(f"{name}[{i},{j}]")
                got = node.grad if node is not None else 0.0  # an element the output doesn't use
                assert math.isclose(got, grad, rel_tol=1e-9, abs_tol=1e-12), (name, i, j, got, grad)


# -- fixed programs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        LINEAR,
        # a column broadcast across, a number on either side, .T, mean
        "A = tensor([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])\n"
        "c = tensor([[0.2], [-0.4]])\n"
        "B = (2 * A - c) * A\n"
        "L = (B.T @ A - 0.5).mean()\n",
        # sums over rows and columns, relu, exp, log, unary minus
        "A = tensor([[0.4, -0.2], [1.3, 0.9], [0.1, 0.6]])\n"
        "r = A.sum(0)\n"
        "k = A.sum(1)\n"
        "M = relu(A - r * 0.3) + exp(-k)\n"
        "L = log(M + 1).sum()\n",
        # the same tensor on both sides: two paths into each element
        "A = tensor([[0.5, -1.5], [2.0, 0.25]])\nL = (A @ A).sum()\n",
        # softmax cross-entropy on 3 classes
        "Z = tensor([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])\nL = cross_entropy(Z, [0, 2])\n",
        # a two-layer network on a batch of 4, mean squared error
        "X = tensor([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])\n"
        "y = tensor([[-1.0], [-1.0], [1.0], [1.0]])\n"
        "W1 = tensor([[0.8, -0.6, 0.5], [-0.4, 0.3, 0.9]])\n"
        "b1 = tensor([[0.1, 0.2, -0.3]])\n"
        "W2 = tensor([[0.7], [-0.5], [0.4]])\n"
        "b2 = tensor([[0.1]])\n"
        "H = tanh(X @ W1 + b1)\n"
        "o = tanh(H @ W2 + b2)\n"
        "L = ((o - y) * (o - y)).mean()\n",
    ],
    ids=["linear", "column-number-T-mean", "sums-relu-exp-log", "same-tensor-twice", "cross-entropy", "network"],
)
def test_values_and_grads_equal_pytorchs(source):
    assert_matches_torch(source)


def test_a_broadcast_bias_gets_one_contribution_per_row():
    # The lesson of the sum over the batch: b[0,j] is one node, used by 4 additions.
    program, by_label = engine_run(LINEAR)
    b0 = by_label["b[0,0]"]
    users = [node for node in program.nodes if any(parent is b0 for parent in node._prev)]
    assert len(users) == 4 and all(node._op == "+" for node in users)
    assert math.isclose(b0.grad, sum(user.grad for user in users), rel_tol=1e-12)


# -- drawn programs -------------------------------------------------------------------------

_number = st.integers(-20, 20).map(lambda k: k / 10)


def _rows(draw, m, n):
    return [[draw(_number) for _ in range(n)] for _ in range(m)]


@st.composite
def tensor_programs(draw):
    m, k, n = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    bias_shape = draw(st.sampled_from([(1, n), (m, 1), (1, 1), (m, n)]))
    op = draw(st.sampled_from(["+", "-", "*"]))
    activation = draw(st.sampled_from(["tanh", "relu", "exp", ""]))
    scale = draw(st.sampled_from(["", "2 * ", "0.5 - "]))
    end = draw(st.sampled_from([".sum()", ".mean()", ".sum(0).sum()", ".sum(1).mean()", ".T.sum(1).sum()"]))
    lines = [
        f"X = tensor({_rows(draw, m, k)})",
        f"W = tensor({_rows(draw, k, n)})",
        f"b = tensor({_rows(draw, *bias_shape)})",
        f"H = {activation}({scale}(X @ W) {op} b)" if activation else f"H = {scale}(X @ W) {op} b",
        f"L = H{end}",
    ]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensor_programs())
def test_drawn_tensor_programs_equal_pytorch(source):
    assert_matches_torch(source)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.data())
def test_drawn_cross_entropy_equals_pytorch(m, classes, data):
    logits = _rows(data.draw, m, classes)
    labels = [data.draw(st.integers(0, classes - 1)) for _ in range(m)]
    assert_matches_torch(f"Z = tensor({logits})\nL = cross_entropy(Z, {labels})\n")


# -- names, groups, inputs ------------------------------------------------------------------


def test_each_element_is_named_and_each_tensor_line_is_a_group():
    program = Program.parse(LINEAR)
    assert list(program.inputs)[:3] == ["X[0,0]", "X[0,1]", "X[0,2]"]
    assert len(program.inputs) == 12 + 6 + 2
    assert [name for name, _ in program.groups] == [
        "X (4×3)",
        "W (3×2)",
        "b (1×2)",
        "H = tanh(X @ W + b) (4×2)",
        "L = H.sum() (1×1)",
    ]
    sizes = [len(members) for _, members in program.groups]
    # H: 8 elements of 3 products and 2 additions, then 8 bias additions and 8 tanh
    assert sizes == [12, 6, 2, 8 * 5 + 8 + 8, 7]
    labels = {node.label for node in program.nodes}
    assert {f"H[{i},{j}]" for i in range(4) for j in range(2)} <= labels
    assert "L[0,0]" in labels and program.output.label == "L[0,0]"


def test_a_new_value_is_written_into_its_own_literal():
    program = Program.parse(LINEAR)
    rewritten = with_inputs(LINEAR, program.input_spans, {"X[0,1]": 2.5, "b[0,1]": -0.75})
    assert rewritten.splitlines()[0].startswith("X = tensor([[0.5, 2.5, 2.0], [1.5")
    assert rewritten.splitlines()[2] == "b = tensor([[0.05, -0.75]])"
    answer = json.loads(api.handle({"cmd": "load", "program": LINEAR, "values": {"W[2,1]": 1.0}}))
    assert answer["ok"] and "[-0.5, 1]]" in answer["program"]


def test_the_page_gets_the_tensor_lines_as_groups_and_opens_one():
    answer = json.loads(api.handle({"cmd": "load", "program": LINEAR, "expanded": []}))
    assert answer["ok"]
    top = [g["name"] for g in answer["groups"] if g["parent"] is None]
    assert top == ["X (4×3)", "W (3×2)", "b (1×2)", "H = tanh(X @ W + b) (4×2)", "L = H.sum() (1×1)"]
    opened = json.loads(api.handle({"cmd": "expand", "program": LINEAR, "group": "b (1×2)", "expanded": []}))
    assert opened["ok"], opened
    assert {"b[0,0]", "b[0,1]"} <= {n["label"] for n in opened["nodes"]}


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, line, col, message",
    [
        (
            "X = tensor([[1.0, 2.0, 3.0]] )\nW = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])\nY = (X @ W).sum()\n",
            3,
            6,
            "X @ W: 1×3 @ 2×3, the inner sizes 3 and 2 differ.",
        ),
        (
            "X = tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\nc = tensor([[1.0], [2.0]])\nY = (X + c).sum()\n",
            3,
            6,
            "X + c: 3×2 + 2×1 cannot broadcast: 3 rows and 2 rows.",
        ),
        ("X = tensor([1.0, 2.0])\n", 1, 5, "write [[1, 2]] for a 1×2 row, or [[1], [2]] for a 2×1 column"),
        ("X = tensor([[1.0, 2.0], [3.0]])\n", 1, 5, "rows[1] has 1 number but rows[0] has 2"),
        ("X = tensor([[1.0, 2.0]])\nY = X @ tensor([[1.0], [2.0]])\n", 2, 9, "Give each tensor(...) a name"),
        ("a = 2\nX = tensor([[a, 1.0]])\n", 2, 14, "A tensor holds plain numbers"),
        ("X = tensor([[1.0, 2.0]])\nY = X * 3\n", 2, 1, "The last line makes a 1×2 tensor"),
        ("Z = tensor([[1.0, 2.0]])\nL = cross_entropy(Z, [2])\n", 2, 5, "labels[0] is 2, but the logits have 2"),
        ("Z = tensor([[1.0, 2.0]])\nL = cross_entropy(Z, [0, 1])\n", 2, 5, "1×2 logits and 2 labels, one label"),
        ("X = tensor([[1.0, 2.0]])\nL = cross_entropy(X, y)\n", 2, 22, "The labels are a list of whole numbers"),
        ("X = tensor([[1.0, 2.0]])\nL = X.sum(2)\n", 2, 11, ".sum(0) sums down the rows"),
        ("X = tensor([[1.0, 2.0]])\nL = (X / 2).sum()\n", 2, 6, "/ isn't one of them"),
        ("a = 2\nb = a.sum()\n", 2, 5, "a single value is one number already"),
        ("a = 2\nb = a.T\n", 2, 5, ".T transposes a tensor"),
        ("a = 2\nb = a @ a\n", 2, 5, "@ multiplies two tensors"),
        ("X = tensor([[1.0, 2.0]])\ntensor = 3\n", 2, 1, "tensor is the name of a function here"),
    ],
)
def test_tensor_mistakes_are_told_at_their_line(source, line, col, message):
    with pytest.raises(ProgramError) as caught:
        Program.parse(source)
    error = caught.value
    assert message in error.message, error.message
    assert (error.line, error.col) == (line, col), error
    assert error.message.endswith(".") and "\n" not in error.message


def test_a_product_too_big_to_draw_is_refused_before_it_is_built():
    rows = [[0.5] * 20 for _ in range(20)]
    source = f"A = tensor({rows})\nB = tensor({rows})\nL = (A @ B).sum()\n"
    with pytest.raises(ProgramError) as caught:
        Program.parse(source)
    assert f"more than {MAX_NODES:,} nodes" in caught.value.message and caught.value.line == 3


# -- the tensor presets ---------------------------------------------------------------------

TENSOR_PRESETS = [p for p in PRESET_IDS if "tensor(" in get_preset(p)["program"]]


def test_the_tensor_presets_are_there():
    assert sorted(TENSOR_PRESETS) == ["batch-network", "linear-layer", "softmax-ce"]


@pytest.mark.parametrize("preset_id", TENSOR_PRESETS)
def test_each_tensor_presets_numbers_are_pytorchs(preset_id):
    # The [expect] tables are the engine's numbers (tests/engine/test_preset_numbers.py); this
    # holds the engine, and so the tables, to PyTorch.
    assert_matches_torch(get_preset(preset_id)["program"])


# -- the tensor view: each line's backward step as tensor rules, each box's matrices --------


def test_a_lines_backward_step_is_said_as_tensor_rules_in_the_order_they_run():
    rules = dict(Program.parse(LINEAR).tensor_lines.items())
    assert rules["H = tanh(X @ W + b) (4×2)"][1] == [
        "d(X @ W + b) = (1 − tanh(X @ W + b)²) ⊙ dH: 4×2 ⊙ 4×2 → 4×2",
        "d(X @ W) = d(X @ W + b): 4×2 → 4×2",
        "b.grad += d(X @ W + b) summed over its 4 rows: 4×2 → 1×2",
        "X.grad += d(X @ W) · Wᵀ: 4×2 · 2×3 → 4×3",
        "W.grad += Xᵀ · d(X @ W): 3×4 · 4×2 → 3×2",
    ]
    assert rules["L = H.sum() (1×1)"][1] == ["H.grad += dL copied to all 8 of its numbers: 1×1 → 4×2"]
    assert rules["X (4×3)"][1] == []  # an input's line computes nothing


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensor_programs())
def test_each_rule_grows_a_tensor_the_line_reads_to_that_tensors_shape(source):
    program = Program.parse(source)
    shapes = {name: value.shape for name, value in program.variables.items() if hasattr(value, "shape")}
    for group, (made, rules) in program.tensor_lines.items():
        code = group.rsplit(" (", 1)[0]
        if " = " not in code:  # an input: X (4×3)
            assert rules == []
            continue
        read = {name for name in shapes if re.search(rf"\b{name}\b", code.split(" = ", 1)[1])}
        grown = set()
        for rule in rules:
            formula, flow = rule.rsplit(": ", 1)
            target, _ = formula.split(" ", 1)
            result = flow.rsplit("→ ", 1)[1]
            if target.endswith(".grad"):  # a tensor from outside the line: its own shape
                name = target.removesuffix(".grad")
                grown.add(name)
                assert result == "{}×{}".format(*shapes[name]), rule
        assert grown == read, (group, rules)
        assert "×".join(map(str, made.shape)) in group


def test_a_tensor_box_carries_its_matrices_and_each_visit_its_rules():
    answer = json.loads(api.handle({"cmd": "load", "preset": "linear-layer", "expanded": []}))
    boxes = {g["name"]: g for g in answer["groups"]}
    expected = torch_run(LINEAR)
    for name, shape in (("X", [4, 3]), ("W", [3, 2]), ("b", [1, 2])):
        box = boxes[f"{name} ({shape[0]}×{shape[1]})"]
        assert box["shape"] == shape and len(box["cells"]) == shape[0]
        for got_row, want_row in zip(box["grads"], expected[name]):
            assert all(math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12) for g, w in zip(got_row, want_row))
    assert boxes["b (1×2)"]["values"] == [[0.05, -0.1]]
    visit = next(f for f in answer["backward"] if f.get("group") == boxes["H = tanh(X @ W + b) (4×2)"]["id"])
    assert "In matrix form: b.grad += d(X @ W + b) summed over its 4 rows;" in visit["text"]
    assert visit["rules"][-1] == "W.grad += Xᵀ · d(X @ W): 3×4 · 4×2 → 3×2"
    # the pushes of that one visit into b are its whole grad (b feeds nothing else): 4 rows summed
    pushed = {p["label"]: p["after"] - p["before"] for p in visit["passes"]}
    assert all(math.isclose(pushed[f"b[0,{j}]"], expected["b"][0][j], rel_tol=1e-9) for j in range(2))


def test_an_element_of_a_grad_is_opened_into_its_pushes_x_times_dy_over_the_rows():
    # W[i,j].grad = Σ_r X[r,i] · dA[r,j] (A = X @ W): one push per row, each x times dy,
    # where dy is d(X @ W)'s element, PyTorch's A.grad.
    answer = json.loads(api.handle({"cmd": "load", "preset": "linear-layer", "expanded": []}))
    h = next(g for g in answer["groups"] if g["name"].startswith("H = "))
    visit = next(f for f in answer["backward"] if f.get("group") == h["id"] and "passes" in f)
    assert get_preset("linear-layer")["program"] == LINEAR  # the preset is this file's LINEAR
    X = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7], [0.2, 0.4, -1.2], [-0.3, 0.8, 1.0]], dtype=torch.float64)
    W = torch.tensor([[0.1, -0.2], [0.4, 0.3], [-0.5, 0.6]], dtype=torch.float64, requires_grad=True)
    A = X @ W
    A.retain_grad()
    torch.tanh(A + torch.tensor([[0.05, -0.1]], dtype=torch.float64)).sum().backward()
    for i in range(3):
        for j in range(2):
            math_text = next(p["math"] for p in visit["passes"] if p["label"] == f"W[{i},{j}]")
            terms = [t.split(" × ") for t in math_text.split(" = ")[0].split(" + ")]
            assert len(terms) == 4, math_text  # one push per row of the batch
            for r, (x, dy) in enumerate(terms):
                assert float(x.strip("()")) == X[r, i].item()
                assert math.isclose(float(dy.strip("()")), A.grad[r, j].item(), rel_tol=5e-4), (math_text, r)
            assert math.isclose(float(math_text.split(" = ")[1]), W.grad[i, j].item(), rel_tol=5e-4)
