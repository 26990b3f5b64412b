"""The widget as a component (web/widget.js, web/gradwalk.js): <grad-walk> elements on a
lesson page share one engine worker and step independently, and mount()/unmount()
leave nothing behind."""

import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.page import BOOT_TIMEOUT_MS, STEP_TIMEOUT_MS, axe_audit, axe_report

pytestmark = pytest.mark.browser

# A widget's state as a learner sees it: its position line and every node's numbers.
WIDGET_STATE = """(host) => ({
  position: host.shadowRoot.getElementById('position').textContent,
  nodes: [...host.shadowRoot.querySelectorAll('svg [data-node]')].map(
    (g) => [g.dataset.node, g.dataset.data, g.dataset.grad]),
})"""


def widget(page, selector):
    return page.locator(selector)


def state(page, selector):
    return page.locator(selector).evaluate(WIDGET_STATE)


def count_workers(page):
    started = []
    page.on("worker", lambda w: started.append(w.url) if "/worker.js" in w.url else None)
    return started


def wait_ready(page, selector):
    page.locator(f"{selector}[data-engine='ready']").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)


def test_lesson_page_boots_one_engine_for_three_widgets(page, site_url):
    workers = count_workers(page)
    page.goto(site_url + "lesson.html")
    ids = ["#widget-questions", "#widget-nudge", "#widget-order"]
    for selector in ids:
        wait_ready(page, selector)
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=STEP_TIMEOUT_MS)
    assert len(workers) == 1, f"one engine worker for the page, not {workers}"
    q, n, o = (widget(page, s) for s in ids)
    # Each widget shows its own preset, options and starting place.
    assert q.locator("#graph").get_attribute("data-graph") == "checkpoint"
    assert n.locator("#graph").get_attribute("data-graph") == "neuron"
    assert o.locator("#graph").get_attribute("data-graph") == "diamond"
    assert q.locator(".experiment").is_hidden() and q.locator("#nudge").is_hidden()
    assert q.locator("#preset").is_hidden()
    assert n.locator("#position").inner_text() == "Backward pass · visit 10 of 10"  # start=end
    assert n.locator("#nudge").is_visible() and n.locator(".table-box").is_hidden()
    assert o.locator(".experiment").is_visible() and o.locator("#nudge").is_hidden()
    assert o.get_by_role("tab", name="Visit order").get_attribute("aria-selected") == "true"  # start=order
    # The lesson's own styles stay outside: its serif font does not reach the widget.
    assert "Georgia" not in o.locator("#position").evaluate("(e) => getComputedStyle(e).fontFamily")

    # Step one widget: the others do not change.
    before_n, before_o = state(page, ids[1]), state(page, ids[2])
    q.get_by_role("button", name="Step forward", exact=True).click()
    q.get_by_role("button", name="Step forward", exact=True).click()
    assert q.locator("#position").inner_text() == "Forward pass · node 2 of 5"
    assert state(page, ids[1]) == before_n and state(page, ids[2]) == before_o
    before_q = state(page, ids[0])
    # Break the order in the third: only it changes, and its answer comes from the shared engine.
    item = o.locator("#visit-order li[data-label='b']")
    item.focus()
    item.press("Alt+ArrowUp")
    item.press("Alt+ArrowUp")
    o.get_by_role("button", name="Run order").click()
    o.locator(".verdict.is-wrong").wait_for(timeout=STEP_TIMEOUT_MS)
    assert "a.grad is 9, not 15" in o.locator("#experiment-body").inner_text()
    assert state(page, ids[0]) == before_q and state(page, ids[1]) == before_n
    # And a nudge in the second.
    n.get_by_role("button", name="Nudge", exact=True).click()
    n.locator("#nudge-result[data-central]").wait_for(timeout=STEP_TIMEOUT_MS)
    assert state(page, ids[0]) == before_q
    assert len(workers) == 1
    results = axe_audit(page)
    assert results.violations_count == 0, axe_report(results)


TWO_WIDGETS = """async () => {
  document.body.innerHTML = '<grad-walk id="one" preset="diamond"></grad-walk>'
    + '<grad-walk id="two" preset="add-mul" questions="off"></grad-walk>';
  await import('/gradwalk.js');
}"""


def test_two_widgets_step_independently_by_keyboard(blank_page):
    page = blank_page
    workers = count_workers(page)
    page.evaluate(TWO_WIDGETS)
    wait_ready(page, "#one")
    wait_ready(page, "#two")
    assert len(workers) == 1
    one, two = widget(page, "#one"), widget(page, "#two")
    # The arrow keys step the widget that has focus, and only that one.
    one.get_by_role("button", name="Step forward", exact=True).focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    two.get_by_role("button", name="Start backward", exact=True).click()
    page.keyboard.press("ArrowRight")
    assert one.locator("#position").inner_text() == "Forward pass · node 3 of 4"
    assert two.locator("#position").inner_text() == "Backward pass · visit 1 of 5"
    # Each widget's ids are its own: both have a #position, a #narration, a Preset chooser.
    assert page.evaluate("document.querySelectorAll('#position').length") == 0
    assert one.get_by_label("Preset", exact=True).count() == 1
    two.get_by_label("Preset", exact=True).select_option("neuron")
    two.locator("#graph[data-graph='neuron']").wait_for(timeout=STEP_TIMEOUT_MS)
    assert one.locator("#graph").get_attribute("data-graph") == "diamond"
    assert one.locator("#position").inner_text() == "Forward pass · node 3 of 4"


TWO_COS = """async () => {
  document.body.innerHTML = '<grad-walk id="one" preset="cos"></grad-walk>'
    + '<grad-walk id="two" preset="cos"></grad-walk>';
  await import('/gradwalk.js');
}"""


def test_more_digits_in_one_widget_leaves_the_other_as_it_was(blank_page):
    """ "More digits" is a widget's own setting: on a page with two widgets on the same
    preset, turning it on in the first changes how the first writes numbers, and the
    second, stepped afterwards, still writes the short format with its button off."""
    page = blank_page
    page.evaluate(TWO_COS)
    wait_ready(page, "#one")
    wait_ready(page, "#two")
    one, two = widget(page, "#one"), widget(page, "#two")

    def shown(w, label="cos(x1+x2)"):
        node = w.locator(f"svg [data-node='{label}']")
        return {
            "exact": float(node.get_attribute("data-data")),
            "graph": node.locator(".node-data .node-value").text_content(),
            "table": w.locator(f"tr[data-row='{label}'] .row-data").inner_text(),
        }

    for w in (one, two):
        w.get_by_role("button", name="Start backward", exact=True).click()  # every node's data is in
    short = shown(one)
    assert short["graph"] == short["table"] == f"{short['exact']:.4g}" == "-0.99"
    one.get_by_role("button", name="More digits").click()
    assert one.get_by_role("button", name="More digits").get_attribute("aria-pressed") == "true"
    assert shown(one)["graph"] == shown(one)["table"] == f"{short['exact']:.5f}" == "-0.98999"
    # The second widget's next step is still written the short way, and its button is off.
    two.get_by_role("button", name="Step forward", exact=True).click()
    assert two.locator("#position").inner_text() == "Backward pass · visit 1 of 7"
    assert two.get_by_role("button", name="More digits").get_attribute("aria-pressed") == "false"
    assert shown(two) == short
    # And the first keeps its own setting when it steps.
    one.get_by_role("button", name="Step forward", exact=True).click()
    assert shown(one)["graph"] == "-0.98999"
    assert one.get_by_role("button", name="More digits").get_attribute("aria-pressed") == "true"


CYCLES = """async (n) => {
  const { mount } = await import('/widget.js');
  const box = document.createElement('div');
  document.body.append(box);
  for (let i = 0; i < n; i++) {
    const w = mount(box, { query: i % 2 ? '?preset=diamond' : '?preset=neuron' });
    // Half the cycles wait for the widget to be ready, half unmount it mid-boot.
    if (i % 2) await new Promise((resolve, reject) => {
      const deadline = performance.now() + 60000;
      const check = () => (box.dataset.engine === 'ready' ? resolve()
        : performance.now() > deadline ? reject(new Error('a widget was not ready within 60 s'))
        : setTimeout(check, 10));
      check();
    });
    w.unmount();
  }
  box.remove();
  return { children: box.shadowRoot?.childNodes.length ?? 0, attrs: box.getAttributeNames() };
}"""


def dom_counters(page, cdp):
    cdp.send("HeapProfiler.collectGarbage")
    # A turn of the page's event loop between the two collections (what the first freed is let go).
    page.evaluate("() => new Promise((resolve) => setTimeout(resolve))")
    cdp.send("HeapProfiler.collectGarbage")
    return cdp.send("Memory.getDOMCounters")


def listeners_on(page, cdp, expression):
    """The event listeners on a page object, as (type, script, line), leaving out
    Playwright's own (its injected script adds some while a test drives the page)."""
    handle = cdp.send("Runtime.evaluate", {"expression": expression})["result"]["objectId"]
    entries = cdp.send("DOMDebugger.getEventListeners", {"objectId": handle})["listeners"]
    playwright = {e.get("scriptId") for e in entries if e["type"].startswith("__playwright")}
    return sorted(
        (e["type"], e.get("scriptId"), e.get("lineNumber")) for e in entries if e.get("scriptId") not in playwright
    )


def test_a_hundred_mounts_and_unmounts_leave_nothing_behind(blank_page):
    page = blank_page
    cdp = page.context.new_cdp_session(page)
    # One mount and unmount first, so that the modules and their caches are loaded.
    page.evaluate(CYCLES, 1)
    before = dom_counters(page, cdp)
    window_before = listeners_on(page, cdp, "window")
    document_before = listeners_on(page, cdp, "document")
    result = page.evaluate(CYCLES, 100)
    assert result == {"children": 0, "attrs": []}
    # The shared worker stops once no widget uses it: each one left is waited for until it closes.
    deadline = time.monotonic() + 10
    for worker in page.workers:
        try:
            with worker.expect_event("close", timeout=max(1, deadline - time.monotonic()) * 1000):
                pass
        except PlaywrightTimeoutError:
            break
    assert page.workers == [], "the engine worker outlived every widget"
    after = dom_counters(page, cdp)
    assert after["jsEventListeners"] <= before["jsEventListeners"] + 5, (before, after)
    assert after["nodes"] <= before["nodes"] + 50, (before, after)
    assert listeners_on(page, cdp, "window") == window_before
    assert listeners_on(page, cdp, "document") == document_before


MOUNT_TWO = """async () => {
  const { mount } = await import('/widget.js');
  for (const [id, preset] of [['one', 'diamond'], ['two', 'add-mul']]) {
    const box = Object.assign(document.createElement('div'), { id });
    document.body.append(box);
    mount(box, { query: `?preset=${preset}&calltimeout=1500` });
  }
}"""


@pytest.mark.allow_console_errors  # the dead worker's unanswered call is logged
def test_a_failing_request_in_one_widget_leaves_the_other_working(blank_page):
    page = blank_page
    page.evaluate(MOUNT_TWO)
    wait_ready(page, "#one")
    wait_ready(page, "#two")
    one, two = widget(page, "#one"), widget(page, "#two")
    # A program the engine refuses, in the first widget: the error is shown there only.
    one.get_by_role("button", name="Edit", exact=True).click()
    one.locator("#program-editor").fill("a = 2\nb = a +\n")
    one.locator("#editor-status").filter(has_text="line 2").wait_for(timeout=STEP_TIMEOUT_MS)
    assert "line" not in (two.locator("#editor-status").text_content() or "")
    assert two.locator("#graph").get_attribute("data-graph") == "add-mul"

    # The worker dies. The first widget's next request gets no answer; the second
    # widget's request, queued behind it, goes to a fresh worker and is answered.
    for worker in page.workers:
        worker.evaluate("() => self.close()")
    one.get_by_label("Preset", exact=True).select_option("relu")
    two.get_by_label("Preset", exact=True).select_option("neuron")
    two.locator("#graph[data-graph='neuron']").wait_for(timeout=BOOT_TIMEOUT_MS)
    assert "did not answer" in one.locator("#narration").inner_text()
    # The first widget works again with the fresh worker, and the second still steps.
    one.get_by_label("Preset", exact=True).select_option("square")
    one.locator("#graph[data-graph='square']").wait_for(timeout=STEP_TIMEOUT_MS)
    two.get_by_role("button", name="Step forward", exact=True).click()
    assert two.locator("#position").inner_text() == "Forward pass · node 1 of 10"
