"""Gradwalk in marimo: a served marimo notebook (tests/notebook/marimo/diamond.py, `marimo run`)
shows micrograd's diamond through mo.ui.anywidget, driven headless in Chromium.

marimo is an anywidget host of its own (no Jupyter): its model carries the widget's custom
messages both ways, so the engine runs in marimo's kernel as in Jupyter. The widget renders,
steps both passes to the engine's numbers, recomputes an edited input in the kernel, and
nothing logs an error or leaves the machine.
"""

import pytest

from tests.support.notebook_hosts import micrograd_diamond, on_screen, screenshot, step_to_end, widget_ready
from tests.support.page import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser


def test_micrograd_diamond_renders_steps_and_recomputes_in_marimo(built_dist, marimo_server, marimo_context):
    # built_dist: the build writes the notebook's front end, gradwalk/static/widget.js.
    pytest.importorskip("micrograd.engine")
    _, answer = micrograd_diamond()
    expected = {node["label"]: node for node in answer["nodes"]}
    output = next(name for name, node in expected.items() if node["is_output"])
    a = next(name for name, node in expected.items() if node["is_input"] and node["grad"] == 15)

    page = marimo_context.new_page()
    page.goto(marimo_server.url, wait_until="domcontentloaded")
    # marimo runs the notebook when the page opens: the kernel's import of gradwalk comes first.
    widget_ready(page, marimo_context.console_errors, timeout_ms=60_000)

    step_to_end(page)
    assert on_screen(page, "data") == {name: node["data"] for name, node in expected.items()}
    page.get_by_role("button", name="Start backward", exact=True).click()
    step_to_end(page)
    assert on_screen(page, "grad") == {name: node["grad"] for name, node in expected.items()}

    # An edited input goes to marimo's kernel and back: a = 3 gives d = 36, a.grad = 21.
    field = page.locator(".value-input").first
    field.fill("3")
    field.press("Enter")
    page.locator(f"[data-node='{output}'][data-data='36']").wait_for(timeout=STEP_TIMEOUT_MS)
    assert on_screen(page, "grad")[a] == 21

    screenshot(page, "gradwalk-marimo.png")
    assert marimo_context.console_errors == []
    assert marimo_server.outbound() == []
