"""Layout: deterministic coordinates, inputs left, output right, no overlaps, parallel edges apart."""

import json

import pytest

from engine import Program
from engine.api import handle
from engine.graph import Graph
from engine.layout import layout
from engine.presets import load_presets


@pytest.mark.parametrize("preset", [p["id"] for p in load_presets()])
def test_every_preset_lays_out_cleanly(preset):
    answer = json.loads(handle(json.dumps({"cmd": "load", "preset": preset})))
    box = answer["layout"]
    w, h = box["node_width"], box["node_height"]
    xs = [n["x"] for n in box["nodes"]]
    for i, node in enumerate(answer["nodes"]):
        if node["is_input"]:
            assert xs[i] == min(xs)
    assert xs[answer["output"]] == max(xs)
    points = box["nodes"]
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            overlap_x = abs(points[i]["x"] - points[j]["x"]) < w
            overlap_y = abs(points[i]["y"] - points[j]["y"]) < h
            assert not (overlap_x and overlap_y), (answer["nodes"][i]["label"], answer["nodes"][j]["label"])
        assert points[i]["x"] - w / 2 >= 0 and points[i]["x"] + w / 2 <= box["width"]
        assert points[i]["y"] - h / 2 >= 0 and points[i]["y"] + h / 2 <= box["height"]
    for edge, route in zip(answer["edges"], box["edges"]):
        start, end = route["points"][0], route["points"][-1]
        assert start[0] == points[edge["parent"]]["x"] + w / 2
        assert end[0] == points[edge["child"]]["x"] - w / 2


def test_a_value_used_twice_gets_two_distinct_edges():
    graph = Graph.of(Program.parse("a = 3\nb = a * a").output)
    first, second = layout(graph)["edges"]
    assert first["points"] != second["points"]
    assert len(first["points"]) == 3  # bowed apart through a middle point


def test_edges_that_skip_layers_bend_around_nodes():
    graph = Graph.of(Program.parse("a = 1\nb = a * 2\nc = b * 2\nd = c + a").output)
    box = layout(graph)
    long_edge = next(
        i for i, e in enumerate(graph.edges) if graph.label(e.parent) == "a" and graph.label(e.child) == "d"
    )
    assert len(box["edges"][long_edge]["points"]) == 4  # two bend points for the two skipped layers


def test_layout_is_deterministic():
    source = "x = 1\ny = 2\nz = x * y + x * x + y * y\nw = tanh(z) * x"
    first = layout(Graph.of(Program.parse(source).output))
    second = layout(Graph.of(Program.parse(source).output))
    assert first == second


def test_a_remembered_layout_is_what_laying_out_afresh_gives():
    # The layout depends on the shape alone: new numbers reuse it, a new shape does not.
    from engine.layout import _layout

    def graph(source):
        return Graph.of(Program.parse(source).output)

    shapes = ["a = 1\nb = 2\nc = a * b + a", "a = 1\nb = 2\nc = a * b + b", "a = 1\nb = 2\nc = a + b * a"]
    first = [layout(graph(s)) for s in shapes]
    for s, before in zip(shapes, first):
        again = layout(graph(s.replace("a = 1", "a = -7.5")))
        assert again is before  # reused
        assert again == _layout(graph(s))  # and exactly a fresh layout
    assert first[0] != first[1] != first[2]


def test_barycenter_ordering_avoids_crossings_on_the_double_diamond():
    from engine.layout import _columns, _crossings, _layers, _order

    graph = Graph.of(Program.parse("a = 2\nb = 3\nc = a + b\nd = a * b\ne = c + d\nf = c * d\ny = e + f").output)
    layers = _layers(graph)
    chains, columns = _columns(graph, layers)
    _order(columns, chains, small=True)
    right = {}
    for items in chains.values():
        for x, y in zip(items, items[1:]):
            right.setdefault(x, []).append(y)
    assert _crossings(columns, right) <= 2
