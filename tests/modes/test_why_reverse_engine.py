"""Why reverse mode: path sums, naive recursion, pull vs push, forward mode, backward twice,
gradient descent. Every mode's numbers against the correct backward pass, and the facts the
engine states for the page (what repeats in the naive recursion, the descent frames)."""

import json
import math

import pytest

from engine import Program
from engine.api import handle
from engine.presets import load_presets
from tests.support.presets import expected_nodes

PRESETS = [p["id"] for p in load_presets()]


def ask(**request):
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"], answer.get("error")
    return answer


def correct(preset):
    answer = ask(cmd="load", preset=preset)
    return {answer["nodes"][i]["label"]: answer["nodes"][i]["grad"] for i in answer["inputs"]}


@pytest.mark.parametrize("preset", PRESETS)
def test_path_sums_equal_the_grads_on_every_preset(preset):
    for label, grad in correct(preset).items():
        answer = ask(cmd="paths", preset=preset, wrt=label)
        assert answer["sum"] == pytest.approx(grad, rel=1e-12, abs=1e-12)
        assert answer["path_count"] == len(answer["paths"])
        assert sum(p["product"] for p in answer["paths"]) == pytest.approx(grad, rel=1e-12, abs=1e-12)
        for path in answer["paths"]:
            assert math.prod(path["locals"]) == pytest.approx(path["product"], rel=1e-12)


def test_diamond_has_two_paths_from_a():
    answer = ask(cmd="paths", preset="diamond", wrt="a")
    labels = ["a", "b", "c", "d"]
    assert sorted((tuple(labels[n] for n in p["nodes"]), p["product"]) for p in answer["paths"]) == [
        (("a", "b", "d"), 6.0),
        (("a", "c", "d"), 9.0),
    ]
    assert answer["frames"][-1]["text"].endswith("running sum 6 → 15.") or answer["frames"][-1]["text"].endswith(
        "running sum 9 → 15."
    )


def test_path_enumeration_cost_grows_exponentially_but_backward_stays_linear():
    rows = ask(cmd="growth", family="diamonds", sizes=[1, 2, 4, 8, 16])["rows"]
    assert [r["paths"] for r in rows] == [2, 4, 16, 256, 65536]
    assert [r["backward_multiplications"] for r in rows] == [4, 8, 16, 32, 64]
    assert all(r["path_multiplications"] > r["backward_multiplications"] for r in rows[1:])
    neuron = ask(cmd="growth", family="neuron", sizes=[2, 8])["rows"]
    assert [r["inputs"] for r in neuron] == [5, 17]


def test_growth_counts_match_enumeration_on_small_graphs():
    from engine.graph import Graph
    from engine.modes.paths import costs, family_program, path_sums

    graph = Graph.of(Program.parse(family_program("diamonds", 5)).output)
    listed = path_sums(graph, graph.inputs[0], 0.0)["paths"]
    assert costs(graph)["paths"] == len(listed) == 32
    assert costs(graph)["path_multiplications"] == sum(len(p["edges"]) - 1 for p in listed)


def test_naive_recursion_double_counts_a_shared_intermediate():
    answer = ask(cmd="naive", program="a = 1\nb = a + a\nc = b + b")
    assert answer["grads"][0] == 6.0 and answer["correct_grads"][0] == 4.0
    assert [r["resent"] for r in answer["resends"]] == [1.0]
    assert answer["explanation"][-1] == "Result: a.grad is 6, not 4."
    assert "b is used more than once" in answer["explanation"][0]


def test_naive_recursion_says_which_sends_repeat_and_how_much():
    # a = 1; b = a + a; c = b + b. Nodes a, b, c are 0, 1, 2; edges 0, 1 are b's (a → b), 2, 3 are c's.
    answer = ask(cmd="naive", program="a = 1\nb = a + a\nc = b + b")
    sends = [(f["node"], f["pushes"][0]["parent"], f["upstream"]) for f in answer["frames"][1:]]
    # c sends 1 to b, b (called with 1) sends 1 to a twice; c sends 1 to b again, and b is
    # called again with its running total 2, of which the 1 it passed on before repeats.
    assert sends == [(2, 1, 1.0), (1, 0, 1.0), (1, 0, 1.0), (2, 1, 1.0), (1, 0, 2.0), (1, 0, 2.0)]
    assert [f["upstream_resent"] for f in answer["frames"]] == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert [f["carried"] for f in answer["frames"]] == [[], [], [], [], [], [0], [0, 1]]
    assert [f["calls"] for f in answer["frames"]] == [
        None,
        {"node": 1, "again": False},
        None,
        None,
        {"node": 1, "again": True},
        None,
        None,
    ]
    assert answer["received"] == [
        {
            "node": 0,
            "parts": [
                {"frame": 2, "contribution": 1.0, "resent": 0.0},
                {"frame": 3, "contribution": 1.0, "resent": 0.0},
                {"frame": 5, "contribution": 2.0, "resent": 1.0},
                {"frame": 6, "contribution": 2.0, "resent": 1.0},
            ],
        }
    ]
    assert 1 + 1 + 2 + 2 == answer["grads"][0] == 6.0  # the two re-sent 1s are the double count (truth: 4)


@pytest.mark.parametrize("preset", PRESETS)
def test_what_each_input_received_adds_up_to_its_naive_grad(preset):
    answer = ask(cmd="naive", preset=preset)
    load = ask(cmd="load", preset=preset)
    assert [r["node"] for r in answer["received"]] == load["inputs"]
    for received in answer["received"]:
        total = 0.0
        for part in received["parts"]:
            total += part["contribution"]
            frame = answer["frames"][part["frame"]]
            assert frame["pushes"][0]["parent"] == received["node"] and frame["calls"] is None
        assert total == answer["grads"][received["node"]]
    # Nothing repeats when only inputs are shared, and then nothing is carried.
    if not answer["resends"]:
        assert all(f["upstream_resent"] == 0 and f["carried"] == [] for f in answer["frames"])


@pytest.mark.parametrize("preset", ["xx-xy", "diamond", "square"])
def test_naive_recursion_agrees_when_only_inputs_are_shared(preset):
    answer = ask(cmd="naive", preset=preset)
    load = ask(cmd="load", preset=preset)
    got = {load["nodes"][i]["label"]: answer["grads"][i] for i in load["inputs"]}
    expected = expected_nodes(preset)
    assert got == {label: expected[label][1] for label in got}  # these presets' grads are integers
    assert answer["shared_intermediates"] == [] and answer["resends"] == []
    assert "gets every grad right" in answer["explanation"][0]


def test_naive_recursion_stops_on_exponential_blowup():
    lines = ["x0 = 1"] + [f"x{i + 1} = x{i} + x{i}" for i in range(20)]
    answer = ask(cmd="naive", program="\n".join(lines))
    assert answer["truncated"] and len(answer["frames"]) == 2000


def test_pull_and_push_fail_differently_on_the_diamond():
    # A leaf placed early: harmless in push mode, loses both paths in pull mode.
    push = ask(cmd="load", preset="diamond", order=["a", "d", "b", "c"], rule="push")["experiment"]
    pull = ask(cmd="load", preset="diamond", order=["a", "d", "b", "c"], rule="pull")["experiment"]
    assert push["grads"][0] == 15.0 and push["late"] == []
    assert "does no harm" in push["harmless"][0]["text"]
    assert pull["grads"][0] == 0.0 and pull["lost_path_count"] == 2
    assert pull["explanation"][0].startswith("a pulled from b before b had been visited")
    # a before c only: pull loses the path through c.
    pull = ask(cmd="load", preset="diamond", order=["d", "b", "a", "c"], rule="pull")["experiment"]
    assert pull["grads"][0] == 6.0
    assert "the path a → c → d never reached a: a.grad is 6, not 15" in pull["explanation"][0]
    # The output anywhere is harmless in pull mode; b before d is harmful in push mode only.
    pull = ask(cmd="load", preset="diamond", order=["b", "d", "c", "a"], rule="pull")["experiment"]
    push = ask(cmd="load", preset="diamond", order=["b", "d", "c", "a"], rule="push")["experiment"]
    assert pull["grads"][0] == 15.0 and push["grads"][0] == 9.0


@pytest.mark.parametrize("preset", PRESETS)
def test_pull_in_a_correct_order_gives_the_right_grads(preset):
    load = ask(cmd="load", preset=preset)
    order = [n["label"] for n in reversed(load["nodes"])]
    pull = ask(cmd="load", preset=preset, order=order, rule="pull")["experiment"]
    assert pull["grads"] == pytest.approx([n["grad"] for n in load["nodes"]], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("preset", PRESETS)
def test_forward_mode_tangents_equal_reverse_mode_grads(preset):
    for label, grad in correct(preset).items():
        answer = ask(cmd="forward", preset=preset, wrt=label)
        assert answer["derivative"] == pytest.approx(grad, rel=1e-12, abs=1e-12)
        assert answer["passes_for_all_inputs"] == len(correct(preset))


def test_backward_twice_without_zero_grad_accumulates_like_micrograd():
    answer = ask(cmd="again", preset="square")
    assert answer["grads"] == [12.0, 1.0]  # a.grad doubles: 6 → 12
    answer = ask(cmd="again", preset="diamond")
    assert answer["grads"] == [45.0, 12.0, 6.0, 1.0]
    # The same as calling Value.backward() twice.
    p = Program.parse(ask(cmd="preset", id="diamond")["preset"]["program"])
    p.output.backward()
    p.output.backward()
    assert [v.grad for v in p.nodes] == answer["grads"]
    fixed = ask(cmd="again", preset="diamond", zero_grad=True)
    assert fixed["grads"] == [15.0, 6.0, 3.0, 1.0]
    assert fixed["frames"][0]["kind"] == "zero"


def test_gradient_descent_decreases_the_cos_example():
    answer = ask(cmd="descent", preset="cos", inputs=["x1", "x2"], rate=0.1, steps=20)
    outputs = [h["output"] for h in answer["history"]]
    assert outputs[0] == pytest.approx(0.01001, abs=1e-5)
    assert all(b < a for a, b in zip(outputs, outputs[1:]))
    first = answer["history"][0]
    second = answer["history"][1]
    assert second["values"]["x1"] == pytest.approx(1 - 0.1 * first["grads"]["x1"])
    ascent = ask(cmd="descent", preset="cos", inputs=["x1"], rate=0.1, steps=5, ascend=True)
    assert ascent["history"][-1]["output"] > ascent["history"][0]["output"]


def test_gradient_descent_stops_when_it_diverges():
    answer = ask(cmd="descent", program="x = 3\ny = exp(x * x)", inputs=["x"], rate=10, steps=50, ascend=True)
    assert answer["stopped"] and len(answer["history"]) < 51


def test_descent_moves_answer_with_frames_a_hand_computation_gives():
    # The diamond: d = (a + 1) * 3a = 3a² + 3a, so a.grad = 6a + 3. At a = 2: d = 18, a.grad = 15.
    answer = ask(cmd="descent", preset="diamond", moves=[{"rate": 0.1}, {"ascend": True, "rate": 0.5, "inputs": ["a"]}])
    assert answer["stopped"] is None
    assert [(h["values"], h["output"], h["grads"]) for h in answer["history"]] == [
        ({"a": 2.0}, 18.0, {"a": 15.0}),
        ({"a": 0.5}, 2.25, {"a": 6.0}),  # a = 2 - 0.1 × 15; d = 0.75 + 1.5; a.grad = 3 + 3
        ({"a": 3.5}, 47.25, {"a": 24.0}),  # a = 0.5 + 0.5 × 6; d = 36.75 + 10.5; a.grad = 21 + 3
    ]
    start, down, up = answer["frames"]
    assert start == {
        "kind": "descent",
        "node": 3,
        "line": 4,
        "pushes": [],
        "changes": [],
        "text": "Start: d = 18 at a = 2.",
    }
    assert down["text"] == ("Step 1 (descend): a = 2 − 0.1 × 15 = 0.5. Forward and backward again: d 18 → 2.25 (down).")
    assert (down["ascend"], down["rate"], down["moved"]) == (False, 0.1, [0])
    # b = a + 1 and c = 3a; b.grad = c and c.grad = b; d.grad stays 1, so it is not a change.
    assert [(c["node"], c["field"], c["before"], c["after"]) for c in down["changes"]] == [
        (0, "data", 2.0, 0.5),
        (0, "grad", 15.0, 6.0),
        (1, "data", 3.0, 1.5),
        (1, "grad", 6.0, 1.5),
        (2, "data", 6.0, 1.5),
        (2, "grad", 3.0, 1.5),
        (3, "data", 18.0, 2.25),
    ]
    assert up["text"] == ("Step 2 (ascend): a = 0.5 + 0.5 × 6 = 3.5. Forward and backward again: d 2.25 → 47.25 (up).")


def test_descent_moves_agree_with_equal_steps_and_with_a_load_at_every_point():
    steps = ask(cmd="descent", preset="cos", inputs=["x1", "x2"], rate=0.1, steps=4)
    moves = ask(cmd="descent", preset="cos", moves=[{"rate": 0.1, "inputs": ["x1", "x2"]}] * 4)
    assert [(h["values"], h["output"], h["grads"]) for h in moves["history"]] == [
        (h["values"], h["output"], h["grads"]) for h in steps["history"]
    ]
    point = ask(cmd="load", preset="cos", values=moves["history"][-1]["values"])
    before = ask(cmd="load", preset="cos", values=moves["history"][-2]["values"])
    for change in moves["frames"][-1]["changes"]:
        assert before["nodes"][change["node"]][change["field"]] == change["before"]
        assert point["nodes"][change["node"]][change["field"]] == change["after"]
    # From the program's own values when the request gives "values".
    moved = ask(cmd="descent", preset="cos", values={"x1": 0.25}, moves=[])
    assert moved["history"][0]["values"] == {"x1": 0.25, "x2": 2.0} and len(moved["frames"]) == 1


def test_descent_moves_stop_before_a_move_that_diverges():
    answer = ask(cmd="descent", program="x = 3\ny = exp(x * x)", moves=[{"ascend": True, "rate": 10}] * 50)
    assert answer["stopped"].startswith(("An input left the range", "The output or a grad stopped"))
    assert len(answer["frames"]) == len(answer["history"]) < 51
    assert all(math.isfinite(h["output"]) for h in answer["history"])


@pytest.mark.parametrize(
    "request_, text",
    [
        ({"cmd": "paths", "preset": "diamond", "wrt": "b"}, "must name an input"),
        ({"cmd": "forward", "preset": "diamond"}, "must name an input"),
        ({"cmd": "growth", "family": "trees"}, '"family" must be one of'),
        ({"cmd": "growth", "sizes": [0]}, "whole numbers from 1 to 30"),
        ({"cmd": "descent", "preset": "cos", "rate": 0}, "learning rate"),
        ({"cmd": "descent", "preset": "cos", "inputs": ["q"]}, "input names"),
        ({"cmd": "descent", "preset": "cos", "steps": 1000}, "from 1 to 200"),
        ({"cmd": "descent", "preset": "cos", "moves": [{"rate": 11}]}, "learning rate"),
        ({"cmd": "descent", "preset": "cos", "moves": [{"inputs": []}]}, "input names"),
        ({"cmd": "descent", "preset": "cos", "moves": [{"ascend": 1}]}, "true or false"),
        ({"cmd": "descent", "preset": "cos", "moves": [{}] * 201}, "at most 200 moves"),
        ({"cmd": "descent", "preset": "cos", "moves": "dd"}, "at most 200 moves"),
        ({"cmd": "descent", "preset": "cos", "moves": [{}], "steps": 2}, 'leave out "steps"'),
        ({"cmd": "again", "preset": "cos", "zero_grad": "yes"}, "true or false"),
        ({"cmd": "load", "preset": "cos", "order": [], "rule": "sideways"}, '"rule" must be one of'),
    ],
)
def test_mode_requests_with_bad_arguments_get_a_clear_error(request_, text):
    answer = json.loads(handle(json.dumps(request_)))
    assert not answer["ok"] and text in answer["error"]["message"]


def test_every_frame_lists_its_changes_so_the_page_can_step_any_mode():
    answers = [
        ask(cmd="naive", preset="diamond"),
        ask(cmd="forward", preset="diamond", wrt="a"),
        ask(cmd="again", preset="diamond", zero_grad=True),
        ask(cmd="paths", preset="diamond", wrt="a"),
        ask(cmd="descent", preset="diamond", moves=[{}, {}]),
    ]
    for frame in [frame for answer in answers for frame in answer["frames"]]:
        assert isinstance(frame["changes"], list) and frame["text"]
        for change in frame["changes"]:
            assert set(change) == {"node", "field", "before", "after"}


@pytest.mark.parametrize("rule", ["push", "pull"])
def test_a_graph_answer_lists_only_the_changes_its_frames_do_not_say(rule):
    """Forward steps, the seed and push visits change what they say (docs/api.md); a pull
    visit sets a grad its pulls don't show, so it lists its change."""
    answer = ask(cmd="load", preset="diamond", order=["b", "d", "c", "a"], rule=rule)
    implied = answer["forward"] + answer["backward"]
    listed = []
    for frame in answer["experiment"]["frames"]:
        (listed if frame["kind"] == "pull" else implied).append(frame)
    assert all("changes" not in frame and frame["text"] for frame in implied)
    assert all(isinstance(frame["changes"], list) and frame["text"] for frame in listed)
    assert bool(listed) == (rule == "pull")
