"""A big graph's load answer in two parts: ``"rest_later": true`` in the request, then
``{"cmd": "rest", "rest": key}`` for its backward visits' sentences and its questions
(docs/api.md, "An answer in two parts")."""

import json

import pytest

from engine import api
from engine.layout import _RECENT as LAYOUTS


def ask(**request):
    return json.loads(api.handle(json.dumps(request)))


def layers(width: int, depth: int, first: float = 0.5) -> str:
    """``width`` inputs, ``depth`` layers of relu(x[i] * x[i+1] + 0.1), their sum."""
    lines = [f"x{i} = {first + 0.01 * i:.2f}" for i in range(width)]
    previous = [f"x{i}" for i in range(width)]
    for k in range(depth):
        names = [f"h{k}_{i}" for i in range(width)]
        lines += [f"{n} = relu({previous[i]} * {previous[(i + 1) % width]} + 0.1)" for i, n in enumerate(names)]
        previous = names
    return "\n".join(lines + ["y = " + " + ".join(previous)])


BIG = layers(20, 5)  # 340 nodes


def merged(first: dict, rest: dict) -> dict:
    """The first part with the rest written in, as the page does (web/stepper.js addRest)."""
    answer = {key: value for key, value in first.items() if key != "rest"}
    for frame, text in zip(answer["backward"], rest["texts"], strict=True):
        if text is not None:
            frame["text"] = text
    answer["questions"] = rest["questions"]
    return answer


@pytest.mark.parametrize("extra", [{}, {"values": {"x3": 2.5}}], ids=["program", "new values"])
def test_the_two_parts_together_are_the_whole_answer(extra):
    request = {"cmd": "load", "program": BIG, **extra}
    whole = ask(**request)
    first = ask(**request, rest_later=True)
    assert len(first["nodes"]) >= api.REST_LATER_FROM
    assert isinstance(first["rest"], str) and "questions" not in first
    visits = first["backward"][1:]
    assert visits and all("text" not in frame for frame in visits)
    assert first["backward"][0]["text"] == whole["backward"][0]["text"]  # the seed keeps its own
    rest = ask(cmd="rest", rest=first["rest"])
    assert rest["ok"] and rest["texts"][0] is None and len(rest["texts"]) == len(first["backward"])
    assert merged(first, rest) == whole
    assert len(api.handle(json.dumps({**request, "rest_later": True}))) < 0.75 * len(json.dumps(whole))


def test_an_experiment_comes_whole_in_the_first_part():
    labels = [node["label"] for node in ask(cmd="load", program=BIG)["nodes"]]
    request = {"cmd": "load", "program": BIG, "order": labels}  # inputs first: a wrong order
    whole, first = ask(**request), ask(**request, rest_later=True)
    assert first["experiment"] == whole["experiment"] and first["experiment"]["frames"][1]["text"]
    assert merged(first, ask(cmd="rest", rest=first["rest"])) == whole


def test_a_small_graph_comes_whole_whatever_the_request_says():
    program = layers(4, 2)
    assert api.handle(json.dumps({"cmd": "load", "program": program, "rest_later": True})) == api.handle(
        json.dumps({"cmd": "load", "program": program})
    )
    assert "rest" not in ask(cmd="load", preset="diamond", rest_later=True)


def test_a_rest_is_given_once_and_only_for_its_own_key():
    first = ask(cmd="load", program=BIG, rest_later=True)
    assert first["rest"] == ask(cmd="load", program=BIG, rest_later=True)["rest"]  # the same request, the same key
    other = ask(cmd="load", program=layers(20, 5, first=0.6), rest_later=True)
    assert other["rest"] != first["rest"]
    assert ask(cmd="rest", rest=first["rest"])["ok"]
    again = ask(cmd="rest", rest=first["rest"])
    assert again["ok"] is False and again["error"]["kind"] == "request"
    assert '"rest" key' in again["error"]["message"]
    for wrong in ("nope", None, 1, True):
        assert ask(cmd="rest", rest=wrong)["error"]["kind"] == "request"
    assert ask(cmd="rest", rest=other["rest"])["ok"]


def test_the_last_four_rests_are_kept():
    keys = [ask(cmd="load", program=layers(20, 5, first=0.1 * k), rest_later=True)["rest"] for k in range(1, 6)]
    assert len(set(keys)) == 5
    assert not ask(cmd="rest", rest=keys[0])["ok"]  # the oldest went
    # asked for in any order, with other requests between
    for key in reversed(keys[1:]):
        assert ask(cmd="load", preset="diamond")["ok"]
        assert ask(cmd="rest", rest=key)["ok"]


def test_the_warm_up_leaves_the_engine_as_it_was():
    first = ask(cmd="load", program=BIG, rest_later=True)
    layouts = dict(LAYOUTS)
    api.warm_up()
    assert dict(LAYOUTS) == layouts
    assert merged(first, ask(cmd="rest", rest=first["rest"])) == ask(cmd="load", program=BIG)
