"""Run order plays the run visit by visit: the diamond's a.grad is seen building up to
its final value, the played run ends exactly where an instant one lands, under
prefers-reduced-motion it lands at once, a key, the scrubber or Reset stops it where
it is, and a second Run plays it again from its seed.

What the page shows over time is recorded in the page itself: a MutationObserver
notes every change of a's data-grad and of the widget's step, with its time."""

import pytest

from tests.support.page import (
    ORDER_RESULT_JS,
    STEP_TIMEOUT_MS,
    button,
    open_page,
    order_result,
    show_tab,
    snapshot,
    wait_for_new,
    wait_for_run,
    web_number,
)
from tests.support.page_state import engine_answer, expected_nodes, settle
from tests.support.presets import expected_nodes as preset_expect

ORDER = ["d", "c", "b", "a"]  # the diamond's own backward order, the list's first order

# A visit's time in a play (web/actions/play.js: PULSE_MS + 50).
PULSE_MS = web_number("panels/graph-pulse.js", "PULSE_MS")
VISIT_MS = PULSE_MS + 50

# window.__played: every change of a's data-grad ({t, grad}) and of the host's data-step ({t, step}).
# A value written again unchanged (every render writes the step) is not a change.
RECORD_JS = """() => {
  const played = (window.__played = []);
  const watch = (element, attribute, key) => new MutationObserver((records) => {
    const t = performance.now();
    records.forEach((r, i) => { // each record's new value is the next one's old value
      const value = i + 1 < records.length ? records[i + 1].oldValue : element.getAttribute(attribute);
      if (r.oldValue !== value) played.push({ t, [key]: value });
    });
  }).observe(element, { attributes: true, attributeFilter: [attribute], attributeOldValue: true });
  watch(gwRoot().querySelector("svg [data-node='a']"), "data-grad", "grad");
  watch(gwHost(), "data-step", "step");
}"""


def played(page, key):
    """The recorded values of `key` ("grad" or "step"), each with its time in ms."""
    return [(r["t"], r[key]) for r in page.evaluate("window.__played") if key in r]


def collapsed(values):
    """The values in the order shown, each run of repeats as one."""
    out = []
    for v in values:
        if not out or out[-1] != v:
            out.append(v)
    return out


def shown(number):
    """A number as the page writes it in data-grad (format.exact: JavaScript's String)."""
    return format(float(number), "g") if float(number) != int(number) else str(int(number))


def a_grads_of_the_run():
    """a.grad at every frame of the diamond's run in its own order, by the CPython engine."""
    answer = engine_answer({"preset": "diamond", "program": None, "values": None, "order": ORDER})
    frames = len(answer["experiment"]["frames"])
    return [shown(expected_nodes(answer, "experiment", k)["a"][1]) for k in range(frames)]


def open_diamond_order(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Visit order")
    page.evaluate(RECORD_JS)


def result_waits(page):
    """Whether the run's result is still to come (it waits for the run's last visit, or for
    the learner to stop the play): no verdict, and the result box says the run is playing."""
    body = page.inner_text("#experiment-body")
    return page.locator("#experiment-body .verdict").count() == 0 and "Playing the run" in body


def wait_for_step(page, step):
    page.wait_for_function(
        f"gwHost().dataset.pass === 'experiment' && Number(gwHost().dataset.step) >= {step}", timeout=STEP_TIMEOUT_MS
    )


def test_run_order_plays_each_visit_and_ends_where_an_instant_run_lands(page, site_url):
    open_diamond_order(page, site_url)
    grads = a_grads_of_the_run()  # 0 at the seed, 9 once c has pushed, 15 once b has
    final = shown(preset_expect("diamond")["a"][1])
    assert grads[-1] == final and len(collapsed(grads)) >= 3, grads  # the run has a value on the way

    before = order_result(page)
    button(page, "Run order").click()
    # The run starts at its seed, and its result waits for its last visit.
    page.wait_for_function("gwHost().dataset.pass === 'experiment'", timeout=STEP_TIMEOUT_MS)
    assert page.evaluate("gwHost().dataset.step") == "0"
    assert result_waits(page)
    wait_for_run(page, before)
    assert page.inner_text("#experiment-body .verdict") == "✓ Every grad is right"
    steps = played(page, "step")
    assert [s for _, s in steps] == [str(k) for k in range(len(grads))]  # every visit, in turn
    # a.grad went through the run's values, one visit at a time, and ended at the preset's.
    assert collapsed([g for _, g in played(page, "grad")]) == collapsed(grads)
    times = [t for t, _ in steps]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) > 250, gaps  # each visit stays on screen long enough to be seen
    assert times[-1] - times[0] < 3000, times  # about 2 s (4 visits of 0.5 s), with room for a slow machine
    settle(page)
    played_end = snapshot(page)
    assert "every grad came out right" in played_end["narration"]

    # The same run, instant (reduced motion): the very same screen at its end.
    page.emulate_media(reduced_motion="reduce")
    before = order_result(page)
    button(page, "Run order").click()
    wait_for_run(page, before)  # the same verdict, drawn afresh
    settle(page)
    assert snapshot(page) == played_end


def test_under_reduced_motion_the_run_lands_at_its_end_at_once(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_diamond_order(page, site_url)
    final = shown(preset_expect("diamond")["a"][1])
    before = order_result(page)
    button(page, "Run order").click()
    wait_for_run(page, before)
    last = str(len(a_grads_of_the_run()) - 1)
    # One change of a.grad, straight to its final value, and one of the step, to the last visit.
    assert [g for _, g in played(page, "grad")] == [final]
    assert [s for _, s in played(page, "step")] == [last]
    assert "every grad came out right" in page.inner_text("#narration")


@pytest.mark.parametrize("how", ["ArrowLeft", "scrubber End", "Reset"])
def test_a_key_the_scrubber_or_reset_stops_the_play_at_once(page, site_url, how):
    open_diamond_order(page, site_url)
    frames = len(a_grads_of_the_run())
    before = order_result(page)
    button(page, "Run order").click()
    wait_for_step(page, 2)
    assert result_waits(page), "the run should still be playing"
    if how == "ArrowLeft":
        page.keyboard.press("ArrowLeft")  # the focus is on Run order: the widget's ← steps back
    elif how == "scrubber End":
        page.get_by_role("slider", name="Steps", exact=True).focus()
        page.keyboard.press("End")
    else:
        button(page, "Reset").click()
    # The move is made at once, and the run's result is shown (the learner took over).
    wait_for_new(page, ORDER_RESULT_JS, before)
    where = page.evaluate("[gwHost().dataset.pass, gwHost().dataset.step]")
    expected = {"ArrowLeft": None, "scrubber End": ["experiment", str(frames - 1)], "Reset": ["start", "-1"]}[how]
    if expected:
        assert where == expected
    else:
        assert where[0] == "experiment" and int(where[1]) < frames - 1
    count = len(page.evaluate("window.__played"))
    # The play's busy mark is gone: its timer's next tick (a visit's time after the last) has
    # found the play over. A play still going would hold the mark while it moves on.
    settle(page)
    # And a visit's time later still nothing has moved (the window is the subject: a play
    # that had let go of the busy mark but kept its timer would move within it).
    page.wait_for_timeout(VISIT_MS)
    assert len(page.evaluate("window.__played")) == count, played(page, "step")
    assert page.evaluate("[gwHost().dataset.pass, gwHost().dataset.step]") == where


def test_a_second_run_plays_again_from_the_seed(page, site_url):
    open_diamond_order(page, site_url)
    grads = a_grads_of_the_run()
    button(page, "Run order").click()
    wait_for_step(page, 3)
    # Cleared and clicked in one task, so no tick of the first run lands between the two.
    page.evaluate(
        """() => {
          window.__played.length = 0;
          [...gwRoot().querySelectorAll('button')].find((b) => b.textContent.trim() === 'Run order').click();
        }"""
    )
    # The second run takes over: back at its seed, it plays to its end, and its result is shown.
    page.wait_for_function("window.__played.some((r) => r.step === '0')", timeout=STEP_TIMEOUT_MS)
    wait_for_run(page, order_result(page))
    assert [s for _, s in played(page, "step")] == [str(k) for k in range(len(grads))]
    assert collapsed([g for _, g in played(page, "grad")]) == collapsed(grads)
