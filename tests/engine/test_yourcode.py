"""engine.yourcode: a learner's own Value class run on a graph. A right engine (the exercises'
solutions, micrograd's own file, a microgpt-style class) gets the right grads and no finding on
every preset it can build; each classic mistake is named at its node and at its line; errors
come back as data at the learner's line; the engine's own door never reaches this module."""

import cProfile
import inspect
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import micrograd.engine
import pytest

from engine import yourcode
from engine.api import handle
from engine.presets import load_presets

PRESETS = [preset["id"] for preset in load_presets()]
TENSOR_PRESETS = [preset["id"] for preset in load_presets() if "tensor(" in preset["program"]]
PR64 = "a = 1\nb = a + a\nc = b + b"  # plain recursion visits b twice when _prev keeps both a's

MICROGPT = textwrap.dedent(
    '''
    """A microgpt-style engine: _children and _local_grads, no _backward and no _op."""

    import math


    class Value:
        __slots__ = ("data", "grad", "_children", "_local_grads")

        def __init__(self, data, children=(), local_grads=()):
            self.data = data
            self.grad = 0
            self._children = children
            self._local_grads = local_grads

        def __add__(self, other):
            other = other if isinstance(other, Value) else Value(other)
            return Value(self.data + other.data, (self, other), (1, 1))

        def __mul__(self, other):
            other = other if isinstance(other, Value) else Value(other)
            return Value(self.data * other.data, (self, other), (other.data, self.data))

        def __pow__(self, other):
            return Value(self.data**other, (self,), (other * self.data ** (other - 1),))

        def tanh(self):
            t = math.tanh(self.data)
            return Value(t, (self,), (1 - t**2,))

        def relu(self):
            return Value(max(0, self.data), (self,), (float(self.data > 0),))

        def cos(self):
            return Value(math.cos(self.data), (self,), (-math.sin(self.data),))

        def __neg__(self):
            return self * -1

        def __radd__(self, other):
            return self + other

        def __sub__(self, other):
            return self + (-other)

        def __rmul__(self, other):
            return self * other

        def backward(self):
            topo = []
            visited = set()

            def build_topo(v):
                if v not in visited:
                    visited.add(v)
                    for child in v._children:
                        build_topo(child)
                    topo.append(v)

            build_topo(self)
            self.grad = 1
            for v in reversed(topo):
                for child, local_grad in zip(v._children, v._local_grads):
                    child.grad += local_grad * v.grad
    '''
).lstrip()


def run(source, exercise="engine", **graph):
    return json.loads(yourcode.run(json.dumps({"exercise": exercise, "source": source, **graph})))


def solution(exercise_id):
    return yourcode.exercise(exercise_id)["solution"]


def changed(source, old, new):
    """``source`` with ``old`` replaced (it must be there), and the line ``new`` starts on."""
    assert source.count(old) == 1, old
    edited = source.replace(old, new)
    return edited, edited[: edited.index(new)].count("\n") + 1


def line_of(source, text, after=""):
    """The line ``text`` is on (the first after the line holding ``after``)."""
    start = source.index(after) if after else 0
    return source[: source.index(text, start)].count("\n") + 1


def engine_grads(preset_id):
    """The engine's own answer for a preset: each named node's grad (an independent oracle)."""
    answer = json.loads(handle(json.dumps({"cmd": "load", "preset": preset_id})))
    return {node["label"]: node["grad"] for node in answer["nodes"]}


def assert_right(answer, preset_id):
    assert answer["ok"], answer
    assert answer["findings"] == [], answer["findings"]
    assert set(answer["grads"]) == set(answer["expected"])
    for label, grad in answer["grads"].items():
        assert grad == pytest.approx(answer["expected"][label], rel=1e-9, abs=1e-12), label
    # Every node the program names has the grad the engine's own backward pass gives it.
    own = engine_grads(preset_id)
    # (t1, t2, ... are numbered in the order each graph lists its nodes, and a learner's class
    # may keep its parents in a set: the same number may be another node there)
    named = [label for label in own if label in answer["grads"] and not re.search(r"\bt\d+\b", label)]
    assert len(named) >= 2
    for label in named:
        assert answer["grads"][label] == pytest.approx(own[label], rel=1e-9, abs=1e-12), label
    labels = {node["label"] for node in answer["graph"]["nodes"]}
    assert labels == set(answer["grads"])
    assert sorted(answer["visits"]) and set(answer["visits"]) <= labels
    assert_writes_add_up(answer)


def assert_writes_add_up(answer):
    """Each write sits on an edge from the node being visited into the node written, and the
    writes into a node end at the grad it ends with: the run on screen is the whole run."""
    nodes = [node["label"] for node in answer["graph"]["nodes"]]
    edges = {edge["id"]: edge for edge in answer["graph"]["edges"]}
    last = {}
    for write in answer["writes"]:
        assert write["op"] in ("=", "+=") and isinstance(write["line"], int)
        if write["edge"] is not None:
            edge = edges[write["edge"]]
            assert nodes[edge["parent"]] == write["node"]
            assert nodes[edge["child"]] == answer["visits"][write["visit"]]
        if write["node"] in last:
            assert write["before"] == last[write["node"]]
        last[write["node"]] = write["after"]
    for label, grad in answer["grads"].items():
        assert last.get(label, 0.0) == grad, label


# -- a right engine: right grads, no finding -----------------------------------------------------------------


RIGHT_ENGINES = {
    "mul": solution("mul"),
    "backward": solution("backward"),
    "tanh": solution("tanh"),
    "engine": solution("engine"),
    "microgpt": MICROGPT,
    "micrograd": Path(inspect.getsourcefile(micrograd.engine)).read_text(),  # karpathy's own file
}


@pytest.mark.parametrize("preset_id", TENSOR_PRESETS)
def test_a_tensor_program_is_refused_with_a_sentence(preset_id):
    answer = run(solution("engine"), "engine", preset=preset_id)
    assert not answer["ok"] and answer["error"]["kind"] == "program"
    assert answer["error"]["message"].startswith("Your code runs on programs of single values for now")


@pytest.mark.parametrize("engine_id", RIGHT_ENGINES)
@pytest.mark.parametrize("preset_id", [p for p in PRESETS if p not in TENSOR_PRESETS])
def test_a_right_engine_gets_every_grad_right_and_no_finding(engine_id, preset_id):
    exercise = engine_id if engine_id in yourcode.EXERCISES else "engine"
    answer = run(RIGHT_ENGINES[engine_id], exercise, preset=preset_id)
    if not answer["ok"] and answer["error"]["kind"] == "missing":
        # Only an operation the class really lacks keeps a preset out, and the answer says so.
        error = answer["error"]
        assert preset_id not in error["buildable"]
        assert error["methods"] and error["message"].startswith("Your Value class can't build this graph")
        return
    assert_right(answer, preset_id)


@pytest.mark.parametrize(
    ("engine_id", "at_least"),
    [("mul", 8), ("backward", 11), ("tanh", 9), ("engine", 11), ("microgpt", 11), ("micrograd", 9)],
)
def test_each_right_engine_builds_the_presets_its_operations_allow(engine_id, at_least):
    built = [p for p in PRESETS if run(RIGHT_ENGINES[engine_id], preset=p)["ok"]]
    assert len(built) >= at_least
    if engine_id in ("mul", "micrograd"):
        assert "neuron" not in built  # neither has tanh
    if engine_id == "micrograd":
        assert "relu" in built and "cos" not in built


def test_the_writes_of_a_right_run_follow_its_visits_edge_by_edge():
    source = solution("mul")
    answer = run(source, "mul", program=PR64)
    assert answer["visits"] == ["c", "b", "a"]
    seed, *pushes = answer["writes"]
    assert seed == {
        "node": "c",
        "edge": None,
        "line": line_of(source, "self.grad = 1.0"),
        "op": "=",
        "before": 0.0,
        "after": 1.0,
        "visit": None,
    }
    edges = {edge["id"]: edge for edge in answer["graph"]["edges"]}
    labels = [node["label"] for node in answer["graph"]["nodes"]]
    add_lines = {line_of(source, "self.grad += 1.0"), line_of(source, "other.grad += 1.0")}
    assert [w["node"] for w in pushes] == ["b", "b", "a", "a"]
    for write in pushes:
        edge = edges[write["edge"]]
        assert labels[edge["parent"]] == write["node"]
        assert labels[edge["child"]] == answer["visits"][write["visit"]]
        assert write["op"] == "+=" and write["line"] in add_lines
        assert write["after"] == write["before"] + edge["local"] * answer["grads"][labels[edge["child"]]]
    assert len({w["edge"] for w in pushes}) == 4  # a + a: one write on each of its two edges
    assert answer["grads"] == answer["expected"] == {"a": 4.0, "b": 2.0, "c": 1.0}


def test_a_microgpt_run_is_visited_through_its_pushes():
    answer = run(MICROGPT, program=PR64)
    assert answer["visits"] == ["c", "b"]  # an input pushes nothing: no visit to see
    pushes = [w for w in answer["writes"] if w["visit"] is not None]
    assert [(w["node"], w["op"]) for w in pushes] == [("b", "+="), ("b", "+="), ("a", "+="), ("a", "+=")]
    assert {w["line"] for w in pushes} == {line_of(MICROGPT, "child.grad += local_grad")}


def test_new_input_values_build_the_graph_at_those_values():
    answer = run(solution("engine"), preset="diamond", values={"a": 3})
    assert answer["ok"]
    assert answer["expected"]["a"] == answer["grads"]["a"] == 6 * 3 + 3  # d = (a + 1) * 3a = 3a² + 3a: 6a + 3
    assert {n["label"]: n["data"] for n in answer["graph"]["nodes"]}["d"] == 36


# -- each classic mistake, at its node and its line ---------------------------------------------------------------


def findings(answer, kind=None):
    assert answer["ok"], answer
    return [f for f in answer["findings"] if kind is None or f["kind"] == kind]


def test_equals_instead_of_plus_equals_is_one_finding_where_it_overwrote_naming_every_node():
    source, plain = changed(solution("mul"), "self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad")
    source, line = changed(source, "other.grad += 1.0 * out.grad", "other.grad = 1.0 * out.grad")
    answer = run(source, "mul", program=PR64)
    assert answer["grads"]["a"] == 1.0 and answer["expected"]["a"] == 4.0
    [finding] = findings(answer)  # one mistake, one finding: the grad findings of b and a are in it
    assert (finding["node"], finding["nodes"], finding["line"], finding["mistake"]) == (
        "b",
        ["b", "a"],
        line,
        "overwrite",
    )
    assert finding["text"] == (
        f"line {line}: `other.grad = …` overwrote b's 1 with 1, so b.grad ends at 1 instead of 2. The same line "
        "overwrote a's 1 with 1 too, so a.grad ends at 1 instead of 4. A grad adds every contribution it receives "
        f"(+=); = keeps only the last. Line {plain} writes a grad with = too."
    )
    assert [w["op"] for w in answer["writes"] if w["line"] == line] == ["=", "="]


def test_equals_that_loses_nothing_on_this_graph_is_still_named():
    source, line = changed(solution("mul"), "self.grad += other.data * out.grad", "self.grad = other.data * out.grad")
    answer = run(source, "mul", preset="add-mul")  # every node used once: the grads come out right
    assert answer["grads"] == answer["expected"]
    [finding] = findings(answer)
    assert (finding["node"], finding["line"], finding["mistake"]) == ("d", line, "overwrite")
    assert "nothing was lost in this run" in finding["text"]
    assert answer["set_order"] is None


def diamond_with_equals():
    """The mul exercise with = for += in both _backwards (issue 32's run, on the diamond)."""
    source = solution("mul")
    for old in ("self.grad += 1.0", "other.grad += 1.0", "self.grad += other.data", "other.grad += self.data"):
        source, _ = changed(source, old, old.replace("+=", "="))
    return source


def test_one_mistake_in_four_lines_on_the_diamond_is_one_finding_whose_line_tags_its_node():
    source = diamond_with_equals()
    answer = run(source, "mul", preset="diamond")
    [finding] = findings(answer)
    assert finding["kind"] == "overwrite" and finding["nodes"] == ["a"]
    # Its line is the = that lost a's first contribution in this run's order (the set decides which).
    lost = [w for w in answer["writes"] if w["node"] == "a" and w["op"] == "=" and w["before"] != 0]
    assert [w["line"] for w in lost] == [finding["line"]]
    assert finding["text"].startswith(f"line {finding['line']}: `self.grad = …` overwrote a's ")
    writes = ("self.grad = 1.0", "other.grad = 1.0", "self.grad = other", "other.grad = self")
    others = sorted({line_of(source, text) for text in writes} - {finding["line"]})
    assert f"Lines {others[0]}, {others[1]} and {others[2]} write a grad with = too." in finding["text"]
    # Every node the findings name is a node of the graph, and each node is named by one finding.
    named = [node for f in answer["findings"] for node in f["nodes"]]
    assert len(named) == len(set(named)) and set(named) <= set(answer["grads"])


def test_the_numbers_in_operations_are_constants_not_inputs():
    answer = run(diamond_with_equals(), "mul", preset="diamond")  # b = a + 1, c = 3 * a: Value(1), Value(3)
    assert answer["constants"] == ["1", "3"]
    nodes = {node["label"]: node for node in answer["graph"]["nodes"]}
    assert [nodes[label]["is_input"] for label in ("a", "1", "3")] == [True, False, False]
    assert nodes["1"]["is_constant"] and nodes["3"]["is_constant"] and "is_constant" not in nodes["a"]
    assert [answer["graph"]["nodes"][i]["label"] for i in answer["graph"]["inputs"]] == ["a"]
    assert all(label not in answer["constants"] for f in answer["findings"] for label in f["nodes"])
    # microgpt's wrapping too; a graph with no number in an operation has none.
    assert run(MICROGPT, preset="diamond")["constants"] == ["1", "3"]
    assert run(solution("mul"), "mul", preset="reuse")["constants"] == []


def test_a_result_that_depends_on_a_sets_order_names_the_line_that_walks_it_and_the_node():
    source = diamond_with_equals()
    answer = run(source, "mul", preset="diamond")
    order = answer["set_order"]
    walk = line_of(source, "for child in v._prev:")
    assert (order["line"], order["attribute"], order["node"]) == (walk, "_prev", "a")
    assert {order["grad"], order["other"]} == {6.0, 9.0} and order["grad"] == answer["grads"]["a"]
    [finding] = findings(answer)
    assert "a" in finding["nodes"]
    assert (
        f"Your grads also depend on the order of a set: line {walk} walks a node's _prev, a set, and Python "
        f"doesn't fix the order of a set's items. In this run a.grad ended at {order['grad']:g}, in the other order "
        f"at {order['other']:g}; the right grad is 15."
    ) in finding["text"]


def test_a_right_engine_and_a_tuple_of_parents_depend_on_no_order():
    assert run(solution("mul"), "mul", preset="diamond")["set_order"] is None
    assert run(MICROGPT, preset="diamond")["set_order"] is None


def test_equals_that_loses_nothing_in_this_order_is_told_the_other_order_loses():
    """= only in __add__'s push into self: whether it loses a's contribution through c depends on
    whether the set {b, c} is walked b first. Either way the run says that it depends, at its line."""
    source, line = changed(solution("mul"), "self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad")
    answer = run(source, "mul", preset="diamond")
    [finding] = findings(answer)
    assert (finding["kind"], finding["line"], finding["nodes"]) == ("overwrite", line, ["a"])
    order = answer["set_order"]
    assert order["node"] == "a" and {order["grad"], order["other"]} == {6.0, 15.0}
    assert "Your grads also depend on the order of a set" in finding["text"]
    if answer["grads"]["a"] == 15.0:  # this order lost nothing: the sentence says so, and the other order
        assert "nothing was lost in this run" in finding["text"] and "in the other order at 6" in finding["text"]


def test_the_own_value_instead_of_the_other_inputs_is_named_at_the_push():
    source, line = changed(solution("mul"), "self.grad += other.data * out.grad", "self.grad += self.data * out.grad")
    answer = run(source, "mul", preset="add-mul")  # e = d * c, with d = 5 and c = 4
    [local] = findings(answer, "local")
    assert (local["node"], local["line"], local["mistake"]) == ("d", line, "own-value")
    assert local["text"] == (
        f"line {line}: in e = d * c, your code gives d the local derivative 5, which uses d's own value, 5, "
        "for ∂e/∂d. A product passes each side the other side's value: ∂e/∂d = c = 4. After your backward(), a.grad "
        "is 5 instead of 4 and b.grad 5 instead of 4."
    )
    assert local["nodes"] == ["d", "a", "b"]  # the grads it left wrong upstream are its own too
    assert [f["kind"] for f in findings(answer)] == ["local"]
    assert answer["grads"]["d"] == 5.0 and answer["expected"]["d"] == 4.0


NO_VISITED_SET = (
    "            if v not in visited:\n"
    "                visited.add(v)\n"
    "                for child in v._prev:\n"
    "                    build_topo(child)\n"
    "                topo.append(v)\n",
    "            for child in v._prev:\n                build_topo(child)\n            topo.append(v)\n",
)


def test_a_sort_without_a_visited_set_is_named_where_it_adds_a_node_again():
    source, _ = changed(solution("backward"), *NO_VISITED_SET)
    answer = run(source, "backward", preset="double-diamond")  # c and d are each used by e and by f
    [repeat] = findings(answer, "repeat")  # one mistake, one finding: c and d listed twice by one line
    assert {"c", "d"} <= set(repeat["nodes"]) and repeat["line"] == line_of(source, "topo.append(v)")
    assert "is its visited set missing?" in repeat["text"]
    assert {"a", "b"} <= set(repeat["nodes"])  # the grads it left wrong
    assert [f["kind"] for f in findings(answer)] == ["repeat"]
    assert answer["visits"].count("c") == 2
    assert answer["grads"]["a"] != answer["expected"]["a"]


def test_walking_the_order_forwards_is_named_at_the_loop_with_the_lost_paths():
    source, line = changed(solution("backward"), "for v in reversed(topo):", "for v in topo:")
    answer = run(source, "backward", preset="diamond")
    [order] = findings(answer)  # one finding, at the _backward() call, for both nodes visited too early
    assert (order["kind"], order["line"], order["mistake"]) == ("order", line + 1, "too-early")
    assert order["nodes"] == ["b", "c", "a"]  # and a, whose grad it left wrong
    assert order["text"].startswith(f"line {line + 1}: b was visited before d had added its contribution to b")
    assert "c was visited before d had added its contribution to c" in order["text"]
    assert "a.grad is 0, not 15" in order["text"] and order["text"].endswith(
        "Visit a node only after every node that uses it, so its grad is complete when it passes it on."
    )
    assert order["text"].count("Visit a node only after") == 1
    # The constants 1 and 3 (b = a + 1, c = 3 * a) are no inputs: no path from them, no grad of theirs.
    assert "the path a → b → d never reached a: a.grad is 0, not 15." in order["text"]
    assert "1 →" not in order["text"] and "3.grad" not in order["text"]
    assert answer["visits"][-1] == "d"


def test_plain_recursion_instead_of_a_sort_is_named_at_the_recursive_visit():
    source, _ = changed(solution("backward"), "self._prev = set(_children)", "self._prev = tuple(_children)")
    start, end = source.index("        # >>> write here"), source.index("        # <<<")
    recursive = (
        "        # >>> write here\n"
        "        self.grad = 1.0\n"
        "        self.walk()\n"
        "\n"
        "    def walk(self):\n"
        "        self._backward()\n"
        "        for child in self._prev:\n"
        "            child.walk()\n"
    )
    source = source[:start] + recursive + source[end:]
    answer = run(source, "backward", program=PR64)
    [repeat] = findings(answer, "repeat")
    assert (repeat["node"], repeat["line"]) == ("b", line_of(source, "self._backward()", after="def walk"))
    assert answer["grads"]["a"] == 8.0 and answer["expected"]["a"] == 4.0
    assert answer["visits"][:3] == ["c", "b", "a"] and answer["visits"].count("b") == 2


def test_a_backward_without_the_seed_is_named_at_the_output():
    source, _ = changed(solution("backward"), "        self.grad = 1.0\n", "")
    answer = run(source, "backward", preset="diamond")
    [seed] = findings(answer)  # every grad stays 0: said once, at the output
    assert (seed["node"], seed["line"], seed["mistake"]) == ("d", line_of(source, "def backward"), "seed-zero")
    assert seed["text"].endswith("The seed is ∂d/∂d = 1: nudge d by h and d moves by h.")
    assert seed["nodes"] == ["d", "a", "b", "c"]  # every grad it left at 0
    assert set(answer["grads"].values()) == {0.0}


def test_a_tanh_derivative_written_with_the_input_is_named_at_its_line():
    source, line = changed(solution("tanh"), "self.grad += (1 - t**2) * out.grad", "self.grad += (1 - x**2) * out.grad")
    answer = run(source, "tanh", preset="neuron")
    [local] = findings(answer, "local")
    assert (local["node"], local["line"], local["mistake"]) == ("n", line, "tanh-input")
    assert "uses 1 − x² with the input n = 0.8814" in local["text"]
    assert "tanh′ is 1 − t² with the output t = o = 0.7071" in local["text"]
    assert findings(answer) == [local]  # its consequences are said in it, with their numbers
    assert "After your backward(), x1.grad is -0.6695 instead of -1.5, w1.grad 0.4464 instead of 1" in local["text"]
    assert {"x1", "w1", "x2", "b"} <= set(local["nodes"]) and "w2" not in local["nodes"]  # w2.grad is right: 0


def test_the_scaffolds_run_and_their_empty_parts_are_found_wanting():
    for exercise_id, preset_id in (("mul", "add-mul"), ("backward", "diamond"), ("tanh", "neuron")):
        scaffold = yourcode.exercise(exercise_id)["scaffold"]
        answer = run(scaffold, exercise_id, preset=preset_id)
        assert answer["ok"] and answer["findings"], exercise_id
        assert answer["grads"] != answer["expected"]
    answer = run(yourcode.exercise("engine")["scaffold"], preset="add-mul")
    assert answer["error"]["kind"] == "missing" and answer["error"]["buildable"] == []


def test_an_empty_backward_closure_is_one_finding_at_its_def_naming_each_input():
    scaffold = yourcode.exercise("mul")["scaffold"]
    answer = run(scaffold, "mul", preset="add-mul")  # d = a + b, e = d * c
    at = {
        "+": line_of(scaffold, "def _backward():", after="def __add__"),
        "*": line_of(scaffold, "def _backward():", after="def __mul__"),
    }
    found = [(f["nodes"], f["line"], f["kind"]) for f in findings(answer)]
    assert found == [(["c", "d"], at["*"], "local"), (["b", "a"], at["+"], "local")]
    [at_mul, _] = findings(answer)
    assert at_mul["text"] == (
        f"line {at['*']}: in e = c * d, your code gives c the local derivative 0, but the rule for * gives 5. "
        "The same line gives d the local derivative 0 in e = c * d, where the rule gives 4."
    )


def test_a_scaffold_is_its_solution_with_each_marked_part_left_to_write():
    for exercise_id in yourcode.EXERCISES:
        found = yourcode.exercise(exercise_id)
        solution_lines, scaffold_lines = found["solution"].splitlines(), found["scaffold"].splitlines()
        assert found["title"] and found["solution"].startswith('"""')
        marks = [i for i, line in enumerate(solution_lines) if "# >>> write here:" in line]
        assert marks, exercise_id
        assert found["scaffold"] != found["solution"] and len(scaffold_lines) <= len(solution_lines)
        assert [line for line in scaffold_lines if line.strip() == "pass"] == [
            solution_lines[i][: len(solution_lines[i]) - len(solution_lines[i].lstrip())] + "pass" for i in marks
        ]
        compile(found["scaffold"], "<scaffold>", "exec")
    with pytest.raises(KeyError):
        yourcode.exercise("nope")


# -- errors, at the learner's line ------------------------------------------------------------------------------


def test_a_syntax_error_comes_back_at_its_line_and_column():
    answer = run("class Value:\n    def f(self)\n        pass\n", preset="diamond")
    assert answer == {
        "ok": False,
        "error": {"kind": "syntax", "message": "SyntaxError: expected ':'", "line": 2, "col": 16},
    }


def test_an_exception_in_their_backward_comes_back_at_their_line():
    source, line = changed(solution("mul"), "other.grad += self.data * out.grad", "other.grad += self.data * out.grd")
    error = run(source, "mul", preset="add-mul")["error"]
    assert error == {
        "kind": "runtime",
        "message": "AttributeError: 'Value' object has no attribute 'grd'",
        "type": "AttributeError",
        "line": line,
    }


def test_an_exception_while_building_comes_back_at_their_line():
    source, line = changed(solution("engine"), "e = math.exp(self.data)", "e = math.exp(self.data) / 0")
    answer = run(source, program="a = 1\nb = exp(a)")
    assert answer["error"] == {
        "kind": "runtime",
        "message": "ZeroDivisionError: float division by zero",
        "type": "ZeroDivisionError",
        "line": line,
    }


def test_module_level_errors_and_a_missing_class():
    assert run("import sys\nsys.exit(3)\n", preset="diamond")["error"] == {
        "kind": "runtime",
        "message": "SystemExit: 3",
        "type": "SystemExit",
        "line": 2,
    }
    assert run("x = 1\n", preset="diamond")["error"]["kind"] == "value"


def test_an_endless_loop_is_stopped_with_its_line():
    trace = sys.gettrace()
    source, line = changed(solution("mul"), "        self.grad = 1.0\n", "        while True: pass\n")
    error = run(source, "mul", preset="reuse")["error"]
    assert error["kind"] == "steps" and error["line"] == line
    assert "endless loop" in error["message"]
    assert sys.gettrace() is trace  # whatever traced before (a debugger, coverage) traces again


def test_a_missing_operation_is_named_with_the_graphs_the_class_can_build():
    error = run(solution("mul"), "mul", preset="cos")["error"]
    assert error["kind"] == "missing"
    assert error["missing"] == ["-", "**", "cos"] and error["methods"] == ["__sub__", "__pow__", "cos"]
    assert error["program_line"] == 3 and "line" not in error  # a line of the program, not of their code
    assert "it has no - (__sub__), used on line 3" in error["message"]
    needs_more = ("relu", "neuron", "cos", "small-network", *TENSOR_PRESETS)
    assert error["buildable"] == [p for p in PRESETS if p not in needs_more]
    reflected = run(solution("engine").replace("def __rmul__", "def _rmul"), program="a = 2\nb = 3 * a")["error"]
    assert reflected["missing"] == ["__rmul__"] and "for a number * a Value" in reflected["message"]


def test_an_operator_that_returns_a_number_is_refused():
    source = solution("mul").replace("        return out\n\n    def __mul__", "        return 1.0\n\n    def __mul__")
    error = run(source, "mul", preset="reuse")["error"]
    assert error["kind"] == "graph" and error["message"].startswith("Your __add__ returned 1.0 instead of a new Value")


@pytest.mark.parametrize(
    ("request_text", "kind"),
    [
        ("not json", "request"),
        (json.dumps({"exercise": "nope", "source": "", "preset": "diamond"}), "request"),
        (json.dumps({"exercise": "engine", "source": 3, "preset": "diamond"}), "request"),
        (json.dumps({"exercise": "engine", "source": "", "preset": "nope"}), "request"),
        (json.dumps({"exercise": "engine", "source": "", "program": "a = 2", "preset": "diamond"}), "request"),
        (json.dumps({"exercise": "engine", "source": "", "program": "import os"}), "program"),
    ],
)
def test_a_bad_request_is_an_error_never_an_exception(request_text, kind):
    answer = json.loads(yourcode.run(request_text))
    assert answer["ok"] is False and answer["error"]["kind"] == kind
    assert answer["error"]["message"]


def test_a_program_outside_the_subset_is_refused_before_their_code_runs():
    answer = run("raise SystemExit('ran')", program="a = 2\nfor i in x: pass")
    assert answer["error"]["kind"] == "program" and answer["error"]["line"] == 2


# -- the engine's own door never reaches this module ------------------------------------------------------------


def test_the_engine_api_never_imports_or_dispatches_to_yourcode():
    script = (
        "import json, sys\n"
        "from engine.api import handle\n"
        "for cmd in ('load', 'run', 'yourcode'):\n"
        "    handle(json.dumps({'cmd': cmd, 'preset': 'diamond', 'source': 'class Value: pass'}))\n"
        "print('engine.yourcode' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
    answer = json.loads(handle(json.dumps({"cmd": "run", "exercise": "engine", "source": "", "preset": "diamond"})))
    assert answer["ok"] is False and answer["error"]["kind"] == "request"


# -- the same mistakes in microgpt's way, where the pushes show the visits ---------------------------------------


def test_microgpt_walking_forwards_is_named_at_the_push_loop():
    source, _ = changed(MICROGPT, "for v in reversed(topo):", "for v in topo:")
    answer = run(source, preset="diamond")
    [order] = findings(answer)  # the order's sentences say which grads are wrong
    assert (order["kind"], order["line"], order["mistake"]) == ("order", line_of(source, "child.grad += local_grad"),
                                                                  "too-early")  # fmt: skip
    assert order["node"] == "b" and sorted(order["nodes"]) == ["a", "b", "c"]
    assert not answer["notes"]


def test_microgpt_equals_instead_of_plus_equals_is_named_where_it_overwrote():
    source, line = changed(MICROGPT, "child.grad += local_grad * v.grad", "child.grad = local_grad * v.grad")
    answer = run(source, preset="diamond")  # a gets 9 through c, then 6 through b
    [finding] = findings(answer)
    assert (finding["node"], finding["line"], finding["mistake"]) == ("a", line, "overwrite")
    assert finding["text"].startswith(f"line {line}: `child.grad = …` overwrote a's ")


def test_microgpt_without_a_visited_set_is_named_where_it_lists_a_node_again():
    source, _ = changed(
        MICROGPT,
        "            if v not in visited:\n"
        "                visited.add(v)\n"
        "                for child in v._children:\n"
        "                    build_topo(child)\n"
        "                topo.append(v)\n",
        "            for child in v._children:\n                build_topo(child)\n            topo.append(v)\n",
    )
    answer = run(source, preset="double-diamond")
    [repeat] = findings(answer, "repeat")
    assert {"c", "d"} <= set(repeat["nodes"]) and repeat["line"] == line_of(source, "topo.append(v)")


def test_a_constructor_that_doesnt_take_one_number_is_named_at_its_def():
    source = "class Value:\n    def __init__(self, data, label):\n        self.data = data\n" + "\n".join(
        solution("mul").split("class Value:\n", 1)[1].splitlines()[5:]
    )
    answer = run(source, "mul", preset="reuse")
    assert answer["error"]["kind"] == "runtime" and answer["error"]["type"] == "TypeError"
    assert answer["error"]["line"] == 2
    assert "label" in answer["error"]["message"]


@pytest.mark.parametrize(
    "hostile",
    [
        "import json\njson.dumps = None\njson.loads = None\nclass Value: pass\n",
        "import builtins\ndel builtins.isinstance\nclass Value: pass\n",
        "import sys\nsys.modules.clear()\nclass Value: pass\n",
    ],
    ids=["breaks json", "deletes a builtin", "clears sys.modules"],
)
def test_code_that_breaks_its_own_python_still_gets_an_answer(hostile):
    # In a fresh interpreter: the damage must not reach this one.
    script = (
        "import json, sys\n"
        "from engine import yourcode\n"
        "request = json.dumps({'exercise': 'engine', 'source': sys.argv[1], 'preset': 'diamond'})\n"
        "answer = yourcode.run(request)\n"
        "sys.stdout.write(answer)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script, hostile], cwd=root, capture_output=True, text=True, timeout=60, check=True
    )
    answer = json.loads(done.stdout)
    assert answer["ok"] is False and answer["error"]["message"]


def test_a_profiler_already_running_keeps_running_and_the_run_still_answers():
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        answer = run(solution("mul"), "mul", program=PR64)
        still = sys.getprofile()
    finally:
        profiler.disable()
    assert still is not None
    assert answer["ok"] and answer["grads"] == answer["expected"]
    assert answer["visits"] == ["c", "b", "a"]
