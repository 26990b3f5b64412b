"""engine.api: JSON in, JSON out, errors as data, deterministic bytes."""

import json
import math

import pytest

from engine import Program
from engine.api import _dumps, handle  # _dumps: the engine's frames written as an answer writes them
from engine.graph import Graph
from engine.presets import load_presets
from engine.trace import correct_backward, experiment, forward_frames
from tests.support.frames import changes, pushes


def ask(**request):
    return json.loads(handle(json.dumps(request)))


def test_presets_lists_every_preset_with_its_program():
    answer = ask(cmd="presets")
    ids = [p["id"] for p in answer["presets"]]
    assert {
        "add-mul",
        "neuron",
        "square",
        "diamond",
        "lesson-graph",
        "checkpoint",
        "relu",
        "reuse",
        "xx-xy",
        "cos",
    } <= set(ids)
    assert all(p["program"].strip() for p in answer["presets"])


def test_load_a_preset_gives_graph_layout_and_frames():
    answer = ask(cmd="load", preset="diamond")
    assert answer["ok"]
    labels = [n["label"] for n in answer["nodes"]]
    assert labels == ["a", "b", "c", "d"]
    assert answer["output"] == 3 and answer["inputs"] == [0]
    assert [n["grad"] for n in answer["nodes"]] == [15.0, 6.0, 3.0, 1.0]
    assert len(answer["forward"]) == 4 and len(answer["backward"]) == 5
    assert len(answer["layout"]["nodes"]) == 4 and len(answer["layout"]["edges"]) == len(answer["edges"]) == 4
    assert answer["experiment"] is None
    edge = answer["edges"][0]
    assert set(edge) == {"id", "parent", "child", "slot", "local", "local_text", "rule"}
    assert answer["edges"][2]["rule"] == "b.grad += c.data * d.grad"


def test_load_with_new_values_rewrites_the_program():
    answer = ask(cmd="load", preset="diamond", values={"a": 3})
    assert answer["program"].startswith("a = 3\n")
    assert answer["nodes"][0]["grad"] == 21.0


def test_values_keep_the_rest_of_the_line():
    answer = ask(cmd="load", program="a = Value(2.0, label='a')  # é input\nb = a * a", values={"a": -1.25})
    assert answer["program"].splitlines()[0] == "a = Value(-1.25, label='a')  # é input"


def test_load_with_an_order_runs_the_experiment():
    answer = ask(cmd="load", preset="diamond", order=["b", "d", "c", "a"])
    ex = answer["experiment"]
    assert ex["grads"][0] == 9.0 and ex["correct_grads"][0] == 15.0
    assert ex["explanation"][0].startswith("b was visited before d")


@pytest.mark.parametrize(
    "request_",
    [{"cmd": "load", "preset": preset["id"]} for preset in load_presets()]
    + [
        {"cmd": "load", "preset": "diamond", "order": ["b", "d", "c", "a"]},
        {"cmd": "load", "preset": "diamond", "order": ["a", "d", "c", "b"], "rule": "pull"},
        {"cmd": "load", "program": "a = 0.0\nb = log(a) * a\nc = b + a * a"},
    ],
)
def test_a_graph_answer_sends_each_number_once_and_loses_nothing(request_):
    """The frames of a graph answer, read as docs/api.md says (tests/support/frames.py, as
    web/stepper.js reads them), are exactly the engine's whole frames."""
    answer = ask(**request_)
    program = Program.parse(answer["program"])
    graph = Graph.of(program.output, program.nodes)  # in the program's node order
    backward, grads = correct_backward(graph, [f["node"] for f in answer["backward"][1:]])
    whole = {"forward": forward_frames(graph), "backward": backward}
    if request_.get("order"):
        ran = experiment(graph, answer["experiment"]["order"], grads, request_.get("rule", "push"))
        whole["experiment"] = ran["frames"]
    sent = {
        "forward": answer["forward"],
        "backward": answer["backward"],
        "experiment": (answer["experiment"] or {}).get("frames"),
    }
    for name, frames in whole.items():
        read = [
            {
                **frame,
                "changes": changes(frame, answer),
                **({"pushes": pushes(frame, answer)} if "pushes" in frame else {}),
            }
            for frame in sent[name]
        ]
        assert json.dumps(read, sort_keys=True) == json.dumps(json.loads(_dumps(frames)), sort_keys=True), name
    # The pushes of push visits carry their own numbers only.
    for frame in answer["backward"][1:]:
        assert all(set(p) == {"edge", "contribution", "before", "after", "late"} for p in frame["pushes"])


@pytest.mark.parametrize(
    "request_, kind, text",
    [
        ({"cmd": "load", "program": "a = 2\nb = a.__class__"}, "program", ".__class__ can't be used"),
        ({"cmd": "load", "preset": "nope"}, "request", 'no preset called "nope"'),
        ({"cmd": "load"}, "request", 'either "preset" or "program"'),
        ({"cmd": "load", "preset": "diamond", "program": "a=1"}, "request", "not both"),
        ({"cmd": "load", "preset": "diamond", "values": {"a": "x"}}, "request", "must be a number"),
        ({"cmd": "load", "preset": "diamond", "values": {"a": 1e300}}, "request", "finite number"),
        ({"cmd": "load", "preset": "diamond", "values": {"zz": 1}}, "program", "no input named zz"),
        ({"cmd": "load", "preset": "diamond", "order": ["d", "b"]}, "order", "leaves out"),
        ({"cmd": "load", "preset": "diamond", "order": ["d", "b", "b", "a"]}, "order", "appears twice"),
        ({"cmd": "load", "preset": "diamond", "order": ["d", "b", "c", "zz"]}, "order", 'no node called "zz"'),
        ({"cmd": "load", "preset": "diamond", "order": "dbca"}, "order", "list of node labels"),
        ({"cmd": "fly"}, "request", 'Unknown command "fly"'),
        ({"nocmd": 1}, "request", 'must be an object with a "cmd"'),
    ],
)
def test_errors_come_back_as_data(request_, kind, text):
    answer = json.loads(handle(json.dumps(request_)))
    assert answer["ok"] is False
    assert answer["error"]["kind"] == kind
    assert text in answer["error"]["message"]


def test_program_errors_carry_line_and_column():
    answer = ask(cmd="load", program="a = 2\nb = open('x')")
    assert (answer["error"]["line"], answer["error"]["col"]) == (2, 5)


@pytest.mark.parametrize("request_text", ["", "not json", "[]", "1", '{"cmd": 3}', "{" * 10000, None, 42])
def test_garbage_requests_never_raise(request_text):
    answer = json.loads(handle(request_text))
    assert answer["ok"] is False and answer["error"]["kind"] == "request"


def test_non_finite_numbers_are_strings_in_valid_json():
    text = handle(json.dumps({"cmd": "load", "program": "a = 0\nb = log(a)\nc = b * 0"}))
    answer = json.loads(text)  # strict JSON: no NaN/Infinity tokens
    assert "NaN" not in text.replace('"NaN"', "") and "Infinity" not in text.replace('"Infinity"', "").replace(
        '"-Infinity"', ""
    )
    nodes = {n["label"]: n for n in answer["nodes"]}
    assert nodes["b"]["data"] == "-Infinity" and nodes["c"]["data"] == "NaN"
    assert math.isnan(float(nodes["c"]["data"]))


def test_negative_zero_survives():
    answer = ask(cmd="load", program="a = 0\nb = a * -1")
    assert json.dumps(answer["nodes"][-1]["data"]) == "-0.0"


def test_the_same_request_gives_the_same_bytes():
    request = json.dumps(
        {
            "cmd": "load",
            "preset": "neuron",
            "order": ["o", "n", "b", "x1", "w1", "x1*w1", "x2", "w2", "x2*w2", "x1*w1+x2*w2"],
        }
    )
    assert handle(request) == handle(request)


@pytest.mark.parametrize("preset", ["diamond", "neuron", "cos", "relu"])
def test_nudge_agrees_with_autodiff(preset):
    load = ask(cmd="load", preset=preset)
    for i in load["inputs"]:
        label = load["nodes"][i]["label"]
        answer = ask(cmd="nudge", preset=preset, wrt=label, h=1e-4)
        assert answer["grad"] == load["nodes"][i]["grad"]
        assert abs(answer["central"] - answer["grad"]) < 1e-6
        assert answer["change"] == pytest.approx(answer["predicted"], rel=1e-2, abs=1e-6)


def test_nudge_reads_like_the_lesson():
    answer = ask(cmd="nudge", preset="relu", wrt="a", h=1)
    assert answer["text"].startswith("If a increases by 1, f decreases by 3;")


def test_nudge_rejects_a_bad_step():
    answer = json.loads(handle(json.dumps({"cmd": "nudge", "preset": "diamond", "wrt": "a", "h": 0})))
    assert not answer["ok"] and '"h" must be a small number' in answer["error"]["message"]


def test_a_negative_zero_input_keeps_its_sign():
    answer = ask(cmd="load", program="a = 1\nb = a * 2", values={"a": -0.0})
    assert answer["program"].startswith("a = -0.0\n")
    assert json.dumps(answer["nodes"][0]["data"]) == "-0.0"


# New values for a program the page has just loaded reuse where its inputs' literals are
# (no first parse); the answer must be the very bytes a cold engine gives.
@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "load", "preset": "neuron", "values": {"x1": -1.5, "w2": 0.25}},
        {
            "cmd": "load",
            "program": "a = Value(2.0, label='a')  # é\nb = -3 ; c = a * b\nd = c + a",
            "values": {"a": 7, "b": 1e-3},
        },
        {"cmd": "load", "program": "a = 2\nb = a * a", "values": {"a": -0.0}},
        {"cmd": "load", "program": "a = 2\nb = a * a", "values": {"zz": 1}},
        {"cmd": "load", "program": "a = 2\nb = log(a)", "values": {"a": -1}},
        {"cmd": "load", "program": "\ufeffa = 2\nb = a * a", "values": {"a": 3}},
    ],
)
def test_new_values_answer_the_same_whether_or_not_the_program_was_just_loaded(request_):
    import engine.api as api

    api._RECENT_SPANS.clear()
    cold = handle(json.dumps(request_))
    unvalued = {k: v for k, v in request_.items() if k != "values"}
    assert json.loads(handle(json.dumps(unvalued)))["ok"]  # now its spans are remembered
    warm = handle(json.dumps(request_))
    assert warm == cold


def test_remembered_spans_are_few():
    import engine.api as api

    for i in range(api._RECENT_LIMIT + 5):
        handle(json.dumps({"cmd": "load", "program": f"a = {i}\nb = a * 2"}))
    assert len(api._RECENT_SPANS) == api._RECENT_LIMIT
    assert "a = 0\nb = a * 2" not in api._RECENT_SPANS


def test_a_byte_order_mark_does_not_shift_where_new_values_go():
    answer = ask(cmd="load", program="\ufeffa = 2\nb = a * a", values={"a": 3})
    assert answer["ok"] and answer["program"] == "a = 3\nb = a * a"
    assert answer["nodes"][0]["grad"] == 6.0
