"""The catalogue of mistakes (engine/mistakes.py) against a micrograd that makes them.

For every question a graph asks (each preset checkpoint the catalogue answers, the
questions generated for each preset's program loaded as a plain program, and every
data, grad, local and contribution question of a few more programs), the catalogue's
number for each mistake it lists must be the number this file's own small micrograd gives
when it makes that mistake, and every mistake that micrograd can make at the question, if
its number is not the right answer, must be listed. The numbers here never come from
engine.mistakes: the engine lends only the graph's shape (which node is made from which,
by which operation, with which plain number folded in), the inputs' values and the visit
order of its backward pass; every other value, derivative and grad is this file's own.

Where a mistake is made. A learner answers one question, so the micrograd makes the
mistake only where that question looks, and does everything else right:

* a grad asked after backward frame k: the mistake is made in the pushes of frame k into
  the node (the pushes the learner works out), keeping what the node already held; if
  frame k pushes nothing into it, in every push into it so far. A mistake in one local
  derivative (own-value, sub-sign, tanh-input, tanh-itself, power-base) is made in one of
  those pushes at a time; the chain rule's (no-upstream, no-local, factors-added) and
  ``=`` for ``+=`` (overwrite) in all of them; factors-added is not named where an
  upstream grad asked about is 1. The seed's (seed-zero, seed-output) are made
  in the seed, so they are asked about the output's grad only; output-value is the
  output's value given for any other node's grad;
* too-early: the node that pushes at frame k is visited before one of the nodes that use
  it has pushed into it: those pushes arrive after its visit (as in a wrong visit order);
* one-path and paths-multiplied are worked out from the paths themselves: every path from
  the node to the output, as the product of the local derivatives along it, grouped by
  the node's use (the edge it leaves by) that is visited by frame k. One use's sum is one
  path counted alone; the product of the uses' sums multiplies what should be added;
* data: the node's value computed from its (right) operands with the mistake;
* a local derivative: the edge's, taken with the mistake; a contribution: what the edge
  pushes when its child is visited, with the mistake made in that push (or the child
  visited too early).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from pathlib import Path

import pytest

from engine import Program
from engine.api import handle
from engine.graph import Graph
from engine.mistakes import MAX_DIAGNOSED, MISTAKES, diagnose, grad_mistake, too_early_text, wrong_answers
from engine.presets import PresetError, get_preset, read_presets, visit_order_ids
from engine.questions import diagnosed, is_right, questions
from engine.text import fmt
from engine.trace import correct_backward
from tests.support.presets import PRESET_IDS

ROOT = Path(__file__).resolve().parents[2]

# -- the oracle: a micrograd of its own that can make one mistake --------------------------------

# A mistake in one local derivative, made in one push at a time.
LOCAL = ("own-value", "sub-sign", "tanh-input", "tanh-itself", "power-base", "sum-zero", "sum-halves")
# A mistake in how a push uses its two factors or writes its grad, made in every push asked.
PUSH = ("no-upstream", "no-local", "factors-added", "overwrite")
SEED = ("seed-zero", "seed-output")
PATHS = ("one-path", "paths-multiplied")
EVERY = (*SEED, "output-value", "input-no-grad", *LOCAL, *PUSH, *PATHS, "too-early")


def forward(op: str, xs: list[float], bug: str | None = None) -> float:
    """A node's value from its operands' (``xs``, in the order written), or as ``bug`` has it."""
    x = xs[0]
    if op == "+":
        return x + xs[1]
    if op == "-":
        return x + xs[1] if bug == "sub-sign" else x - xs[1]
    if op == "*":
        return x + xs[1] if bug == "factors-added" else x * xs[1]
    if op == "/":
        return x / xs[1]
    if op == "**":
        return x ** xs[1]
    return {
        "neg": lambda: -x,
        "tanh": lambda: math.tanh(x),
        "relu": lambda: x if x > 0 else 0.0,
        "exp": lambda: math.exp(x),
        "log": lambda: math.log(x),
        "sin": lambda: math.sin(x),
        "cos": lambda: math.cos(x),
        "sigmoid": lambda: 1 / (1 + math.exp(-x)),
    }[op]()


def derivative(op: str, pos: int, xs: list[float], out: float, bug: str | None = None) -> float:
    """∂out/∂(the operand at ``pos``) as micrograd's _backward takes it, or as ``bug`` does."""
    x = xs[0]
    if op == "+":
        return {"sum-zero": 0.0, "sum-halves": 1.0 / len(xs)}.get(bug, 1.0)
    if op == "-":
        return 1.0 if pos == 0 or bug == "sub-sign" else -1.0
    if op == "*":
        return xs[pos] if bug == "own-value" else xs[1 - pos]
    if op == "/":
        return 1 / xs[1] if pos == 0 else -x / xs[1] ** 2
    if op == "**":
        n = xs[1]
        return n * out ** (n - 1) if bug == "power-base" else n * x ** (n - 1)
    if op == "tanh":
        return {"tanh-input": 1 - x * x, "tanh-itself": out}.get(bug, 1 - out * out)
    if op == "exp":
        return x if bug == "power-base" else out
    return {
        "neg": lambda: -1.0,
        "relu": lambda: 1.0 if x > 0 else 0.0,
        "log": lambda: 1 / x,
        "sin": lambda: math.cos(x),
        "cos": lambda: -math.sin(x),
        "sigmoid": lambda: out * (1 - out),
    }[op]()


class V:
    """A value: its data, its grad, the operands it was made from (other V's or plain numbers,
    in the order written) and its operation."""

    def __init__(self, data: float, operands=(), op: str = ""):
        self.data, self.grad, self.late = data, 0.0, 0.0
        self.operands, self.op = tuple(operands), op
        self.prev = tuple(o for o in operands if isinstance(o, V))
        self._pos = [i for i, o in enumerate(operands) if isinstance(o, V)]

    @classmethod
    def made(cls, op: str, *operands) -> V:
        return cls(forward(op, [_num(o) for o in operands]), operands, op)

    def computed(self, bug: str | None) -> float:
        return forward(self.op, [_num(o) for o in self.operands], bug)

    def local(self, slot: int, bug: str | None = None) -> float:
        """∂self/∂prev[slot]."""
        return derivative(self.op, self._pos[slot], [_num(o) for o in self.operands], self.data, bug)

    def _backward(self, run: Pass):
        for slot in range(len(self.prev)):
            run.push(self, slot)


def _num(o) -> float:
    return o.data if isinstance(o, V) else float(o)


class Pass:
    """The backward pass: seed the output, then visit ``order`` (micrograd's
    ``parent.grad += local * child.grad`` in each visit). The mistake ``bug`` is made in the
    pushes ``at`` ((child, slot) pairs); ``late`` = (c, q): q's pushes into c arrive only
    after c has been visited; ``seed`` is the output's starting grad."""

    def __init__(self, nodes, out, order, bug=None, at=(), late=None, seed=1.0):
        self.nodes, self.out, self.order = nodes, out, order
        self.bug, self.at, self.late, self.seed = bug, set(at), late, seed
        self.pushed: dict[tuple[int, int], float] = {}  # (id(child), slot) -> amount

    def run(self, visits: int) -> Pass:
        """Backward frames 0..visits: the seed and the first ``visits`` visits."""
        for v in self.nodes:
            v.grad = v.late = 0.0
        self.out.grad = self.seed
        for child in self.order[:visits]:
            child._backward(self)
            child.grad += child.late  # what arrived too late is added, never passed on
            child.late = 0.0
        return self

    def push(self, child: V, slot: int):
        parent = child.prev[slot]
        bug = self.bug if (id(child), slot) in self.at else None
        local, up = child.local(slot, bug), child.grad
        amount = {"no-upstream": local, "no-local": up, "factors-added": local + up}.get(bug, local * up)
        self.pushed[id(child), slot] = amount
        if self.late is not None and (parent, child) == self.late:
            parent.late += amount
        elif bug == "overwrite":
            parent.grad = amount
        else:
            parent.grad += amount


class Oracle:
    """The engine graph's shape, computed again with V's; the engine's backward visit order."""

    def __init__(self, graph: Graph, backward: list[dict]):
        self.nodes: list[V] = []
        for i, value in enumerate(graph.values):
            parents = [self.nodes[graph.edges[e].parent] for e in graph.parent_edges[i]]
            if not parents:
                self.nodes.append(V(float(value.data)))
                continue
            operands = list(parents)
            const = getattr(value, "_const", None)
            if const is not None:  # a plain number written beside the operand: (number, on the left)
                operands.insert(0 if const[1] else 1, float(const[0]))
            self.nodes.append(V.made(value._op, *operands))
            assert self.nodes[-1].data == pytest.approx(value.data, rel=1e-12), graph.label(i)
        self.by_label = {graph.label(i): self.nodes[i] for i in range(len(graph))}
        self.out = self.nodes[graph.output]
        self.order = [self.nodes[frame["node"]] for frame in backward[1:]]
        self.users = {id(v): [(u, s) for u in self.nodes for s, p in enumerate(u.prev) if p is v] for v in self.nodes}

    def grad_after(self, node: V, visits: int, **mistake) -> float:
        Pass(self.nodes, self.out, self.order, **mistake).run(visits)
        return node.grad

    def paths(self, node: V):
        """Every path from ``node`` to the output, as its list of (child, slot) edges."""
        if node is self.out:
            yield []
            return
        for user, slot in self.users[id(node)]:
            for rest in self.paths(user):
                yield [(user, slot), *rest]

    def through(self, user: V, slot: int) -> float:
        """What one use of a node (the edge into ``user`` at ``slot``) brings: the sum of the
        products of the local derivatives along every path that starts with that edge."""
        return user.local(slot) * sum(math.prod(u.local(s) for u, s in path) for path in self.paths(user))


_CHECK = re.compile(r"^(?:(.+?)->)?(.+)\.(data|grad|local|contribution)$")


def oracle_numbers(
    o: Oracle, check: str, step: int | None, visit_order: bool = True
) -> tuple[float, dict[str, set[float]]]:
    """The right answer to ``check`` after backward frame ``step`` and, by mistake id, the
    numbers the oracle gets making that mistake where the question looks (module docstring);
    without ``visit_order`` (a question the page asks: one visit's push), no visit too early."""
    child_label, label, what = _CHECK.match(check).groups()
    node = o.by_label[label]
    numbers: dict[str, set[float]] = defaultdict(set)
    if what == "data":
        for bug in EVERY:
            numbers[bug].add(node.computed(bug))
        return node.data, numbers

    if what in ("local", "contribution"):
        child = o.by_label[child_label]
        slot = next(s for s, p in enumerate(child.prev) if p is node)
        if what == "local":
            for bug in EVERY:
                numbers[bug].add(child.local(slot, bug))
            return child.local(slot), numbers
        visits = o.order.index(child) + 1

        def pushed(**mistake) -> float:
            return Pass(o.nodes, o.out, o.order, **mistake).run(visits).pushed[id(child), slot]

        for bug in EVERY:
            numbers[bug].add(pushed(bug=bug, at={(id(child), slot)}))
        for user, _ in o.users[id(child)] if visit_order else ():
            numbers["too-early"].add(pushed(late=(child, user)))
        if o.grad_after(child, visits - 1) == 1.0:
            del numbers["factors-added"]  # not named where the upstream grad is 1 (engine/mistakes.py)
        return pushed(), numbers

    visits = len(o.order) if step is None else step
    right = o.grad_after(node, visits)
    if node is o.out:
        numbers["seed-zero"].add(o.grad_after(node, visits, seed=0.0))
        numbers["seed-output"].add(o.grad_after(node, visits, seed=o.out.data))
        return right, numbers
    uses = [(c, s) for c in o.order[:visits] for s, p in enumerate(c.prev) if p is node]
    asked = [(c, s) for c, s in uses if visits and c is o.order[visits - 1]] or uses
    at = [(id(c), s) for c, s in asked]
    numbers["output-value"].add(o.out.data)
    if not node.prev:  # an input: "an input gets no grad"
        numbers["input-no-grad"].add(0.0)
    for bug in LOCAL:
        for one in at:
            numbers[bug].add(o.grad_after(node, visits, bug=bug, at={one}))
    for bug in PUSH:
        numbers[bug].add(o.grad_after(node, visits, bug=bug, at=at))
    # Adding the factors is named only where no upstream grad asked about is 1: "local + 1"
    # would only shadow likelier mistakes (engine/mistakes.py).
    if any(o.grad_after(c, o.order.index(c)) == 1.0 for c, _ in asked):
        del numbers["factors-added"]
    per_use = [o.through(c, s) for c, s in uses]
    numbers["one-path"].update(per_use)
    numbers["paths-multiplied"].add(math.prod(per_use))
    for c in dict.fromkeys(c for c, _ in asked) if visit_order else ():
        for user in dict.fromkeys(u for u, _ in o.users[id(c)]):
            numbers["too-early"].add(o.grad_after(node, visits, late=(c, user)))
    return right, numbers


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def assert_agrees(
    o: Oracle, check: str, step: int | None, found: dict, visit_order: bool = True, tolerance: float | None = None
):
    """The catalogue's answer ``found`` ({"value", "wrong"}) against the oracle's numbers.
    With ``tolerance`` (a question as the page grades it), a number a reply can't be told
    apart by may be left out: one the page would grade right, or within the tolerance of a
    number listed (engine.questions keeps only the numbers a learner's reply can reach)."""
    right, numbers = oracle_numbers(o, check, step, visit_order)
    assert same(found["value"], right), (check, step, found["value"], right)
    for entry in found["wrong"]:
        assert not same(entry["value"], right), f"{check}: a wrong number equals the answer: {entry}"
        for mistake in entry["mistakes"]:
            assert any(same(entry["value"], n) for n in numbers[mistake]), (
                f"{check} after frame {step}: the catalogue says {mistake} gives {entry['value']}; "
                f"the oracle gets {sorted(numbers[mistake])}"
            )
    for mistake, values in numbers.items():
        for n in values:
            if isinstance(n, complex) or not math.isfinite(n) or same(n, right):
                continue
            listed = [e for e in found["wrong"] if same(e["value"], n)]
            if not listed and tolerance is not None and untellable(n, right, found["wrong"], tolerance):
                continue
            assert any(mistake in e["mistakes"] for e in listed), (
                f"{check} after frame {step}: {mistake} gives {n}, which the catalogue "
                f"{'lists only as ' + str(listed[0]['mistakes']) if listed else 'misses'}"
            )


def untellable(n: float, right: float, listed: list[dict], tolerance: float) -> bool:
    shown = fmt(n)
    return is_right(shown, right, tolerance) or diagnosed(shown, listed, right, tolerance) is not None


# -- the questions --------------------------------------------------------------------------------


def engine_graph(source: str, visit_order: list[str] | None = None) -> tuple[Graph, list[dict]]:
    program = Program.parse(source)
    graph = Graph.of(program.output, program.nodes)
    order = visit_order_ids(graph, visit_order) if visit_order else None
    return graph, correct_backward(graph, order)[0]


def test_the_oracle_makes_every_mistake_of_the_catalogue():
    assert sorted(EVERY) == sorted(MISTAKES)


def answered(cp: dict) -> bool:
    """A preset checkpoint the catalogue answers: one with a check, on the graph on screen."""
    return bool(cp.get("check")) and not cp.get("values") and not cp.get("order")


PRESET_QUESTIONS = [
    pytest.param(pid, cp["id"], id=f"{pid}/{cp['id']}")
    for pid in PRESET_IDS
    for cp in get_preset(pid)["checkpoint"]
    if answered(cp)
]


@pytest.mark.parametrize("preset_id, checkpoint_id", PRESET_QUESTIONS)
def test_preset_questions_list_the_numbers_each_mistake_gives(preset_id, checkpoint_id):
    preset = get_preset(preset_id)
    graph, backward = engine_graph(preset["program"], preset.get("visit_order"))
    listed = {q["id"]: q for q in questions(graph, backward, preset["checkpoint"])}
    cp = next(cp for cp in preset["checkpoint"] if cp["id"] == checkpoint_id)
    step = None
    if cp["pass"] == "backward":
        step = len(backward) - 1 if cp["before_step"] == -1 else cp["before_step"]
    tolerance = cp.get("tolerance", 1e-3)
    assert_agrees(Oracle(graph, backward), cp["check"], step, listed[checkpoint_id], False, tolerance)
    assert listed[checkpoint_id]["value"] == pytest.approx(cp["answer"], abs=cp.get("tolerance", 1e-9))


# More programs, each with something the presets lack or have little of.
PROGRAMS = {
    "subtraction": "a = 2\nb = 3\nc = a - b\nd = c * a\n",
    "number-minus": "a = 2\nb = 5 - a\nc = b * b\nd = a / c\n",
    "power": "x = 0.5\ny = x ** 3\nz = y * 2\n",
    "exp": "x = 0.3\ny = exp(x)\nz = y * x\n",
    "tanh": "x = 0.4\nw = -2\nn = x * w + 1\no = tanh(n)\n",
    "square-reused": "a = 3\nb = a * a\nc = b + a\n",
    "two-users": "x = 3\ns = x * x\nt = s * 2\nu = s + t\n",
    "squared-user": "x = 2\ns = x * 3\nt = s * s\n",
    "mixed": "a = -2\nb = a ** 2\nc = exp(b - a)\nd = tanh(c * 0.1) - a\n",
    "functions": "a = 1.5\nb = -a\nc = relu(b) + sin(a)\nd = log(a) * sigmoid(c)\n",
}
PLAIN = {**{pid: get_preset(pid)["program"] for pid in PRESET_IDS}, **PROGRAMS}


@pytest.mark.parametrize("name", PLAIN)
def test_generated_questions_list_the_numbers_each_mistake_gives(name):
    """A program's own questions (the seed, then a grad before each visit that pushes), as
    the load answer carries them."""
    answer = json.loads(handle({"cmd": "load", "program": PLAIN[name]}))
    graph, backward = engine_graph(PLAIN[name])
    o = Oracle(graph, backward)
    asked = answer["questions"]
    pushing = [k for k in range(1, len(backward)) if backward[k]["pushes"]]
    assert [q["id"] for q in asked] == ["auto-seed"] + [f"auto-b{k}" for k in pushing]
    for q in asked:
        assert q["check"] == graph.label(q["node"]) + ".grad"
        if q["value"] is None:  # past MAX_DIAGNOSED: the page reads the answer from the frames
            assert q["wrong"] == [] and q["step"] > MAX_DIAGNOSED
            continue
        # graded as the page grades a generated question (web/questions.js)
        assert_agrees(o, q["check"], q["step"], q, visit_order=False, tolerance=max(1e-3, abs(q["value"]) * 1e-4))


def every_question(graph: Graph, backward: list[dict]):
    """(check, step) for each node's data, each edge's local derivative and contribution, the
    seed, and each grad after every frame once something has been pushed into it."""
    label = graph.label
    for i in range(len(graph)):
        if not graph.is_input(i):
            yield f"{label(i)}.data", None
    for edge in graph.edges:
        for what in ("local", "contribution"):
            yield f"{label(edge.child)}->{label(edge.parent)}.{what}", None
    yield f"{label(graph.output)}.grad", 0
    reached: set[int] = set()
    for k, frame in enumerate(backward):
        reached.update(p["parent"] for p in frame.get("pushes", ()))
        for i in sorted(reached):
            yield f"{label(i)}.grad", k


@pytest.mark.parametrize("name", PLAIN)
def test_every_question_on_a_program_lists_the_numbers_each_mistake_gives(name):
    graph, backward = engine_graph(PLAIN[name])
    o = Oracle(graph, backward)
    asked = list(every_question(graph, backward))
    # Every question grows as the square of the graph; on a tensor preset (80 to 125 nodes,
    # 10,000 questions) every 7th of them, which still reaches every kind of question.
    stride = 1 if len(graph) <= 60 else 7
    for check, step in asked[::stride]:
        assert_agrees(o, check, step, wrong_answers(graph, backward, check, step))
    assert len(asked) > len(graph)


@pytest.mark.parametrize("preset_id, early, user", [("diamond", "c", "d"), ("double-diamond", "c", "f")])
def test_the_oracles_too_early_visit_is_a_wrong_visit_order(preset_id, early, user):
    """The preset's wrong-order question: the engine's own experiment with that order gives
    a.grad as the oracle does when what ``user`` adds to ``early`` arrives after its visit."""
    preset = get_preset(preset_id)
    cp = next(cp for cp in preset["checkpoint"] if cp.get("order"))
    answer = json.loads(handle({"cmd": "load", "preset": preset_id, "order": cp["order"]}))
    a = next(n["id"] for n in answer["nodes"] if n["label"] == "a")
    graph, backward = engine_graph(preset["program"], preset.get("visit_order"))
    o = Oracle(graph, backward)
    late = (o.by_label[early], o.by_label[user])
    assert o.grad_after(o.by_label["a"], len(o.order), late=late) == answer["experiment"]["grads"][a]
    assert answer["experiment"]["grads"][a] != answer["nodes"][a]["grad"]


def test_a_diagnosis_names_both_mistakes_that_share_a_number():
    """d.grad on (a + b)·c: 5 is d's own value or 4 + 1; on a·a + a, 3 is one path or =."""
    graph, backward = engine_graph(get_preset("add-mul")["program"])
    found = wrong_answers(graph, backward, "d.grad", 1)
    by_value = {e["value"]: e for e in found["wrong"]}
    # 5 is d's own value (and 4 + 1, but adding an upstream grad of 1 is not named).
    assert by_value[5.0]["mistakes"] == ["own-value"] and "d's own value" in by_value[5.0]["text"]
    assert by_value[20.0]["mistakes"] == ["output-value"]
    assert by_value[1.0]["mistakes"] == ["no-local"]
    graph, backward = engine_graph(PROGRAMS["square-reused"])
    found = wrong_answers(graph, backward, "a.grad", len(backward) - 1)
    three = next(e for e in found["wrong"] if e["value"] == 3.0)
    assert {"one-path", "overwrite"} <= set(three["mistakes"]), three


def test_a_contribution_hint_gives_the_local_derivative_it_needs():
    """A local derivative written as code gets its number; a plain number is not said twice."""
    for preset_id, check, step, said in (
        ("diamond", "c->a.contribution", 2, "3 × c.grad."),
        ("add-mul", "e->d.contribution", 1, "c.data × e.grad, with c.data = 4."),
    ):
        graph, backward = engine_graph(get_preset(preset_id)["program"])
        asked = {"id": "q", "pass": "backward", "before_step": step, "kind": "number", "check": check}
        (question,) = questions(graph, backward, [asked])
        assert question["hint"].endswith(said), question["hint"]


def test_a_reply_is_diagnosed_within_the_tolerance_and_checks_words_a_wrong_grad():
    graph, backward = engine_graph(get_preset("add-mul")["program"])
    found = wrong_answers(graph, backward, "c.grad", 1)
    assert diagnose(found["wrong"], 4.0004)["mistakes"] == ["own-value"]
    assert diagnose(found["wrong"], 4.01) is None and diagnose(found["wrong"], 5.0) is None  # 5 is right
    d = next(i for i in range(len(graph)) if graph.label(i) == "d")
    assert grad_mistake(graph, backward, d, 20.0).startswith("20 is the output's value (e)")
    assert grad_mistake(graph, backward, d, 4.0) is None and grad_mistake(graph, backward, d, 7.5) is None
    said = too_early_text(graph, d, graph.output, 4.0)
    assert said["mistakes"] == ["too-early"] and said["nodes"] == ["d", "e"]
    assert MISTAKES["too-early"].rule in said["text"]


# -- presets that name mistakes -------------------------------------------------------------------

PRESET = """
title = "t"
position = 1
summary = "s"
lesson = "l"
program = "a = 3\\nb = a * a\\n"

[[checkpoint]]
id = "q"
pass = "backward"
before_step = 1
question = "?"
kind = "choice"
answer = 0
explanation = "e"
"""


def test_a_check_the_catalogue_cannot_read_is_a_preset_error(tmp_path):
    (tmp_path / "odd.toml").write_text(PRESET + 'choices = ["6", "3"]\ncheck = "a.value"\n')
    with pytest.raises(PresetError, match=r"odd\.toml.*a\.value"):
        read_presets(tmp_path)


def test_a_check_naming_no_node_is_a_preset_error(tmp_path):
    (tmp_path / "typo.toml").write_text(PRESET + 'choices = ["6", "3"]\ncheck = "z.grad"\n')
    with pytest.raises(PresetError, match=r"typo\.toml.*z"):
        read_presets(tmp_path)
    (tmp_path / "typo.toml").write_text(PRESET + 'choices = ["6", "3"]\ncheck = "a->b.local"\n')
    with pytest.raises(PresetError, match=r"typo\.toml.*b is not an operand of a"):
        read_presets(tmp_path)


def test_an_unknown_mistake_in_a_choice_is_a_preset_error(tmp_path):
    (tmp_path / "bad.toml").write_text(PRESET + 'choices = ["6", { text = "3", mistake = "overwrites" }]\n')
    with pytest.raises(PresetError, match=r"bad\.toml.*'overwrites'"):
        read_presets(tmp_path)


def test_a_choice_names_its_mistake(tmp_path):
    (tmp_path / "good.toml").write_text(
        PRESET + 'choices = ["6", { text = "3", mistake = "overwrite" }, "9"]\ncheck = "a.grad"\n'
    )
    (preset,) = read_presets(tmp_path)
    (cp,) = preset["checkpoint"]
    assert cp["choices"] == ["6", "3", "9"] and cp["choice_mistakes"] == [None, "overwrite", None]
    graph, backward = engine_graph(preset["program"])
    (asked,) = questions(graph, backward, preset["checkpoint"])
    first, three, nine = asked["choices"]
    assert first is None and nine is None
    # On the graph on screen, the catalogue's own sentence for 3 (with this graph's numbers).
    assert three == next(e["text"] for e in asked["wrong"] if e["value"] == 3.0)
    assert "3 + 3 = 6" in three


def test_every_tagged_choice_in_the_presets_names_a_known_mistake():
    tagged = 0
    for pid in PRESET_IDS:
        preset = get_preset(pid)
        graph, backward = engine_graph(preset["program"], preset.get("visit_order"))
        for cp, asked in zip(preset["checkpoint"], questions(graph, backward, preset["checkpoint"])):
            for text, mistake, said in zip(
                cp.get("choices", ()), cp.get("choice_mistakes", ()), asked.get("choices", ())
            ):
                assert (mistake is None) == (said is None), (pid, cp["id"], text)
                if mistake is not None:
                    tagged += 1
                    assert MISTAKES[mistake].rule in said or text.replace("−", "-") in said, (pid, text, said)
    assert tagged >= 3


# -- the answer the page gets ---------------------------------------------------------------------


def test_the_questions_survive_json():
    for request in ({"cmd": "load", "preset": "cos"}, {"cmd": "load", "program": PROGRAMS["mixed"]}):
        answer = json.loads(handle(request))
        source = get_preset("cos")["program"] if "preset" in request else request["program"]
        preset = get_preset("cos") if "preset" in request else {}
        graph, backward = engine_graph(source, preset.get("visit_order"))
        direct = questions(graph, backward, preset.get("checkpoint"))
        assert answer["questions"] == json.loads(json.dumps(direct)), request
        assert any(q["wrong"] for q in answer["questions"])


def big_program(n: int) -> str:
    """A chain of n sums, each adding a multiple of the input a: about 2n nodes, and a.grad
    gets one contribution per sum, the costliest question to diagnose (one path per use)."""
    return "a = 1.5\nv0 = a * 0.5\n" + "".join(f"v{i} = v{i - 1} + a * {i + 0.25}\n" for i in range(1, n))


def test_a_big_program_keeps_its_answer_small():
    """Questions beyond MAX_DIAGNOSED carry no diagnosis; the questions stay a small part of
    the answer (about 1,000 nodes)."""
    text = handle({"cmd": "load", "program": big_program(500)})
    answer = json.loads(text)
    assert len(answer["nodes"]) == 1000
    asked = answer["questions"]
    assert len(asked) > MAX_DIAGNOSED + 1
    diagnosed = [q for q in asked if q["wrong"]]
    assert diagnosed and len(diagnosed) <= MAX_DIAGNOSED + 1
    for q in asked[MAX_DIAGNOSED + 1 :]:
        assert q["wrong"] == [] and q["value"] is None and q["hint"] is None
    # a.grad with many contributions: a long sum is written short, so no sentence grows with it.
    most = max(diagnosed, key=lambda q: len(q["wrong"]))
    # (of its 42 sums' mistakes, those a reply can tell apart at the page's tolerance, 2 here)
    assert most["check"] == "a.grad" and len(most["wrong"]) > 20
    assert any("terms)" in entry["text"] for entry in most["wrong"])
    assert max(len(entry["text"]) for q in diagnosed for entry in q["wrong"]) < 400
    without = dict(answer)
    del without["questions"]
    size, rest = len(text.encode()), len(json.dumps(without, separators=(",", ":")).encode())
    assert size - rest < 0.25 * rest, (size, rest)


# -- the catalogue as presets/README.md lists it --------------------------------------------------


def test_the_presets_readme_lists_every_mistake():
    text = (ROOT / "presets" / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Mistakes\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \| [^|]+ \| ([^|]+) \|$", section, flags=re.M)
    listed = {mistake: (name, rule) for mistake, name, rule in rows}
    assert len(listed) == len(rows), "each mistake once"
    assert sorted(listed) == sorted(MISTAKES)
    for mistake, (name, rule) in listed.items():
        assert name == MISTAKES[mistake].name, mistake
        assert rule == MISTAKES[mistake].rule, mistake


def test_a_diagnosis_is_aimed_at_the_belief_the_answer_shows():
    """(a+b)·c, asked a.grad once d = a + b is visited with d.grad = 4: 0 is an input given no
    grad or a sum passing on nothing, 2 a sum halving its 4, and never a visit made too early
    (the question is not about the visit order); the diamond's c→a = 3 says the chain rule once."""
    answer = json.loads(handle({"cmd": "load", "preset": "add-mul"}))
    leaf = next(q for q in answer["questions"] if q["id"] == "leaf-a")
    by_value = {e["value"]: e for e in leaf["wrong"]}
    assert by_value[0.0]["mistakes"] == ["input-no-grad", "sum-zero"]
    assert by_value[0.0]["text"].startswith("0 is what a.grad would be if an input got no grad, or takes ∂d/∂a as 0")
    assert "visited" not in by_value[0.0]["text"]
    assert by_value[2.0]["mistakes"] == ["sum-halves"]
    assert "split its grad between its 2 terms" in by_value[2.0]["text"]
    for pid in PRESET_IDS:
        for q in json.loads(handle({"cmd": "load", "preset": pid}))["questions"]:
            for entry in q["wrong"]:
                assert "too-early" not in entry["mistakes"], (pid, q["id"], entry)
    diamond = json.loads(handle({"cmd": "load", "preset": "diamond"}))
    c_to_a = next(q for q in diamond["questions"] if q["id"] == "c-to-a")
    three = next(e for e in c_to_a["wrong"] if e["value"] == 3.0)
    assert three["text"] == (
        "3 is c.grad passed on without the local derivative, or is the local derivative alone, ∂c/∂a = 3. "
        "The chain rule multiplies the local derivative ∂c/∂a = 3 by the upstream grad c.grad = 3: 3 × 3 = 9."
    )
    # the visit order's own question (gradwalk.check, "Your code") still names a visit too early
    graph, backward = engine_graph(get_preset("add-mul")["program"])
    found = wrong_answers(graph, backward, "a.grad", 3)
    assert "too-early" in next(e for e in found["wrong"] if e["value"] == 0.0)["mistakes"]
