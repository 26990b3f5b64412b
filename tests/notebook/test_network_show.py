"""gradwalk.show(loss, model=model): a network's graph, grouped by its layers and neurons, answered
by the kernel at the level on screen (the widget's load and expand messages), the learner's
objects untouched; and a graph too big to draw node by node, grouped without the model."""

import json

import pytest

import gradwalk
from engine.foreign import ForeignGraphError, TooManyNodes
from engine.network import Network
from gradwalk import kernel
from tests.support.demo_mlp import demo_loss
from tests.support.notebook import snapshot, unchanged


@pytest.fixture(scope="module")
def batch():
    loss, model, _, _ = demo_loss(4)
    return loss, model


def test_show_with_the_model_answers_load_and_expand_collapsed(front_end, batch):
    loss, model = batch
    before = snapshot(loss)
    shown = gradwalk.show(loss, model=model)
    assert shown.source == {
        "kernel": {"source": "kernel", "style": "_prev", "editable": False, "custom": [], "grouped": True}
    }
    reply = shown.answer({"id": 1, "request": {"cmd": "load"}})
    answer = json.loads(reply["response"])
    assert answer["grouped"] is True and answer["graph"]["grouped"] is True
    assert [g["name"] for g in answer["groups"]] == ["batch", "parameters", "sum of 4 terms", "sum of 337 terms"]
    assert not any(g["open"] for g in answer["groups"])
    reply = shown.answer(
        {"id": 2, "request": {"cmd": "expand", "group": "layer 1 in sample 2", "expanded": ["batch", "sample 2"]}}
    )
    opened = json.loads(reply["response"])
    names = {g["id"]: g["name"] for g in opened["groups"]}
    assert [names[u] for u in opened["inner"] if isinstance(u, str)] == [
        f"neuron {k} of layer 1 in sample 2" for k in range(1, 17)
    ]
    # nudge and the experiments need a graph drawn node by node: refused in a sentence
    refused = json.loads(shown.answer({"id": 3, "request": {"cmd": "nudge", "wrt": "x"}})["response"])
    assert refused["error"]["kind"] == "graph"
    assert unchanged(before, loss)


def test_each_neurons_grad_in_the_kernels_answer_is_micrographs(batch):
    loss, model = batch
    shown = kernel.target(loss, model)
    for obj in shown.flat.objects:
        obj.grad = 0
    loss.backward()
    expanded = ["batch", "sample 1", "layer 1 in sample 1", "layer 2 in sample 1", "layer 3 in sample 1"]
    for neuron in (
        "neuron 3 of layer 1 in sample 1",
        "neuron 9 of layer 2 in sample 1",
        "neuron 1 of layer 3 in sample 1",
    ):
        answer = json.loads(kernel.handle({"cmd": "expand", "group": neuron, "expanded": expanded}, shown))
        nodes = {n["id"]: n for n in answer["nodes"]}
        inner = [u for u in answer["inner"] if isinstance(u, int)]
        assert inner
        for v in inner:  # (summed in another valid order: equal up to rounding)
            assert nodes[v]["grad"] == pytest.approx(shown.flat.objects[v].grad, rel=1e-12, abs=1e-15)


def test_a_graph_too_big_to_draw_node_by_node_is_grouped_without_the_model(front_end):
    loss, _, _, _ = demo_loss(4)  # 3,608 nodes: more than the 2,000 drawn node by node
    shown = gradwalk.show(loss)
    answer = json.loads(shown.answer({"id": 1, "request": {"cmd": "load"}})["response"])
    assert "batch" in [g["name"] for g in answer["groups"]]
    assert answer["size"]["nodes"] > 2_000


def test_only_the_readers_too_many_nodes_error_sends_a_graph_to_be_grouped(monkeypatch):
    loss, _, _, _ = demo_loss(1)

    def refuse(words, kind):
        def read(x):
            raise kind(words)

        return read

    # told by the error's class, whatever its words
    monkeypatch.setattr(kernel, "read", refuse("Too big to draw one by one.", TooManyNodes))
    assert isinstance(kernel.target(loss), Network)
    monkeypatch.setattr(kernel, "read", refuse("This graph has more than one output.", ForeignGraphError))
    with pytest.raises(ForeignGraphError, match="more than one output"):
        kernel.target(loss)
