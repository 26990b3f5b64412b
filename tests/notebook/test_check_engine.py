"""gradwalk.check on a learner's engine: nothing to say about a correct one, each classic
mistake named at the node where it happens, and the learner's graph left exactly as it was."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from micrograd.engine import Value as Micrograd

import gradwalk
from engine import Program, Value
from tests.support.learner_engines import (
    Lecture,
    MicroGPT,
    NotReversed,
    NoVisitedSet,
    Overwriting,
    Sqrt,
    WrongTanh,
    build_topo,
    diamond,
    neuron,
    shared_intermediate,
)
from tests.support.notebook import snapshot, unchanged


def checked(root):
    """check(root), asserting that it left the graph (and its classes) exactly as they were."""
    before = snapshot(root)
    report = gradwalk.check(root)
    assert unchanged(before, root)
    return report


def by_kind(report, kind):
    return [p for p in report.problems if p.kind == kind]


def micrograd_graphs():
    a, b = Micrograd(3.0), Micrograd(-2.0)
    yield a * a
    yield (a - b) / b + a**2
    yield (a * b + 1).relu()
    x = Micrograd(2.0)
    y = x + 1
    yield y * (3 * x)


@pytest.mark.parametrize(
    "root",
    [
        *micrograd_graphs(),
        neuron(Lecture),
        diamond(Lecture),
        shared_intermediate(Lecture),
        MicroGPT(3.0) * MicroGPT(3.0) + 1,
        Program.parse("a = 2\nb = a + 1\nc = 3 * a\nd = b * c").output,
        Value(2.0, label="a").tanh() * 3,
    ],
    ids=[
        "micrograd a*a",
        "micrograd a-b, /, **",
        "micrograd relu",
        "micrograd diamond",
        "lecture neuron",
        "lecture diamond",
        "lecture shared",
        "microgpt",
        "gradwalk program",
        "gradwalk value",
    ],
)
def test_a_correct_engine_has_no_problems(root):
    report = checked(root)
    assert report.ok and report.problems == [], str(report)
    assert str(report).startswith("check(")


def test_the_visit_order_of_a_correct_engine_is_recorded():
    report = checked(diamond(Lecture))
    assert report.visit_order[0] == "d" and sorted(report.visit_order) == sorted(report.correct_grads)
    assert report.grads == pytest.approx(report.correct_grads)
    assert report.correct_grads["a"] == 15.0


# -- mistake 1: = instead of += --------------------------------------------------------------------


def test_an_overwriting_backward_is_named_at_each_node():
    report = checked(diamond(Overwriting))
    overwrites = by_kind(report, "overwrite")
    assert [p.node for p in overwrites] == ["d", "c", "b"]
    assert "b = a + 1: its _backward overwrites a.grad and (1).grad (=) instead of adding to them (+=)." in overwrites
    assert "d = b * c: its _backward overwrites b.grad and c.grad (=) instead of adding to them (+=)." in overwrites
    # a is used by b and by c: only the contribution that comes last survives.
    [grad] = by_kind(report, "grad")
    assert grad.node == "a" and grad.endswith("but it should be 15.") and ("is 9," in grad or "is 6," in grad)
    assert not by_kind(report, "local")


def test_overwriting_in_a_times_a_keeps_one_of_the_two_contributions():
    a = Overwriting(3.0, label="a")
    b = a * a
    b.label = "b"
    report = checked(b)
    assert report.problems == [
        "b = a * a: its _backward overwrites a.grad (=) instead of adding to it (+=); a is used 2 times here, so "
        "only the last of its 2 contributions survives.",
        "a: after your backward(), a.grad is 3, but it should be 6.",
    ]


# -- mistake 2: the visit order ---------------------------------------------------------------------


def test_a_sort_without_a_visited_set_visits_a_shared_node_twice():
    report = checked(shared_intermediate(NoVisitedSet))
    [repeat] = by_kind(report, "repeat")
    assert repeat.node == "h"
    assert repeat == (
        "h = x * 2: backward() calls its _backward 2 times, so h passes its grad on 2 times; a "
        "topological sort lists each node once (is its visited set missing?)."
    )
    wrong = {p.node for p in by_kind(report, "grad")}
    assert "x" in wrong and report.grads["x"] != report.correct_grads["x"] == 240.0


def test_without_a_visited_set_a_shared_input_is_visited_twice_harmlessly():
    report = checked(diamond(NoVisitedSet))
    assert report.problems == [
        "a (an input): backward() calls its _backward 2 times, which does no harm here only "
        "because a is an input and passes nothing on; a topological sort lists each node once "
        "(is its visited set missing?)."
    ]
    assert report.grads == pytest.approx(report.correct_grads)


def test_a_sort_walked_forwards_loses_the_paths_and_says_which():
    report = checked(diamond(NotReversed))
    order = by_kind(report, "order")
    assert order[0].startswith("backward() visits the nodes in a wrong order (")
    assert order[0].endswith("d): some are visited before every node that uses them has passed its grad on.")
    late = {p.node: p for p in order[1:]}
    assert set(late) == {"b", "c"}
    assert late["b"].startswith("b was visited before d had added its contribution to b, so the paths a → b → d")
    assert "a.grad is 0, not 15" in late["b"]
    assert report.experiment["lost_path_count"] == 4
    assert report.grads["a"] == 0.0
    assert not by_kind(report, "grad")  # the order's sentences already say which grads are wrong


def test_a_tanh_neuron_walked_forwards():
    report = checked(neuron(NotReversed))
    order = by_kind(report, "order")
    assert [p.node for p in order] == ["n", "n"]
    assert order[1].startswith("n was visited before o had added its contribution to n, so the paths x1 → x1*w1")
    assert "x1.grad is 0, not -1.5" in order[1]


class NoSeed(Lecture):
    def backward(self):
        for node in reversed(self.topological_order()):
            node._backward()


class OnlyTheOutput(Lecture):
    def backward(self):
        self.grad = 1.0
        self._backward()


def test_a_backward_that_forgets_the_seed():
    report = checked(diamond(NoSeed))
    [seed] = by_kind(report, "seed")
    assert seed == "d: backward() doesn't seed d.grad = 1: when d's _backward ran, d.grad was 0."
    assert {p.node for p in by_kind(report, "grad")} == {"a", "1", "3"}


def test_a_backward_that_visits_only_the_output():
    report = checked(diamond(OnlyTheOutput))
    assert [p.node for p in by_kind(report, "missing")] == ["c", "b"]
    assert "b = a + 1: backward() never calls its _backward, so nothing reaches a, 1 through b." in report.problems


# -- mistake 3: a local derivative -----------------------------------------------------------------


def test_a_wrong_tanh_derivative_is_named_at_the_tanh_node():
    report = checked(neuron(WrongTanh))
    [local] = by_kind(report, "local")
    assert local.node == "o"
    assert local == (
        "o = tanh(n): its _backward gives n a local derivative of 0.2232, but the rule for tanh says "
        "(1 - o.data**2) = 0.5."
    )
    grads = by_kind(report, "grad")
    assert [p.node for p in grads] == ["x1", "w1", "x2", "b"]  # w2's grad is 0 either way (x2 = 0)
    assert all(p.endswith("(because of the wrong local derivative above).") for p in grads)


class WrongForward(Lecture):
    def __mul__(self, other):
        out = super().__mul__(other)
        out.data += 1
        return out


def test_a_wrong_forward_value_is_named():
    a, b = WrongForward(2.0, label="a"), WrongForward(3.0, label="b")
    c = a * b
    c.label = "c"
    assert checked(c).problems == ["c = a * b: its data is 7, but 2 * 3 = 6."]


def test_an_operation_gradwalk_does_not_know_is_said_plainly():
    a = Sqrt(4.0, label="a")
    b = a.sqrt()
    b.label = "b"
    report = checked(b * a)
    assert report.ok
    assert report.notes == [
        "b = sqrt(a): Gradwalk doesn't know the operation 'sqrt', so it can't check it; it takes "
        "the local derivatives the graph gives (a 0.25)."
    ]


# -- other shapes of learner engines ----------------------------------------------------------------


class Slots:
    """A learner's engine with __slots__ and one _backward *method* that reads _op."""

    __slots__ = ("data", "grad", "_prev", "_op", "label")

    def __init__(self, data, prev=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, tuple(prev), op, label

    def __add__(self, other):
        other = other if isinstance(other, Slots) else type(self)(other)
        return type(self)(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        other = other if isinstance(other, Slots) else type(self)(other)
        return type(self)(self.data * other.data, (self, other), "*")

    def __rmul__(self, other):
        return self * other

    def _backward(self):
        if self._op == "+":
            for parent in self._prev:
                parent.grad += self.grad
        elif self._op == "*":
            a, b = self._prev
            a.grad += b.data * self.grad
            b.grad += a.data * self.grad

    def order(self):
        return build_topo(self)

    def backward(self):
        self.grad = 1.0
        for node in reversed(self.order()):
            node._backward()


class SlotsForwards(Slots):
    __slots__ = ()

    def backward(self):
        self.grad = 1.0
        for node in self.order():
            node._backward()


def test_a_class_with_slots_and_a_backward_method_is_recorded_on_the_class_and_put_back():
    method = Slots.__dict__["_backward"]
    report = checked(diamond(Slots))
    assert report.ok and report.visit_order[0] == "d"
    assert Slots.__dict__["_backward"] is method and "_backward" not in SlotsForwards.__dict__
    wrong = checked(diamond(SlotsForwards))
    assert by_kind(wrong, "order") and wrong.visit_order[-1] == "d"
    assert "_backward" not in SlotsForwards.__dict__


class MicroGPTForwards(MicroGPT):
    __slots__ = ()
    walk_backwards = False


def test_a_microgpt_engine_is_checked_by_its_final_grads():
    x = MicroGPT(2.0)
    p = x * 3 + 1
    y = MicroGPTForwards(p.data * x.data, (p, x), (x.data, p.data))  # y = p * x, whose backward() is run
    report = checked(y)
    assert report.notes and "couldn't be recorded" in report.notes[0]
    assert [p.kind for p in report.problems] == ["grad"] * len(report.problems) and report.problems


def test_check_refuses_what_is_not_a_value():
    with pytest.raises(gradwalk.ForeignGraphError, match="micrograd-style value"):
        gradwalk.check(3.0)


# -- any graph -----------------------------------------------------------------------------------------


def random_graph(cls, leaves, ops):
    values = [cls(x) for x in leaves]
    for op, i, j in ops:
        x, y = values[i % len(values)], values[j % len(values)]
        values.append(x + y if op == "+" else x * y if op == "*" else (x * 0.5).tanh())
    return values[-1]


graphs = st.tuples(
    st.lists(st.integers(-4, 4).map(float), min_size=1, max_size=4),
    st.lists(
        st.tuples(st.sampled_from(["+", "*", "tanh"]), st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=7
    ),
)


@settings(max_examples=40, deadline=None)
@given(graphs)
def test_any_graph_of_a_correct_engine_checks_clean_and_stays_as_it_was(spec):
    assert checked(random_graph(Lecture, *spec)).ok


@settings(max_examples=40, deadline=None)
@given(graphs, st.sampled_from([Overwriting, NoVisitedSet, NotReversed, WrongTanh]))
def test_any_graph_of_a_broken_engine_stays_as_it_was_and_problems_name_nodes(spec, engine):
    root = random_graph(engine, *spec)
    report = checked(root)
    labels = set(report.correct_grads)
    assert all(p.node in labels for p in report.problems)
    if report.grads is not None and not report.ok:
        assert all(p.endswith(".") for p in report.problems)
