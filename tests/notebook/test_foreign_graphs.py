"""Reading a learner's micrograd-style graph: the real micrograd from PyPI, the lecture's class,
the microgpt style and Gradwalk's own Value give the numbers the engine's own Program gives,
in a stable order, and the learner's graph is left exactly as it was."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from micrograd.engine import Value as Micrograd

import gradwalk
from engine import Program, Value
from engine.foreign import ForeignGraphError, read
from engine.program import MAX_NODES
from engine.trace import correct_backward
from tests.support.learner_engines import Lecture, MicroGPT, Sqrt, diamond, neuron
from tests.support.notebook import ask, ask_api, numbers_of, snapshot, unchanged


def labelled(value, label):
    value.label = label  # micrograd has no label argument, but takes the attribute
    return value


# micrograd writes 3 * a as a * 3 (__rmul__) and makes a node of every plain number; the
# program below builds the very same graph with the engine's own Value.
DIAMOND_SHAPED = "a = 2\none = 1\nb = a + one\nthree = 3\nc = a * three\nd = b * c"


def test_the_micrograd_diamond_gives_the_engines_numbers_exactly():
    d = diamond(Micrograd)
    before = snapshot(d)
    answer = ask({"cmd": "load"}, d)
    assert answer["ok"], answer
    assert numbers_of(answer) == numbers_of(ask_api({"cmd": "load", "program": DIAMOND_SHAPED}))
    grads = {n["label"]: n["grad"] for n in answer["nodes"]}
    assert grads == {"a": 15.0, "1": 6.0, "b": 6.0, "3": 6.0, "c": 3.0, "d": 1.0}
    assert [n["expr"] for n in answer["nodes"]] == ["2", "1", "a + 1", "3", "a * 3", "b * c"]
    assert [n["op"] for n in answer["nodes"]] == ["", "", "+", "", "*", "*"]
    assert answer["forward"][2]["text"] == (
        "b = a + 1 = 2 + 1 = 3. "
        "micrograd keeps the values a node is made from in node._prev (the _children given to the Value constructor): "
        "b._prev holds a and 1."
    )
    assert answer["graph"] == {"source": "kernel", "style": "_prev", "editable": True, "custom": []}
    assert unchanged(before, d)
    assert d.grad == 0 and type(d.grad) is int  # micrograd's own int 0, not our 0.0


def test_a_times_a_in_micrograd_shows_two_edges_although_prev_is_a_set():
    a = labelled(Micrograd(3.0), "a")
    b = labelled(a * a, "b")
    assert b._prev == {a}
    answer = ask({"cmd": "load"}, b)
    program = ask_api({"cmd": "load", "program": "a = 3\nb = a * a"})
    assert numbers_of(answer) == numbers_of(program)
    assert [(e["parent"], e["child"], e["slot"], e["local"]) for e in answer["edges"]] == [
        (0, 1, 0, 3.0),
        (0, 1, 1, 3.0),
    ]
    assert answer["nodes"][0]["grad"] == 6.0
    assert [e["local_text"] for e in answer["edges"]] == [e["local_text"] for e in program["edges"]]


@pytest.mark.parametrize(
    "build, program",
    [
        # a - b is a + (-b), and -b is b * -1
        (lambda a, b: a - b, "a = 3\nb = 5\nk = -1\nnb = b * k\nc = a + nb"),
        # a / b is a * b**-1
        (lambda a, b: a / b, "a = 3\nb = 5\np = b ** -1\nc = a * p"),
        (lambda a, b: a**2 + b, "a = 3\nb = 5\np = a ** 2\nc = p + b"),
        (lambda a, b: (a * b + a**3).relu(), "a = 3\nb = 5\np = a * b\nq = a ** 3\nr = p + q\nc = relu(r)"),
    ],
)
def test_subtraction_division_and_powers_in_micrograd(build, program):
    a, b = labelled(Micrograd(3.0), "a"), labelled(Micrograd(5.0), "b")
    c = build(a, b)
    before = snapshot(c)
    assert numbers_of(ask({"cmd": "load"}, c)) == numbers_of(ask_api({"cmd": "load", "program": program}))
    assert unchanged(before, c)


def test_a_relu_neuron_with_labels_in_micrograd():
    x1, x2 = labelled(Micrograd(2.0), "x1"), labelled(Micrograd(0.0), "x2")
    w1, w2 = labelled(Micrograd(-3.0), "w1"), labelled(Micrograd(1.0), "w2")
    b = labelled(Micrograd(6.8813735870195432), "b")
    n = labelled(labelled(labelled(x1 * w1, "x1*w1") + labelled(x2 * w2, "x2*w2"), "x1*w1 + x2*w2") + b, "n")
    o = labelled(n.relu(), "o")
    answer = ask({"cmd": "load"}, o)
    program = ask_api(
        {
            "cmd": "load",
            "program": "x1 = 2\nw1 = -3\nx2 = 0\nw2 = 1\nb = 6.8813735870195432\nn = x1*w1 + x2*w2 + b\no = relu(n)",
        }
    )
    assert numbers_of(answer) == numbers_of(program)
    assert [n["label"] for n in answer["nodes"]] == [
        "x1",
        "w1",
        "x1*w1",
        "x2",
        "w2",
        "x2*w2",
        "x1*w1 + x2*w2",
        "b",
        "n",
        "o",
    ]
    assert answer["nodes"][-1]["expr"] == "relu(n)" and answer["nodes"][-1]["op"] == "relu"


def test_the_lectures_tanh_neuron_reads_like_the_neuron_preset():
    o = neuron(Lecture)
    answer = ask({"cmd": "load"}, o)
    preset = ask_api({"cmd": "load", "preset": "neuron"})
    grads = {n["label"]: n["grad"] for n in answer["nodes"]}
    assert grads["x1"] == pytest.approx(-1.5) and grads["w1"] == pytest.approx(1.0)
    assert grads["x2"] == pytest.approx(0.5) and grads["w2"] == 0.0 and grads["b"] == pytest.approx(0.5)
    assert answer["nodes"][-1]["expr"] == "tanh(n)"
    assert answer["edges"][-1]["local_text"] == "(1 - o.data**2)"
    # The lecture computes tanh with exp, which may differ from the engine's in the last bits.
    assert answer["nodes"][-1]["data"] == pytest.approx(preset["nodes"][-1]["data"], rel=1e-15)
    assert len(answer["nodes"]) == len(preset["nodes"]) and len(answer["edges"]) == len(preset["edges"])


def test_a_microgpt_style_value_with_duplicate_children():
    a = MicroGPT(3.0)
    b = a * a + a
    before = snapshot(b)
    answer = ask({"cmd": "load"}, b)
    assert numbers_of(answer) == numbers_of(ask_api({"cmd": "load", "program": "a = 3\np = a * a\nb = p + a"}))
    assert [n["op"] for n in answer["nodes"]] == ["", "*", "+"]  # no _op: found from the data
    assert [n["label"] for n in answer["nodes"]] == ["3", "3*3", "3*3+3"]
    assert answer["graph"]["style"] == "_children"
    assert unchanged(before, b)


def test_microgpt_operations_are_recognised_from_their_data():
    x, y = MicroGPT(2.0), MicroGPT(3.0)
    z = (x * y - y / x).exp().log() + (x**2).relu()
    nodes = read(z).nodes
    assert {n.op for n in nodes} == {"", "*", "+", "**", "exp", "log", "relu"}
    assert all(n.known and n.source in ("", "_local_grads") for n in nodes)


def test_gradwalks_own_value_reads_as_its_program():
    program = Program.parse("a = 2\nb = a + 1\nc = 3 * a\nd = b * c")
    answer = ask({"cmd": "load"}, program.output)
    expected = ask_api({"cmd": "load", "program": program.source})
    assert numbers_of(answer) == numbers_of(expected)
    assert [n["expr"] for n in answer["nodes"]] == [n["expr"] for n in expected["nodes"]]
    assert [e["local_text"] for e in answer["edges"]] == [e["local_text"] for e in expected["edges"]]
    a = Value(2.0, label="a")
    assert ask({"cmd": "load"}, a * a)["edges"][1]["slot"] == 1


def hypot_sqrt():
    """r = sqrt(hypot(a, b)) at a = 3, b = 4: two operations Gradwalk doesn't know."""
    a, b = Sqrt(3.0, label="a"), Sqrt(4.0, label="b")
    h = a.hypot(b)
    h.label = "h"
    r = h.sqrt()
    r.label = "r"
    return r


def test_a_custom_operation_differentiates_with_the_graphs_own_backward():
    r = hypot_sqrt()
    answer = ask({"cmd": "load", "order": ["a", "b", "h", "r"]}, r)
    assert answer["ok"], answer
    nodes = {n["label"]: n for n in answer["nodes"]}
    assert nodes["h"]["op"] == "hypot" and nodes["h"]["expr"] == "hypot(a, b)"
    assert nodes["r"]["expr"] == "sqrt(h)"
    assert nodes["a"]["grad"] == pytest.approx(0.5 / math.sqrt(5) * 3 / 5)
    assert answer["forward"][2]["text"] == (
        "h = hypot(a, b) = hypot(3, 4) = 5. "
        "micrograd keeps the values a node is made from in node._prev (the _children given to the Value constructor): "
        "h._prev holds a and b."
    )
    assert answer["experiment"]["lost_path_count"] == 2
    assert answer["graph"]["editable"] is False
    assert [c["label"] for c in answer["graph"]["custom"]] == ["h", "r"]


def test_pull_mode_works_on_a_graph_with_a_custom_operation():
    r = hypot_sqrt()
    before = snapshot(r)
    right = ask({"cmd": "load", "order": ["r", "h", "a", "b"], "rule": "pull"}, r)
    assert right["ok"], right
    assert right["experiment"]["grads"] == right["experiment"]["correct_grads"] == [n["grad"] for n in right["nodes"]]
    assert not right["experiment"]["late"] and right["experiment"]["lost_path_count"] == 0
    # Each pull quotes the edge's rule as the graph wrote it, the number its own _backward gave.
    push_rules = {e["id"]: e["rule"] for e in right["edges"]}  # every push along an edge quotes its rule
    pulls = [p for f in right["experiment"]["frames"] for p in f.get("pushes", [])]
    assert len(pulls) == 3 and all(p["rule"] == push_rules[p["edge"]] for p in pulls)
    assert push_rules[2] == f"h.grad += {0.5 / math.sqrt(5):.4g} * r.grad"
    assert (
        right["experiment"]["frames"][2]["text"]
        == f"Visit h: pull from its consumers, h.grad = 1 × {0.5 / math.sqrt(5):.4g} from r = {0.5 / math.sqrt(5):.4g}."
    )
    wrong = ask({"cmd": "load", "order": ["r", "a", "h", "b"], "rule": "pull"}, r)["experiment"]
    assert wrong["lost_path_count"] == 1 and wrong["grads"][0] == 0.0 and wrong["correct_grads"][0] != 0.0
    assert wrong["explanation"][0].startswith("a pulled from h before h had been visited")
    assert unchanged(before, r)


def test_a_custom_operation_named_like_a_known_one_gets_no_note_of_the_known_one():
    class Sum3(Lecture):
        def sum3(self, b, c):
            out = self._new(self.data + b.data + c.data, (), "+")  # "+" with three operands
            out._prev = (self, b, c)  # a tuple keeps their order

            def _backward():
                for x in (self, b, c):
                    x.grad += out.grad

            out._backward = _backward
            return out

    a, b, c = Sum3(1.0, label="a"), Sum3(2.0, label="b"), Sum3(3.0, label="c")
    s = a.sum3(b, c)
    s.label = "s"
    answer = ask({"cmd": "load"}, s)
    assert answer["ok"], answer
    assert answer["graph"]["custom"] == [{"node": 3, "label": "s", "op": "+"}]
    assert answer["nodes"][3]["expr"] == "+(a, b, c)"
    assert answer["forward"][3]["text"] == (
        "s = +(a, b, c) = +(1, 2, 3) = 6. "
        "micrograd keeps the values a node is made from in node._prev (the _children given to the Value constructor): "
        "s._prev holds a, b and c."
    )
    assert answer["backward"][1]["text"] == (
        "Visit s = +(a, b, c) with s.grad = 1. a.grad += 1 × 1 = 1, 0 → 1; "
        "b.grad += 1 × 1 = 1, 0 → 1; c.grad += 1 × 1 = 1, 0 → 1."
    )


def test_a_value_used_by_a_custom_operation_twice_gets_one_edge_with_the_sum():
    a = Sqrt(3.0, label="a")
    h = a.hypot(a)
    answer = ask({"cmd": "load"}, h)
    assert [(e["parent"], e["local"]) for e in answer["edges"]] == [(0, pytest.approx(2 * 3 / math.hypot(3, 3)))]


def build_expression(cls, leaves, ops):
    """A little graph from hypothesis' choices, shared values and plain numbers included;
    its output and its leaves."""
    values = [cls(x) for x in leaves]
    for op, i, j in ops:
        x, y = values[i % len(values)], values[j % len(values)]
        values.append(
            x + y if op == "+" else x * y if op == "*" else x - y if op == "-" else x + 2 if op == "+2" else x**2
        )
    return values[-1], values[: len(leaves)]


expressions = st.tuples(
    st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=4),
    st.lists(
        st.tuples(st.sampled_from(["+", "*", "-", "+2", "**2"]), st.integers(0, 20), st.integers(0, 20)),
        min_size=1,
        max_size=6,
    ),
)


@settings(max_examples=60, deadline=None)
@given(expressions)
def test_the_same_graph_always_reads_the_same_though_prev_is_a_set(spec):
    leaves, ops = spec
    first = ask({"cmd": "load"}, build_expression(Micrograd, leaves, ops)[0])
    junk = [Micrograd(i) for i in range(50)]  # other addresses, so other set orders
    again = ask({"cmd": "load"}, build_expression(Micrograd, leaves, ops)[0])
    del junk  # (no gc.collect(): in a full run's big heap each one took a few hundred ms)
    assert first == again
    labels = [n["label"] for n in first["nodes"]]
    assert len(set(labels)) == len(labels) and all(len(label) <= 24 for label in labels)


@settings(max_examples=60, deadline=None)
@given(expressions)
def test_every_shape_agrees_with_the_engines_own_value(spec):
    leaves, ops = spec
    reference, reference_leaves = build_expression(Value, leaves, ops)
    reference.backward()
    for cls in (Micrograd, Lecture, MicroGPT):
        root, leaf_objects = build_expression(cls, leaves, ops)
        before = snapshot(root)
        foreign = read(root)
        graph = foreign.graph()
        grads = correct_backward(graph)[1]
        index = {id(obj): i for i, obj in enumerate(foreign.objects)}
        assert graph.values[graph.output].data == reference.data
        for leaf, want in zip(leaf_objects, reference_leaves):
            got = grads[index[id(leaf)]] if id(leaf) in index else 0.0
            assert got == pytest.approx(want.grad, nan_ok=True)
        assert unchanged(before, root)


# -- bad input: one clear error, a ValueError ------------------------------------------------------


class NoBackward:
    def __init__(self, data, parents=()):
        self.data, self.grad, self._prev = data, 0.0, set(parents)


class Raising(Lecture):
    def __mul__(self, other):
        out = super().__mul__(other)

        def _backward():
            raise ZeroDivisionError("oops")

        out._backward = _backward
        return out


class BadProperty:
    _prev = ()
    grad = 0.0

    @property
    def data(self):
        raise RuntimeError("no data today")


def cycle():
    a, b = Micrograd(1.0), Micrograd(2.0)
    c = a + b
    a._prev.add(c)
    return c


def chain(n):
    x = Micrograd(1.0)
    for _ in range(n):
        x = x * 1
    return x


def wrong_local_grads():
    a = MicroGPT(2.0)
    return MicroGPT(4.0, (a, a), (2.0,))


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: 5, "needs a micrograd-style value"),
        (lambda: "not a value at all", None),  # a string is a program for show(), but not a value to read
        (lambda: [Micrograd(1.0)], "needs a micrograd-style value"),
        (lambda: None, "needs a micrograd-style value"),
        (cycle, "has a cycle"),
        (lambda: chain(MAX_NODES), "more than 2,000 nodes"),
        (lambda: Micrograd("2") + Micrograd("3"), "isn't a number"),
        (lambda: Micrograd(True), "isn't a number"),
        (lambda: Micrograd(complex(1, 2)), "isn't a number"),
        (lambda: NoBackward(1.0, [NoBackward(2.0)]), "neither _local_grads nor a _backward"),
        (lambda: Raising(2.0) * Raising(3.0), "calling its _backward raised ZeroDivisionError (oops)."),
        (lambda: MicroGPT(1.0, (BadProperty(),), (1.0,)), "raised RuntimeError (no data today)."),
        (wrong_local_grads, "doesn't hold one number for each"),
        (lambda: MicroGPT(1.0, (5.0,), (1.0,)), "among its parents"),
    ],
)
def test_bad_input_gives_one_clear_error(make, words):
    value = make()
    with pytest.raises(ForeignGraphError) as caught:
        read(value)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    if words:
        assert words in message
    assert message.endswith(".") and "Traceback" not in message
    with pytest.raises(ValueError):
        gradwalk.check(value)


def test_bad_input_leaves_the_graph_as_it_was():
    c = Raising(2.0) * Raising(3.0)
    before = snapshot(c)
    with pytest.raises(ForeignGraphError):
        read(c)
    assert unchanged(before, c)


def test_show_refuses_what_it_cannot_read_with_the_same_error():
    with pytest.raises(ForeignGraphError, match="has a cycle"):
        gradwalk.show(cycle())
    answer = ask({"cmd": "load"}, cycle())
    assert answer["ok"] is False and answer["error"]["kind"] == "graph"


def test_a_graph_at_the_limit_is_read():
    assert len(read(chain(MAX_NODES // 2 - 1)).nodes) == MAX_NODES - 1


def test_a_bad_input_fails_in_the_learners_cell_with_one_sentence():
    # What a notebook shows is the traceback: only the caller's frame and gradwalk's
    # public function (hidden from IPython by __tracebackhide__), none of the engine's.
    import traceback

    import gradwalk

    for call in (lambda: gradwalk.show(42), lambda: gradwalk.check("nope")):
        try:
            call()
        except ValueError as error:
            frames = traceback.extract_tb(error.__traceback__)
            assert error.__cause__ is None and error.__suppress_context__
            assert not any("/engine/" in f.filename or f.filename.endswith("kernel.py") for f in frames), frames
            assert str(error).startswith("Gradwalk can't read")
        else:
            raise AssertionError("no error")


def test_a_custom_operation_inside_a_known_one_is_written_and_checked():
    # hypot (unknown to Gradwalk) feeding a product: its unlabelled node is written as a
    # call, hypot(a, b), which needs no brackets inside `* a` (this used to be a KeyError).
    import json

    from engine import check as engine_check
    from gradwalk import kernel
    from tests.support.learner_engines import Sqrt

    a = Sqrt(3.0)
    a.label = "a"
    b = Sqrt(4.0)
    b.label = "b"
    c = a.hypot(b) * a
    c.label = "c"
    answer = json.loads(kernel.handle({"cmd": "load"}, kernel.target(c)))
    assert answer["ok"], answer
    nodes = {n["label"]: n for n in answer["nodes"]}
    assert nodes["c"]["data"] == 15.0 and nodes["a"]["grad"] == 3.0 / 5.0 * 3.0 + 5.0
    assert engine_check.check(c).ok
