"""engine.api.handle(request, source): a request that names no preset and no program is about
``source``, a preset or program, or a graph of its own (engine.foreign's Foreign, in the notebook)."""

import json

import pytest

from engine import Program
from engine.api import handle
from engine.foreign import read

PROGRAM = "a = 2\nb = a + 1\nc = 3 * a\nd = b * c"


def ask(request: dict, source=None) -> dict:
    return json.loads(handle(json.dumps(request), source))


def without(answer, keys=("program", "line", "col", "unused")):
    """An answer without what only a program has: its text, its source positions and unused names."""
    if isinstance(answer, dict):
        return {k: without(v, keys) for k, v in answer.items() if k not in keys}
    if isinstance(answer, list):
        return [without(v, keys) for v in answer]
    return answer


def test_a_preset_or_program_as_the_source_answers_as_if_the_request_named_it():
    for source in ({"preset": "diamond"}, {"program": PROGRAM}):
        for request in ({"cmd": "load"}, {"cmd": "nudge", "wrt": "a"}, {"cmd": "descent", "moves": [{}]}):
            assert handle(json.dumps(request), source) == handle(json.dumps({**request, **source}))
    named = {"cmd": "load", "program": "x = 1\ny = x * 2"}
    assert handle(json.dumps(named), {"preset": "diamond"}) == handle(json.dumps(named))


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "load"},
        {"cmd": "load", "values": {"a": -1.5}, "order": ["a", "b", "c", "d"]},
        {"cmd": "load", "order": ["d", "a", "c", "b"], "rule": "pull"},
        {"cmd": "naive"},
        {"cmd": "paths", "wrt": "a"},
        {"cmd": "forward", "wrt": "a", "values": {"a": 4}},
        {"cmd": "again", "zero_grad": True},
        {"cmd": "nudge", "wrt": "a", "h": 0.01, "values": {"a": 3}},
        {"cmd": "descent", "rate": 0.01, "steps": 4},
        {"cmd": "descent", "values": {"a": 1}, "moves": [{"rate": 0.01}, {"ascend": True}]},
    ],
)
def test_a_graph_as_the_source_answers_as_its_program_does(request_):
    source = read(Program.parse(PROGRAM).output)
    answer = ask(request_, source)
    expected = ask({**request_, "program": PROGRAM})
    assert answer["ok"], answer
    if request_["cmd"] == "load":
        assert answer["program"] is None and answer["preset"] is None and answer["unused"] == []
        assert "graph" not in answer  # this source has no about()
    assert without(answer) == without(expected)


class Refusing:
    """A graph that can't be computed at new values, and says so."""

    def __init__(self):
        self.foreign = read(Program.parse(PROGRAM).output)

    def graph(self):
        return self.foreign.graph()

    def recompute(self, values):
        raise ValueError("This graph stays as it is.")

    def about(self):
        return {"made": "here"}


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "load", "values": {"a": 1}},
        {"cmd": "nudge", "wrt": "a"},
        {"cmd": "descent"},
        {"cmd": "descent", "moves": [{}]},
    ],
)
def test_a_source_refuses_in_its_own_words(request_):
    assert ask(request_, Refusing()) == {
        "ok": False,
        "error": {"message": "This graph stays as it is.", "kind": "graph"},
    }


def test_a_sources_about_is_the_load_answers_graph():
    answer = ask({"cmd": "load"}, Refusing())
    assert list(answer)[-1] == "graph" and answer["graph"] == {"made": "here"}
    assert "graph" not in ask({"cmd": "naive"}, Refusing())


def test_requests_that_need_no_graph_do_not_ask_the_source():
    class Broken:
        def graph(self):
            raise AssertionError("not asked")

        recompute = graph

    assert handle('{"cmd": "presets"}', Broken()) == handle('{"cmd": "presets"}')
    assert handle('{"cmd": "growth"}', Broken()) == handle('{"cmd": "growth"}')


def test_a_dict_is_read_as_the_json_it_writes():
    assert handle({"cmd": "load", "preset": "diamond"}) == handle('{"cmd": "load", "preset": "diamond"}')
    assert json.loads(handle({"cmd": "load", "values": {"a": {1, 2}}})) == {
        "ok": False,
        "error": {"message": "The request can't be written as JSON.", "kind": "request"},
    }
