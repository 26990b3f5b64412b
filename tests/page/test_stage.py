"""One stage: at 1280×800 and at 390×844 (touch), during every step of
both passes, the graph, the step controls, the narration of the last step and the open
question are all in view at once; in the visit-order experiment, the graph with its
late/lost marks, the list, Run order and the verdict are. Checked with bounding boxes
on the diamond, the neuron and a 40-node program, without scrolling the page (on a
phone the page may scroll, but the controls and the graph stay on top).
"""

import pytest

from tests.support.page import BOOT_TIMEOUT_MS, STEP_TIMEOUT_MS, order_result, sized_page, wait_for_run
from tests.support.waits import wait_still

pytestmark = pytest.mark.browser

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}

# 40 nodes: 8 inputs, 32 operations, two long chains that meet twice (so the backward
# pass adds into shared nodes, and the generated questions have something to ask).
PROGRAM_40 = "\n".join(
    [f"x{i} = {(i + 1) / 10}" for i in range(8)]
    + [f"p{i} = x{i} * x{(i + 1) % 8}" for i in range(8)]
    + [f"s{i} = p{i} + p{(i + 3) % 8}" for i in range(8)]
    + [f"t{i} = tanh(s{i})" for i in range(8)]
    + [
        "u0 = t0 + t1",
        "u1 = t2 + t3",
        "u2 = t4 + t5",
        "u3 = t6 + t7",
        "v0 = u0 * u1",
        "v1 = u2 * u3",
        "w = v0 + v1",
        "z = w * u0",
    ]
)

# Every box, measured at once after the next frame (a new question scrolls into view
# then): [top, bottom, left, right] in viewport pixels, or null.
BOXES_JS = """async (sels) => {
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return Object.fromEntries(sels.map((sel) => {
  const e = gwRoot().querySelector(sel);
  if (!e || !e.getClientRects().length) return [sel, null];
  const r = e.getBoundingClientRect();
  return [sel, [r.top, r.bottom, r.left, r.right]];
}));
}"""

# BOXES_JS's boxes as they are now (for wait_still, which measures once a frame).
BOXES_NOW_JS = """(sels) => Object.fromEntries(sels.map((sel) => {
  const e = gwRoot().querySelector(sel);
  if (!e || !e.getClientRects().length) return [sel, null];
  const r = e.getBoundingClientRect();
  return [sel, [r.top, r.bottom, r.left, r.right]];
}))"""

STAGE = ["#step-forward", "#step-back", "#position", "#graph-scroll", "#narration"]
QUESTION = [".checkpoint:not(.is-folded) .cp-question", ".checkpoint:not(.is-folded) form"]


@pytest.fixture(params=list(VIEWPORTS))
def stage_page(browser, request, site_url):
    for page in sized_page(browser, VIEWPORTS[request.param], request.param):
        page.goto(site_url + "index.html")
        page.wait_for_function("document.documentElement.dataset.engine !== 'loading'", timeout=BOOT_TIMEOUT_MS)
        page.viewport = VIEWPORTS[request.param]["viewport"]
        yield page


def settle(page):
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)


def load_preset(page, preset):
    page.get_by_label("Preset", exact=True).select_option(preset)
    page.wait_for_selector(f"svg[data-graph='{preset}']", timeout=STEP_TIMEOUT_MS)
    settle(page)


def load_program(page, text, nodes):
    page.click("#edit-program")
    page.fill("#program-editor", text)
    page.wait_for_function(
        "(n) => gwRoot().querySelector('#graph').dataset.graph === 'program'"
        " && gwRoot().querySelectorAll('#graph [data-node]').length === n",
        arg=nodes,
        timeout=STEP_TIMEOUT_MS,
    )
    settle(page)
    page.click("#edit-program")  # close the editor
    page.evaluate("window.scrollTo(0, 0)")


def assert_in_view(page, boxes, where, names):
    width, height = page.viewport["width"], page.viewport["height"]
    for sel in names:
        box = boxes[sel]
        assert box is not None, f"{where}: {sel} is not shown"
        top, bottom, left, right = box
        assert top >= -0.5 and bottom <= height + 0.5 and left >= -0.5 and right <= width + 0.5, (
            f"{where}: {sel} is at {[round(v) for v in box]}, outside the {width}×{height} screen"
        )


def step_all(page, check):
    """Press Step forward through the forward pass, Start backward's seed and every
    visit; call check(where) after each step."""
    check("before the first step")
    forward = page.locator("#step-forward")
    for k in range(200):
        if forward.get_attribute("aria-disabled") == "true":
            return k
        forward.click()
        check(page.evaluate("gwRoot().getElementById('position').innerText"))
    raise AssertionError("the passes did not end within 200 steps")


@pytest.mark.parametrize("source", ["diamond", "neuron", "program-40"])
def test_graph_controls_narration_and_question_share_one_screen(stage_page, source):
    page = stage_page
    if source == "program-40":
        load_program(page, PROGRAM_40, 40)
    else:
        load_preset(page, source)
    asked = 0

    def check(where):
        nonlocal asked
        boxes = page.evaluate(BOXES_JS, STAGE + QUESTION)
        # On a phone the whole graph comes first: before the first step what just happened
        # ("Press Step forward") may be just below it; every step brings it into view.
        phone_start = where == "before the first step" and page.viewport["width"] <= 760
        assert_in_view(page, boxes, where, [n for n in STAGE if not (phone_start and n == "#narration")])
        if boxes[QUESTION[0]] is not None:  # a question is open: it is on screen too
            asked += 1
            assert_in_view(page, boxes, where, QUESTION)
        assert page.evaluate("gwRoot().querySelectorAll('.checkpoint:not(.is-folded)').length") <= 1, where

    steps = step_all(page, check)
    assert steps >= 2 * 4  # both passes were walked
    assert asked >= 2, "no question was open on the way: the check above never ran"


@pytest.mark.parametrize("preset", ["diamond", "neuron"])
def test_the_visit_order_experiment_shows_list_run_and_verdict_beside_the_marked_graph(stage_page, preset):
    page = stage_page
    load_preset(page, preset)
    page.get_by_role("tab", name="Visit order").click()
    # Move the node visited first (the output) to the end: every path is cut.
    first = page.locator("#visit-order li").first
    first.focus()
    for _ in range(page.locator("#visit-order li").count()):
        page.keyboard.press("Alt+ArrowDown")
    before = order_result(page)
    page.get_by_role("button", name="Run order").click()
    wait_for_run(page, before)
    settle(page)
    # A smooth scroll, if any, has ended: the boxes measured stay put for a few frames.
    sels = ["#run-order", ".verdict", "#graph-scroll", "#step-back"]
    wait_still(page, BOXES_NOW_JS, sels)
    boxes = page.evaluate(BOXES_JS, sels)
    assert_in_view(page, boxes, "after Run order", ["#run-order", ".verdict", "#graph-scroll", "#step-back"])
    assert "wrong" in page.inner_text(".verdict")
    # Beside the graph, the list is in view too (its first items at least: a long list
    # scrolls on its own). On a phone it follows the result, a scroll away: the controls
    # and the whole graph stay on top, and Run order and the result come first under them.
    top, bottom = page.evaluate(BOXES_JS, ["#visit-order"])["#visit-order"][:2]
    # (The neuron's result, every path cut, is long: its list is a scroll away too.)
    if page.viewport["width"] > 760 and preset == "diamond":
        assert bottom > 0 and top < page.viewport["height"] - 60, (top, bottom)
    # The lost paths' marks on the graph are on screen with the verdict.
    marked = page.evaluate("""() => [...gwRoot().querySelectorAll('#graph .edge.is-lost, #graph .edge.is-late')]
        .map((e) => e.getBoundingClientRect()).map((r) => [r.top, r.bottom])""")
    assert marked, "no late or lost edge is marked"
    height = page.viewport["height"]
    assert any(t < height and b > 0 for t, b in marked), marked


def test_the_experiments_run_on_the_same_stage(stage_page):
    page = stage_page
    load_preset(page, "diamond")
    page.get_by_role("tab", name="Why reverse mode").click()
    assert page.locator("#why-reverse").is_visible()
    page.get_by_role("tab", name="Path sums").click()
    page.click("#paths-run")
    page.wait_for_function("gwRoot().getElementById('why-reverse').dataset.active === 'paths'", timeout=STEP_TIMEOUT_MS)
    page.evaluate("window.scrollTo(0, 0)")
    boxes = page.evaluate(BOXES_JS, ["#graph-scroll", "#step-forward", "#position"])
    assert_in_view(page, boxes, "in the path-sums experiment", ["#graph-scroll", "#step-forward", "#position"])
    assert page.inner_text("#position").startswith("Path sums")
    # Back to the passes: the experiment is left, the ordinary grads come back.
    page.get_by_role("tab", name="Step the passes").click()
    assert page.evaluate("gwRoot().getElementById('why-reverse').dataset.active") == ""
    assert page.locator("#narration").is_visible()


def test_secondary_panels_sit_below_the_stage(stage_page):
    page = stage_page
    load_preset(page, "neuron")
    boxes = page.evaluate(BOXES_JS, ["#stage", ".code-box", ".table-box"])
    stage_bottom = boxes["#stage"][1]
    assert stage_bottom <= page.viewport["height"] + 0.5 or page.viewport["width"] < 700
    for sel in (".code-box", ".table-box"):
        assert boxes[sel][0] >= stage_bottom - 0.5, f"{sel} starts inside the stage"


def test_axe_finds_nothing_on_the_stage_in_its_main_states(stage_page):
    from tests.support.page import axe_audit, axe_report

    page = stage_page

    def audit(state):
        results = axe_audit(page)
        assert results.violations_count == 0, f"{state}:\n{axe_report(results)}"

    load_preset(page, "add-mul")
    for _ in range(5):  # the end of the forward pass: the seed's question is open
        page.click("#step-forward")
    assert page.locator(".checkpoint:not(.is-folded)").count() == 1
    audit("a question open")
    page.click("#step-forward")  # the seed: its answer folded, the next question open
    audit("an answer folded")
    page.get_by_role("tab", name="Visit order").click()
    first = page.locator("#visit-order li").first
    first.focus()
    page.keyboard.press("Alt+ArrowDown")
    page.get_by_role("button", name="Run order").click()
    page.wait_for_selector(".verdict", timeout=STEP_TIMEOUT_MS)
    audit("a visit order run")
    page.get_by_role("tab", name="Why reverse mode").click()
    page.get_by_role("tab", name="Path sums").click()
    page.click("#paths-run")
    page.wait_for_function("gwRoot().getElementById('why-reverse').dataset.active === 'paths'", timeout=STEP_TIMEOUT_MS)
    audit("an experiment on the stage")


def test_questions_wait_their_turn(stage_page):
    """One question at a time; answered ones fold; the step that answers a question
    reveals it only if the question was on screen before it."""
    page = stage_page
    load_preset(page, "add-mul")

    def cards():
        return page.evaluate("""() => [...gwRoot().querySelectorAll('#checkpoints .checkpoint')].map(
            (c) => [c.dataset.checkpoint, c.dataset.mode, c.classList.contains('is-folded')])""")

    for _ in range(6):  # the forward pass, then the seed: two questions are asked about e's visit
        page.click("#step-forward")
    assert cards() == [["first-step-d", "ask", False], ["seed", "revealed", True]]
    asked = "() => [...gwRoot().querySelectorAll('#graph .is-asked')].map((g) => g.dataset.node)"
    assert page.evaluate(asked) == ["d"]  # the node the question is about is outlined
    # Stepping on without answering: the visit reveals d's answer (it was on screen) and
    # not c's (it never was).
    page.click("#step-forward")
    assert ["first-step-d", "revealed", True] in cards()
    assert not any(c[0] == "first-step-c" for c in cards())
    # Back at the seed, d is still open; answered, it folds and c opens in its place.
    page.click("#step-back")
    assert cards()[0] == ["first-step-d", "ask", False]
    page.fill("#cp-first-step-d-in", "4")
    page.press("#cp-first-step-d-in", "Enter")
    assert cards()[:2] == [["first-step-c", "ask", False], ["first-step-d", "ask", True]]
    assert page.evaluate("gwActive().id") == "cp-first-step-c-in"  # the focus moves on to it
    assert page.evaluate(asked) == ["c"]
    page.click("#step-forward")
    revealed = [c[0] for c in cards() if c[1] == "revealed"]
    assert revealed == ["first-step-d", "first-step-c"]
    assert all(c[2] for c in cards())  # all folded: nothing open at this step
    assert page.evaluate(asked) == []
