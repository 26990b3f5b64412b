"""A preset's named visit order: checked when the presets are read, followed by the default
backward pass, and the same states the lesson text describes.

The lesson graph (a·b + (a + b), a = 2, b = -3) walks e, then the product c, then the sum d;
the checkpoint graph (x·y + (x + y), x = 4, y = -1) walks r, then p, then q. The expected
grads after each visit come from sympy: the partial derivative of the visited node with
respect to each parent, times the visited node's grad, summed over the visits so far.
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from engine.api import handle
from engine.presets import PresetError, get_preset, read_presets
from tests.support.frames import changes


def load(request: dict) -> dict:
    answer = json.loads(handle(request))
    assert answer["ok"], answer
    return answer


def visit_labels(answer: dict, frames: list[dict] | None = None) -> list[str]:
    frames = answer["backward"] if frames is None else frames
    return [answer["nodes"][f["node"]]["label"] for f in frames[1:]]


def grads_after(answer: dict, frame: int) -> dict[str, float]:
    """Every node's grad once backward frames 0..frame are applied (the page's rule)."""
    grads = [0.0] * len(answer["nodes"])
    for f in answer["backward"][: frame + 1]:
        for change in changes(f, answer):
            grads[change["node"]] = change["after"]
    return {node["label"]: grads[node["id"]] for node in answer["nodes"]}


def sympy_grads_after(definitions: dict, output: str, visits: list[str], inputs: dict) -> dict[str, float]:
    """The same state, from symbolic local derivatives: seed the output, then each visit adds
    d(node)/d(parent) × node.grad into each parent."""
    symbols = {name: sp.Symbol(name) for name in [*inputs, *definitions]}
    grads = {name: sp.Integer(0) for name in symbols}
    grads[output] = sp.Integer(1)
    point = {symbols[name]: value for name, value in inputs.items()}
    for node in visits:
        if node in definitions:
            expression = definitions[node](symbols)
            for parent in expression.free_symbols:
                grads[parent.name] += sp.diff(expression, parent) * grads[node]
    return {name: float(sp.sympify(g).subs(point)) for name, g in grads.items()}


LESSON_GRAPH = {"c": lambda s: s["a"] * s["b"], "d": lambda s: s["a"] + s["b"], "e": lambda s: s["c"] + s["d"]}
CHECKPOINT = {"p": lambda s: s["x"] * s["y"], "q": lambda s: s["x"] + s["y"], "r": lambda s: s["p"] + s["q"]}


def test_lesson_graph_visits_the_product_before_the_sum():
    answer = load({"cmd": "load", "preset": "lesson-graph"})
    assert get_preset("lesson-graph")["visit_order"] == ["e", "c", "d", "a", "b"]
    assert visit_labels(answer) == ["e", "c", "d", "a", "b"]
    # Frame 2 is the visit of c: the product has pushed, the sum has not.
    after_c = grads_after(answer, 2)
    assert after_c["a"] == -3 and after_c["b"] == 2
    assert after_c["c"] == 1 and after_c["d"] == 1
    expected = sympy_grads_after(LESSON_GRAPH, "e", ["e", "c"], {"a": 2, "b": -3})
    assert {k: after_c[k] for k in "abcde"} == expected
    # Then the sum: the totals the lesson ends with.
    after_d = grads_after(answer, 3)
    assert after_d["a"] == -2 and after_d["b"] == 3
    assert after_d == sympy_grads_after(LESSON_GRAPH, "e", ["e", "c", "d"], {"a": 2, "b": -3})


def test_checkpoint_state_after_processing_p_is_the_lessons():
    answer = load({"cmd": "load", "preset": "checkpoint"})
    assert visit_labels(answer) == ["r", "p", "q", "x", "y"]
    after_r = grads_after(answer, 1)
    assert (after_r["r"], after_r["p"], after_r["q"]) == (1, 1, 1)
    # "After processing p, x gets -1 and y gets 4."
    after_p = grads_after(answer, 2)
    assert after_p["x"] == -1 and after_p["y"] == 4
    assert after_p == sympy_grads_after(CHECKPOINT, "r", ["r", "p"], {"x": 4, "y": -1})
    # "After processing q, x.grad = 0 and y.grad = 5."
    after_q = grads_after(answer, 3)
    assert after_q["x"] == 0 and after_q["y"] == 5


def test_named_order_is_kept_with_new_input_values_and_in_again():
    answer = load({"cmd": "load", "preset": "lesson-graph", "values": {"a": 5}})
    assert visit_labels(answer) == ["e", "c", "d", "a", "b"]
    assert grads_after(answer, 2)["a"] == -3 and grads_after(answer, 2)["b"] == 5
    checkpoint = load({"cmd": "load", "preset": "checkpoint"})
    again = load({"cmd": "again", "preset": "checkpoint", "zero_grad": True})
    assert again["frames"][0]["kind"] == "zero"  # then the seed and the visits
    assert visit_labels(checkpoint, again["frames"][1:]) == ["r", "p", "q", "x", "y"]


def test_the_same_program_typed_in_walks_reverse_topological_order():
    # The order belongs to the preset: an edited program has no lesson to follow.
    source = get_preset("lesson-graph")["program"]
    answer = load({"cmd": "load", "program": source})
    assert visit_labels(answer) == ["e", "d", "c", "b", "a"]


def test_the_named_order_is_a_correct_order_in_the_experiment():
    answer = load({"cmd": "load", "preset": "lesson-graph", "order": ["e", "c", "d", "a", "b"]})
    experiment = answer["experiment"]
    assert experiment["is_topological"] and experiment["late"] == []
    assert experiment["grads"] == experiment["correct_grads"]


def test_every_preset_without_a_named_order_walks_reverse_topological_order():
    for preset_id in ("add-mul", "diamond", "double-diamond", "cos"):
        assert "visit_order" not in get_preset(preset_id)
        answer = load({"cmd": "load", "preset": preset_id})
        n = len(answer["nodes"])
        assert [f["node"] for f in answer["backward"][1:]] == list(range(n - 1, -1, -1))


PROGRAM = 'program = """\na = 2\nb = -3\nc = a * b\nd = a + b\ne = c + d\n"""\n'


def write_preset(folder, order_line: str):
    (folder / "graph.toml").write_text(
        'title = "t"\nposition = 1\nsummary = "s"\nlesson = "l"\n' + PROGRAM + order_line, encoding="utf-8"
    )


def test_a_valid_named_order_loads(tmp_path):
    write_preset(tmp_path, 'visit_order = ["e", "d", "c", "b", "a"]\n')
    (preset,) = read_presets(tmp_path)
    assert preset["visit_order"] == ["e", "d", "c", "b", "a"]


@pytest.mark.parametrize(
    "order, why",
    [
        ('["c", "e", "d", "a", "b"]', "visits c before e, but e is made from c"),
        ('["e", "c", "a", "d", "b"]', "visits a before d, but d is made from a"),
        ('["e", "c", "d", "a"]', "leaves out b"),
        ('["e", "c", "d", "a", "b", "a"]', "names 'a' twice"),
        ('["e", "c", "d", "a", "z"]', "names 'z', which is not a node"),
        ('"e, c, d, a, b"', "must be a list of node labels"),
    ],
)
def test_an_invalid_named_order_is_an_error_when_presets_are_read(tmp_path, order, why):
    write_preset(tmp_path, f"visit_order = {order}\n")
    with pytest.raises(PresetError) as error:
        read_presets(tmp_path)
    assert str(error.value).startswith("graph.toml: visit_order ")
    assert why in str(error.value)
