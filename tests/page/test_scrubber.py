"""The step scrubber (web/panels/scrubber.js): one slider over every step of the walk.
By keyboard (Home, End, arrows: one step each, never two), by pointer (a drag sweeps
the walk back and forth live), following the step buttons, the arrow keys and a
permalink, over a visit-order run, and a slider to assistive technology, disabled
until a graph is on screen.

The diamond (presets/diamond.toml): a = 2, b = a + 1 = 3, c = 3a = 6, d = b·c = 18; 4 forward
frames, then the seed and 4 visits (d, c, b, a): 9 steps after the start."""

import pytest

from tests.support.page import (
    BOOT_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    button,
    nodes,
    open_page,
    order_result,
    show_tab,
    wait_for_run,
    wait_for_why,
    wait_ready,
    why_result,
)

FINAL = {"a": ("2", "15"), "b": ("3", "6"), "c": ("6", "3"), "d": ("18", "1")}
BLANK = {label: ("", "") for label in FINAL}


def scrubber(page):
    return page.get_by_role("slider", name="Steps", exact=True)


def where(page):
    """(slider value, slider max, its aria-valuetext, the position line)."""
    return page.evaluate("""() => {
        const s = gwRoot().getElementById('scrubber');
        return [Number(s.value), Number(s.max), s.getAttribute('aria-valuetext'),
                gwRoot().getElementById('position').textContent];
    }""")


def visiting(page):
    return page.eval_on_selector_all("svg [data-node].is-visiting", "gs => gs.map(g => g.dataset.node)")


@pytest.mark.real_engine  # Pyodide's own files are held or broken here
def test_scrubber_is_a_disabled_slider_until_a_graph_is_on_screen(page, site_url):
    # Values in the query: no prerendered first paint, so no graph until Python answers.
    held = []
    page.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    # The request's event comes just before its route (run by the next call to Playwright).
    with page.expect_request("**/pyodide.asm.wasm", timeout=10_000):
        page.goto(site_url + "?preset=diamond&v=a:3")
    assert page.locator("svg [data-node]").count() == 0
    assert held, "the page never asked for the runtime"
    assert scrubber(page).is_disabled()
    for route in held:
        route.continue_()
    page.unroute("**/pyodide.asm.wasm")
    wait_ready(page)
    page.wait_for_selector("svg[data-graph='diamond']", timeout=BOOT_TIMEOUT_MS)
    assert scrubber(page).is_enabled()
    assert where(page)[:2] == [0, 9]
    assert scrubber(page).get_attribute("aria-valuetext") == "Not started: nothing computed yet"
    # A slider, named by its visible label, in the accessibility tree.
    tree = page.locator("#scrubber").aria_snapshot()
    assert tree.startswith('- slider "Steps"'), tree


def test_scrubber_by_keyboard_jumps_and_steps_once_per_key(page, site_url):
    open_page(page, site_url, "diamond")
    scrubber(page).focus()

    page.keyboard.press("End")
    assert where(page) == [9, 9, "Backward pass, visit 4 of 4: visiting a", "Backward pass · visit 4 of 4"]
    assert nodes(page) == FINAL
    assert visiting(page) == ["a"]
    assert button(page, "Step forward").get_attribute("aria-disabled") == "true"

    page.keyboard.press("Home")
    assert where(page)[0] == 0 and where(page)[3] == "Not started: nothing computed yet"
    assert nodes(page) == BLANK

    # One key, one step: the widget's own ← → handler leaves the slider alone.
    page.keyboard.press("ArrowRight")
    assert where(page) == [1, 9, "Forward pass, node 1 of 4: computing a", "Forward pass · node 1 of 4"]
    assert nodes(page) == {**BLANK, "a": ("2", "")}
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert where(page)[0] == 3
    assert nodes(page) == {"a": ("2", ""), "b": ("3", ""), "c": ("6", ""), "d": ("", "")}
    assert page.eval_on_selector_all("svg [data-node].is-current", "gs => gs.map(g => g.dataset.node)") == ["c"]
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert where(page)[0] == 6
    assert where(page)[2] == "Backward pass, visit 1 of 4: visiting d"
    assert nodes(page) == {"a": ("2", "0"), "b": ("3", "6"), "c": ("6", "3"), "d": ("18", "1")}
    assert visiting(page) == ["d"]
    page.keyboard.press("ArrowLeft")
    assert where(page)[:3] == [5, 9, "Backward pass, seed: d.grad = 1"]
    assert nodes(page) == {"a": ("2", "0"), "b": ("3", "0"), "c": ("6", "0"), "d": ("18", "1")}
    assert page.evaluate("gwActive().id") == "scrubber"  # focus stays on the slider

    # The scrubber follows the other ways of stepping: the buttons and the page's arrow keys.
    button(page, "Step forward").click()
    assert where(page)[0] == 6
    page.locator("h1").click()
    page.keyboard.press("ArrowRight")
    assert where(page)[0] == 7 and visiting(page) == ["c"]
    button(page, "Reset").click()
    assert where(page)[0] == 0


def test_scrubber_follows_a_permalink_and_a_visit_order_run(page, site_url):
    page.goto(site_url + "?preset=diamond&pass=backward&step=2")
    wait_ready(page)
    page.wait_for_selector("svg[data-graph='diamond']", timeout=STEP_TIMEOUT_MS)
    assert where(page)[:3] == [7, 9, "Backward pass, visit 2 of 4: visiting c"]
    assert visiting(page) == ["c"]

    # A visit-order run: the scrubber spans the forward pass and the run, and Home/End reach both ends.
    before = order_result(page)
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Alt+ArrowUp")
    page.keyboard.press("Alt+ArrowUp")  # b, d, c, a
    button(page, "Run order").click()
    wait_for_run(page, before)
    assert where(page)[:3] == [9, 9, "Backward pass (your order, push), visit 4 of 4: visiting a"]
    assert nodes(page)["a"] == ("2", "9")
    scrubber(page).focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert where(page)[:3] == [6, 9, "Backward pass (your order, push), visit 1 of 4: visiting b"]
    assert nodes(page)["a"] == ("2", "0")
    page.keyboard.press("End")
    assert nodes(page)["a"] == ("2", "9")


def test_scrubber_by_pointer_sweeps_back_and_forth(page, site_url):
    open_page(page, site_url, "diamond")
    box = scrubber(page).bounding_box()
    y = box["y"] + box["height"] / 2
    left, right = box["x"] + 1, box["x"] + box["width"] - 1

    def sweep(start, end):
        seen = []
        for k in range(21):
            page.mouse.move(start + (end - start) * k / 20, y)
            value, _, _, line = where(page)
            seen.append(value)
        return seen, line

    page.mouse.move(left, y)
    page.mouse.down()
    forth, line = sweep(left, right)
    assert forth == sorted(forth) and forth[0] == 0 and forth[-1] == 9, forth
    assert len(set(forth)) == 10  # every step passed on the way
    assert line == "Backward pass · visit 4 of 4" and nodes(page) == FINAL  # live, before the button is let go
    back, line = sweep(right, left + box["width"] / 2)
    assert back == sorted(back, reverse=True) and back[-1] in (4, 5), back
    page.mouse.up()
    assert scrubber(page).bounding_box() == box  # it never moved under the pointer
    value = where(page)[0]
    assert nodes(page)["d"] == (("18", "") if value == 4 else ("18", "1"))


def test_scrubber_spans_a_why_reverse_mode_experiment(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Why reverse mode")
    page.get_by_role("tab", name="Path sums", exact=True).click()
    page.locator("#paths-wrt").select_option("a")
    before = why_result(page)
    button(page, "Walk its paths").click()
    wait_for_why(page, before)
    # The forward pass, then the experiment's two paths: a → b → d (6), a → c → d (9).
    assert where(page) == [5, 6, "Path sums for a, path 1 of 2", "Path sums for a · path 1 of 2"]
    scrubber(page).focus()
    page.keyboard.press("End")
    assert where(page)[0] == 6 and where(page)[3] == "Path sums for a · path 2 of 2"
    assert nodes(page)["a"] == ("2", "15")
    page.keyboard.press("Home")
    assert where(page)[0] == 0 and nodes(page) == BLANK
    page.keyboard.press("End")
    assert where(page)[0] == 6 and page.evaluate("gwHost().dataset.pass") == "mode"
