"""The page a learner opens (web/index.html), in headless Chromium.

Every preset is stepped through its forward and backward pass and checked against
the numbers its file expects (presets/README.md); plus keyboard stepping, the engine's boot states (progress,
not-ready narration, error and Retry), a phone-sized screen and an axe-core audit.
"""

import json

import pytest

from engine import api
from tests.support.page import (
    BOOT_TIMEOUT_MS,
    axe_audit,
    axe_report,
    button,
    choose,
    nodes,
    open_page,
    show_tab,
    snapshot,
    wait_ready,
)
from tests.support.presets import PRESET_IDS, expected_on_screen

# What every preset must show once stepped through, from its file's [expect] table:
# {preset: {label: (data, grad)}}, for what its first view draws (a preset with group
# blocks: its units, a closed group by its name). An int must show exactly; a decimal to
# 4 significant digits (what the page shows of it).
EXPECTED = {preset_id: expected_on_screen(preset_id) for preset_id in PRESET_IDS}


def assert_value(preset, label, what, shown, expected):
    where = f"{preset}: {label}.{what}"
    assert shown != "", f"{where} is not shown"
    if isinstance(expected, list):  # a tensor's box: its rows as JSON, each number to 4 digits
        rows = json.loads(shown)
        assert [[f"{x:.4g}" for x in row] for row in rows] == [[f"{x:.4g}" for x in row] for row in expected], where
    elif isinstance(expected, int):
        assert shown == str(expected), f"{where} is {shown}, expected {expected}"
    else:
        assert f"{float(shown):.4g}" == f"{expected:.4g}", f"{where} is {shown}, expected ≈{expected}"


def engine_presets():
    return json.loads(api.handle('{"cmd": "presets"}'))["presets"]


def test_every_preset_steps_forward_and_backward_to_its_expect_numbers(page, site_url):
    open_page(page, site_url)
    ids = [p["id"] for p in engine_presets()]
    assert page.eval_on_selector_all("#preset option", "os => os.map(o => o.value)") == ids
    assert set(EXPECTED) == set(ids), "every preset needs its expected numbers here"
    forward, back = button(page, "Step forward"), button(page, "Step back")

    for preset in ids:
        choose(page, preset)
        expected = EXPECTED[preset]
        title = next(p["title"] for p in engine_presets() if p["id"] == preset)
        assert page.inner_text("#preset-title") == title
        shown = nodes(page)
        assert set(shown) == set(expected), preset
        assert all(v == ("", "") for v in shown.values()), f"{preset}: something shows before step 1"
        several = {label for label, numbers in expected.items() if numbers is None}  # a box of no one number
        matrices = {label for label, numbers in expected.items() if numbers and isinstance(numbers[0], list)}
        checked_boxes = set()

        # Forward: one more unit's data per click (a box of several outputs shows none; a tensor's
        # box its matrix), no grads yet.
        for k in range(1, len(expected) + 1):
            forward.click()
            shown = nodes(page)
            computed = sum(d != "" for d, _ in shown.values())
            assert computed == k if not several else computed <= k, f"{preset} forward step {k}"
            assert all(g == "" for _, g in shown.values())
            unit = page.evaluate("() => gwRoot().querySelector('svg [data-node].is-current')?.dataset.node ?? null")
            if unit in several | matrices:  # its outputs' numbers, each named, in the narration
                said = page.inner_text("#narration")  # (a tensor written in numbers holds them)
                assert " computes its " in said or " holds " in said, f"{preset}: {unit}"
                checked_boxes.add(unit)
        assert computed == len(expected) - len(several) and checked_boxes == several | matrices, preset
        for label, numbers in expected.items():
            if numbers is not None:
                assert_value(preset, label, "data", shown[label][0], numbers[0])
            else:
                assert shown[label] == ("", ""), f"{preset}: {label} shows one number of several"

        # Backward: the seed, then one visit per node.
        button(page, "Start backward").click()
        assert "seed" in page.inner_text("#position")
        for _ in range(len(expected) - 1):
            forward.click()
        # (a grouped graph's node table fills in a frame after the step)
        page.wait_for_function("() => gwRoot().querySelector('#node-rows').innerText !== ''")
        before_last = snapshot(page)
        forward.click()
        assert forward.get_attribute("aria-disabled") == "true", f"{preset}: more frames than nodes"
        shown = nodes(page)
        for label, numbers in expected.items():
            if numbers is None:
                continue
            assert_value(preset, label, "data", shown[label][0], numbers[0])
            assert_value(preset, label, "grad", shown[label][1], numbers[1])
        for label in expected:
            name = page.get_attribute(f"svg [data-node='{label}']", "aria-label")
            group = page.get_attribute(f"svg [data-node='{label}']", "data-group")
            start = f"{label}, a closed group of " if group else f"{label}: data "
            said = " outputs (" if label in several else ", grad "  # a box of several outputs names them
            if label in matrices:  # a tensor's box says its shape and both matrices
                rows, columns = len(expected[label][0]), len(expected[label][0][0])
                start, said = f"{label}, a {rows}×{columns} tensor, a closed group of ", ", grad [["
            assert name.startswith(start) and said in name, name

        # Step back gives exactly the previous state.
        back.click()
        assert snapshot(page) == before_last, f"{preset}: Step back did not restore the previous state"
        button(page, "Reset").click()
        assert all(v == ("", "") for v in nodes(page).values())


def test_arrow_keys_step_and_start_backward_reveals_all_data(page, site_url):
    open_page(page, site_url, "diamond")
    page.locator("h1").click()  # focus on the page body, not a control
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert nodes(page) == {"a": ("2", ""), "b": ("3", ""), "c": ("", ""), "d": ("", "")}
    assert page.inner_text("#narration").startswith("b = a + 1")
    page.keyboard.press("ArrowLeft")
    assert nodes(page)["b"] == ("", "")

    # Arrows inside the visit-order list do not step (they belong to the list).
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='c']").focus()
    page.keyboard.press("ArrowRight")
    assert nodes(page)["b"] == ("", "")

    # Start backward in mid-forward fills in every data first, then seeds the output.
    button(page, "Start backward").focus()
    page.keyboard.press("Enter")
    assert nodes(page) == {"a": ("2", "0"), "b": ("3", "0"), "c": ("6", "0"), "d": ("18", "1")}
    page.keyboard.press("Tab")  # focus moves on to Reset; arrows still step from a button
    page.keyboard.press("ArrowRight")
    shown = nodes(page)
    assert (shown["b"][1], shown["c"][1]) == ("6", "3")
    # The push is shown on the edges and in the details: local × upstream, before → after.
    details = page.inner_text("#details")
    assert "b.grad += c.data * d.grad" in details and "0 → 6" in details
    labels = page.eval_on_selector_all(
        "svg .edge-label", "ls => ls.filter(l => l.style.display !== 'none').map(l => l.textContent)"
    )
    assert sorted(labels) == ["3 × 1= 3", "6 × 1= 6"]

    # The focused control shows a visible focus ring.
    outline = page.evaluate("getComputedStyle(gwActive()).outlineStyle")
    assert outline not in ("", "none")


@pytest.mark.real_engine  # the real worker's boot progress
def test_progress_then_not_ready_narration_then_ready(page, site_url):
    held = []
    page.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    # The request's event comes just before its route (run by the next call to Playwright).
    with page.expect_request("**/pyodide.asm.wasm", timeout=10_000):
        page.goto(site_url)
    page.wait_for_function("() => gwRoot().getElementById('engine-stage').textContent !== ''")
    assert page.evaluate("document.documentElement.dataset.engine") == "loading"
    assert page.locator("#engine-progress").is_visible()
    assert "downloading" in page.inner_text("#engine-loading")
    assert held, "the page never asked for the runtime"

    show_tab(page, "Visit order")
    button(page, "Run order").click()
    assert "still starting" in page.inner_text("#narration")
    # The prerendered graph (first-paint.js) is on screen already and steps
    # without the engine: stepping needs no Python.
    assert page.locator("svg [data-node]").count() > 0
    page.evaluate("gwRoot().getElementById('narration').textContent = ''")
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#narration").startswith("a = 2")
    assert page.evaluate("document.documentElement.dataset.engine") == "loading"

    for route in held:
        route.continue_()
    page.unroute("**/pyodide.asm.wasm")
    wait_ready(page)
    assert page.locator("#engine-progress").is_hidden()
    assert page.locator("svg [data-node]").count() > 0


@pytest.mark.allow_console_errors
@pytest.mark.real_engine  # Pyodide's own files are held or broken here
def test_engine_failure_shows_an_error_and_retry_works(page, site_url):
    broken = {"on": True}

    def wasm(route):
        if broken["on"]:
            route.fulfill(status=404, body="gone")
        else:
            route.continue_()

    page.route("**/pyodide.asm.wasm", wasm)
    page.goto(site_url)
    page.wait_for_function("document.documentElement.dataset.engine === 'error'", timeout=BOOT_TIMEOUT_MS)
    error = page.locator("#engine-error")
    assert error.is_visible()
    assert "pyodide.asm.wasm" in error.inner_text()
    show_tab(page, "Visit order")
    button(page, "Run order").click()
    assert "Retry" in page.inner_text("#narration")

    broken["on"] = False
    button(page, "Retry").click()
    wait_ready(page)
    assert error.is_hidden()
    assert page.locator("svg [data-node]").count() > 0


def test_phone_sized_screen(page, site_url):
    page.set_viewport_size({"width": 375, "height": 740})
    open_page(page, site_url, "neuron")
    width = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(width) <= 375, f"the page is wider than the phone: {width}"
    for name in ("Step back", "Step forward", "Start backward", "Reset"):
        box = button(page, name).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375, name
        assert box["height"] >= 32, f"{name} is too small to tap"
    button(page, "Start backward").click()
    button(page, "Step forward").click()
    assert nodes(page)["n"][1] != "0"
    # The graph (laid out down the phone) stays inside its own box: it scrolls there, if at
    # all, and never widens the page.
    scroller = page.evaluate(
        "(() => { const s = gwRoot().getElementById('graph-scroll'); const r = s.getBoundingClientRect();"
        " return [r.left, r.right, gwRoot().getElementById('graph').dataset.direction]; })()"
    )
    assert scroller[0] >= 0 and scroller[1] <= 375 and scroller[2] == "down", scroller
    assert max(page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")) <= 375
    show_tab(page, "Visit order")
    button(page, "Run order").scroll_into_view_if_needed()
    assert button(page, "Run order").is_visible()
    assert max(page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")) <= 375


def test_axe_finds_no_violations_in_the_main_states(page, site_url):

    def audit(state):
        results = axe_audit(page)
        assert results.violations_count == 0, f"{state}:\n{axe_report(results)}"

    open_page(page, site_url, "diamond")
    audit("loaded")
    button(page, "Step forward").click()
    button(page, "Step forward").click()
    audit("mid-forward")
    button(page, "Start backward").click()
    button(page, "Step forward").click()
    audit("mid-backward")
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Alt+ArrowUp")
    page.keyboard.press("Alt+ArrowUp")
    button(page, "Run order").click()
    page.wait_for_selector(".verdict")
    audit("experiment shown")


def test_page_runs_under_a_strict_content_security_policy(page, site_url):
    """No inline script or style: the page works with script-src/style-src 'self'
    (a CSP violation is a console error, which fails the test)."""
    csp = (
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
        "img-src 'self' data:; worker-src 'self'; connect-src 'self'"
    )

    def with_csp(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": csp})

    page.route(site_url, with_csp)
    response = page.goto(site_url)
    assert response.headers.get("content-security-policy") == csp
    # (Playwright's wait_for_function evaluates a string, which this CSP forbids.)
    page.locator("html[data-engine='ready']").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
    choose(page, "diamond")
    button(page, "Start backward").click()
    button(page, "Step forward").click()
    assert nodes(page)["b"] == ("3", "6")
