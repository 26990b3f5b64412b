"""A real notebook in a real JupyterLab, driven headless by Playwright in Chromium.

The server (conftest.py's `jupyter_lab`, tests/support/jupyterlab_harness.py) runs offline with the kernel
on this very Python; the notebooks are tests/notebook/notebooks/*.ipynb.

- smoke.ipynb proves the harness without Gradwalk's front end: an anywidget defined in the
  notebook renders, a second cell changes its value and the view follows, and the kernel is
  this Python with this checkout's gradwalk;
- micrograd_steps.ipynb shows micrograd's diamond with gradwalk.show, steps the whole backward
  pass in the widget (data-grad on every node against the engine's numbers), edits an input,
  and runs gradwalk.check on an engine whose _backward overwrites grads;
- demo_network.ipynb shows micrograd's demo network with gradwalk.show(loss, model=model), drawn
  collapsed, and opens a neuron of each layer, whose nodes end the backward pass with micrograd's grads.
"""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tests.support.jupyterlab_harness import ROOT
from tests.support.page import STEP_TIMEOUT_MS
from tests.support.waits import after_frames

pytestmark = pytest.mark.browser

# Where the screenshots of micrograd_steps.ipynb go (after the backward pass; check's report).
SCREENSHOTS = Path(os.environ.get("GRADWALK_NOTEBOOK_SCREENSHOTS", "/tmp"))


def widget_host(output, context):
    """The element anywidget rendered the widget into, once its engine is ready; a failure
    that quotes the page's console errors when the widget could not be made (anywidget shows
    its error box then)."""
    ready = output.locator("[data-engine='ready']")
    failed = output.locator(".jupyter-widgets-error-widget")
    try:
        ready.or_(failed).first.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    except Exception:
        pass
    if ready.count() != 1:
        logged = "\n".join(context.console_errors) or "(nothing)"
        what = "could not be made (anywidget's error box)" if failed.count() else "was not ready in time"
        if "Invalid URL" in logged:
            logged += (
                "\n(anywidget imports the front end from a blob: URL, where new URL(relative, import.meta.url) throws)"
            )
        pytest.fail(f"the widget {what}; the page's console errors:\n{logged}", pytrace=False)
    return ready


def screenshot(notebook, top, name: str) -> Path:
    """The JupyterLab window scrolled to put `top` (a locator) at the top, file browser closed."""
    page = notebook.page
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    top.evaluate("el => el.scrollIntoView({ block: 'start' })")
    after_frames(page, 2)  # the scroll's repaint
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path))
    return path


def test_jupyterlab_starts_offline(jupyter_lab):
    assert "started" in jupyter_lab.api("api/status")
    specs = jupyter_lab.api("api/kernelspecs")
    assert list(specs["kernelspecs"]) == ["python3"]
    assert specs["kernelspecs"]["python3"]["spec"]["argv"][0] == sys.executable
    assert jupyter_lab.start_seconds < 30, f"JupyterLab took {jupyter_lab.start_seconds:.1f} s to start"
    # What JupyterLab's front end asks for news, updates and extensions is answered offline
    # (tests/support/lab_offline.py logs and refuses every lookup off this machine: with JupyterLab's
    # defaults these three requests try jupyterlab.github.io and pypi.org).
    assert jupyter_lab.api("lab/api/news") == {"news": []}
    assert jupyter_lab.api("lab/api/update") == {"notification": None}
    jupyter_lab.api("lab/api/extensions?query=anywidget&page=1&per_page=30")
    assert jupyter_lab.outbound() == []


def test_smoke_an_inline_anywidget_renders_and_follows_its_model(open_notebook, jupyter_lab, record_property):
    started = time.monotonic()
    notebook = open_notebook("smoke.ipynb")
    opened = time.monotonic()

    output = notebook.run_cell(0)
    shown = output.locator("[data-smoke]")
    shown.wait_for(timeout=STEP_TIMEOUT_MS)
    assert shown.inner_text() == "hello from the kernel"

    # The second cell, run as a learner runs it, changes the model; the view follows.
    notebook.run_cell(1, keyboard=True)
    output.locator("[data-smoke]", has_text="changed from another cell").wait_for(timeout=STEP_TIMEOUT_MS)
    assert output.locator("[data-smoke]").count() == 1

    # The kernel is the Python that runs pytest, and imports this checkout's gradwalk and engine.
    printed = notebook.run_cell(2).inner_text().split()
    assert printed[0] == sys.executable
    assert Path(printed[1]).resolve() == ROOT / "gradwalk" / "__init__.py"
    assert Path(printed[2]).resolve() == ROOT / "engine" / "__init__.py"

    # JupyterLab stayed quiet (no news or update toast), and nothing tried the network: not
    # the server, not the page (lab_context checks the page).
    assert notebook.page.locator(".Toastify__toast").count() == 0
    assert jupyter_lab.outbound() == []
    record_property("open_seconds", round(opened - started, 2))
    record_property("smoke_seconds", round(time.monotonic() - started, 2))


def _engine_grads():
    """The engine's numbers for the notebook's diamond, by the node names the widget uses."""
    from micrograd.engine import Value

    from gradwalk import kernel

    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    answer = json.loads(kernel.handle({"cmd": "load"}, kernel.target(d)))
    d.backward()
    assert a.grad == 15  # micrograd's own backward agrees: d = (a + 1) * 3a, dd/da = 6a + 3
    return {node["label"]: node["grad"] for node in answer["nodes"]}, answer


def test_micrograd_diamond_steps_in_jupyterlab_and_check_names_the_problem(built_dist, open_notebook, lab_context):
    # built_dist: the build writes the notebook's front end, gradwalk/static/widget.js.
    pytest.importorskip("micrograd.engine")
    expected, answer = _engine_grads()
    output_label = next(node["label"] for node in answer["nodes"] if node["is_output"])
    input_a = next(node["label"] for node in answer["nodes"] if node["is_input"] and node["grad"] == 15)

    notebook = open_notebook("micrograd_steps.ipynb")
    output = notebook.run_cell(1)
    # The widget mounts into an open shadow root on anywidget's element (the ready engine marks it);
    # Playwright's CSS and role locators pierce it.
    host = widget_host(output, lab_context)
    assert host.evaluate("el => el.shadowRoot !== null && el.shadowRoot.mode === 'open'")
    nodes = output.locator("[data-node]")
    nodes.first.wait_for(timeout=STEP_TIMEOUT_MS)
    assert sorted(nodes.evaluate_all("gs => gs.map(g => g.getAttribute('data-node'))")) == sorted(expected)

    output.get_by_role("button", name="Start backward", exact=True).click()
    forward = output.get_by_role("button", name="Step forward", exact=True)
    steps = 0
    while forward.get_attribute("aria-disabled") != "true":
        forward.click()
        steps += 1
        assert steps <= 2 * len(expected), "the backward pass did not end"
    grads = {g.get_attribute("data-node"): g.get_attribute("data-grad") for g in nodes.all()}
    assert {name: float(grad) for name, grad in grads.items()} == expected
    assert float(grads[input_a]) == 15.0 and float(grads[output_label]) == 1.0
    screenshot(notebook, notebook.cell(1), "gradwalk-jupyterlab-backward.png")

    # An input edited in the widget is recomputed in the kernel: a = 3 gives d = 36, a.grad = 21.
    field = output.locator(".value-input").first
    field.fill("3")
    field.press("Enter")
    output.locator(f"[data-node='{output_label}'][data-data='36']").wait_for(timeout=STEP_TIMEOUT_MS)
    forward.wait_for(timeout=STEP_TIMEOUT_MS)
    grads = {g.get_attribute("data-node"): g.get_attribute("data-grad") for g in nodes.all()}
    assert float(grads[input_a]) == 21.0

    # check on the learner's overwriting engine: the printed report and the widget name the problem.
    check = notebook.run_cell(2)
    printed = "".join(o.get("text", "") for o in notebook.outputs(2) if o.get("output_type") == "stream")
    assert "check(d): 4 problems" in printed
    assert "b = a + 1: its _backward overwrites a.grad and (1).grad (=) instead of adding to them (+=)" in printed
    assert "a: after your backward(), a.grad is" in printed and "but it should be 15" in printed
    widget_host(check, lab_context)
    report = check.locator("#check-report")
    report.wait_for(timeout=STEP_TIMEOUT_MS)
    assert "overwrites a.grad" in report.inner_text()
    assert "overwrites" in check.locator("#narration").inner_text()
    screenshot(notebook, check, "gradwalk-jupyterlab-check.png")


def test_the_demo_network_opens_collapsed_and_each_layers_neuron_ends_with_micrograds_grads(
    built_dist, open_notebook, lab_context
):
    """demo_network.ipynb: gradwalk.show(loss, model=model) on micrograd's demo loss (100
    samples) draws its groups collapsed; opening the batch, a sample, a layer and then one of
    its neurons (one per layer), and stepping the backward pass to its end, shows data-grad on
    that neuron's nodes equal to micrograd's own loss.backward()."""
    pytest.importorskip("micrograd.engine")
    from gradwalk import kernel
    from tests.support.demo_mlp import demo_loss

    loss, model, _, _ = demo_loss(100)
    shown = kernel.target(loss, model)  # the same graph as the notebook's: the same node ids and labels
    loss.backward()  # micrograd's own grads: the oracle

    notebook = open_notebook("demo_network.ipynb")
    output = notebook.run_cell(1)
    widget_host(output, lab_context)
    batch = output.locator("[data-group='batch']")
    batch.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    assert batch.get_attribute("aria-expanded") == "false"
    assert output.locator("[data-group][aria-expanded='true']").count() == 0  # every group collapsed
    screenshot(notebook, notebook.cell(1), "gradwalk-jupyterlab-network-collapsed.png")

    def opened(name):  # Enter on its box (a box of a big graph far from view is drawn inside only near it)
        output.locator(f"[data-group='{name}'][aria-expanded='false']").focus()
        notebook.page.keyboard.press("Enter")
        output.locator(f"[data-group='{name}'][aria-expanded='true']").wait_for(
            state="attached", timeout=STEP_TIMEOUT_MS
        )

    expanded = ["batch", "sample 1"]
    opened("batch")
    opened("sample 1")
    for layer, neuron in ((1, 3), (2, 9), (3, 1)):
        opened(f"layer {layer} in sample 1")
        expanded.append(f"layer {layer} in sample 1")
        name = f"neuron {neuron} of layer {layer} in sample 1"
        opened(name)
        answer = json.loads(kernel.handle({"cmd": "expand", "group": name, "expanded": expanded}, shown))
        labels = {n["id"]: n["label"] for n in answer["nodes"]}
        inner = [u for u in answer["inner"] if isinstance(u, int)]
        assert inner
        output.get_by_role("button", name="Start backward", exact=True).click()
        output.locator("#scrubber").press("End")  # to the backward pass's end, its visits done
        grads = {
            g.get_attribute("data-node"): g.get_attribute("data-grad") for g in output.locator("[data-node]").all()
        }
        for v in inner:  # (the kernel sums in another valid order: equal up to rounding)
            assert float(grads[labels[v]]) == pytest.approx(shown.flat.objects[v].grad, rel=1e-12, abs=1e-15), (
                name,
                labels[v],
            )
        expanded.append(name)
    screenshot(notebook, notebook.cell(1), "gradwalk-jupyterlab-network.png")
