"""The presets: their files, the numbers each one's ``[expect]`` table holds it to, closed
forms that check those numbers independently, and every checkpoint's answer.

Every number is recomputed by the engine (``Program.parse`` + ``backward()``). Against a
preset's ``[expect]`` (presets/README.md) an integer must be exact and a decimal must be
the value rounded to the places it is written with; the closed forms (the derivative
worked out by hand, as a formula of the inputs) must hold to ``rel=1e-12`` or exactly.
"""

from __future__ import annotations

import itertools
import math
import re

import pytest

from engine import Program
from engine.grid import Grid
from engine.mistakes import MISTAKES
from tests.support.presets import PRESET_IDS, agrees, decimals, expected_nodes, expected_with_values, read

REQUIRED_KEYS = {"title": str, "position": int, "summary": str, "lesson": str, "program": str}
CHECKPOINT_REQUIRED = {"id", "pass", "before_step", "question", "kind", "answer", "explanation"}
CHECKPOINT_OPTIONAL = {"tolerance", "choices", "check", "values", "order", "hint"}
# A checkpoint's check (presets/README.md): a node's data or grad, or an edge's local
# derivative or contribution ("e->d.local": the edge from d into e).
CHECK = re.compile(r"(?:(?P<child>.+?)->)?(?P<node>.+)\.(?P<what>data|grad|local|contribution)")


def run(source: str, values: dict | None = None) -> Program:
    prog = Program.parse(source, values) if values else Program.parse(source)
    prog.output.backward()
    return prog


def run_preset(preset_id: str) -> Program:
    return run(read(preset_id)["program"])


def v(prog: Program, name: str):
    return prog.variables[name]


# -- the files ------------------------------------------------------------------------


def test_there_are_presets():
    assert len(PRESET_IDS) >= 11, PRESET_IDS


@pytest.mark.parametrize("preset_id", PRESET_IDS)
def test_preset_file_schema(preset_id):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", preset_id), "ids are kebab-case"
    data = read(preset_id)
    for key, kind in REQUIRED_KEYS.items():
        assert isinstance(data.get(key), kind), f"{preset_id}: {key} missing or not {kind.__name__}"
        if kind is str:
            assert data[key].strip(), f"{preset_id}: {key} is empty"
    assert set(data) <= set(REQUIRED_KEYS) | {"checkpoint", "visit_order", "expect"}, f"unknown keys in {preset_id}"
    assert "id" not in data, "the id is the file name"
    # 3 to 6 sentences (a full stop followed by a space or the end, not a decimal point).
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", data["lesson"].strip()) if s]
    assert 3 <= len(sentences) <= 6, f"{preset_id}: lesson has {len(sentences)} sentences"

    checkpoints = data.get("checkpoint")
    assert isinstance(checkpoints, list) and checkpoints, f"{preset_id}: no checkpoints"
    ids = [cp.get("id") for cp in checkpoints]
    assert len(ids) == len(set(ids)), f"{preset_id}: duplicate checkpoint ids {ids}"
    for cp in checkpoints:
        where = f"{preset_id}/{cp.get('id')}"
        assert set(cp) >= CHECKPOINT_REQUIRED, f"{where}: missing {CHECKPOINT_REQUIRED - set(cp)}"
        assert set(cp) <= CHECKPOINT_REQUIRED | CHECKPOINT_OPTIONAL, f"{where}: unknown keys"
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cp["id"]), where
        assert cp["pass"] in ("forward", "backward"), where
        assert isinstance(cp["before_step"], int) and cp["before_step"] >= -1, where
        assert cp["question"].strip() and cp["explanation"].strip(), where
        if cp["kind"] == "number":
            assert isinstance(cp["answer"], (int, float)) and not isinstance(cp["answer"], bool), where
            assert isinstance(cp.get("tolerance"), (int, float)) and cp["tolerance"] > 0, where
            assert "choices" not in cp, where
        else:
            assert cp["kind"] == "choice", where
            choices = cp.get("choices")
            assert isinstance(choices, list) and len(choices) >= 2, where
            for choice in choices:  # a text, or { text = "...", mistake = "<a mistake's id>" }
                if isinstance(choice, dict):
                    assert set(choice) == {"text", "mistake"}, where
                    assert choice["mistake"] in MISTAKES, f"{where}: no mistake called {choice['mistake']!r}"
            texts = choice_texts(cp)
            assert all(isinstance(c, str) and c.strip() for c in texts), where
            assert len(set(texts)) == len(texts), where
            assert isinstance(cp["answer"], int) and 0 <= cp["answer"] < len(choices), where
            assert "tolerance" not in cp, where
        if "check" in cp:
            m = CHECK.fullmatch(cp["check"])
            assert m, f"{where}: check is x.data, x.grad, e->x.local or e->x.contribution"
            assert (m["child"] is None) == (m["what"] in ("data", "grad")), where
            labels = [n.label for n in run(data["program"]).nodes]
            assert m["node"] in labels and m["child"] in (None, *labels), f"{where}: no such node"
        if "hint" in cp:
            assert isinstance(cp["hint"], str) and cp["hint"].strip(), where
        if "values" in cp:
            assert isinstance(cp["values"], dict) and cp["values"], where
        if "order" in cp:
            assert isinstance(cp["order"], list) and cp["pass"] == "backward", where
        if "values" in cp or "order" in cp:
            assert "check" in cp, f"{where}: a what-if checkpoint must say what it checks"
            assert cp["check"].endswith((".data", ".grad")), f"{where}: a what-if asks a node's data or grad"


@pytest.mark.parametrize("preset_id", PRESET_IDS)
def test_expect_table_schema(preset_id):
    expect = read(preset_id).get("expect")
    assert isinstance(expect, dict), f"{preset_id}: no [expect] table"
    assert set(expect) <= {"nodes", "with_values"}, f"{preset_id}: unknown keys in [expect]"
    tables = [expect["nodes"]] + [run["nodes"] for run in expect.get("with_values", [])]
    for run_ in expect.get("with_values", []):
        assert set(run_) == {"values", "nodes"} and run_["values"], f"{preset_id}: a with_values run"
    for table in tables:
        for label, pair in table.items():
            assert isinstance(pair, list) and len(pair) == 2, f"{preset_id}: {label} = [data, grad]"
            for number in pair:
                assert isinstance(number, (int, float)) and not isinstance(number, bool), f"{preset_id}: {label}"
                if isinstance(number, float):
                    decimals(number)  # a plain decimal, not 1e-5


def test_decimals_are_compared_to_the_places_written():
    assert agrees(0.7071, 0.7071067811865476) and not agrees(0.7072, 0.7071067811865476)
    assert agrees(-2.14112, -2.1411200080598674) and not agrees(-2.14113, -2.1411200080598674)
    assert agrees(0.5, 0.4999999999999999) and agrees(15, 15.0)
    assert not agrees(15, 15.000000000000002), "an integer is exact"


@pytest.mark.parametrize("preset_id", PRESET_IDS)
def test_every_node_shows_the_numbers_its_preset_expects(preset_id):
    prog = run_preset(preset_id)
    expected = expected_nodes(preset_id)
    assert [n.label for n in prog.nodes] == list(expected), "[expect.nodes] lists every node in order"
    for node in prog.nodes:
        data, grad = expected[node.label]
        assert agrees(data, node.data), f"{preset_id}: {node.label}.data is {node.data!r}, expected {data}"
        assert agrees(grad, node.grad), f"{preset_id}: {node.label}.grad is {node.grad!r}, expected {grad}"


WITH_VALUES = [
    pytest.param(pid, values, nodes, id=f"{pid}/{values}")
    for pid in PRESET_IDS
    for values, nodes in expected_with_values(pid)
]


@pytest.mark.parametrize("preset_id, values, expected", WITH_VALUES)
def test_changed_inputs_show_the_numbers_the_preset_expects(preset_id, values, expected):
    prog = run(read(preset_id)["program"], values)
    assert sorted(n.label for n in prog.nodes) == sorted(expected)
    for node in prog.nodes:
        data, grad = expected[node.label]
        assert agrees(data, node.data) and agrees(grad, node.grad), (node.label, node.data, node.grad)


def test_positions_unique_and_ids_unique():
    positions = [read(pid)["position"] for pid in PRESET_IDS]
    assert len(positions) == len(set(positions)), positions
    assert len(PRESET_IDS) == len(set(PRESET_IDS))
    titles = [read(pid)["title"] for pid in PRESET_IDS]
    assert len(titles) == len(set(titles)), titles
    assert read("add-mul")["position"] == min(positions), "(a+b)·c is the first preset"


@pytest.mark.parametrize("preset_id", PRESET_IDS)
def test_program_parses_and_every_node_is_used(preset_id):
    prog = run_preset(preset_id)
    nodes = prog.nodes
    assert nodes[-1] is prog.output
    # Every named variable is part of the output's graph (no dead lines in a preset).
    ids = {id(n) for n in nodes}
    for name, value in prog.variables.items():
        elements = [v for row in value.rows for v in row] if isinstance(value, Grid) else [value]
        assert all(id(v) in ids for v in elements), f"{preset_id}: {name} does not reach the output"
    for value in nodes:
        assert math.isfinite(value.data) and math.isfinite(value.grad)


def test_engine_presets_module_reads_these_files():
    from engine.presets import get_preset, load_presets

    presets = load_presets()
    ids = [p["id"] for p in presets]
    assert sorted(ids) == sorted(PRESET_IDS)
    assert ids == sorted(PRESET_IDS, key=lambda pid: read(pid)["position"]), "chooser order"
    for pid in PRESET_IDS:
        preset = get_preset(pid)
        assert preset["id"] == pid
        raw = read(pid)
        for key in REQUIRED_KEYS:
            assert preset[key] == raw[key]
        assert "expect" not in preset, "what the tests expect is not sent to the page"


# -- closed forms: each preset's derivatives worked out by hand ----------------------------


def test_add_mul_addition_copies_the_grad():
    prog = run_preset("add-mul")
    a, b, c, d = (v(prog, n) for n in "abcd")
    assert d._local == (1.0, 1.0)
    assert a.grad == b.grad == d.grad == c.data  # e = (a + b)·c
    assert c.grad == d.data


def test_neuron():
    prog = run_preset("neuron")
    g = {name: value.grad for name, value in prog.variables.items()}
    o, n = v(prog, "o"), v(prog, "n")
    assert n.data == pytest.approx(0.8813735870195432, rel=1e-12)
    assert o.data == pytest.approx(1 / math.sqrt(2), rel=1e-12)
    # o = tanh(n): n.grad = 1 - o², and each weight's grad is its input times n.grad.
    assert g["n"] == pytest.approx(1 - o.data**2, rel=1e-12)
    assert g["b"] == g["n"]
    assert g["w1"] == pytest.approx(v(prog, "x1").data * g["n"], rel=1e-15)
    assert g["x1"] == pytest.approx(v(prog, "w1").data * g["n"], rel=1e-15)
    assert g["w2"] == 0  # x2 = 0 exactly, so this one is exact


def test_square_two_edges():
    prog = run_preset("square")
    a, b = v(prog, "a"), v(prog, "b")
    assert len(b._prev) == 2 and all(p is a for p in b._prev), "a*a has two edges"
    assert b._local == (a.data, a.data)
    assert a.grad == 2 * a.data
    # Overwriting instead of accumulating would keep only one edge's share.
    overwritten = 0.0
    for local in b._local:
        overwritten = local * 1.0
    assert overwritten == a.grad / 2


def test_diamond():
    prog = run_preset("diamond")
    a = v(prog, "a")
    assert a.grad == 6 * a.data + 3  # d = (a + 1)·3a = 3a² + 3a


def test_diamond_wrong_orders_lose_a_path():
    """Visiting b or c before d loses that path's contribution to a.grad."""
    prog = run_preset("diamond")
    nodes = prog.nodes
    a, b, c, d = (v(prog, n) for n in "abcd")
    through_b, through_c = c.data, 3 * b.data  # d.grad · c · 1 and d.grad · b · 3
    for order in itertools.permutations(nodes):
        grads = simulate_order(prog, order)
        pos = {id(n): i for i, n in enumerate(order)}
        b_early = pos[id(b)] < pos[id(d)]
        c_early = pos[id(c)] < pos[id(d)]
        expected = a.grad - (through_b if b_early else 0) - (through_c if c_early else 0)
        assert grads[id(a)] == expected, [n.label for n in order]


@pytest.mark.parametrize(
    "preset_id, first, second",
    [("lesson-graph", "a", "b"), ("checkpoint", "x", "y")],
)
def test_product_plus_sum(preset_id, first, second):
    """out = xy + (x + y): d/dx = y + 1, d/dy = x + 1."""
    prog = run_preset(preset_id)
    x, y = v(prog, first), v(prog, second)
    assert prog.output.data == x.data * y.data + x.data + y.data
    assert x.grad == y.data + 1 and y.grad == x.data + 1


def test_relu():
    prog = run_preset("relu")
    a, b, e = v(prog, "a"), v(prog, "b"), v(prog, "e")
    assert e.data > 0 and v(prog, "f").data == e.data  # open: the ReLU passes e on
    assert a.grad == b.data and b.grad == a.data
    prog = run(read("relu")["program"], {"d": -a.data * b.data - 1})  # e = -1: closed
    assert v(prog, "f").data == 0 and v(prog, "a").grad == v(prog, "b").grad == v(prog, "d").grad == 0


def test_reuse():
    prog = run_preset("reuse")
    a, b = v(prog, "a"), v(prog, "b")
    assert len(b._prev) == 2 and all(p is a for p in b._prev)
    assert a.grad == 2


def test_xx_xy():
    prog = run_preset("xx-xy")
    x, y = v(prog, "x"), v(prog, "y")
    assert x.grad == 2 * x.data + y.data and y.grad == x.data  # z = x² + xy


def test_cos_example():
    prog = run_preset("cos")
    y, x1, x2 = v(prog, "y"), v(prog, "x1"), v(prog, "x2")
    assert y.data == pytest.approx(1 + math.cos(3), rel=1e-12)
    assert x1.grad == pytest.approx(-2 - math.sin(3), rel=1e-12)
    assert x2.grad == pytest.approx(2 - math.sin(3), rel=1e-12)


def test_double_diamond():
    prog = run_preset("double-diamond")
    a, b, c, d = (v(prog, n).data for n in "abcd")
    g = {name: value.grad for name, value in prog.variables.items()}
    assert g["y"] == g["e"] == g["f"] == 1
    assert g["c"] == 1 + d and g["d"] == 1 + c  # y = c + d + c·d
    assert g["a"] == 1 + b + b * (a + b) + a * b and g["b"] == 1 + a + a * (a + b) + a * b


# -- checkpoints ------------------------------------------------------------------------


def simulate_order(prog: Program, order) -> dict[int, float]:
    """Grads (by id) after seeding the output and visiting ``order``, rightly or not."""
    grads = {id(n): 0.0 for n in prog.nodes}
    grads[id(prog.output)] = 1.0
    for node in order:
        for parent, local in zip(node._prev, node._local):
            grads[id(parent)] += local * grads[id(node)]
    return grads


def backward_visits(prog: Program, named: list[str] | None) -> list:
    """The nodes in the order the correct backward pass visits them: the preset's named
    visit order if it has one, else reverse topological order."""
    if named is None:
        return list(reversed(prog.nodes))
    by_label = {n.label: n for n in prog.nodes}
    return [by_label[label] for label in named]


def frame_count(prog: Program, pass_: str) -> int:
    n = len(prog.nodes)
    return n if pass_ == "forward" else n + 1


def frame_index(prog: Program, cp: dict) -> int:
    step = cp["before_step"]
    return frame_count(prog, cp["pass"]) - 1 if step == -1 else step


def choice_texts(cp: dict) -> list[str]:
    return [c["text"] if isinstance(c, dict) else c for c in cp["choices"]]


def by_label(prog: Program, label: str):
    """A node by its label: a variable's name, or the text of an unnamed one ("x1-x2")."""
    return next(n for n in prog.nodes if n.label == label)


def edge_of(prog: Program, check: str) -> tuple:
    """The edge a local or contribution check names: (child, its local derivative)."""
    m = CHECK.fullmatch(check)
    child, parent = by_label(prog, m["child"]), by_label(prog, m["node"])
    slot = next(slot for slot, p in enumerate(child._prev) if p is parent)
    return child, child._local[slot]


def state_after(prog: Program, pass_: str, frame: int, name: str, attr: str, named=None):
    """``name``'s data or grad once frames 0..frame of the pass have been shown."""
    nodes = prog.nodes
    target = by_label(prog, name)
    if pass_ == "forward":
        if attr == "grad":
            return 0.0
        return target.data if nodes.index(target) <= frame else None
    if attr == "data":
        return target.data
    visits = backward_visits(prog, named)[:frame]  # frame 0 is the seed, frame k the k-th visit
    return simulate_order(prog, visits)[id(target)]


def frame_touches(prog: Program, pass_: str, frame: int, name: str, attr: str, named=None) -> bool:
    """Does this frame set the quantity (compute the node, seed it, or push into it)?"""
    nodes = prog.nodes
    target = by_label(prog, name)
    if pass_ == "forward":
        return attr == "data" and nodes[frame] is target
    if attr != "grad":
        return False
    if frame == 0:
        return target is prog.output
    visited = backward_visits(prog, named)[frame - 1]
    return any(parent is target for parent in visited._prev)


def edge_touched(prog: Program, pass_: str, frame: int, check: str, named=None) -> bool:
    """Does this frame use the edge a local or contribution check names (visit its child)?"""
    child, _ = edge_of(prog, check)
    return pass_ == "backward" and frame >= 1 and backward_visits(prog, named)[frame - 1] is child


def checked_value(prog_source: str, cp: dict, named=None):
    m = CHECK.fullmatch(cp["check"])
    name, attr = m["node"], m["what"]
    prog = run(prog_source, cp.get("values"))
    if "order" in cp:
        labels = [n.label for n in prog.nodes]
        assert sorted(cp["order"]) == sorted(labels), "an order names every node exactly once"
        visits = [by_label(prog, label) for label in cp["order"]]
    else:
        visits = backward_visits(prog, named)
    if attr in ("local", "contribution"):
        # The local derivative, or it times the child's grad as the child's visit finds it.
        child, local = edge_of(prog, cp["check"])
        if attr == "local":
            return local
        before = visits[: next(i for i, n in enumerate(visits) if n is child)]
        return local * simulate_order(prog, before)[id(child)]
    if "values" in cp:
        return getattr(by_label(prog, name), attr)
    if "order" in cp:
        if attr == "data":
            return by_label(prog, name).data
        return simulate_order(prog, visits)[id(by_label(prog, name))]
    return state_after(prog, cp["pass"], frame_index(prog, cp), name, attr, named)


ALL_CHECKPOINTS = [
    pytest.param(pid, cp, id=f"{pid}/{cp['id']}") for pid in PRESET_IDS for cp in read(pid)["checkpoint"]
]


@pytest.mark.parametrize("preset_id, cp", ALL_CHECKPOINTS)
def test_checkpoint_step_in_range(preset_id, cp):
    prog = run_preset(preset_id)
    frame = frame_index(prog, cp)
    assert 0 <= frame < frame_count(prog, cp["pass"])


@pytest.mark.parametrize("preset_id, cp", [p for p in ALL_CHECKPOINTS if "check" in p.values[1]])
def test_checkpoint_answer_matches_engine(preset_id, cp):
    preset = read(preset_id)
    actual = checked_value(preset["program"], cp, preset.get("visit_order"))
    assert actual is not None
    if cp["kind"] == "number":
        assert abs(actual - cp["answer"]) <= cp["tolerance"], (actual, cp["answer"])
        # The tolerance accepts the engine's value, and only values near it.
        assert cp["tolerance"] <= max(1e-3, 1e-3 * abs(actual))
    else:
        numbers = [float(c.replace("−", "-")) for c in choice_texts(cp)]
        right = numbers[cp["answer"]]
        assert right == pytest.approx(actual, abs=1e-9), (right, actual)
        for i, other in enumerate(numbers):
            if i != cp["answer"]:
                assert other != pytest.approx(actual, abs=1e-6), f"choice {i} is also right"


@pytest.mark.parametrize(
    "preset_id, cp",
    [p for p in ALL_CHECKPOINTS if "check" in p.values[1] and not ({"values", "order"} & set(p.values[1]))],
)
def test_checkpoint_asked_just_before_its_answer_appears(preset_id, cp):
    """The frame right after the question is the one that sets the asked quantity."""
    prog = run_preset(preset_id)
    m = CHECK.fullmatch(cp["check"])
    frame = frame_index(prog, cp)
    named = read(preset_id).get("visit_order")
    if m["what"] in ("local", "contribution"):  # asked just before the visit that uses the edge
        touched = edge_touched(prog, cp["pass"], frame, cp["check"], named)
    else:
        touched = frame_touches(prog, cp["pass"], frame, m["node"], m["what"], named)
    assert touched, f"frame {frame} of the {cp['pass']} pass doesn't set {cp['check']}"


@pytest.mark.parametrize("preset_id, cp", [p for p in ALL_CHECKPOINTS if "order" in p.values[1]])
def test_wrong_order_checkpoints_are_really_wrong(preset_id, cp):
    preset = read(preset_id)
    right = {key: value for key, value in cp.items() if key != "order"}
    named = preset.get("visit_order")
    assert checked_value(preset["program"], cp, named) != checked_value(preset["program"], right, named)


def find_checkpoint(preset_id, **fields):
    for cp in read(preset_id)["checkpoint"]:
        if all(cp.get(k) == value for k, value in fields.items()):
            return cp
    raise AssertionError(f"{preset_id} has no checkpoint with {fields}")


def test_required_checkpoints():
    # The seed: the output's grad starts at 1.
    cp = find_checkpoint("add-mul", **{"pass": "backward", "before_step": 0, "check": "e.grad"})
    assert cp["answer"] == 1
    # After the first backward step on (a+b)·c: d.grad = 4, c.grad = 5.
    assert find_checkpoint("add-mul", before_step=1, check="d.grad")["answer"] == 4
    assert find_checkpoint("add-mul", before_step=1, check="c.grad")["answer"] == 5
    # The checkpoint preset's final grads.
    assert find_checkpoint("checkpoint", check="x.grad", before_step=3)["answer"] == 0
    assert find_checkpoint("checkpoint", check="y.grad")["answer"] == 5
    assert find_checkpoint("neuron", check="w1.grad")["answer"] == 1
    assert find_checkpoint("diamond", check="a.grad", kind="number")["answer"] == 15


@pytest.mark.parametrize("preset_id", PRESET_IDS)
def test_every_preset_has_a_checked_checkpoint(preset_id):
    assert any("check" in cp for cp in read(preset_id)["checkpoint"])


def test_trace_matches_frame_model():
    """If engine.api exists, its frames follow the order these checkpoints assume."""
    api = pytest.importorskip("engine.api")
    import json

    for pid in PRESET_IDS:
        answer = json.loads(api.handle(json.dumps({"cmd": "load", "preset": pid})))
        assert answer["ok"], answer
        prog = run_preset(pid)
        labels = [n.label for n in prog.nodes]
        assert [n["label"] for n in answer["nodes"]] == labels
        assert [f["node"] for f in answer["forward"]] == list(range(len(labels)))
        backward = answer["backward"]
        assert backward[0]["kind"] == "seed"
        visits = [labels.index(n.label) for n in backward_visits(prog, read(pid).get("visit_order"))]
        assert [f["node"] for f in backward[1:]] == visits
        for node, value in zip(answer["nodes"], prog.nodes):
            assert node["data"] == value.data and node["grad"] == value.grad


@pytest.mark.parametrize("preset_id, cp", [p for p in ALL_CHECKPOINTS if {"values", "order"} & set(p.values[1])])
def test_what_if_checkpoints_match_api(preset_id, cp):
    """The API's own experiment (order) or re-run (values) gives the checkpoint's number."""
    api = pytest.importorskip("engine.api")
    import json

    request = {"cmd": "load", "preset": preset_id}
    for key in ("values", "order"):
        if key in cp:
            request[key] = cp[key]
    answer = json.loads(api.handle(json.dumps(request)))
    assert answer["ok"], answer
    m = CHECK.fullmatch(cp["check"])
    name, attr = m["node"], m["what"]
    node = next(n for n in answer["nodes"] if n["label"] == name)
    if "order" in cp:
        assert attr == "grad"
        assert answer["experiment"]["is_topological"] is False
        actual = answer["experiment"]["grads"][node["id"]]
    else:
        actual = node[attr]
    assert actual == checked_value(read(preset_id)["program"], cp)
