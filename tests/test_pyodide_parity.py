"""The engine answers the same bytes in Pyodide as in CPython.

tests/pyodide_parity.mjs boots the pinned Pyodide from dist/ under Node, installs
the built engine wheel with micropip and answers a batch of requests; each
answer must equal CPython's engine.api.handle(...) for the same request exactly
(number formatting, float rounding in math functions, ordering: anything).
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import api

pytestmark = pytest.mark.node

SCRIPT = Path(__file__).with_name("pyodide_parity.mjs")
NODE_TIMEOUT_S = 180  # Pyodide boots in ~3 s; a hang must not stall the suite


def parity_requests() -> list[str]:
    """The presets list, each preset, its graph, and visit-order experiments
    with the correct order and a wrong one; plus a learner program with changed
    values and a couple of errors."""
    requests = [json.dumps({"cmd": "presets"})]
    presets = json.loads(api.handle(requests[0]))["presets"]
    assert presets, "the engine lists no presets"
    for preset in presets:
        load = {"cmd": "load", "preset": preset["id"]}
        requests += [json.dumps({"cmd": "preset", "id": preset["id"]}), json.dumps(load)]
        nodes = json.loads(api.handle(json.dumps(load)))["nodes"]
        labels = [node["label"] for node in nodes]  # topological order
        requests.append(json.dumps({**load, "order": labels[::-1]}))  # correct backward order
        requests.append(json.dumps({**load, "order": labels}))  # inputs first: wrong
    requests += [
        json.dumps({"cmd": "load", "program": "x = 0.5\ny = 3\nz = (x * y).tanh() + x ** 2 / y",
                    "values": {"x": -1.25}}),
        json.dumps({"cmd": "load", "program": "a = 2\nb = a +"}),
        json.dumps({"cmd": "nonsense"}),
        "not json at all",
    ]
    return requests


@pytest.fixture(scope="module")
def node():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; install Node.js to run the Pyodide parity test.",
                    pytrace=False)
    return node


def test_pyodide_answers_match_cpython_byte_for_byte(node, built_dist, tmp_path):
    requests = parity_requests()
    requests_file = tmp_path / "requests.json"
    answers_file = tmp_path / "answers.json"
    requests_file.write_text(json.dumps(requests))

    done = subprocess.run(
        [node, str(SCRIPT), str(built_dist), str(requests_file), str(answers_file)],
        capture_output=True, text=True, timeout=NODE_TIMEOUT_S,
    )
    assert done.returncode == 0, f"node failed:\n{done.stderr[-3000:]}"

    answers = json.loads(answers_file.read_text())
    assert len(answers) == len(requests)
    mismatches = [
        describe_difference(request, expected, got)
        for request, got in zip(requests, answers)
        if got != (expected := api.handle(request))
    ]
    assert not mismatches, f"{len(mismatches)} answers differ:\n" + "\n".join(mismatches[:5])


def describe_difference(request: str, expected: str, got: str) -> str:
    """The request and both answers around the first byte where they differ."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
              min(len(expected), len(got)))
    start = max(0, at - 120)
    return (f"request {request[:200]}\n  first difference at character {at}:\n"
            f"  cpython: ...{expected[start:at + 60]}\n  pyodide: ...{got[start:at + 60]}")
