"""Groups: a network's graph gathered into neurons, layers, samples and sums, from the learner's
model or inferred; every group a contiguous block of a topological order; and the answers at
the level on screen (engine/groups.py, engine/level.py, engine/network.py)."""

import json

import pytest
from micrograd.engine import Value as Micrograd
from micrograd.nn import Layer

from engine.api import handle
from engine.flat import NotFlat, read_flat
from engine.foreign import ForeignGraphError
from engine.groups import GroupError, find_groups, model_parts
from engine.level import MAX_UNITS, Grouped, View, _backward
from engine.network import Network
from engine.presets import get_preset
from tests.support.demo_mlp import MicroNet, demo_loss, lecture_loss
from tests.support.learner_engines import Lecture, MicroGPT, Sqrt
from tests.support.notebook import snapshot, unchanged


@pytest.fixture(scope="module")
def small_batch():
    """The demo's model over 3 samples (1,990 nodes)."""
    loss, model, _, _ = demo_loss(3)
    return loss, model, Network(loss, model)


@pytest.fixture(scope="module")
def one_sample():
    loss, model, _, _ = demo_loss(1)
    return loss, model, Network(loss, model)


def micrograd_grads(loss, objects):
    for obj in objects:
        obj.grad = 0
    loss.backward()
    return [obj.grad for obj in objects]


def ask(network, request):
    return json.loads(handle(request, network))


def names(network, gids):
    return [network.grouped.groups.groups[g].name for g in gids]


def test_micrograds_mlp_is_read_as_layers_of_neurons_with_their_parameters():
    _, model, _, _ = demo_loss(1)
    root = model_parts(model)
    assert root.name == "MLP"
    assert [p.name for p in root.parts] == ["layer 1", "layer 2", "layer 3"]
    assert [len(p.parts) for p in root.parts] == [16, 16, 1]
    neuron = root.parts[0].parts[1]
    assert neuron.name == "neuron 2"
    assert [name for _, name in neuron.params] == ["w1", "w2", "b"]
    assert [obj for obj, _ in neuron.params] == model.layers[0].neurons[1].parameters()


def test_one_sample_is_model_then_layers_then_neurons_each_holding_its_parameters(one_sample):
    _, model, network = one_sample
    groups = network.grouped.groups
    graph = network.flat
    top = [groups.groups[g] for g in groups.top]
    assert top[0].name == "MLP" and top[0].kind == "model"
    assert names(network, top[0].children) == ["layer 1", "layer 2", "layer 3"]
    neuron = groups.by_name("neuron 2 of layer 1")
    assert neuron.kind == "neuron" and neuron.parent == groups.by_name("layer 1").id
    labels = [graph.labels[v] for v in neuron.nodes]
    assert {"L1.N2.w1", "L1.N2.w2", "L1.N2.b"} <= set(labels)
    # its computation: two products, two additions (from b), and the relu, its one output
    assert sorted(graph.ops[v] for v in neuron.nodes if graph.ops[v]) == ["*", "*", "+", "+", "relu"]
    assert neuron.size == 8
    # its output is its relu (its box shows the last output); its parameters are used outside
    # it too, by the regularisation
    assert graph.ops[neuron.outputs[-1]] == "relu"
    assert sorted(graph.labels[v] for v in neuron.outputs[:-1]) == ["L1.N2.b", "L1.N2.w1", "L1.N2.w2"]
    # layer 2's neurons take 16 inputs and 17 parameters
    wide = groups.by_name("neuron 5 of layer 2")
    assert wide.size == 16 + 16 + 1 + 17  # products, additions, relu, parameters
    assert len(groups.inputs_of(wide.id)) == 16


def test_a_batch_is_samples_of_layers_of_neurons_and_the_parameters_apart(small_batch):
    _, model, network = small_batch
    groups = network.grouped.groups
    graph = network.flat
    assert names(network, groups.top) == ["batch", "parameters", "sum of 3 terms", "sum of 337 terms"]
    batch = groups.by_name("batch")
    assert names(network, batch.children) == ["sample 1", "sample 2", "sample 3"]
    sample = groups.by_name("sample 2")
    assert names(network, sample.children) == ["layer 1 in sample 2", "layer 2 in sample 2", "layer 3 in sample 2"]
    # the sample's loss term, (1 + -y * score).relu(), is in the sample itself
    assert sorted(graph.ops[v] for v in sample.nodes if graph.ops[v]) == ["*", "+", "relu"]
    params = groups.by_name("parameters of neuron 2 of layer 1")
    assert sorted(graph.labels[v] for v in params.nodes) == ["L1.N2.b", "L1.N2.w1", "L1.N2.w2"]
    assert sum(groups.groups[g].size for g in groups.top) + sum(1 for o in groups.owner if o is None) == len(graph)
    assert batch.size == 3 * 647


def test_groups_are_the_same_without_the_model_inferred_from_the_graphs_shape(small_batch):
    loss, _, with_model = small_batch
    inferred = Network(loss)
    a, b = with_model.grouped.groups, inferred.grouped.groups
    for name in ("neuron 2 of layer 1 in sample 3", "layer 2 in sample 1", "sample 2", "sum of 337 terms"):
        computed = {v for v in a.members(a.by_name(name).id) if with_model.flat.parents[v]}
        assert computed == {v for v in b.members(b.by_name(name).id) if inferred.flat.parents[v]}, name
    assert inferred.grouped.groups.by_name("parameters of neuron 2 of layer 1").size == 3


def test_the_lectures_classes_and_a_microgpt_style_model_are_grouped():
    loss, model = lecture_loss(Lecture)
    network = Network(loss, model)
    groups = network.grouped.groups
    assert names(network, groups.by_name("sample 4").children) == [
        "layer 1 in sample 4",
        "layer 2 in sample 4",
        "layer 3 in sample 4",
    ]
    neuron = groups.by_name("neuron 3 of layer 2 in sample 1")
    assert [network.flat.ops[v] for v in neuron.outputs] == ["tanh"]

    net = MicroNet(MicroGPT)
    out = net([MicroGPT(0.5), MicroGPT(-1.5)])
    network = Network(out, net)
    groups = network.grouped.groups
    layer = groups.by_name("layer 1")
    assert names(network, layer.children) == ["output 1 of layer 1", "output 2 of layer 1", "output 3 of layer 1"]
    assert network.flat.ops.count("relu") == 3


def test_reading_and_grouping_never_change_the_learners_objects(small_batch):
    loss, model, _ = small_batch
    before = snapshot(loss)
    Network(loss, model)
    Network(loss)
    assert unchanged(before, loss)


def test_every_group_is_a_contiguous_block_of_a_topological_order(small_batch):
    _, _, network = small_batch
    graph, groups = network.flat, network.grouped.groups
    order = groups.forward_order
    assert sorted(order) == list(range(len(graph)))
    place = {v: i for i, v in enumerate(order)}
    assert all(place[p] < place[v] for v in range(len(graph)) for p in graph.parents[v])
    for gid in groups.groups:
        spots = sorted(place[v] for v in groups.members(gid))
        assert spots[-1] - spots[0] + 1 == len(spots), groups.groups[gid].name


def test_grads_at_every_level_are_micrographs_own(small_batch):
    loss, _, network = small_batch
    expected = micrograd_grads(loss, network.flat.objects)
    assert network.grouped.grads == pytest.approx(expected, rel=1e-12, abs=1e-15)
    for expanded in ([], ["batch"], ["batch", "sample 2", "layer 2 in sample 2"], ["parameters"]):
        answer = ask(network, {"cmd": "load", "expanded": expanded})
        state = [0.0] * len(network.flat)
        for frame in answer["backward"]:
            for change in frame["changes"]:
                assert change["before"] == state[change["node"]]
                state[change["node"]] = change["after"]
        for node in answer["nodes"]:
            assert state[node["id"]] == pytest.approx(expected[node["id"]], rel=1e-12, abs=1e-15)
            assert node["grad"] == state[node["id"]]
        for group in answer["groups"]:
            if not group["open"]:
                # a box shows its one output's grad, or with several outputs none (each listed)
                one = group["outputs"][0] if len(group["outputs"]) == 1 else None
                if one is None:
                    assert group["grad"] is None and group["data"] is None
                else:
                    assert group["grad"] == pytest.approx(expected[one], rel=1e-12, abs=1e-15)
                for shown in group["shown"]:
                    assert shown["grad"] == pytest.approx(expected[shown["node"]], rel=1e-12, abs=1e-15)


def test_a_collapsed_neurons_visit_is_one_frame_and_opening_it_steps_its_nodes(one_sample):
    _, _, network = one_sample
    closed = ask(network, {"cmd": "load", "expanded": ["MLP", "layer 1"]})
    gid = network.grouped.groups.by_name("neuron 2 of layer 1").id
    frame = next(f for f in closed["backward"] if f.get("group") == gid)
    assert frame["kind"] == "group"
    assert frame["text"].startswith("Visit neuron 2 of layer 1: its 4 outputs' grads, ")
    assert " go back through its 8 nodes to 2 inputs: " in frame["text"]
    opened = ask(network, {"cmd": "expand", "group": "neuron 2 of layer 1", "expanded": ["MLP", "layer 1"]})
    assert opened["group"] == gid
    inner = opened["inner"]
    assert len(inner) == 8 and all(isinstance(u, int) for u in inner)
    visits = [f for f in opened["backward"] if f.get("node") in inner and f["kind"] == "visit"]
    assert len(visits) == 8
    # the same numbers: the pushes out of the neuron end where its one frame ended
    outside = {c["node"]: c for c in frame["changes"]}
    last = {}
    for f in visits:
        for c in f["changes"]:
            last[c["node"]] = c["after"]
    for node, change in outside.items():
        assert last[node] == change["after"]
    # the answer's units are the opened neuron's nodes in place of its box
    assert gid not in opened["units"] and gid in closed["units"]
    assert len(opened["units"]) == len(closed["units"]) - 1 + 8


def test_a_closed_group_with_nothing_outside_it_to_feed_says_so(small_batch):
    # The batch's parameters take nothing from outside: their visit passes nothing on (not
    # "passed its grad to 0 inputs (its output L2.N1.w1.grad …)")
    _, _, network = small_batch
    answer = ask(network, {"cmd": "load", "expanded": []})
    gid = network.grouped.groups.by_name("parameters").id
    frame = next(f for f in answer["backward"] if f.get("group") == gid)
    assert frame["text"] == (
        f"Parameters takes nothing from outside it, so its visit passes nothing on: its "
        f"{network.grouped.groups.groups[gid].size:,} nodes now hold their grads."
    )
    assert frame["changes"] == []


def test_the_recorded_right_pass_is_the_pass_run_in_the_right_order(small_batch):
    _, _, network = small_batch
    for expanded in ([], ["batch", "sample 1"], ["parameters", "batch"]):
        answer = ask(network, {"cmd": "load", "expanded": expanded})
        view = View(network.grouped, expanded)
        frames, _, late = _backward(network.grouped, view, view.units[::-1])
        assert json.loads(json.dumps(frames)) == answer["backward"]
        assert late == []


def test_layers_in_a_wrong_order_lose_a_path(one_sample):
    _, _, network = one_sample
    view = ask(network, {"cmd": "load", "expanded": ["MLP"]})
    right = [u if isinstance(u, str) else network.flat.labels[u] for u in view["units"][::-1]]
    ok = ask(network, {"cmd": "load", "expanded": ["MLP"], "order": right})["experiment"]
    assert ok["late"] == [] and ok["wrong_inputs"] == 0 and ok["lost_path_count"] == 0
    layer1, layer2 = (network.grouped.groups.by_name(n).id for n in ("layer 1", "layer 2"))
    wrong = list(right)
    i, j = wrong.index(layer1), wrong.index(layer2)
    wrong[i], wrong[j] = wrong[j], wrong[i]  # layer 1 before layer 2
    ran = ask(network, {"cmd": "load", "expanded": ["MLP"], "order": wrong})["experiment"]
    assert {"parent": layer1, "child": layer2, "count": 16 * 16} in ran["late"]
    assert ran["lost_path_count"] > 0 and ran["wrong_inputs"] > 0
    assert ran["explanation"][0].startswith("Layer 1 was visited before layer 2 had passed its grad into it")
    assert "L1.N1.w1.grad is" in ran["explanation"][-1] or "more inputs are wrong" in ran["explanation"][-1]


def test_the_answer_does_not_grow_with_what_is_collapsed():
    small = Network(*demo_loss(3)[:2])
    big = Network(*demo_loss(30)[:2])
    a = handle({"cmd": "load"}, small)
    b = handle({"cmd": "load"}, big)
    assert json.loads(b)["size"]["nodes"] > 6 * json.loads(a)["size"]["nodes"]
    assert len(b) < 1.2 * len(a)


def test_a_view_has_a_budget_of_boxes_and_errors_are_sentences(small_batch):
    _, _, network = small_batch
    assert ask(network, {"cmd": "expand", "group": "no such"})["error"] == {
        "message": 'There is no group called "no such" in this graph.',
        "kind": "graph",
    }
    assert ask(network, {"cmd": "load", "expanded": "batch"})["error"]["kind"] == "request"
    assert ask(network, {"cmd": "nudge", "wrt": "x"})["error"]["kind"] == "graph"
    everything = [g.name for g in network.grouped.groups.groups.values()]
    assert len(network.flat) > MAX_UNITS  # so that opening every group draws too many boxes
    error = ask(network, {"cmd": "load", "expanded": everything})["error"]
    assert error == {
        "message": f"Opening these groups would draw more than {MAX_UNITS:,} boxes at once; close a group, "
        "or open one inside it instead.",
        "kind": "graph",
    }
    assert json.loads(handle({"cmd": "expand", "group": "x", "preset": "diamond"}))["ok"] is False


def test_a_group_that_is_not_convex_is_refused_in_a_sentence():
    a = Micrograd(2.0)
    b = a * 3
    c = b + 1
    d = c * b
    graph = read_flat(d)
    b_node = next(v for v in range(len(graph)) if graph.ops[v] == "*" and graph.parents[v][0] == 0)
    d_node = graph.output
    with pytest.raises(GroupError, match="a path leaves"):
        find_groups(graph, parts=[("outer", [b_node, d_node])])


SMALL_NETWORK = "small-network"
SMALL_NETWORK_PROGRAM = get_preset(SMALL_NETWORK)["program"]


def test_a_programs_with_group_blocks_are_its_groups_and_its_answer_names_them():
    answer = json.loads(handle({"cmd": "load", "preset": SMALL_NETWORK}))
    groups = {g["name"]: g for g in answer["groups"]}
    assert list(groups) == [
        "layer 1",
        "neuron 1 of layer 1",
        "neuron 2 of layer 1",
        "neuron 3 of layer 1",
        "layer 2",
        "neuron 1 of layer 2",
    ]
    labels = {n["id"]: n["label"] for n in answer["nodes"]}
    neuron = groups["neuron 2 of layer 1"]
    assert neuron["parent"] == groups["layer 1"]["id"] and neuron["groups"] == []
    assert [labels[v] for v in neuron["nodes"]] == ["w21", "w22", "b2", "x1*w21", "x2*w22", "t2", "t2+b2", "h2"]
    assert [labels[v] for v in neuron["outputs"]] == ["h2"] and neuron["size"] == 8
    assert groups["layer 1"]["size"] == 24 and groups["layer 1"]["nodes"] == []
    # the inputs stay where the program made them: outside every group
    assert all(labels[v] not in ("x1", "x2") for g in groups.values() for v in g["nodes"])
    # a program without groups answers as it always did: no "groups"
    assert "groups" not in json.loads(handle({"cmd": "load", "preset": "neuron"}))


def test_a_program_steps_at_the_level_on_screen_by_neuron():
    collapsed = json.loads(handle({"cmd": "load", "preset": SMALL_NETWORK, "expanded": ["layer 1", "layer 2"]}))
    names_of = {g["id"]: g["name"] for g in collapsed["groups"]}
    boxes = [names_of[u] for u in collapsed["units"] if isinstance(u, str)]
    assert boxes == ["neuron 1 of layer 1", "neuron 2 of layer 1", "neuron 3 of layer 1", "neuron 1 of layer 2"]
    texts = [f["text"] for f in collapsed["backward"] if f["kind"] == "group"]
    assert texts[0].startswith(
        "Visit neuron 1 of layer 2: its output's grad, o.grad = 1, goes back through its 11 nodes"
    )
    assert texts[1] == (
        "Visit neuron 3 of layer 1: its output's grad, h3.grad = 0.3159, goes back through its 8 nodes to 2 inputs: "
        "x1.grad += 0.2264 × 0.3159 = 0.07151, 0 → 0.07151; x2.grad += 0.4074 × 0.3159 = 0.1287, 0 → 0.1287."
    )
    whole = json.loads(handle({"cmd": "load", "preset": SMALL_NETWORK}))
    grads = {n["id"]: n["grad"] for n in whole["nodes"]}
    state = {}
    for frame in collapsed["backward"]:
        for change in frame["changes"]:
            state[change["node"]] = change["after"]
    for node in collapsed["nodes"]:  # x1, x2: the same grads as node by node
        assert state[node["id"]] == grads[node["id"]]
    opened = json.loads(
        handle({"cmd": "expand", "preset": SMALL_NETWORK, "group": "neuron 1 of layer 2", "expanded": ["layer 2"]})
    )
    assert len(opened["inner"]) == 11 and opened["preset"] == SMALL_NETWORK  # 3 weights, a bias, 7 computed


@pytest.mark.parametrize(
    "program, message",
    [
        ("with group(2):\n    a = 2", "group() takes the group's name in quotes"),
        ('with group("a"):\n    a = 2\nwith group("a"):\n    b = a * 2', 'There is already a group called "a"'),
        ('with open("f") as f:\n    a = 2', "a with block can't be used"),
        ('with group("g") as g:\n    a = 2', "a with block can't be used"),
    ],
)
def test_a_group_block_outside_the_subset_is_refused(program, message):
    error = json.loads(handle({"cmd": "load", "program": program}))["error"]
    assert error["kind"] == "program" and message in error["message"]


def test_expanding_a_graph_without_groups_says_so():
    error = json.loads(handle({"cmd": "expand", "preset": "diamond", "group": "layer 1"}))["error"]
    assert error == {
        "message": '"expand" opens a group of a grouped graph, and this graph has no groups.',
        "kind": "request",
    }


def test_a_big_graph_without_neurons_is_folded_by_its_sums_or_refused_with_how_to_show_a_part():
    xs = [Micrograd(i * 0.001) for i in range(1500)]
    total = sum((x * x for x in xs), Micrograd(0.0)).relu()
    answer = ask(Network(total), {"cmd": "load"})
    assert [g["name"] for g in answer["groups"]] == ["sum of 1500 terms"]
    assert len(answer["units"]) == 2  # the sum's box and the relu
    assert answer["groups"][0]["size"] == 1500 + 1500 + 1500 + 1  # additions, products, inputs, the starting 0
    chain = Micrograd(1.0)
    for _ in range(1200):
        chain = chain * 1.0001 + 0.5
    with pytest.raises(ValueError, match="found no neurons or sums in it .* show a smaller part of it"):
        Network(chain)


def test_an_open_groups_units_sit_next_to_each_other_in_every_layer():
    answer = json.loads(
        handle({"cmd": "load", "preset": SMALL_NETWORK, "expanded": ["layer 1", "layer 2", "neuron 1 of layer 1"]})
    )
    parent = {g["id"]: g["parent"] for g in answer["groups"]}
    owner = {n["id"]: n["group"] for n in answer["nodes"]}

    def around(unit):  # the open groups around a unit, innermost first
        gid = parent[unit] if isinstance(unit, str) else owner[unit]
        out = []
        while gid is not None:
            out.append(gid)
            gid = parent[gid]
        return out

    opened = {g["id"] for g in answer["groups"] if g["open"]}
    inner = next(g["id"] for g in answer["groups"] if g["name"] == "neuron 1 of layer 1")
    assert inner in opened and sum(inner in around(u) for u in answer["units"]) == 8
    for drawn, along, within in [(answer["layout"], "x", "y"), (answer["layout"]["down"], "y", "x")]:
        layers: dict[float, list] = {}
        for unit, at in zip(answer["units"], drawn["nodes"]):
            layers.setdefault(at[along], []).append((at[within], unit))
        for units in layers.values():
            row = [unit for _, unit in sorted(units)]
            for gid in opened:
                places = [i for i, unit in enumerate(row) if gid in around(unit)]
                assert places == list(range(places[0], places[0] + len(places))) if places else True, (gid, row)


@pytest.mark.parametrize(
    "program",
    [
        'a = 2\nb = 3\nwith group("g"):\n    c = b * a\n    d = c + 1\ne = d * a',
        SMALL_NETWORK_PROGRAM,
    ],
)
def test_each_edge_of_a_view_is_drawn_from_its_own_parent_to_its_own_child(program):
    # The layout's i-th route belongs to the answer's i-th edge: it leaves its parent's right
    # side and reaches its child's left side, whatever order the operands come in.
    whole = json.loads(handle({"cmd": "load", "program": program}))
    everything = [g["id"] for g in whole["groups"]]
    for expanded in ([], everything[:1], everything):
        answer = json.loads(handle({"cmd": "load", "program": program, "expanded": expanded}))
        drawn = answer["layout"]
        at = dict(zip(answer["units"], drawn["nodes"]))
        half = drawn["node_width"] / 2
        assert len(drawn["edges"]) == len(answer["edges"])
        for edge, route in zip(answer["edges"], drawn["edges"]):
            start, end = route["points"][0], route["points"][-1]
            assert start[0] == pytest.approx(at[edge["parent"]]["x"] + half, abs=0.2), (expanded, edge)
            assert end[0] == pytest.approx(at[edge["child"]]["x"] - half, abs=0.2), (expanded, edge)
            assert abs(start[1] - at[edge["parent"]]["y"]) < drawn["node_height"] / 2, (expanded, edge)
            assert abs(end[1] - at[edge["child"]]["y"]) < drawn["node_height"] / 2, (expanded, edge)


@pytest.mark.parametrize("order", ["layer 1", ["no such box"], ["layer 2", "layer 2"], ["layer 2"]])
def test_a_bad_visit_order_at_a_level_is_an_error_of_kind_order(one_sample, order):
    _, _, network = one_sample
    error = ask(network, {"cmd": "load", "expanded": ["MLP"], "order": order})["error"]
    assert error["kind"] == "order"
    program = json.loads(handle({"cmd": "load", "preset": SMALL_NETWORK, "expanded": [], "order": order}))["error"]
    assert program["kind"] == "order"
    # what is not about the order stays an error about the graph
    assert ask(network, {"cmd": "load", "expanded": ["no such group"], "order": order})["error"]["kind"] == "graph"


THREE_GROUPS = (
    'x = 1\nwith group("ga"):\n    a = x * 0.1\nwith group("gb"):\n    b = x * 0.2\n'
    'with group("gc"):\n    c = x * 0.3\ny = a + b + c\n'
)


@pytest.mark.parametrize("boxes", [["ga", "gb", "gc"], ["gc", "ga", "gb"], ["gb", "ga", "gc"]])
def test_an_order_with_nothing_late_has_no_wrong_input_even_if_its_sums_round_otherwise(boxes):
    # x.grad sums 0.1, 0.2 and 0.3 in the order the boxes are visited: 0.6000000000000001 or 0.6
    ran = json.loads(
        handle({"cmd": "load", "program": THREE_GROUPS, "expanded": [], "order": ["y", "a+b", *boxes, "x"]})
    )["experiment"]
    assert ran["late"] == [] and ran["wrong_inputs"] == 0 and ran["lost_path_count"] == 0
    assert ran["explanation"] == ["Every box was visited after all the boxes it feeds into, so every grad is right."]


def test_a_late_box_names_the_input_it_leaves_wrong():
    ran = json.loads(
        handle({"cmd": "load", "program": THREE_GROUPS, "expanded": [], "order": ["ga", "y", "a+b", "gb", "gc", "x"]})
    )["experiment"]
    assert ran["wrong_inputs"] == 1 and ran["lost_path_count"] == 1
    assert ran["explanation"][-1] == "x.grad is 0.5, not 0.6."


def test_a_grouped_level_refuses_the_pull_rule_in_a_sentence(one_sample):
    _, _, network = one_sample
    view = ask(network, {"cmd": "load", "expanded": ["MLP"]})
    right = [u if isinstance(u, str) else network.flat.labels[u] for u in view["units"][::-1]]
    pulled = ask(network, {"cmd": "load", "expanded": ["MLP"], "order": right, "rule": "pull"})["error"]
    assert pulled["kind"] == "order" and pulled["message"].startswith("On a graph drawn in boxes, the visit-order")
    program = {"cmd": "load", "program": THREE_GROUPS, "expanded": [], "rule": "pull"}
    assert json.loads(handle({**program, "order": ["y", "a+b", "gc", "gb", "ga", "x"]}))["error"] == pulled
    assert json.loads(handle(program))["ok"] is True  # without an order, no experiment runs: nothing to refuse
    assert ask(network, {"cmd": "load", "rule": "sideways"})["error"]["kind"] == "request"


class Square:
    """A model with its parameters at its root: relu(w * x + b)."""

    def __init__(self):
        self.w, self.b = Micrograd(0.5), Micrograd(0.1)

    def __call__(self, x):
        return (self.w * x + self.b).relu()

    def parameters(self):
        return [self.w, self.b]


def test_every_group_name_is_unique_and_a_sum_is_named_by_its_real_terms():
    xs = [Micrograd(1 + i / 100) for i in range(10)]
    first = sum((x * x for x in xs[:5]), Micrograd(0.0))  # sum() starts from a 0: not a term
    second = sum(x * x for x in xs[5:])
    groups = Network((first * second).relu()).grouped.groups
    assert [g.name for g in groups.groups.values()] == ["sum of 5 terms", "sum of 5 terms (2)"]
    assert groups.by_name("sum of 5 terms (2)").size == 5 + 5 + 5 + 1  # additions, products, inputs, the 0


def test_a_model_with_its_parameters_at_its_root_used_twice_has_one_group_per_use():
    model = Square()
    groups = Network(model(model(Micrograd(1.0))), model).grouped.groups
    assert [(g.name, g.parent) for g in groups.groups.values()] == [
        ("Square", None),
        ("output 1 of Square", "g0"),
        ("output 2 of Square", "g0"),
    ]
    used_apart = Network(model(Micrograd(1.0)) + model(Micrograd(2.0)), model).grouped.groups
    names = [g.name for g in used_apart.groups.values()]
    assert names == ["batch", "sample 1", "sample 2", "parameters"]
    assert len(set(names)) == len(names)


class Recurrent:
    """One layer applied at every step, its outputs fed back in: h = cell([x] + h)."""

    def __init__(self):
        self.cell = Layer(3, 2)
        self.out = Layer(2, 1, nonlin=False)

    def __call__(self, xs):
        h = [Micrograd(0.0), Micrograd(0.0)]
        for x in xs:
            h = self.cell([Micrograd(x)] + h)
        return self.out(h)

    def parameters(self):
        return self.cell.parameters() + self.out.parameters()


@pytest.mark.parametrize("with_model", [True, False])
def test_a_layer_used_at_every_step_is_grouped_by_each_use_of_its_neurons(with_model):
    model = Recurrent()
    out = model([0.5, -1.0, 2.0])
    network = Network(out, model) if with_model else Network(out)
    groups = network.grouped.groups
    assert all(g.parent is None and g.kind == "neuron" for g in groups.groups.values())
    names = [g.name for g in groups.groups.values()]
    assert len(names) == 3 * 2 + 1 and len(set(names)) == len(names)
    if with_model:
        assert "output 3 of neuron 2 of cell" in names and "neuron 1 of out" in names
    answer = ask(network, {"cmd": "load"})
    assert answer["ok"] and {u for u in answer["units"] if isinstance(u, str)} == set(groups.groups)
    expected = micrograd_grads(out, network.flat.objects)
    assert network.grads == pytest.approx(expected, rel=1e-12)


def test_a_model_that_is_not_one_is_still_refused_as_such():
    with pytest.raises(GroupError, match="model= takes the object your network is made of"):
        Network(Micrograd(1.0) * 2, model=3)


def test_requests_of_the_wrong_shape_are_refused_in_a_sentence_for_a_network_and_a_program(one_sample):
    _, _, network = one_sample
    refused = "This grouped graph answers load and expand only"
    for values in ({}, {"x": 1}):
        error = ask(network, {"cmd": "nudge", "wrt": "x", "values": values})["error"]
        assert error["kind"] == "graph" and error["message"].startswith(refused)
    for expanded in (5, "layer 1", [3]):
        sent = {"cmd": "expand", "group": "layer 2", "expanded": expanded}
        mine = ask(network, sent)["error"]
        program = json.loads(handle({**sent, "preset": SMALL_NETWORK}))["error"]
        assert mine == program == {"message": '"expanded" must be a list of group names or ids.', "kind": "request"}


def test_expand_answers_the_same_for_a_network_and_for_its_own_load(one_sample):
    _, _, network = one_sample
    opened = ask(network, {"cmd": "expand", "group": "layer 1", "expanded": ["MLP"]})
    loaded = ask(network, {"cmd": "load", "expanded": ["MLP", "layer 1"]})
    assert {k: v for k, v in opened.items() if k not in ("group", "inner")} == loaded
    names_of = {g["id"]: g["name"] for g in opened["groups"]}
    boxes = [names_of[u] for u in opened["inner"] if isinstance(u, str)]
    assert boxes == [f"neuron {k} of layer 1" for k in range(1, 17)]


def test_a_graph_whose_closed_view_is_too_big_is_refused_when_shown_before_any_pass(monkeypatch):
    monkeypatch.setattr(Grouped, "grads", property(lambda self: pytest.fail("the backward pass ran")))
    xs = [Micrograd(1 + i / 1000) for i in range(MAX_UNITS // 2 + 10)]
    total = sum(x.relu().relu() for x in xs)  # two loose nodes per term, beside the sum's box
    with pytest.raises(ForeignGraphError, match="Even with every group closed, this graph"):
        Network(total)
    with pytest.raises(ForeignGraphError, match="found no neurons or sums in it"):
        Network(xs[0] * 2)


def test_a_graph_only_the_careful_reader_reads_is_grouped_with_the_learners_grads():
    xs = [Sqrt(1.0 + i, label=f"x{i}") for i in range(5)]
    total = sum(((x * x).sqrt() for x in xs[1:]), xs[0])  # sqrt: an operation the quick reader doesn't know
    with pytest.raises(NotFlat):
        read_flat(total)
    network = Network(total)
    assert [g.name for g in network.grouped.groups.groups.values()] == ["sum of 5 terms"]
    assert network.flat.objects[-1] is total and network.flat.labels[:2] == ["x0", "x1"]
    assert network.grads == micrograd_grads(total, network.flat.objects)


def test_a_late_box_whose_lost_path_carries_0_leaves_every_input_right():
    program = THREE_GROUPS.replace("a = x * 0.1", "a = relu(x * -1)")  # relu's derivative at -1 is 0
    ran = json.loads(
        handle({"cmd": "load", "program": program, "expanded": [], "order": ["ga", "y", "a+b", "gb", "gc", "x"]})
    )["experiment"]
    assert ran["lost_path_count"] == 1 and ran["wrong_inputs"] == 0
    assert (
        ran["explanation"][-1]
        == "Those paths carried 0 (a local derivative on the way is 0), so no input's grad changed."
    )


def test_a_closed_group_with_several_outputs_tells_each_and_each_share():
    """Small network, layer 1 closed: its box shows no one output's numbers (it has three: h1,
    h2, h3, each listed), and its visit passes x1 one share per output, ∂h/∂x1 × h.grad, and
    their sum: 0.2153 + 0.2027 + 0.07151 = 0.4896 (never ∂layer 1/∂x1 × one grad)."""
    answer = json.loads(handle({"cmd": "load", "preset": SMALL_NETWORK, "expanded": ["layer 2"]}))
    layer = next(g for g in answer["groups"] if g["name"] == "layer 1")
    assert layer["data"] is None and layer["grad"] is None
    assert [(o["label"], round(o["data"], 4), round(o["grad"], 4)) for o in layer["shown"]] == [
        ("h1", 0.7163, 0.5528),
        ("h2", -0.3799, -0.3949),
        ("h3", -0.7398, 0.3159),
    ]
    forward = next(f for f in answer["forward"] if f.get("group") == layer["id"])
    assert forward["text"].endswith("its 3 outputs h1 = 0.7163, h2 = -0.3799 and h3 = -0.7398.")
    visit = next(f for f in answer["backward"] if f.get("group") == layer["id"])
    assert visit["text"] == (
        "Visit layer 1: its 3 outputs' grads, h1.grad = 0.5528, h2.grad = -0.3949 and h3.grad = 0.3159, go back "
        "through its 24 nodes to 2 inputs: "
        "x1.grad += 0.3895 × 0.5528 + (-0.5134) × (-0.3949) + 0.2264 × 0.3159 = 0.2153 + 0.2027 + 0.07151 = 0.4896, "
        "0 → 0.4896; "
        "x2.grad += (-0.1948) × 0.5528 + 0.2567 × (-0.3949) + 0.4074 × 0.3159 = (-0.1077) + (-0.1014) + 0.1287 "
        "= -0.08032, 0 → -0.08032."
    )
    x1 = visit["passes"][0]
    assert x1["rule"] == "x1.grad += ∂h1/∂x1 × h1.grad + ∂h2/∂x1 × h2.grad + ∂h3/∂x1 × h3.grad"
    assert [o["label"] for o in visit["outputs"]] == ["h1", "h2", "h3"]
    assert "layer 1.grad" not in visit["text"] and "∂layer" not in json.dumps(answer, ensure_ascii=False)
    # layer 2's visit passes into each of layer 1's outputs, each a change of its own
    layer2 = next(f for f in answer["backward"] if f["kind"] == "group" and f["group"] != layer["id"])
    assert [(c["node"], round(c["after"], 4)) for c in layer2["changes"]] == [(9, 0.5528), (17, -0.3949), (25, 0.3159)]
