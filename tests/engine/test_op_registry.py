"""engine/ops.py's table is the one list of operations: every entry reaches the engine's
exports, the program editor's help (the build's ops.js) and the inference of operations
(engine.ops.infer_op), which both readers of a learner's graph use, engine/flat.py and
engine/foreign.py, so they agree on every operation. A new entry reaches all of them
without another edit (the last test adds one to a copy of the engine)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from buildtools import op_registry
from engine import Value
from engine.flat import read_flat
from engine.foreign import read
from engine.ops import FUNCTIONS, OPS, infer_op

ROOT = Path(__file__).resolve().parents[2]
X, Y, EXPONENT = 0.7, -1.3, 3.0  # numbers at which no two operations of the table agree
UNARY = [op for op in OPS.values() if op.arity == 1]
BINARY = [op for op in OPS.values() if op.arity == 2 and not op.only_number_right]
POWERS = [op for op in OPS.values() if op.only_number_right]


# -- the exports ---------------------------------------------------------------------------------


def test_the_engine_exports_every_function_of_the_table_and_what_it_exported_before():
    before = ["Value", "Program", "ProgramError", "topological_order"]
    before += ["tanh", "relu", "exp", "log", "sin", "cos", "sigmoid"]
    assert all(hasattr(engine, name) for name in before)
    assert engine.__all__ == before[:4] + list(FUNCTIONS)
    for name in FUNCTIONS:
        function = getattr(engine, name)
        assert function(Value(X)).data == getattr(Value(X), OPS[name].method)().data


# -- the editor's help ---------------------------------------------------------------------------


def test_the_editors_help_is_written_from_the_table(tmp_path):
    described = op_registry.describe(ROOT)
    assert described == [{field: getattr(op, field) for field in op_registry.FIELDS} for op in OPS.values()]
    op_registry.write(tmp_path, described)
    text = (tmp_path / op_registry.OPS_JS).read_text(encoding="utf-8")
    assert all(f'"name": "{op.name}"' in text for op in OPS.values())
    editor = (ROOT / "web" / "panels" / "editor.js").read_text(encoding="utf-8")
    assert 'import { OPS } from "../ops.js";' in editor and "editorHelp(OPS)" in editor
    assert "sigmoid" not in editor  # no operation named by hand
    assert not (ROOT / "web" / op_registry.OPS_JS).exists()  # the build writes it


# -- inference -----------------------------------------------------------------------------------


def _case(op):
    """(slots' data, folded number, the node's data and local derivatives) for ``op``."""
    if op.only_number_right:
        value, local = op.compute(X, EXPONENT)
        return [X], (EXPONENT, False), value, local
    xs = [X] if op.arity == 1 else [X, Y]
    value, local = op.compute(*xs)
    return xs, None, value, local


@pytest.mark.parametrize("op", list(OPS.values()), ids=lambda op: op.name)
def test_infer_op_reads_every_operation_by_its_text_and_by_its_numbers(op):
    xs, const, value, local = _case(op)
    text = f"**{EXPONENT:g}" if op.only_number_right else op.name
    assert infer_op(text, xs) == (op.name, const)
    assert infer_op(text.upper(), xs) == (op.name, const)  # micrograd writes ReLU
    assert infer_op(text, xs + xs) is None  # the wrong number of operands
    assert infer_op("", xs, value, local) == (op.name, const)  # microgpt keeps no _op
    assert infer_op("hypot", xs, value, local) is None


def test_infer_op_refuses_a_tie():
    assert infer_op("", [2.0, 2.0], 4.0, (1.0, 1.0)) == ("+", None)  # 2 + 2 = 2 * 2: the locals decide
    assert infer_op("", [2.0, 2.0], 4.0, (2.0, 2.0)) == ("*", None)
    assert infer_op("", [2.0, 2.0], 4.0, (5.0, 5.0)) is None


class Micrograd:
    """micrograd's Value: a set of parents, an _op text, a _backward closure over self and other."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(children), op, label
        self._backward = lambda: None

    def apply(self, op, other=None):
        if op.only_number_right:
            value, (d,) = op.compute(self.data, other)
            out = Micrograd(value, (self,), f"**{other:g}")
            locals_ = ((self, d),)
        elif op.arity == 1:
            value, (d,) = op.compute(self.data)
            out = Micrograd(value, (self,), "ReLU" if op.name == "relu" else op.name)
            locals_ = ((self, d),)
        else:
            value, (dx, dy) = op.compute(self.data, other.data)
            out = Micrograd(value, (self, other), op.name)
            locals_ = ((self, dx), (other, dy))

        def _backward():
            for parent, local in locals_:
                parent.grad += local * out.grad
            assert self is not None and other is not out  # closes over self and other, as micrograd's do

        out._backward = _backward
        return out


class MicroGPT:
    """microgpt's Value: ordered _children and their _local_grads, no _op."""

    def __init__(self, data, children=(), local_grads=(), label=""):
        self.data, self.grad, self._children, self._local_grads, self.label = data, 0.0, children, local_grads, label

    def apply(self, op, other=None):
        if op.only_number_right:
            value, local = op.compute(self.data, other)
            return MicroGPT(value, (self,), local)
        if op.arity == 1:
            value, local = op.compute(self.data)
            return MicroGPT(value, (self,), local)
        value, local = op.compute(self.data, other.data)
        return MicroGPT(value, (self, other), local)


@pytest.mark.parametrize("style", [Micrograd, MicroGPT], ids=["micrograd", "microgpt"])
@pytest.mark.parametrize("op", list(OPS.values()), ids=lambda op: op.name)
def test_flat_and_foreign_read_every_operation_alike(op, style):
    a, b, c = style(X, label="a"), style(Y, label="b"), style(2.5, label="c")
    other = EXPONENT if op.only_number_right else (None if op.arity == 1 else b)
    node = a.apply(op, other)
    root = node.apply(OPS["*"], c)  # one more node after it: its operand must be read as a node
    flat, foreign = read_flat(root), read(root)
    assert len(flat) == len(foreign.nodes)
    at = {id(obj): i for i, obj in enumerate(foreign.objects)}
    for i, obj in enumerate(flat.objects):
        mine = foreign.nodes[at[id(obj)]]
        assert flat.ops[i] == mine.op, (op.name, i)
        assert flat.consts.get(i) == mine.const
        assert flat.data[i] == mine.data
        assert flat.locals[i] == pytest.approx(mine.locals)
        assert [id(flat.objects[p]) for p in flat.parents[i]] == [id(foreign.objects[p]) for p in mine.parents]
    i = flat.node_of[id(node)]
    assert flat.ops[i] == op.name and foreign.nodes[at[id(node)]].known
    assert flat.consts.get(i) == ((EXPONENT, False) if op.only_number_right else None)


# -- a new operation: its table entry, and nothing else ------------------------------------------

NEW_ENTRY = """
        Op("softplus", 1, lambda x: (num.log(1.0 + num.exp(x)), (num.sigmoid(x),)), ("sigmoid({x})",),
           "function", "softplus", ATOM, "softplus"),
"""

CHECK = """
import sys
sys.path.insert(0, sys.argv[1])
import engine
from engine import Program, Value, softplus
from engine.flat import read_flat
from engine.foreign import read
from engine.ops import infer_op

assert "softplus" in engine.__all__ and softplus(Value(0.5)).data == Value(0.5).softplus().data
assert Program.parse("x = 0.5\\ny = softplus(x)").output.data == Value(0.5).softplus().data
out = Value(0.5).softplus()
assert infer_op("softplus", [0.5]) == ("softplus", None)
assert infer_op("", [0.5], out.data, out._local) == ("softplus", None)


class GPT:
    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads


root = GPT(out.data, (GPT(0.5),), out._local)
assert read_flat(root).ops[-1] == "softplus" and read(root).nodes[-1].op == "softplus"
print("ok")
"""


def test_a_new_entry_in_the_table_reaches_every_consumer(tmp_path):
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    ops_py = tmp_path / "engine" / "ops.py"
    source = ops_py.read_text(encoding="utf-8")
    anchor = '        Op("sigmoid",'
    assert anchor in source
    ops_py.write_text(source.replace(anchor, NEW_ENTRY.lstrip("\n") + anchor), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", "-c", CHECK, str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    assert "softplus" in [op["name"] for op in op_registry.describe(tmp_path)]  # the editor's help
