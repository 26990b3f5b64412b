"""Fixtures for the tests that run the pinned Pyodide under Node.js.

node    the `node` executable on PATH (the test fails, saying so, without it)
"""

import shutil

import pytest


@pytest.fixture(scope="module")
def node():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; install Node.js to run the Pyodide tests.", pytrace=False)
    return node
