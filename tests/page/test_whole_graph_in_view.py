"""Every screen shows the whole graph: at 390×844 and 360×740 (touch phones), a 900×700
window (a lesson's column) and 1280×800, every preset's every node lies inside the graph's
box and inside the screen, with no pan and no Fit: at the first paint (index.html's
prerendered graph, laid out and sized by boot/prerendered-gate.js before any module has
run) and once the engine is ready (the script's own choice, panels/graph-scroll.js).
Its text is then at least 11 px. Stepping keeps the step's nodes in view at every step
of the diamond and the neuron, and a run of the visit order ends with its verdict, its
lost paths and its late edge on the screen together."""

from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.page import BOOT_TIMEOUT_MS, STEP_TIMEOUT_MS, button, run_order, show_tab, sized_page, wait_ready
from tests.support.page_state import settle
from tests.support.waits import after_frames

SCREENS = {
    "390x844": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "360x740": {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True},
    "900x700": {"viewport": {"width": 900, "height": 700}},
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
}
MIN_TEXT_PX = 11
PRESETS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "presets").glob("*.toml"))

# The labels of the nodes (of `only`, or all) whose box is not wholly inside both the
# graph's box and the screen, and the smallest text in the graph, in CSS px on screen.
OUT_OF_VIEW_JS = """(only) => {
  const root = gwRoot();
  const scroller = root.getElementById('graph-scroll').getBoundingClientRect();
  const left = Math.max(scroller.left, 0), top = Math.max(scroller.top, 0);
  const right = Math.min(scroller.right, innerWidth), bottom = Math.min(scroller.bottom, innerHeight);
  const out = [];
  for (const g of root.querySelectorAll('#graph [data-node]')) {
    if (only && !only.includes(g.dataset.node)) continue;
    const box = g.querySelector('.node-box'); // (a big graph draws what comes into view)
    const r = box ? box.getBoundingClientRect() : { left: -1e9, right: -1e9, top: -1e9, bottom: -1e9 };
    if (r.left < left - 0.5 || r.right > right + 0.5 || r.top < top - 0.5 || r.bottom > bottom + 0.5) {
      out.push(g.dataset.node);
    }
  }
  const texts = [...root.querySelectorAll('#graph [data-node] text')].filter((t) => t.textContent.trim());
  const smallest = Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a));
  return { out, smallest, nodes: root.querySelectorAll('#graph [data-node]').length,
           direction: root.getElementById('graph').dataset.direction };
}"""


@pytest.fixture(scope="module", params=sorted(SCREENS))
def screen(browser, request):
    yield from sized_page(browser, SCREENS[request.param], request.param)


def in_view(page, only=None):
    return page.evaluate(OUT_OF_VIEW_JS, only)


def wait_in_view(page, only, timeout_ms=3_000):
    """in_view(page, only) once none of `only` is out of view (a pan, smooth or not, has
    brought them in), or as it is after `timeout_ms` (the caller asserts)."""
    try:
        page.wait_for_function(f"(only) => ({OUT_OF_VIEW_JS})(only).out.length === 0", arg=only, timeout=timeout_ms)
    except PlaywrightTimeoutError:
        pass
    return in_view(page, only)


# The host's pass and step: a click's step has landed once they change.
WHERE_JS = "() => [gwHost().dataset.pass, gwHost().dataset.step]"


def wait_moved(page, before):
    page.wait_for_function(
        f"(before) => JSON.stringify(({WHERE_JS})()) !== JSON.stringify(before)", arg=before, timeout=STEP_TIMEOUT_MS
    )


@pytest.mark.browser
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_is_whole_on_screen_at_its_first_paint_and_once_ready(screen, site_url, preset):
    page = screen
    page.goto(f"{site_url}?preset={preset}", timeout=BOOT_TIMEOUT_MS)
    first = in_view(page)  # the load event: what the first paint showed, before the modules
    assert first["nodes"] > 0, "index.html came without this preset's graph"
    assert not first["out"], f"{preset} at {page.size_name}, first paint: {first['out']} not on screen"
    wait_ready(page)
    # Once the fonts are in, frames in which a resize observer's refit, if any, has run.
    page.evaluate("async () => { await document.fonts.ready; }")
    after_frames(page, 3)
    ready = in_view(page)
    assert not ready["out"], f"{preset} at {page.size_name}, once ready: {ready['out']} not on screen"
    assert ready["direction"] == first["direction"], "the graph changed its layout when the script took over"
    assert ready["smallest"] >= MIN_TEXT_PX - 0.01, f"text drawn at {ready['smallest']:.2f} px"


# The nodes a step is about: the one computed, or visited, and the ones receiving from it.
STEP_NODES_JS = """() => [...gwRoot().querySelectorAll(
  '#graph .node.is-current, #graph .node.is-visiting, #graph .node.is-receiving')].map((g) => g.dataset.node)"""


@pytest.mark.browser
@pytest.mark.parametrize("preset", ["diamond", "neuron"])
def test_the_step_in_progress_stays_in_view_at_every_step(screen, site_url, preset):
    page = screen
    # Questions off (cp=0; hide= only applies to an embedded widget): a question about
    # another node would rightly take the view first.
    page.goto(f"{site_url}?preset={preset}&cp=0", timeout=BOOT_TIMEOUT_MS)
    wait_ready(page)
    steps = 0
    while page.get_attribute("#step-forward", "aria-disabled") != "true" or steps == 0:
        before = page.evaluate(WHERE_JS)
        if page.get_attribute("#step-forward", "aria-disabled") == "true":
            button(page, "Start backward").click()
        else:
            button(page, "Step forward").click()
        wait_moved(page, before)
        steps += 1
        about = page.evaluate(STEP_NODES_JS)
        seen = wait_in_view(page, about)  # keepInView pans (smoothly) from the next frame
        assert not seen["out"], f"step {steps} at {page.size_name}: {seen['out']} of {about} out of view"
        if (
            page.get_attribute("#step-forward", "aria-disabled") == "true"
            and page.evaluate("gwHost().dataset.pass") == "backward"
        ):
            break
        assert steps < 40
    assert steps > 5


# Whether the element is wholly on the screen, and not under anything (a phone's sticky
# controls and graph): its middle is its own.
ON_SCREEN_JS = """(selector) => { const el = gwRoot().querySelector(selector); if (!el) return false;
  const r = el.getBoundingClientRect();
  const inside = r.height > 0 && r.top >= 0 && r.bottom <= innerHeight
    && r.left >= 0 && r.right <= innerWidth;
  const hit = gwRoot().elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  const svg = el.closest('svg');
  return inside && Boolean(hit) && (el.contains(hit) || (svg !== null && hit.closest('svg') === svg)); }"""


@pytest.mark.browser
def test_a_wrong_run_shows_its_verdict_lost_paths_and_late_edge_together(screen, site_url):
    page = screen
    if page.size_name not in ("1280x800", "390x844"):
        pytest.skip("the run's result is checked on a laptop and on a phone")
    page.emulate_media(reduced_motion="reduce")
    page.goto(f"{site_url}?preset=diamond&hide=questions", timeout=BOOT_TIMEOUT_MS)
    wait_ready(page)
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Alt+ArrowUp")
    page.keyboard.press("Alt+ArrowUp")  # b, d, c, a: b is visited before d has pushed into it
    run_order(page)
    page.wait_for_selector("#experiment-result .lost-paths li", timeout=STEP_TIMEOUT_MS)

    def on_screen(selector):
        return page.evaluate(ON_SCREEN_JS, selector)

    # The result brought into view (at once: reduced motion), then every part checked.
    try:
        page.wait_for_function(
            f"(sels) => sels.every(({ON_SCREEN_JS}))",
            arg=["#experiment-result .verdict", "#experiment-result .lost-paths", "#graph .edge.is-late"],
            timeout=STEP_TIMEOUT_MS,
        )
    except PlaywrightTimeoutError:
        pass  # the assertions below say which part is off the screen
    assert on_screen("#experiment-result .verdict"), "the verdict is off the screen"
    assert on_screen("#experiment-result .lost-paths"), "the lost paths are off the screen"
    assert on_screen("#graph .edge.is-late"), "the late edge is off the screen"
    # Nothing in the side column scrolls on its own: its whole result is in the page.
    inner = page.evaluate(
        """() => [...gwRoot().querySelectorAll('.stage-side, .stage-side *')].filter((el) => {
             const s = getComputedStyle(el);
             return /(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1
               && !el.matches('.visit-order'); }).map((el) => el.className)"""
    )
    assert not inner, f"hidden inner scroll in the side column: {inner}"


@pytest.mark.browser
def test_a_question_about_a_node_brings_it_into_view_on_a_big_program(screen, site_url):
    from tests.page.test_graph_readable import big_program, src

    page = screen
    if page.size_name != "1280x800":
        pytest.skip("one size: a program too big to be whole, panned to follow the passes")
    page.emulate_media(reduced_motion="reduce")  # panned at once, not smoothly
    page.goto(f"{site_url}?src={src(big_program())}", timeout=BOOT_TIMEOUT_MS)
    wait_ready(page)
    page.wait_for_selector("#graph [data-node] .node-box", timeout=STEP_TIMEOUT_MS)
    settle(page)  # the program's questions come with the second part of its answer
    button(page, "Start backward").click()
    asked = []
    for _ in range(8):
        button(page, "Step forward").click()
        after_frames(page, 2)  # the step's question, if any, asked and its node marked
        label = page.evaluate("() => gwRoot().querySelector('#graph .node.is-asked')?.dataset.node ?? null")
        if label is None:
            continue
        asked.append(label)
        seen = wait_in_view(page, [label])  # brought into view at the next frame
        where = page.evaluate(
            "(l) => [gwRoot().getElementById('graph-scroll').scrollLeft, "
            "gwRoot().querySelector(`#graph [data-node='${l}']`).getAttribute('transform')]",
            label,
        )
        assert not seen["out"], f"the question is about {label}, which is out of view ({where})"
    assert len(asked) >= 3, asked
