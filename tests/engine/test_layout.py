"""Layout: deterministic coordinates, inputs left, output right, no overlaps, parallel edges apart."""

import json

import pytest

from engine import Program
from engine.api import handle
from engine.graph import Graph
from engine.layout import DOWN_LIMIT, layout
from engine.presets import load_presets


@pytest.mark.parametrize("direction", ["across", "down"])
@pytest.mark.parametrize("preset", [p["id"] for p in load_presets()])
def test_every_preset_lays_out_cleanly(preset, direction):
    answer = json.loads(handle(json.dumps({"cmd": "load", "preset": preset})))
    if direction == "down" and len(answer["nodes"]) > DOWN_LIMIT:  # no narrow box shows it whole
        assert "down" not in answer["layout"]
        return
    box = answer["layout"] if direction == "across" else answer["layout"]["down"]
    assert box["direction"] == direction
    w, h = box["node_width"], box["node_height"]
    # The axis the layers run along (x across, y down), and the node's size along it.
    along, size = ("x", w) if direction == "across" else ("y", h)
    points = box["nodes"]
    places = [n[along] for n in points]
    assert places[answer["output"]] == max(places)
    for i, node in enumerate(answer["nodes"]):
        children = [e["child"] for e in answer["edges"] if e["parent"] == i]
        if node["is_input"] and children:  # an input waits in the layer just before its first use
            first_use = min(places[c] for c in children)
            assert places[i] < first_use
            assert not [p for p in set(places) if places[i] < p < first_use]
    for i in range(len(points)):
        for j in range(i + 1, len(points)):
            overlap_x = abs(points[i]["x"] - points[j]["x"]) < w
            overlap_y = abs(points[i]["y"] - points[j]["y"]) < h
            assert not (overlap_x and overlap_y), (answer["nodes"][i]["label"], answer["nodes"][j]["label"])
        assert points[i]["x"] - w / 2 >= 0 and points[i]["x"] + w / 2 <= box["width"]
        assert points[i]["y"] - h / 2 >= 0 and points[i]["y"] + h / 2 <= box["height"]
    for edge, route in zip(answer["edges"], box["edges"]):
        start, end = route["points"][0], route["points"][-1]
        k = 0 if direction == "across" else 1
        assert start[k] == points[edge["parent"]][along] + size / 2  # leaves the parent's far side
        assert end[k] == points[edge["child"]][along] - size / 2  # and enters the child's near side


def test_the_neuron_stands_four_nodes_wide_down_a_phone():
    # Its bias waits beside the sum it joins, so no layer holds more than x1, w1, x2, w2:
    # 4 compact nodes (84 px) and their gaps, 366 px, fit a 360 px phone at 11/12 scale.
    answer = json.loads(handle(json.dumps({"cmd": "load", "preset": "neuron"})))
    down = answer["layout"]["down"]
    rows = {}
    for node, point in zip(answer["nodes"], down["nodes"]):
        rows.setdefault(point["y"], []).append(node["label"])
    assert max(len(r) for r in rows.values()) == 4
    assert down["width"] == 366


def test_a_big_graph_is_laid_out_across_only():
    from engine.layout import DOWN_LIMIT

    source = "x = 1\n" + "\n".join("x = x * 1.01" for _ in range(DOWN_LIMIT))
    assert "down" not in layout(Graph.of(Program.parse(source).output))


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


def test_crossings_are_counted_as_pair_by_pair():
    from engine.layout import _crossings

    rng = __import__("random").Random(7)
    for _ in range(200):
        top = [("n", i) for i in range(rng.randrange(1, 8))]
        bottom = [("n", 100 + i) for i in range(rng.randrange(1, 8))]
        right = {a: [rng.choice(bottom) for _ in range(rng.randrange(0, 4))] for a in top}
        here, there = {a: i for i, a in enumerate(top)}, {b: i for i, b in enumerate(bottom)}
        segments = [(here[a], there[b]) for a in top for b in right[a]]
        pairwise = sum(
            1 for i, (a1, b1) in enumerate(segments) for a2, b2 in segments[i + 1 :] if (a1 - a2) * (b1 - b2) < 0
        )
        assert _crossings([top, bottom], right) == pairwise


def test_many_long_edges_into_one_node_share_their_bend_points():
    # Eight nodes made in the second layer feed one sum four layers on (as a network's closed
    # samples feed its loss): their edges meet after their parents and run on as one line,
    # so each layer between holds one bend point for them, not eight.
    from engine.layout import _columns, _layers
    from engine.value import Value

    def node(*parents):
        value = Value(0.0)
        value._prev, value._local, value._op = tuple(parents), (0.0,) * len(parents), "+" if parents else ""
        return value

    x = node()
    samples = [node(x) for _ in range(8)]
    path = [x]
    for _ in range(4):
        path.append(node(path[-1]))
    total = node(*samples, path[-1])
    graph = Graph.of(total, [x, *samples, *path[1:], total])
    layers = _layers(graph)
    chains, columns = _columns(graph, layers)
    long = [e for e, items in chains.items() if len(items) > 2]
    bends = [item for column in columns for item in column if item[0] == "b"]
    assert len(long) == 8 and all(len(chains[e]) == 2 + 3 for e in long)
    assert len(bends) == len(set(bends)) == 3  # one per layer between, shared by the eight
    drawn = layout(graph)
    routes = [drawn["edges"][e]["points"] for e in long]
    assert all(r[1:-1] == routes[0][1:-1] for r in routes)  # one line through the layers between
    assert len({tuple(r[0]) for r in routes}) == 8  # from eight places


def test_a_weight_used_at_every_depth_runs_as_one_trunk():
    # An unrolled loop, y = tanh(y * w + c) 60 times: w and c feed every step, each further
    # along. Their edges run as one line each (one bend point per layer, not one per edge per
    # layer: that grew with the square of the depth, 16 s for 429 steps), each edge leaving it
    # just before its node; the trunk is the farthest edge's.
    lines = ["w = -1.5", "c = 0.25", "y0 = 0.5"] + [f"y{k} = tanh(y{k - 1} * w + c)" for k in range(1, 61)]
    program = Program.parse("\n".join(lines))
    graph = Graph.of(program.output, program.nodes)
    drawn = layout(graph)
    labels = [node.label for node in program.nodes]
    w = labels.index("w")
    out = [e for e in graph.edges if e.parent == w]
    assert len(out) == 60
    points = [drawn["edges"][e.id]["points"] for e in out]
    farthest = max(points, key=len)
    assert len(farthest) > 60 and sum(len(p) for p in points) < 4 * len(farthest)
    for p, edge in zip(points, out):
        child = drawn["nodes"][edge.child]
        assert abs(p[-1][0] - (child["x"] - drawn["node_width"] / 2)) < 1e-6  # it ends at its node
        if p is not farthest:  # one segment: to the next layer, or off the trunk
            assert len(p) == 2
            from_w = abs(p[0][0] - (drawn["nodes"][w]["x"] + drawn["node_width"] / 2)) < 1e-6
            assert from_w or tuple(p[0]) in set(map(tuple, farthest))
    bends = sum(1 for e in out for _ in drawn["edges"][e.id]["points"][1:-1])
    assert bends < 2 * len(farthest)
