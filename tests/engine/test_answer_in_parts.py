"""A big graph's load answer in two parts: ``"later": true`` in the request, then
``{"cmd": "rest", "later": key}`` for its backward visits' sentences and its questions
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
    """The first part with the rest written in, as the page does (web/stepper.js completeAnswer)."""
    answer = {key: value for key, value in first.items() if key != "later"}
    for frame, text in zip(answer["backward"], rest["texts"], strict=True):
        if text is not None:
            frame["text"] = text
    answer["questions"] = rest["questions"]
    return answer


@pytest.mark.parametrize("extra", [{}, {"values": {"x3": 2.5}}], ids=["program", "new values"])
def test_the_two_parts_together_are_the_whole_answer(extra):
    request = {"cmd": "load", "program": BIG, **extra}
    whole = ask(**request)
    first = ask(**request, later=True)
    assert len(first["nodes"]) >= api.LATER_FROM
    assert isinstance(first["later"], str) and "questions" not in first
    visits = first["backward"][1:]
    assert visits and all("text" not in frame for frame in visits)
    assert first["backward"][0]["text"] == whole["backward"][0]["text"]  # the seed keeps its own
    rest = ask(cmd="rest", later=first["later"])
    assert rest["ok"] and rest["texts"][0] is None and len(rest["texts"]) == len(first["backward"])
    assert merged(first, rest) == whole
    assert len(api.handle(json.dumps({**request, "later": True}))) < 0.75 * len(json.dumps(whole))


def test_an_experiment_comes_whole_in_the_first_part():
    labels = [node["label"] for node in ask(cmd="load", program=BIG)["nodes"]]
    request = {"cmd": "load", "program": BIG, "order": labels}  # inputs first: a wrong order
    whole, first = ask(**request), ask(**request, later=True)
    assert first["experiment"] == whole["experiment"] and first["experiment"]["frames"][1]["text"]
    assert merged(first, ask(cmd="rest", later=first["later"])) == whole


def test_a_small_graph_comes_whole_whatever_the_request_says():
    program = layers(4, 2)
    assert api.handle(json.dumps({"cmd": "load", "program": program, "later": True})) == api.handle(
        json.dumps({"cmd": "load", "program": program})
    )
    assert "later" not in ask(cmd="load", preset="diamond", later=True)


def test_a_rest_is_given_once_and_only_for_its_own_key():
    first = ask(cmd="load", program=BIG, later=True)
    assert first["later"] == ask(cmd="load", program=BIG, later=True)["later"]  # the same request, the same key
    other = ask(cmd="load", program=layers(20, 5, first=0.6), later=True)
    assert other["later"] != first["later"]
    assert ask(cmd="rest", later=first["later"])["ok"]
    again = ask(cmd="rest", later=first["later"])
    assert again["ok"] is False and again["error"]["kind"] == "request"
    assert "later" in again["error"]["message"]
    for wrong in ("nope", None, 1, True):
        assert ask(cmd="rest", later=wrong)["error"]["kind"] == "request"
    assert ask(cmd="rest", later=other["later"])["ok"]


def test_the_last_four_rests_are_kept():
    keys = [ask(cmd="load", program=layers(20, 5, first=0.1 * k), later=True)["later"] for k in range(1, 6)]
    assert len(set(keys)) == 5
    assert not ask(cmd="rest", later=keys[0])["ok"]  # the oldest went
    # asked for in any order, with other requests between
    for key in reversed(keys[1:]):
        assert ask(cmd="load", preset="diamond")["ok"]
        assert ask(cmd="rest", later=key)["ok"]


def test_the_warm_up_leaves_the_engine_as_it_was():
    first = ask(cmd="load", program=BIG, later=True)
    layouts = dict(LAYOUTS)
    api.warm_up()
    assert dict(LAYOUTS) == layouts
    assert merged(first, ask(cmd="rest", later=first["later"])) == ask(cmd="load", program=BIG)
