"""gradwalk.check on a learner's engine: nothing to say about a correct one, each classic
mistake named at the node where it happens, and the learner's graph left exactly as it was."""

import math

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
    assert {p.mistake for p in overwrites} == {"overwrite"}
    [grad] = by_kind(report, "grad")
    assert grad.node == "a" and ("a.grad is 9, but" in grad or "a.grad is 6, but" in grad)
    assert "but it should be 15." in grad
    # It kept one of the two contributions (9 through c, 6 through b): the catalogue says so,
    # and, the visit order being right, not that a node was visited too early.
    assert grad.mistake in ("overwrite", "one-path") and "too early" not in grad
    assert grad.endswith("a.grad adds every contribution it receives (+=): 9 + 6 = 15.")
    assert not by_kind(report, "local")


def test_overwriting_in_a_times_a_keeps_one_of_the_two_contributions():
    a = Overwriting(3.0, label="a")
    b = a * a
    b.label = "b"
    report = checked(b)
    assert report.problems == [
        "b = a * a: its _backward overwrites a.grad (=) instead of adding to it (+=); a is used 2 times here, so "
        "only the last of its 2 contributions survives.",
        "a: after your backward(), a.grad is 3, but it should be 6. 3 is only the last contribution, as if = had "
        "replaced what a.grad held, or is one use's contribution alone (a is used 2 times in b). a.grad adds every "
        "contribution it receives (+=): 3 + 3 = 6.",
    ]
    assert [p.mistake for p in report.problems] == ["overwrite", "overwrite"]
    assert report.as_dict()["problems"][1]["mistake"] == "overwrite"


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
    assert {p.mistake for p in order} == {"too-early"}
    assert order[0].startswith("backward() visits the nodes in a wrong order (")
    # The catalogue's sentence for the first node visited too early: b or c, by the set order.
    # d = b * c passes b the 6 of c, and c the 3 of b.
    assert order[0].endswith(
        "d): b was visited before d added its 6 to b.grad, so b passed on an incomplete grad. Visit a node only "
        "after every node that uses it, so its grad is complete when it passes it on."
    ) or order[0].endswith(
        "d): c was visited before d added its 3 to c.grad, so c passed on an incomplete grad. "
        "Visit a node only after every node that uses it, so its grad is complete when it passes it on."
    )
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
    assert seed == (
        "d: backward() doesn't seed d.grad = 1: when d's _backward ran, d.grad was 0. 0 is what d.grad holds "
        "before the seed. The seed is ∂d/∂d = 1: nudge d by h and d moves by h."
    )
    assert seed.mistake == "seed-zero"
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
        "o = tanh(n): its _backward gives n a local derivative of 0.2232, which uses 1 − x² with the input "
        "n = 0.8814. tanh′ is 1 − t² with the output t = o = 0.7071: ∂o/∂n = 1 − 0.7071² = 0.5."
    )
    assert local.mistake == "tanh-input"
    grads = by_kind(report, "grad")
    assert [p.node for p in grads] == ["x1", "w1", "x2", "b"]  # w2's grad is 0 either way (x2 = 0)
    assert all(p.endswith("(because of the wrong local derivative above).") for p in grads)


# -- the catalogue's mistakes (engine/mistakes.py), each in a learner's engine ---------------------------
#
# Each engine below is the lecture's class with one bug; the numbers the tests expect are worked
# out here from the bug itself, not read from the catalogue.


def labelled(value, label):
    value.label = label
    return value


class TanhItself(Lecture):
    @staticmethod
    def tanh_local(x, t):
        return t


class OwnValue(Lecture):
    def __mul__(self, other):
        other = self._wrap(other)
        out = self._new(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += self.data * out.grad  # its own value, not the other factor's
            other.grad += other.data * out.grad

        out._backward = _backward
        return out


class PowerAtTheOutput(Lecture):
    def __pow__(self, n):
        out = self._new(self.data**n, (self,), f"**{n}")

        def _backward():
            self.grad += n * out.data ** (n - 1) * out.grad  # the power rule at the output, not the base

        out._backward = _backward
        return out

    def exp(self):
        x = self.data
        out = self._new(math.exp(x), (self,), "exp")

        def _backward():
            self.grad += x * out.grad  # exp' taken as the input

        out._backward = _backward
        return out


class Subtracting(Lecture):
    def __sub__(self, other):
        other = self._wrap(other)
        out = self._new(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad  # the minus sign lost

        out._backward = _backward
        return out


class NoUpstream(Lecture):
    """Every _backward adds its local derivative alone, without out.grad."""

    def __add__(self, other):
        other = self._wrap(other)
        out = self._new(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0
            other.grad += 1.0

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = self._new(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data
            other.grad += self.data

        out._backward = _backward
        return out


class SeedWithTheValue(Lecture):
    def backward(self):
        topo = self.topological_order()
        self.grad = self.data  # the output's value, not 1
        for node in reversed(topo):
            node._backward()


def test_tanh_written_with_its_input_or_as_tanh_itself_gets_the_catalogues_sentence():
    o = neuron(WrongTanh)
    n = next(iter(o._prev))
    [local] = by_kind(checked(o), "local")
    assert local.mistake == "tanh-input"
    assert f"a local derivative of {1 - n.data**2:.4f}, which uses 1 − x² with the input n = 0.8814." in local
    [local] = by_kind(checked(neuron(TanhItself)), "local")
    assert local.mistake == "tanh-itself"
    assert local == (
        f"o = tanh(n): its _backward gives n a local derivative of {math.tanh(n.data):.4f}, which takes tanh "
        "itself, o = 0.7071, as its derivative. tanh′ is 1 − t² with the output t = o = 0.7071: ∂o/∂n = "
        "1 − 0.7071² = 0.5."
    )


def test_a_product_that_passes_each_side_its_own_value():
    a, b = OwnValue(2.0, label="a"), OwnValue(3.0, label="b")
    report = checked(labelled(a * b, "c"))
    locals_ = by_kind(report, "local")
    assert [p.mistake for p in locals_] == ["own-value", "own-value"]
    assert locals_[0] == (
        "c = a * b: its _backward gives a a local derivative of 2, which uses a's own value, 2, for ∂c/∂a. "
        "A product passes each side the other side's value: ∂c/∂a = b = 3."
    )
    assert report.as_dict()["problems"][0]["mistake"] == "own-value"


def test_a_power_or_exp_differentiated_at_the_wrong_base():
    a = PowerAtTheOutput(2.0, label="a")
    [local] = by_kind(checked(labelled(a**3, "c")), "local")
    assert local.mistake == "power-base"
    wrong = 3 * (2.0**3) ** 2  # n·cⁿ⁻¹ with c = a³ = 8
    assert local == (
        f"c = a ** 3: its _backward gives a a local derivative of {wrong:g}, which takes the power rule at the "
        "output c = 8 instead of the base a. d(xⁿ)/dx = n·xⁿ⁻¹ at the base a = 2: ∂c/∂a = 12."
    )
    a = PowerAtTheOutput(1.0, label="a")
    [local] = by_kind(checked(labelled(a.exp(), "c")), "local")
    assert local.mistake == "power-base"
    assert "a local derivative of 1, which uses the input a = 1 as exp′. exp′ is exp itself" in local


def test_a_subtraction_that_loses_its_minus_sign():
    a, b = Subtracting(5.0, label="a"), Subtracting(3.0, label="b")
    report = checked(labelled(labelled(a - b, "c") * a, "d"))
    [local] = by_kind(report, "local")
    assert local.mistake == "sub-sign" and local.node == "c"
    assert local.endswith(
        "which misses the minus sign: b is subtracted in c = a - b. The right side of a "
        "subtraction gets the grad with its sign flipped: ∂c/∂b = −1."
    )
    [grad] = by_kind(report, "grad")
    assert (
        grad
        == "b: after your backward(), b.grad is 5, but it should be -5 (because of the wrong local derivative above)."
    )


def test_an_engine_that_leaves_out_the_upstream_grad():
    # Measured one node at a time (with out.grad = 1) each local derivative is right: only the
    # final grads show the mistake, and the catalogue names it.
    report = checked(diamond(NoUpstream))
    assert not by_kind(report, "local") and not by_kind(report, "overwrite")
    grads = {p.node: p for p in by_kind(report, "grad")}
    # a gets ∂b/∂a + ∂c/∂a = 1 + 3 instead of 1 × b.grad + 3 × c.grad = 6 + 9.
    assert grads["a"].startswith(
        "a: after your backward(), a.grad is 4, but it should be 15. 4 is the local derivative alone"
    )
    assert {p.mistake for p in grads.values()} == {"no-upstream"}


def test_a_seed_of_the_outputs_value():
    report = checked(diamond(SeedWithTheValue))
    [seed] = by_kind(report, "seed")
    assert seed.mistake == "seed-output"
    assert seed == (
        "d: backward() doesn't seed d.grad = 1: when d's _backward ran, d.grad was 18. 18 is d's value, not its "
        "grad. The seed is ∂d/∂d = 1: nudge d by h and d moves by h."
    )


def test_a_karpathy_micrograd_with_the_tanh_input_bug():
    class Buggy(Micrograd):
        def tanh(self):
            x = self.data
            out = Buggy(math.tanh(x), (self,), "tanh")

            def _backward():
                self.grad += (1 - x**2) * out.grad

            out._backward = _backward
            return out

    x = Buggy(0.5)
    report = checked(x.tanh() * 2)
    [local] = by_kind(report, "local")
    assert local.mistake == "tanh-input" and f"a local derivative of {1 - 0.5**2:g}, which uses 1 − x²" in local


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
