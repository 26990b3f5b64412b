"""A tensor program on the stage (issue 36's stage and scalar view), in headless Chromium at
1280×800 and on a 390×844 phone, on the "Linear layer" preset: each closed tensor's box
is a shaded matrix of its data and of its grad (data-shape, data-value, data-grad as JSON
rows); the grad fills in element by element as the pushes reach it, and stepping back
empties it again; the line's visit says its step as tensor rules with shapes, b's as a sum
over the 4 rows; "Show as scalars" (aria-pressed) draws each element as its own node and
steps it, and pressed again brings the boxes back. Every number is the CPython engine's
(whose grads tests/engine/test_tensor_programs.py holds to PyTorch's)."""

import json

import pytest

from engine import api
from tests.support.page import LAPTOP_AND_PHONE, STEP_TIMEOUT_MS, axe_audit, axe_report, button, sized_page, wait_ready

PRESET = "linear-layer"
BOXES = {g["name"]: g for g in json.loads(api.handle({"cmd": "load", "preset": PRESET, "expanded": []}))["groups"]}
WHOLE = {n["label"]: n for n in json.loads(api.handle({"cmd": "load", "preset": PRESET}))["nodes"]}
X, W, B, H = "X (4×3)", "W (3×2)", "b (1×2)", "H = tanh(X @ W + b) (4×2)"


@pytest.fixture(scope="module", params=sorted(LAPTOP_AND_PHONE))
def screen(browser, request):
    yield from sized_page(browser, LAPTOP_AND_PHONE[request.param], request.param)


def settle(page):
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)


def box(page, name):
    return page.locator(f"#graph [data-node='{name}']")


def rows(page, name, field):
    text = box(page, name).get_attribute(f"data-{field}")
    return json.loads(text) if text else None


def cells(page, name, kind):
    """The classes of a box's matrix cells ("data" or "grad"), row by row as drawn."""
    return box(page, name).locator(f".node-matrix-{kind} rect").evaluate_all("rs => rs.map((r) => r.classList[1])")


def step(page, times=1):
    for _ in range(times):
        button(page, "Step forward").click()
    settle(page)


def test_a_tensor_box_is_a_matrix_whose_grad_fills_in_as_its_rules_say(screen, site_url):
    page = screen
    page.goto(f"{site_url}?preset={PRESET}&cp=0")
    wait_ready(page)
    page.wait_for_selector(f"svg[data-graph='{PRESET}']", timeout=STEP_TIMEOUT_MS)
    toggle = button(page, "Show as scalars")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    for name in (X, W, B, H):
        assert box(page, name).get_attribute("data-shape") == ",".join(map(str, BOXES[name]["shape"]))
    assert box(page, "L = H.sum() (1×1)").get_attribute("data-shape") == "1,1"  # a number, drawn as one
    assert rows(page, W, "value") is None and set(cells(page, W, "data")) == {"cell-none"}
    step(page)  # X's line: its 12 numbers, shaded by sign
    assert rows(page, X, "value") == rows(page, X, "data") == BOXES[X]["values"]
    signs = ["cell-pos" if x > 0 else "cell-neg" for row in BOXES[X]["values"] for x in row]
    assert cells(page, X, "data") == signs
    assert rows(page, W, "value") is None, "W's line has not run yet"

    button(page, "Start backward").click()
    step(page)  # L's visit: dL copied to each of H's 8 numbers
    assert rows(page, H, "grad") == [[1, 1]] * 4
    assert rows(page, B, "grad") is None and set(cells(page, B, "grad")) == {"cell-none"}
    step(page)  # H's visit: its tensor rules; b's 2 cells each the sum of 4 rows' shares
    said = page.inner_text("#narration")
    assert "In matrix form: b.grad += d(X @ W + b) summed over its 4 rows;" in said, said
    details = page.inner_text("#details")
    for rule in (
        "W.grad += Xᵀ · d(X @ W): 3×4 · 4×2 → 3×2",
        "b.grad += d(X @ W + b) summed over its 4 rows: 4×2 → 1×2",
    ):
        assert rule in details, details
    for name, label in ((B, "b"), (W, "W"), (X, "X")):
        grads = rows(page, name, "grad")
        assert grads == BOXES[name]["grads"], name  # each input feeds only H's line: its whole grad
        assert grads[0][0] == WHOLE[f"{label}[0,0]"]["grad"]
    assert "cell-none" not in cells(page, W, "grad")
    label = box(page, B).get_attribute("aria-label")
    assert label.startswith("b (1×2), a 1×2 tensor") and "grad [[2.427, 2.41]]" in label, label
    button(page, "Step back").click()
    settle(page)
    assert rows(page, B, "grad") is None, "a step back takes the pushes back"
    results = axe_audit(page)
    assert not results.response["violations"], axe_report(results)


def test_show_as_scalars_draws_and_steps_every_element_and_toggles_back(screen, site_url):
    page = screen
    page.goto(f"{site_url}?preset={PRESET}&cp=0")
    wait_ready(page)
    toggle = button(page, "Show as scalars")
    toggle.click()
    page.wait_for_selector("#graph [data-node='W[2,1]']", timeout=STEP_TIMEOUT_MS)
    settle(page)
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.locator("#graph .node.is-group").count() == 0
    assert page.locator("#graph [data-node]").count() == len(WHOLE)
    assert "Shown as scalars" in page.inner_text("#narration")
    button(page, "Start backward").click()
    forward = button(page, "Step forward")
    for _ in range(200):
        if forward.get_attribute("aria-disabled") == "true":
            break
        forward.click()
    settle(page)
    grad = page.locator("#graph [data-node='W[2,1]']").get_attribute("data-grad")
    assert float(grad) == WHOLE["W[2,1]"]["grad"]
    toggle.click()
    page.wait_for_selector(f"#graph [data-node='{W}']", timeout=STEP_TIMEOUT_MS)
    settle(page)
    assert toggle.get_attribute("aria-pressed") == "false"
    assert page.locator("#graph [data-node='W[2,1]']").count() == 0
    assert "Shown as tensors" in page.inner_text("#narration")
