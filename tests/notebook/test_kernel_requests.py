"""gradwalk.kernel.handle: the page's requests answered in the kernel, for presets, programs and
a learner's own graph; and the widget's Python side, which relays them."""

import ast
import json
from pathlib import Path

import pytest
from micrograd.engine import Value as Micrograd

import gradwalk
from engine import Program, Value, api
from engine.api import handle as api_handle
from gradwalk import kernel, widget
from tests.support.learner_engines import Lecture, NotReversed, Sqrt, diamond
from tests.support.notebook import ask, ask_api, numbers_of, snapshot, unchanged

DIAMOND_SHAPED = "a = 2\none = 1\nb = a + one\nthree = 3\nc = a * three\nd = b * c"


@pytest.mark.parametrize(
    "shown, source",
    [
        ("diamond", {"preset": "diamond"}),
        ("a = 2\nb = a * a", {"program": "a = 2\nb = a * a"}),
        (Program.parse("x = 3\ny = x * x + x"), {"program": "x = 3\ny = x * x + x"}),
    ],
)
def test_a_preset_or_a_program_is_answered_byte_for_byte_as_on_the_page(shown, source):
    for request in ({"cmd": "load"}, {"cmd": "load", "order": None}, {"cmd": "naive"}, {"cmd": "again"}):
        assert kernel.handle(request, shown) == api_handle(json.dumps({**request, **source}))
    assert kernel.handle('{"cmd": "presets"}', shown) == api_handle('{"cmd": "presets"}')


def test_a_request_naming_its_own_preset_goes_to_the_engine():
    d = diamond(Micrograd)
    assert kernel.handle({"cmd": "load", "preset": "neuron"}, d) == api_handle('{"cmd": "load", "preset": "neuron"}')
    assert kernel.handle({"cmd": "load", "preset": "neuron"}) == api_handle('{"cmd": "load", "preset": "neuron"}')


def test_a_foreign_graph_answers_with_the_pages_shape():
    answer = ask({"cmd": "load"}, diamond(Micrograd))
    page = ask_api({"cmd": "load", "preset": "diamond"})
    assert set(answer) == set(page) | {"graph"}
    assert set(answer["nodes"][0]) == set(page["nodes"][0])
    assert set(answer["edges"][0]) == set(page["edges"][0])
    assert set(answer["layout"]) == set(page["layout"])
    assert answer["program"] is None and answer["preset"] is None
    assert [f["kind"] for f in answer["backward"]] == ["seed"] + ["visit"] * 6


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "load"},
        {"cmd": "load", "order": ["d", "b", "a", "1", "c", "3"]},
        {"cmd": "load", "order": ["d", "b", "a", "1", "c", "3"], "rule": "pull"},
        {"cmd": "load", "values": {"a": 3}},
        {"cmd": "naive"},
        {"cmd": "paths", "wrt": "a"},
        {"cmd": "forward", "wrt": "a"},
        {"cmd": "again"},
        {"cmd": "again", "zero_grad": True},
        {"cmd": "nudge", "wrt": "a", "h": 0.01},
        {"cmd": "descent", "inputs": ["a"], "rate": 0.01, "steps": 3},
        {"cmd": "descent", "moves": [{"rate": 0.01}, {"ascend": True, "rate": 0.05, "inputs": ["a"]}, {}]},
        {"cmd": "descent", "values": {"a": -1}, "moves": [{"rate": 0.2, "inputs": ["a", "3"]}]},
    ],
)
def test_every_mode_gives_the_numbers_of_the_same_graph_as_a_program(request_):
    names = {"1": "one", "3": "three"}  # the program's names for micrograd's number nodes
    program_request = dict(request_, program=DIAMOND_SHAPED)
    if "order" in request_:
        program_request["order"] = [names.get(label, label) for label in request_["order"]]
    if "moves" in request_:
        program_request["moves"] = [
            {**m, "inputs": [names.get(n, n) for n in m["inputs"]]} if "inputs" in m else m for m in request_["moves"]
        ]
    d = diamond(Micrograd)
    before = snapshot(d)
    answer = ask(request_, d)
    assert answer["ok"], answer
    assert numbers_of(answer, names) == numbers_of(ask_api(program_request))
    assert unchanged(before, d)


def test_new_input_values_recompute_with_the_engines_rules_and_leave_the_learners_graph_alone():
    d = diamond(Lecture)
    answer = ask({"cmd": "load", "values": {"a": 3}}, d)
    grads = {n["label"]: n["grad"] for n in answer["nodes"]}
    assert grads["a"] == 21.0 and answer["nodes"][-1]["data"] == 36.0
    assert d.data == 18.0 and d._prev  # the learner's own graph still says a = 2
    assert ask({"cmd": "load"}, d)["nodes"][-1]["data"] == 18.0


def test_values_name_inputs_by_their_labels():
    answer = ask({"cmd": "load", "values": {"b": 3}}, diamond(Micrograd))
    assert answer == {"ok": False, "error": {"message": "There is no input named b to change.", "kind": "graph"}}
    answer = ask({"cmd": "load", "values": {"a": "x"}}, diamond(Micrograd))
    assert answer["error"]["kind"] == "request" and "must be a number" in answer["error"]["message"]


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "load", "values": {"a": 9}},
        {"cmd": "nudge", "wrt": "a"},
        {"cmd": "descent", "inputs": ["a"]},
        {"cmd": "descent", "moves": [{"inputs": ["a"]}]},
    ],
)
def test_a_graph_with_a_custom_operation_refuses_to_recompute(request_):
    a = Sqrt(4.0, label="a")
    b = a.sqrt()
    b.label = "b"
    answer = ask(request_, b * a)
    assert answer["ok"] is False and answer["error"]["kind"] == "graph"
    assert answer["error"]["message"].startswith(
        "b = sqrt(a) uses 'sqrt', an operation Gradwalk doesn't know, so "
        "it can't compute this graph at new input values"
    )
    assert ask({"cmd": "load"}, b * a)["ok"]
    assert ask({"cmd": "paths", "wrt": "a"}, b * a)["ok"]


@pytest.mark.parametrize(
    "request_, kind, words",
    [
        ("not json", "request", "isn't valid JSON"),
        ({"no": "cmd"}, "request", 'a "cmd"'),
        ({"cmd": "fly"}, "request", 'Unknown command "fly"'),
        ({"cmd": "load", "order": ["d"]}, "order", "leaves out"),
        ({"cmd": "paths", "wrt": "zz"}, "request", '"wrt" must name an input'),
        ({"cmd": "nudge", "wrt": "a", "h": 5}, "request", '"h" must be a small number'),
        ({"cmd": "load", "rule": "sideways"}, "request", '"rule" must be one of'),
        ({"cmd": "descent", "moves": [{"inputs": ["b"]}]}, "request", '"inputs" must list input names of this graph'),
        ({"cmd": "descent", "moves": [{}], "steps": 2}, "request", 'With "moves", each move has its own'),
    ],
)
def test_bad_requests_are_answered_as_data(request_, kind, words):
    answer = ask(request_, diamond(Micrograd))
    assert answer["ok"] is False and answer["error"]["kind"] == kind and words in answer["error"]["message"]


def test_a_graph_gradwalk_cannot_read_is_answered_as_data_too():
    answer = ask({"cmd": "load"}, object())
    assert answer["ok"] is False and answer["error"]["kind"] == "graph"
    assert answer["error"]["message"].startswith("Gradwalk can't read <object object at ")


def without_lines(answer):
    """An answer without its source positions (a graph read in the kernel has none)."""
    if isinstance(answer, dict):
        return {k: without_lines(v) for k, v in answer.items() if k not in ("line", "col")}
    if isinstance(answer, list):
        return [without_lines(v) for v in answer]
    return answer


def test_descend_with_moves_on_a_micrograd_graph_answers_as_the_same_program_does():
    x1, x2 = Micrograd(2.0), Micrograd(0.0)
    w1, w2, b = Micrograd(-3.0), Micrograd(1.0), Micrograd(6.8813735870195432)
    for value, label in ((x1, "x1"), (x2, "x2"), (w1, "w1"), (w2, "w2"), (b, "b")):
        value.label = label
    o = (x1 * w1 + x2 * w2 + b).relu()
    o.label = "o"
    before = snapshot(o)
    program = "x1 = 2\nw1 = -3\nx2 = 0\nw2 = 1\nb = 6.8813735870195432\no = relu(x1*w1 + x2*w2 + b)"
    moves = [{"rate": 0.5, "inputs": ["w1", "b"]}, {"ascend": True, "rate": 0.1}, {"rate": 2, "inputs": ["x1"]}]
    for extra in ({}, {"values": {"x1": 1.5}}):
        answer = ask({"cmd": "descent", "moves": moves, **extra}, o)
        expected = ask_api({"cmd": "descent", "moves": moves, "program": program, **extra})
        assert answer["ok"] and len(answer["history"]) == 4 and answer["stopped"] is None
        assert answer["frames"][1]["text"].startswith("Step 1 (descend): w1 = -3 − 0.5 × ")
        assert without_lines(answer) == without_lines(expected)  # every number and every sentence
    assert unchanged(before, o)


def test_the_kernel_uses_only_engine_apis_public_names():
    """kernel.py answers through engine.api.handle's source hook, not with api's own helpers."""
    tree = ast.parse(Path(kernel.__file__).read_text(encoding="utf-8"))
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "engine.api":
            used |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module == "engine":
            assert all(alias.asname is None for alias in node.names if alias.name == "api")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "api":
            used.add(node.attr)
    assert "handle" in used and used <= set(api.__all__), used  # what engine.api publishes, nothing private


# -- the widget's Python side ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, source",
    [
        ("diamond", {"preset": "diamond"}),
        ("a = 2\nb = a * a", {"program": "a = 2\nb = a * a"}),
        (Program.parse("a = 2\nb = a * a"), {"program": "a = 2\nb = a * a"}),
    ],
)
def test_show_takes_a_preset_or_a_program(front_end, x, source):
    shown = gradwalk.show(x)
    assert isinstance(shown, gradwalk.Widget) and shown.source == source
    assert shown._esm == front_end.read_text()


@pytest.mark.parametrize(
    "make", [lambda: diamond(Micrograd), lambda: diamond(Lecture), lambda: Value(2.0, label="a") * 3]
)
def test_show_takes_any_micrograd_style_value_and_answers_the_front_ends_messages(front_end, make):
    value = make()
    before = snapshot(value)
    shown = gradwalk.show(value)
    assert shown.source["kernel"]["editable"] is True
    reply = shown.answer({"id": 7, "request": {"cmd": "load"}})
    assert reply["id"] == 7 and json.loads(reply["response"])["ok"] is True
    reply = shown.answer({"id": 8, "request": '{"cmd": "load", "values": {"a": 5}}'})
    assert json.loads(reply["response"])["nodes"][0]["data"] == 5.0
    assert shown.answer({"something": "else"}) is None
    sent = []
    shown.send = sent.append
    shown._on_message(shown, {"id": 9, "request": {"cmd": "presets"}}, [])
    assert sent[0]["id"] == 9 and json.loads(sent[0]["response"])["ok"]
    assert unchanged(before, value)


def test_show_without_the_built_front_end_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(widget, "FRONT_END", tmp_path / "nowhere" / "widget.js")
    with pytest.raises(gradwalk.FrontEndMissing, match="installed without running the build"):
        gradwalk.show("diamond")


def test_show_refuses_what_it_cannot_read():
    with pytest.raises(gradwalk.ForeignGraphError, match="micrograd-style value"):
        gradwalk.show(42)
    with pytest.raises(gradwalk.ShowError, match="There is no preset called 'daimond'; the presets are add-mul, "):
        gradwalk.show("daimond")
    with pytest.raises(ValueError, match="line 2, column 5: .* isn't supported"):
        gradwalk.show("a = 2\nb = a // 2")


def test_a_request_that_is_not_json_is_answered_as_data():
    answer = ask({"cmd": "load", "values": {"a": {1, 2}}}, diamond(Micrograd))
    assert answer["error"] == {"message": "The request can't be written as JSON.", "kind": "request"}


def test_the_package_re_exports_the_engine():
    assert gradwalk.Value is Value and gradwalk.Program is Program
    assert gradwalk.check(diamond(Micrograd)).ok


def test_a_checks_report_shows_as_text_without_the_front_end(tmp_path, monkeypatch):
    monkeypatch.setattr(widget, "FRONT_END", tmp_path / "widget.js")
    report = gradwalk.check(diamond(NotReversed))
    assert report._repr_mimebundle_() == {"text/plain": str(report)}


def test_a_checks_report_shows_as_the_widget_on_the_checked_graph(front_end):
    d = diamond(NotReversed)
    report = gradwalk.check(d)
    data, _ = report._repr_mimebundle_()
    assert data["text/plain"] == str(report) and "application/vnd.jupyter.widget-view+json" in data
    shown = gradwalk.show(report)
    check = shown.source["check"]
    assert check["ok"] is False and check["problems"][0]["kind"] == "order"
    assert check["problems"][0]["text"] == report.problems[0] and check["order"][-1] == "d"
    answer = json.loads(shown.answer({"id": 1, "request": {"cmd": "load", "order": check["order"]}})["response"])
    assert answer["experiment"]["lost_path_count"] == report.experiment["lost_path_count"]
