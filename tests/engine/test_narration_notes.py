"""Notes the narration adds where they help: what micrograd calls a node's inputs (once per
graph), and why a value or a grad is inf or nan (at the step where it first appears)."""

from __future__ import annotations

import json

import pytest

from engine.api import handle
from engine.presets import load_presets


def load(**request) -> dict:
    answer = json.loads(handle({"cmd": "load", **request}))
    assert answer["ok"], answer
    return answer


def texts(answer: dict) -> list[str]:
    return [f["text"] for f in answer["forward"]] + [f["text"] for f in answer["backward"]]


@pytest.mark.parametrize("preset_id", [p["id"] for p in load_presets()])
def test_prev_is_named_once_per_graph_on_the_first_step_that_names_inputs(preset_id):
    answer = load(preset=preset_id)
    said = [i for i, text in enumerate(texts(answer)) if "_prev" in text]
    first_made = next(i for i, node in enumerate(answer["nodes"]) if not node["is_input"])
    assert said == [first_made]
    assert "_children" in answer["forward"][first_made]["text"]


def test_prev_note_names_the_lesson_graphs_product_inputs():
    text = load(preset="lesson-graph")["forward"][2]["text"]
    assert text.startswith("c = a * b = 2 * (-3) = -6. ")
    assert text.endswith("c._prev holds a and b.")


def forward_text(answer: dict, label: str) -> str:
    return next(f["text"] for f in answer["forward"] if answer["nodes"][f["node"]]["label"] == label)


def visit_text(answer: dict, label: str) -> str:
    return next(f["text"] for f in answer["backward"][1:] if answer["nodes"][f["node"]]["label"] == label)


def test_log_of_zero_says_minus_inf_in_plain_words():
    answer = load(program="a = 0\nb = log(a)")
    assert answer["nodes"][1]["data"] == "-Infinity"
    text = forward_text(answer, "b")
    assert text.startswith("b = log(a) = log(0) = -inf. log(0) is -inf: the logarithm falls without limit")
    assert "math.log(0) would raise" in text
    visit = visit_text(answer, "b")
    assert "a.grad += inf × 1 = inf" in visit
    assert "The local derivative of b with respect to a, 1 / a.data, is inf at these values" in visit


def test_division_by_zero_says_inf():
    answer = load(program="a = 1\nb = 0\nc = a / b")
    text = forward_text(answer, "c")
    assert text.startswith("c = a / b = 1 / 0 = inf. 1 / 0: dividing by zero has no finite answer")
    assert "ZeroDivisionError" in text
    visit = visit_text(answer, "c")
    assert "1 / b.data, is inf" in visit and "-a.data / b.data**2, is -inf" in visit


def test_zero_over_zero_says_nan():
    text = forward_text(load(program="a = 0\nb = 0\nc = a / b"), "c")
    assert "0 / 0 has no value at all, so it is nan (not a number)" in text


def test_a_negative_power_of_zero_says_inf():
    answer = load(program="a = 0\nb = a ** -1")
    text = forward_text(answer, "b")
    assert text.startswith("b = a ** (-1) = 0 ** (-1) = inf. 0 ** -1 divides by zero")
    assert "is -inf at these values" in visit_text(answer, "b")


def test_inf_carried_on_and_overflow_are_said():
    answer = load(program="a = 800\nb = exp(a)\nc = b * 2")
    assert "b is inf: the result is larger than the biggest float" in forward_text(answer, "b")
    assert "c is inf because b is already inf" in forward_text(answer, "c")
    nan = load(program="a = 0\nb = log(a)\nc = b * 0")
    assert "c is nan because b is -inf: an infinity times 0" in forward_text(nan, "c")
    root = load(program="a = -4\nb = a ** 0.5")
    assert "(-4) ** 0.5 is nan (not a number): a negative number to a fractional power" in forward_text(root, "b")


@pytest.mark.parametrize("preset_id", [p["id"] for p in load_presets()])
def test_finite_graphs_get_no_inf_or_nan_note(preset_id):
    for text in texts(load(preset=preset_id)):
        assert "inf" not in text and "nan" not in text, text
