"""The gradient flows (web/panels/graph-pulse.js): each += of a backward visit travels as a
pulse along its edge to the parent and lands in the parent's grad; a forward step's inputs
travel into the node. The data-* attributes are final at once; the text on screen is
final when the pulse lands (at once under prefers-reduced-motion, and no pulse is drawn).

Diamond (presets/diamond.toml): a = 2, b = a + 1 = 3, c = 3a = 6, d = b·c = 18. Visiting d
pushes b.grad += 6×1 and c.grad += 3×1; visiting c then b brings a.grad to 9, then 15.
"""

from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.page import wait_ready, web_number

ROOT = Path(__file__).resolve().parents[2]

# Click Step forward and, in the same task (before any frame), read what the graph shows.
STEP_AND_LOOK_JS = """(label) => {
  gwRoot().querySelector('#step-forward').click();
  const g = gwRoot().querySelector(`#graph [data-node="${label}"]`);
  return {
    dataGrad: g.dataset.grad, dataData: g.dataset.data,
    shownGrad: g.querySelector('.node-grad .node-value').textContent,
    shownData: g.querySelector('.node-data .node-value').textContent,
    pulses: [...gwRoot().querySelectorAll('#graph [data-pulse]')].map((p) => p.textContent),
  };
}"""

# Two steps in the same task: how many pulses the first set off, what the second shows.
# (apart: the milliseconds from the first click to the second, which must stay under the
# page's fast-stepping threshold for the second to count as fast; a loaded machine can take
# longer to draw the first step.)
TWO_STEPS_JS = f"""() => {{
  const stepAndLook = {STEP_AND_LOOK_JS};
  const start = performance.now();
  gwRoot().querySelector('#step-forward').click();
  const first = gwRoot().querySelectorAll('#graph [data-pulse]').length;
  const apart = performance.now() - start;
  return {{ first, apart, ...stepAndLook('b') }};
}}"""
FAST_STEP_MS = web_number("panels/graph.js", "FAST_STEP_MS")

SHOWN_JS = """(label) => {
  const g = gwRoot().querySelector(`#graph [data-node="${label}"]`);
  return {
    grad: g.querySelector('.node-grad .node-value').textContent,
    data: g.querySelector('.node-data .node-value').textContent,
    pulses: gwRoot().querySelectorAll('#graph [data-pulse]').length,
  };
}"""


def past_fast_step(page, since):
    """Wait, on the page's own clock, until FAST_STEP_MS have passed since `since` (a
    performance.now() at or after the graph's last step): the next click is then a step of
    its own, not a fast one (graph.js's test)."""
    page.wait_for_function("([since, ms]) => performance.now() - since > ms", arg=[since, FAST_STEP_MS], timeout=5_000)


def open_diamond(page, site_url, query):
    page.goto(f"{site_url}?preset=diamond&hide=questions&{query}")
    wait_ready(page)
    # The step of the link drawn (its numbers set) and the page settled: the graph's last step is behind us.
    page.wait_for_selector("svg[data-graph='diamond'] [data-node='d'][data-grad] .node-box", timeout=10_000)
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=10_000)
    past_fast_step(page, page.evaluate("() => performance.now()"))


def step_and_look(page, label):
    """STEP_AND_LOOK_JS, and when its step was made (the page's performance.now())."""
    looked = page.evaluate(f"(label) => ({{ ...({STEP_AND_LOOK_JS})(label), at: performance.now() }})", label)
    return looked, looked.pop("at")


def wait_landed(page, label, timeout=3.0):
    """What `label` shows once every pulse has landed (bounded wait)."""
    try:
        page.wait_for_function(
            "() => gwRoot().querySelectorAll('#graph [data-pulse]').length === 0", timeout=timeout * 1000
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"the pulses were still on screen after {timeout} s") from None
    return page.evaluate(SHOWN_JS, label)


def test_a_backward_push_travels_and_lands_in_the_parents_grad(page, site_url):
    open_diamond(page, site_url, "pass=backward&step=0")  # the seed; next: visit d
    during = page.evaluate(STEP_AND_LOOK_JS, "b")
    assert during["dataGrad"] == "6"  # the DOM contract is final at once
    assert sorted(during["pulses"]) == ["+= 3×1", "+= 6×1"]  # local × upstream, one per edge
    assert during["shownGrad"] == "0"  # still what b.grad was before the push
    assert wait_landed(page, "b")["grad"] == "6"
    assert wait_landed(page, "c")["grad"] == "3"

    _, at = step_and_look(page, "a")  # visit c: a.grad += 3×3
    past_fast_step(page, at)
    during = page.evaluate(STEP_AND_LOOK_JS, "a")  # visit b, mid-way: a.grad += 1×6
    assert during["dataGrad"] == "15"
    assert during["pulses"] == ["+= 1×6"]
    assert during["shownGrad"] == "9"
    assert wait_landed(page, "a")["grad"] == "15"


def test_a_step_finishes_the_last_pulse_at_once(page, site_url):
    # Visit d (two pulses set off), then at once visit c: d's pulses land now. (Tried again
    # when the machine took longer than the threshold to draw the first step.)
    for _ in range(3):
        open_diamond(page, site_url, "pass=backward&step=0")
        after = page.evaluate(TWO_STEPS_JS)
        if after["apart"] < FAST_STEP_MS * 0.8:
            break
    assert after["apart"] < FAST_STEP_MS * 0.8, after
    assert after["first"] == 2
    assert after["shownGrad"] == "6"
    assert page.evaluate(SHOWN_JS, "c")["grad"] == "3"
    # Stepping this fast, the new step shows at once too.
    assert after["pulses"] == []
    assert page.evaluate(SHOWN_JS, "a")["grad"] == "9"


def test_a_forward_step_brings_the_inputs_values_into_the_node(page, site_url):
    open_diamond(page, site_url, "pass=forward&step=2")  # a, b, c computed; next: d = b * c
    during = page.evaluate(STEP_AND_LOOK_JS, "d")
    assert during["dataData"] == "18"
    assert sorted(during["pulses"]) == ["3", "6"]  # b's and c's values on their way
    assert during["shownData"] == "—"  # the one "not yet" mark, as in the node table
    assert wait_landed(page, "d")["data"] == "18"


@pytest.fixture
def reduced_page(page):
    page.emulate_media(reduced_motion="reduce")
    return page


def test_with_reduced_motion_the_numbers_land_at_once_without_a_pulse(reduced_page, site_url):
    page = reduced_page
    open_diamond(page, site_url, "pass=backward&step=0")
    during = page.evaluate(STEP_AND_LOOK_JS, "b")
    assert during["pulses"] == []
    assert (during["dataGrad"], during["shownGrad"]) == ("6", "6")
    assert page.evaluate(SHOWN_JS, "c")["grad"] == "3"
    # Each step slower than a fast one: no pulse because of reduced motion, not because of speed.
    past_fast_step(page, page.evaluate("() => performance.now()"))
    _, at = step_and_look(page, "a")
    past_fast_step(page, at)
    during = page.evaluate(STEP_AND_LOOK_JS, "a")
    assert during["pulses"] == []
    assert (during["dataGrad"], during["shownGrad"]) == ("15", "15")


# Each pushing edge's line width as set (the stylesheet eases it there), by its two ends.
PUSH_WIDTHS_JS = """() => Object.fromEntries([...gwRoot().querySelectorAll('#graph .edge.is-pushing')].map((e) =>
  [e.dataset.from + '→' + e.dataset.to, parseFloat(e.querySelector('.edge-line').style.strokeWidth)]))"""


def test_a_pushs_line_is_as_thick_as_its_contribution_is_big(page, site_url):
    # The diamond's pushes: d gives b 6 and c 3; c gives a 9 (the largest), b gives a 6.
    open_diamond(page, site_url, "pass=backward&step=1")
    widths = page.evaluate(PUSH_WIDTHS_JS)
    assert set(widths) == {"b→d", "c→d"}
    assert widths["b→d"] > widths["c→d"] >= 2
    page.evaluate(STEP_AND_LOOK_JS, "a")  # visit c: a += 9, the largest push there is
    assert page.evaluate(PUSH_WIDTHS_JS) == {"a→c": 6}
    page.evaluate(STEP_AND_LOOK_JS, "a")  # visit b: a += 6
    assert 2 < page.evaluate(PUSH_WIDTHS_JS)["a→b"] < 6
    page.evaluate(CLICK_BACK_JS)
    page.evaluate(CLICK_BACK_JS)
    page.evaluate(CLICK_BACK_JS)  # the seed: nothing pushes, every line as drawn by the stylesheet
    assert page.evaluate(PUSH_WIDTHS_JS) == {}
    assert page.evaluate(
        "() => [...gwRoot().querySelectorAll('#graph .edge-line')].every((l) => l.style.strokeWidth === '')"
    )


CLICK_BACK_JS = "() => gwRoot().querySelector('#step-back').click()"


def test_with_more_digits_a_landed_pulse_writes_five_decimals(page, site_url):
    # A pulse lands in an animation frame of its own, after the render that sent it: the
    # number it brings is written as the render wrote the rest (o = tanh(n) = 0.7071067…).
    page.goto(f"{site_url}?preset=neuron&hide=questions&pass=forward&step=8")  # next: o
    wait_ready(page)
    page.wait_for_selector("svg[data-graph='neuron'] [data-node='o'] .node-box", timeout=10_000)
    page.get_by_role("button", name="More digits").click()
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=10_000)
    past_fast_step(page, page.evaluate("() => performance.now()"))
    looked, _ = step_and_look(page, "o")
    assert looked["pulses"], looked  # the step's inputs travel into o (not landed at once)
    assert wait_landed(page, "o")["data"] == "0.70711"
