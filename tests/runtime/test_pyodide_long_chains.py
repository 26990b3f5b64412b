"""Long chains inside the limits must not crash Pyodide's small stack.

Freeing a chain of Values frees each node from inside its child's deallocation: one C
stack frame per node. In a browser worker Pyodide has far less stack than CPython, and a
700-line chain used to kill the interpreter for good. The engine now cuts the links
before letting a graph go (Program.release). This runs the pinned Pyodide under Node
with a deliberately small stack and asks for such graphs, including ones that fail half
way (over the node limit) and the modes that parse a program many times.
"""

import json

import pytest

from engine import api
from tests.support.pyodide import run_in_pyodide

pytestmark = pytest.mark.node

CHAIN = "t0 = 1\n" + "".join(f"t{i} = t{i - 1} * 2 + 1\n" for i in range(1, 700))
REQUESTS = [
    json.dumps(r)
    for r in [
        {"cmd": "load", "program": CHAIN},
        {"cmd": "load", "program": CHAIN + "x = t1 ** 1000"},  # fails after building 1,400 nodes
        {"cmd": "load", "program": "a = 1\n" + "a = a * 1 + 1\n" * 1200},  # over the node limit
        {"cmd": "nudge", "program": CHAIN, "wrt": "t0"},
        {"cmd": "descent", "program": CHAIN, "inputs": ["t0"], "steps": 3, "rate": 1e-300},
        {"cmd": "naive", "program": CHAIN},
        {"cmd": "load", "preset": "diamond"},  # and the engine still answers afterwards
    ]
]


def test_deep_chains_survive_a_small_stack(node, built_dist, tmp_path):
    result = run_in_pyodide(node, built_dist, tmp_path, REQUESTS, "fast", node_args=["--stack-size=400"])
    for request, answer in zip(REQUESTS, result["answers"]):
        assert answer == api.handle(request), request[:80]
