"""The notebook's front end (gradwalk/static/widget.js, bundled from web/notebook.js) in
Chromium, talking to the real kernel code: a stand-in for anywidget's model passes each
{id, request} to gradwalk.kernel.handle in this Python process (Playwright's
expose_function) and hands the answer back, as a kernel's comm would. The same widget
as the page, with the DOM contract, on a learner's own micrograd graph.
(tests/notebook/test_jupyterlab.py runs it in a real JupyterLab.)"""

import json
import time

import pytest

micrograd_engine = pytest.importorskip("micrograd.engine")

from engine import check as engine_check  # noqa: E402
from gradwalk import kernel  # noqa: E402
from gradwalk.widget import FRONT_END, source_of  # noqa: E402
from tests.support.learner_engines import Overwriting  # noqa: E402 - the lecture's Value with = for +=
from tests.support.page import STEP_TIMEOUT_MS  # noqa: E402

pytestmark = pytest.mark.browser

MOUNT = """async (source) => {
  const listeners = new Set();
  const attributes = { source };
  const model = {
    get: (key) => attributes[key],
    set: (key, value) => { attributes[key] = value; },
    on: (event, fn) => { if (event === 'msg:custom') listeners.add(fn); },
    off: (event, fn) => listeners.delete(fn),
    send: async (message) => {
      const response = await kernelHandle(JSON.stringify(message.request));
      for (const fn of listeners) fn({ id: message.id, response });
    },
  };
  const el = document.createElement('div');
  el.id = 'cell';
  document.body.append(el);
  // As anywidget does: the module's text, imported from a blob: URL (no site around it).
  const text = await (await fetch('/__test__/notebook-widget.js')).text();
  const module = await import(URL.createObjectURL(new Blob([text], { type: 'text/javascript' })));
  window.cleanup = module.default.render({ model, el });
  Object.assign(window, { model, widgetModule: module });
}"""

# The widget made again on the same model, in a fresh element (as a host does for a second view).
REMOUNT = """() => {
  window.cleanup();
  document.getElementById('cell').remove();
  const el = document.createElement('div');
  el.id = 'cell';
  document.body.append(el);
  window.cleanup = window.widgetModule.default.render({ model: window.model, el });
}"""


# A notebook's page: no Content-Security-Policy (JupyterLab sets none that forbids blob: modules).
NOTEBOOK_PAGE = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>notebook</title></head><body></body></html>"
)


def mount(page, site_url, shown, report=None):
    page.route("**/__test__/notebook.html", lambda route: route.fulfill(body=NOTEBOOK_PAGE, content_type="text/html"))
    page.goto(site_url + "__test__/notebook.html")
    page.route(
        "**/__test__/notebook-widget.js",
        lambda route: route.fulfill(body=FRONT_END.read_text(), content_type="text/javascript"),
    )
    page.expose_function("kernelHandle", lambda request: kernel.handle(json.loads(request), shown))
    page.evaluate(MOUNT, source_of(shown, report))
    page.locator("#cell[data-engine='ready']").wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    return page.locator("#cell")


def grads(cell):
    return {g.get_attribute("data-node"): g.get_attribute("data-grad") for g in cell.locator("[data-node]").all()}


def diamond():
    Value = micrograd_engine.Value
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    return a, d


def test_a_micrograd_graph_steps_through_its_backward_pass(built_dist, page, site_url):
    a, d = diamond()
    shown = kernel.target(d)
    cell = mount(page, site_url, shown)
    labels = [n["label"] for n in json.loads(kernel.handle({"cmd": "load"}, shown))["nodes"]]
    start = cell.get_by_role("button", name="Start backward", exact=True)
    start.click()
    forward = cell.get_by_role("button", name="Step forward", exact=True)
    for _ in range(2 * len(labels) + 2):  # one click per frame, with room; never forever
        if forward.get_attribute("aria-disabled") == "true":
            break
        forward.click()
    assert forward.get_attribute("aria-disabled") == "true", "the backward pass did not end"
    numbers = grads(cell)
    assert set(numbers) == set(labels)
    assert float(numbers[labels[0]]) == 15.0  # the input a: 6a + 3
    assert float(numbers[labels[-1]]) == 1.0  # the output, seeded
    # The learner's graph was read, not changed.
    assert a.grad == 0 and d.grad == 0

    # A new input value is recomputed in the kernel: a = 3 gives d = 36, a.grad = 21.
    field = cell.locator(".value-input").first
    field.fill("3")
    field.press("Enter")
    cell.locator(f"[data-node='{labels[-1]}'][data-data='36']").wait_for(timeout=STEP_TIMEOUT_MS)
    assert float(grads(cell)[labels[0]]) == 21.0
    assert a.data == 2.0


def test_a_check_report_opens_on_its_first_problem(built_dist, page, site_url):
    a = Overwriting(3.0, label="a")
    b = a * a
    b.label = "b"  # the lecture's class takes labels as attributes
    report = engine_check.check(b)
    assert not report.ok
    cell = mount(page, site_url, kernel.target(report), report)
    box = cell.locator("#check-report")
    assert box.is_visible()
    assert "overwrites a.grad" in box.inner_text()
    # Each problem names its mistake in the catalogue (a wrong final grad of 3 is one path's
    # contribution alone, as = for += keeps it).
    mistakes = box.locator(".check-problem").evaluate_all("lis => lis.map((li) => li.dataset.mistake)")
    assert mistakes == ["overwrite", "overwrite"]
    # Opened on the first problem: b's own backward visit, with the problem in the narration.
    assert "overwrites a.grad" in cell.locator("#narration").inner_text()
    assert cell.locator("#position").inner_text().startswith("Backward pass · visit")
    # Its Show buttons move the graph to each problem; the last is a wrong final grad.
    buttons = box.get_by_role("button", name="Show", exact=False)
    buttons.last.click()
    assert cell.locator("#position").inner_text() == "Backward pass · visit 2 of 2"


def test_the_kernels_answers_are_kept_in_the_model_and_step_the_widget_without_a_kernel(built_dist, page, site_url):
    a, d = diamond()
    shown = kernel.target(d)
    cell = mount(page, site_url, shown)
    kept = page.evaluate("() => window.model.get('answers')")
    # Each answer as the kernel wrote it, keyed by its request with the keys in order.
    assert kept['{"cmd":"load"}'] == kernel.handle({"cmd": "load"}, shown)
    assert kept['{"cmd":"presets"}'] == kernel.handle({"cmd": "presets"}, shown)
    assert all(key == json.dumps(json.loads(key), sort_keys=True, separators=(",", ":")) for key in kept)

    # A host with no kernel behind the model (a saved notebook): send() throws. The widget,
    # made again on the same model, shows and steps the graph from the kept answers, and an
    # edit, which needs the kernel, says so.
    page.evaluate("() => { window.model.send = () => { throw new Error('no kernel'); }; }")
    page.evaluate(REMOUNT)
    page.locator("#cell[data-engine='ready']").wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    cell.get_by_role("button", name="Start backward", exact=True).click()
    forward = cell.get_by_role("button", name="Step forward", exact=True)
    for _ in range(20):
        if forward.get_attribute("aria-disabled") == "true":
            break
        forward.click()
    assert {float(grad) for grad in grads(cell).values()} == {15.0, 6.0, 3.0, 1.0}
    field = cell.locator(".value-input").first
    field.fill("3")
    field.press("Enter")
    cell.locator("#narration", has_text="no kernel running").wait_for(timeout=STEP_TIMEOUT_MS)
    assert "computing anything new needs one" in cell.locator("#narration").inner_text()


# The widget made again, in a fresh element, on a model as Jupyter brings one back from the
# notebook's saved widget state with no kernel behind it (the notebook opened again, its
# cells not run, or its kernel gone): ipywidgets' WidgetModel, a Backbone model whose
# comm is undefined and comm_live false, so that send() sends nothing and says nothing;
# the widget sees it through anywidget's proxy (get, set, on, off, send).
REOPEN_WITHOUT_KERNEL = """(saved) => {
  window.cleanup();
  document.getElementById('cell').remove();
  const listeners = new Map();
  const host = {
    attributes: { ...saved },
    comm: undefined,
    comm_live: false,
    sent: 0,
    get(key) { return this.attributes[key]; },
    set(key, value, options = {}) {
      const had = key in this.attributes, before = this.attributes[key];
      if (options.unset) delete this.attributes[key]; else this.attributes[key] = value;
      const changed = options.unset ? had : before !== value;
      if (changed) for (const fn of listeners.get(`change:${key}`) ?? []) fn(this, value, options);
      return this;
    },
    on(event, fn) { listeners.set(event, (listeners.get(event) ?? new Set()).add(fn)); },
    off(event, fn) { listeners.get(event)?.delete(fn); },
    send() { if (this.comm !== undefined) this.comm.send(); else this.sent += 1; },
  };
  const model = {
    get: host.get.bind(host), set: host.set.bind(host), send: host.send.bind(host),
    on: (event, fn) => host.on(event, fn), off: (event, fn) => host.off(event, fn),
  };
  const el = document.createElement('div');
  el.id = 'cell';
  document.body.append(el);
  window.cleanup = window.widgetModule.default.render({ model, el });
  Object.assign(window, { host, model });
}"""


def test_a_widget_whose_kernel_is_gone_says_so_at_once_and_still_steps_what_was_saved(built_dist, page, site_url):
    a, d = diamond()
    cell = mount(page, site_url, kernel.target(d))
    saved = page.evaluate("() => ({ source: window.model.get('source'), answers: window.model.get('answers') })")

    page.evaluate(REOPEN_WITHOUT_KERNEL, saved)
    page.locator("#cell[data-engine='ready']").wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    # What was saved still steps: the whole backward pass, to the diamond's grads.
    cell.get_by_role("button", name="Start backward", exact=True).click()
    forward = cell.get_by_role("button", name="Step forward", exact=True)
    for _ in range(20):
        if forward.get_attribute("aria-disabled") == "true":
            break
        forward.click()
    assert {float(grad) for grad in grads(cell).values()} == {15.0, 6.0, 3.0, 1.0}
    # The probe that finds the host's model leaves nothing in its state.
    assert sorted(page.evaluate("() => Object.keys(window.host.attributes)")) == ["answers", "source"]

    # An edited input needs the kernel: said within a second, not after the 120 s timeout.
    field = cell.locator(".value-input").first
    field.fill("3")
    started = time.monotonic()
    field.press("Enter")
    cell.locator("#narration", has_text="needs a running kernel").wait_for(timeout=1_000)
    assert time.monotonic() - started < 1.0
    # So does another visit order.
    cell.get_by_role("tab", name="Visit order", exact=True).click()
    cell.locator("#visit-order li").nth(1).locator("button[data-move='-1']").click()
    started = time.monotonic()
    cell.get_by_role("button", name="Run order", exact=True).click()
    cell.locator("#order-status", has_text="needs a running kernel").wait_for(timeout=1_000)
    assert time.monotonic() - started < 1.0
    assert page.evaluate("() => window.host.sent") == 0  # nothing was sent into the void


def test_a_network_opens_collapsed_and_each_opened_neuron_ends_with_micrograds_grads(built_dist, page, site_url):
    """gradwalk.show(loss, model=model) on micrograd's demo loss (100 samples, 65,818 nodes):
    drawn collapsed; opening the batch, a sample, a layer, then one of its neurons draws that
    neuron's nodes, and at the end of the backward pass their data-grad is micrograd's own."""
    from tests.support.demo_mlp import DEMO_NODES, demo_loss

    loss, model, _, _ = demo_loss(100)
    shown = kernel.target(loss, model)
    assert len(shown.flat.objects) == DEMO_NODES
    cell = mount(page, site_url, shown)
    box = cell.locator("[data-group='batch']")
    assert box.get_attribute("aria-expanded") == "false" and box.get_attribute("role") == "button"
    # The experiments that answer node by node say how to use them, without offering to open
    # every group (this network answers in groups only)
    cell.get_by_role("tab", name="Why reverse mode").click()
    note = cell.locator("#stage-why .groups-note")
    assert "show a smaller part" in note.inner_text() and note.locator("button").is_hidden()
    cell.get_by_role("tab", name="Step the passes").click()
    for obj in shown.flat.objects:  # micrograd's own backward pass: the oracle
        obj.grad = 0
    loss.backward()

    def opened(name):  # by the keyboard: a box far from view is not drawn inside yet (a big graph)
        cell.locator(f"[data-group='{name}'][aria-expanded='false']").focus()
        page.keyboard.press("Enter")
        cell.locator(f"[data-group='{name}'][aria-expanded='true']").wait_for(timeout=STEP_TIMEOUT_MS)

    expanded = ["batch", "sample 1"]
    opened("batch")
    opened("sample 1")
    for layer, neuron in ((1, 3), (2, 9), (3, 1)):
        opened(f"layer {layer} in sample 1")
        name = f"neuron {neuron} of layer {layer} in sample 1"
        opened(name)
        expanded.append(f"layer {layer} in sample 1")
        answer = json.loads(kernel.handle({"cmd": "expand", "group": name, "expanded": expanded}, shown))
        labels = {n["id"]: n["label"] for n in answer["nodes"]}
        inner = [u for u in answer["inner"] if isinstance(u, int)]
        assert inner
        cell.get_by_role("button", name="Start backward", exact=True).click()
        cell.locator("#scrubber").press("End")  # the backward pass's end
        numbers = grads(cell)
        for v in inner:  # (the kernel sums in another valid order: equal up to rounding)
            assert float(numbers[labels[v]]) == pytest.approx(shown.flat.objects[v].grad, rel=1e-12, abs=1e-15), (
                name,
                labels[v],
            )
        expanded.append(name)
