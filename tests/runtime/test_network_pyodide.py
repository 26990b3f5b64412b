"""micrograd's demo loss, grouped, in the pinned Pyodide: the network path takes a demo-sized graph.

bench/network_pyodide.mjs (the benchmark, so what it times is what this checks) boots the built
site's Pyodide under Node as the page's worker boots it (the trimmed precompiled stdlib, the
precompiled engine wheel), puts micrograd's own source, the
demo's model (tests/support/demo_mlp.py) and gradwalk/kernel.py into its file system, builds the
demo loss there (MLP(2, [16, 16, 1]) over 100 points, 65,818 nodes) and answers the widget's
requests for `gradwalk.show(loss, model=model)`: the collapsed load, then a neuron of each layer
opened, and each of those neurons' parameters. Each answer must be CPython's (up to the last bits
of micrograd's own forward numbers, see below), and the grads in them micrograd's own backward
pass in CPython to 1e-9.
"""

import json
import re
import subprocess
from pathlib import Path

import micrograd
import pytest

from gradwalk import kernel
from tests.support.demo_mlp import DEMO_NODES, demo_loss

pytestmark = pytest.mark.node

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "network_pyodide.mjs"
NODE_TIMEOUT_S = 300  # boot ~3 s, the demo loss read and grouped in ~1 s: a hang must not stall the suite
MAX_ANSWER_BYTES = 5_000_000
NEURONS = {1: 3, 2: 9, 3: 1}  # layer → one of its neurons
OPEN = ["batch", "sample 1", *(f"layer {k} in sample 1" for k in NEURONS)]
OPEN_PARAMETERS = ["parameters", *(f"parameters of layer {k}" for k in NEURONS)]
REQUESTS = [
    {"cmd": "load"},
    *({"cmd": "expand", "group": f"neuron {j} of layer {k} in sample 1", "expanded": OPEN} for k, j in NEURONS.items()),
    *(
        {"cmd": "expand", "group": f"parameters of neuron {j} of layer {k}", "expanded": OPEN_PARAMETERS}
        for k, j in NEURONS.items()
    ),
]


@pytest.fixture(scope="module")
def in_pyodide(node, built_dist, tmp_path_factory) -> dict:
    """{answers (strings, as REQUESTS), nodes, fallback_used, seconds}: one Pyodide, one run."""
    folder = tmp_path_factory.mktemp("network")
    requests, answers = folder / "requests.json", folder / "answers.json"
    requests.write_text(json.dumps(REQUESTS))
    micrograd_dir = Path(micrograd.__file__).parent
    command = [node, str(SCRIPT), "--dist", str(built_dist), "--micrograd", str(micrograd_dir)]
    done = subprocess.run(
        [*command, "--answer", str(requests), str(answers)], capture_output=True, text=True, timeout=NODE_TIMEOUT_S
    )
    readable = "\n".join(line for line in done.stderr.splitlines() if len(line) < 400)
    assert done.returncode == 0, f"node failed:\n{readable[-3000:]}"
    return json.loads(answers.read_text())


@pytest.fixture(scope="module")
def in_cpython():
    """The same graph in CPython: its network, its answers, and micrograd's own grads."""
    loss, model, _, _ = demo_loss(100)
    shown = kernel.target(loss, model)
    answers = [kernel.handle(request, shown) for request in REQUESTS]
    for obj in shown.flat.objects:
        obj.grad = 0
    loss.backward()
    return model, shown, answers


def test_the_collapsed_demo_loss_is_answered_small(in_pyodide):
    assert in_pyodide["nodes"] == DEMO_NODES
    load = in_pyodide["answers"][0]
    answer = json.loads(load)
    assert answer["ok"] and answer["grouped"] and answer["size"]["nodes"] == DEMO_NODES
    assert [g["name"] for g in answer["groups"]] == ["batch", "parameters", "sum of 100 terms", "sum of 337 terms"]
    assert not any(g["open"] for g in answer["groups"])
    assert len(load.encode()) < MAX_ANSWER_BYTES
    assert len(answer["units"]) < 20  # drawn: four boxes and a few loose nodes, not 65,818 nodes


def test_every_answer_is_cpythons_up_to_the_last_bits(in_pyodide, in_cpython):
    # Not byte for byte: micrograd computes the demo's points with the platform's C library
    # (math.cos and random.gauss), and glibc and Pyodide's musl round one coordinate of the
    # 200 differently in its last bit. Everything else is the same: every id, name, group,
    # edge and frame, every number to 1e-9, every sentence with its numbers masked.
    _, _, expected = in_cpython
    for request, got, want in zip(REQUESTS, in_pyodide["answers"], expected):
        assert json.loads(got)["ok"], request
        mismatch = _difference(json.loads(got), json.loads(want))
        assert mismatch is None, (request, mismatch)


NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")


def _difference(got, want, where="answer"):
    """Where two decoded answers differ beyond the last bits of their numbers, or None."""
    if isinstance(want, float) or isinstance(got, float):
        ok = isinstance(got, (int, float)) and got == pytest.approx(want, rel=1e-9, abs=1e-15)
        return None if ok else f"{where}: {got!r} != {want!r}"
    if isinstance(want, str) and isinstance(got, str):
        return None if NUMBER.sub("#", got) == NUMBER.sub("#", want) else f"{where}: {got!r} != {want!r}"
    if isinstance(want, dict) and isinstance(got, dict):
        if got.keys() != want.keys():
            return f"{where}: keys {sorted(got)} != {sorted(want)}"
        return next((d for k in want if (d := _difference(got[k], want[k], f"{where}.{k}"))), None)
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return f"{where}: {len(got)} items != {len(want)}"
        return next((d for i, (a, b) in enumerate(zip(got, want)) if (d := _difference(a, b, f"{where}[{i}]"))), None)
    return None if got == want and type(got) is type(want) else f"{where}: {got!r} != {want!r}"


def test_an_opened_neurons_grads_are_micrograds(in_pyodide, in_cpython):
    _, shown, _ = in_cpython
    objects = shown.flat.objects
    for request, answer in zip(REQUESTS[1:4], in_pyodide["answers"][1:4]):
        opened = json.loads(answer)
        nodes = {n["id"]: n for n in opened["nodes"]}
        inner = [u for u in opened["inner"] if isinstance(u, int)]
        assert len(inner) >= 5, request  # products, sums and the activation, drawn node by node
        for v in inner:
            assert nodes[v]["grad"] == pytest.approx(objects[v].grad, rel=1e-9, abs=1e-15), (request, v)


def test_each_layers_weights_have_micrograds_grads(in_pyodide, in_cpython):
    model, _, _ = in_cpython
    for (layer, neuron), answer in zip(NEURONS.items(), in_pyodide["answers"][4:]):
        grads = {n["label"]: n["grad"] for n in json.loads(answer)["nodes"]}
        learner = model.layers[layer - 1].neurons[neuron - 1]
        expected = {f"L{layer}.N{neuron}.w{i}": w.grad for i, w in enumerate(learner.w, start=1)}
        expected[f"L{layer}.N{neuron}.b"] = learner.b.grad
        assert {label: grads.get(label) for label in expected} == pytest.approx(expected, rel=1e-9, abs=1e-15)
        assert any(abs(g) > 1e-6 for g in expected.values())  # not all zero: a real comparison
