"""Gradwalk in a real Notebook 7 (the `notebook` package), driven headless in Chromium.

Notebook 7 is JupyterLab's server and front end with a page per notebook, so the same
harness runs it (tests/support/jupyterlab_harness.py, app="notebook"), offline, with the
kernel on this Python. micrograd_steps.ipynb's second cell shows micrograd's diamond with
gradwalk.show; the widget renders, steps both passes to the engine's numbers, and nothing
logs an error or leaves the machine.
"""

import pytest

from tests.support.notebook_hosts import micrograd_diamond, on_screen, screenshot, step_to_end, widget_ready

pytestmark = pytest.mark.browser


def test_micrograd_diamond_renders_and_steps_in_notebook_7(
    built_dist, open_notebook7, notebook7_context, jupyter_notebook
):
    # built_dist: the build writes the notebook's front end, gradwalk/static/widget.js.
    pytest.importorskip("micrograd.engine")
    _, answer = micrograd_diamond()
    expected = {node["label"]: node for node in answer["nodes"]}

    notebook = open_notebook7("micrograd_steps.ipynb")
    assert "/notebooks/" in notebook.page.url  # Notebook 7's own page, not JupyterLab's
    output = notebook.run_cell(1)
    widget_ready(output, notebook7_context.console_errors)
    assert sorted(on_screen_names(output)) == sorted(expected)

    # The forward pass, then the backward pass, each to its end, on the engine's numbers.
    step_to_end(output)
    assert on_screen(output, "data") == {name: node["data"] for name, node in expected.items()}
    output.get_by_role("button", name="Start backward", exact=True).click()
    step_to_end(output)
    assert on_screen(output, "grad") == {name: node["grad"] for name, node in expected.items()}

    notebook.cell(1).evaluate("el => el.scrollIntoView({ block: 'start' })")
    screenshot(notebook.page, "gradwalk-notebook7.png")
    assert notebook7_context.console_errors == []
    assert jupyter_notebook.outbound() == []


def on_screen_names(output):
    return output.locator("[data-node]").evaluate_all("gs => gs.map(g => g.getAttribute('data-node'))")
