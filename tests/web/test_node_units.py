"""The front end's logic tested in Node, without a browser (`node --test`): url.js, the
Stepper, grouped.js, the question model, the state's changes (update()'s applyChanges) and
number formatting, on the engine's own answers. The answers are CPython's
engine.api.handle (the same function the page's worker runs in Pyodide); the modules
are the built site's (dist/, where the build writes modes/registry.js)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from engine import api
from tests.support.presets import PRESET_IDS, expected_nodes

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 120
# Programs the Node tests load (their questions are generated from the trace).
PROGRAMS = {"power": "x1 = 1\nx2 = 2\ny = (x1 - x2)**2 + cos(x1 + x2)"}


def handle(request: dict) -> dict:
    return json.loads(api.handle(json.dumps(request)))


def test_the_front_ends_logic_in_node(built_dist, tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; install Node.js to run the front end's unit tests.", pytrace=False)
    answers = {
        "presets": {p: handle({"cmd": "load", "preset": p}) for p in PRESET_IDS if p != "small-network"},
        "expected": {p: expected_nodes(p) for p in PRESET_IDS},
        "network": handle({"cmd": "load", "preset": "small-network", "expanded": ["g0"]}),
        "linear": handle({"cmd": "load", "preset": "linear-layer", "expanded": []}),  # tensor boxes
        "details": {p: handle({"cmd": "preset", "id": p})["preset"] for p in PRESET_IDS},
        "programs": {name: handle({"cmd": "load", "program": text}) for name, text in PROGRAMS.items()},
        "edited": {
            "add-mul": handle({"cmd": "load", "preset": "add-mul", "values": {"c": 10}}),
            "square": handle({"cmd": "load", "preset": "square", "values": {"a": 4}}),
        },
    }
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    tests = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    assert tests, "no Node tests found"
    result = subprocess.run(
        [node, "--test", "--test-reporter=spec", *tests],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={"PATH": str(Path(node).parent), "GRADWALK_SITE": str(built_dist), "GRADWALK_ANSWERS": str(tmp_path)},
        stdin=subprocess.DEVNULL,
    )
    print(result.stdout)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
