"""An exported notebook: saved by a real JupyterLab with its widgets' state, exported by
`python -m gradwalk.export`, opened in Chromium from a file with no kernel and no network.

saved_widget.ipynb shows micrograd's diamond with gradwalk.show. In JupyterLab (the session's
server, whose settings save the widget state with the notebook, as "Save Widget State
Automatically" does) the test runs one wrong visit order in the widget and saves the
notebook: its metadata then holds every widget model's state, the Gradwalk widget's with its
front end and every answer the kernel gave it. The exported page, with every request off the
file refused, steps both passes to the engine's numbers, replays the order that was run,
and says that anything new (another order, an edited input) needs a running kernel.
"""

import json
import time
from urllib.parse import urlsplit

import pytest

from gradwalk import export
from gradwalk.widget import FRONT_END
from tests.support.notebook_hosts import micrograd_diamond, on_screen, screenshot, step_to_end, widget_ready
from tests.support.page import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser

NOTEBOOK = "saved_widget.ipynb"
SAVE_TIMEOUT_MS = 15_000


def wrong_order(root, label: str) -> list[str]:
    """Move `label` to the top of the visit-order list, before the output that uses it (a
    visit too early: its grad is not complete yet), with the items' ▲ buttons; the new list."""
    items = root.locator("#visit-order li")
    labels = items.evaluate_all("lis => lis.map((li) => li.dataset.label)")
    for _ in range(labels.index(label)):
        root.locator(f"#visit-order li[data-label='{label}'] button[data-move='-1']").click()
    return items.evaluate_all("lis => lis.map((li) => li.dataset.label)")


def run_order(root):
    """Run the visit order on screen, the widget's first run, and wait for its result: its
    verdict, drawn once the run has landed (there is none before)."""
    verdict = root.locator("#experiment-result .verdict")
    assert verdict.count() == 0  # so that the verdict waited for is this run's
    root.get_by_role("button", name="Run order", exact=True).click()
    verdict.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    return verdict.inner_text()


def save_with_widget_state(notebook) -> dict:
    """Save the notebook with JupyterLab's own command; the file, once it holds the widget state."""
    notebook.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    path = notebook.server.root_dir / notebook.path
    deadline = notebook.page.evaluate("() => Date.now()") + SAVE_TIMEOUT_MS
    while True:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if export.saved_widgets(saved):
            return saved
        assert notebook.page.evaluate("() => Date.now()") < deadline, "JupyterLab did not save the widget state"
        notebook.page.wait_for_timeout(200)


@pytest.fixture
def offline_file_context(browser):
    """A context for pages opened from files: every request that is not a file fails the test."""
    contexts, strays, errors = [], [], []

    def new(**options):
        context = browser.new_context(service_workers="block", **options)
        context.set_default_timeout(15_000)

        def guard(route):
            if urlsplit(route.request.url).scheme == "file":
                route.continue_()
            else:
                strays.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        context.on("weberror", lambda e: errors.append(f"page error: {e.error}"))
        context.on("console", lambda m: m.type == "error" and errors.append(f"console error: {m.text}"))
        contexts.append(context)
        return context

    yield new
    for context in contexts:
        context.close()
    assert strays == [], "the exported page asked for something off the file"
    assert errors == []


def test_an_exported_notebook_steps_with_no_kernel(
    built_dist, open_notebook, lab_context, jupyter_lab, offline_file_context, tmp_path
):
    # built_dist: the build writes the notebook's front end, gradwalk/static/widget.js.
    pytest.importorskip("micrograd.engine")
    pytest.importorskip("nbconvert")
    _, answer = micrograd_diamond()
    expected = {node["label"]: node for node in answer["nodes"]}
    a = next(name for name, node in expected.items() if node["is_input"] and node["grad"] == 15)
    b = next(name for name, node in expected.items() if node["op"] == "+")  # a + 1, used by the output

    # Live, in JupyterLab: show the graph, run one wrong order, save.
    notebook = open_notebook(NOTEBOOK)
    live = notebook.run_cell(1)
    widget_ready(live, lab_context.console_errors)
    live.get_by_role("tab", name="Visit order", exact=True).click()
    order = wrong_order(live, b)
    live_verdict = run_order(live)
    assert "wrong" in live_verdict
    step_to_end(live)  # the run's last visit: its grads
    live_grads = on_screen(live, "grad")
    notebook.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    notebook.cell(1).evaluate("el => el.scrollIntoView({ block: 'start' })")
    screenshot(notebook.page, "gradwalk-jupyterlab-order.png")
    saved = save_with_widget_state(notebook)

    # What JupyterLab saved: the Gradwalk model's front end, and the kernel's answers.
    views = export.widget_views(saved)
    models = export.saved_widgets(saved)
    assert len(views) == 1 and views[0] in models
    state = models[views[0]]["state"]
    assert state["_anywidget_id"] == export.GRADWALK_WIDGET
    assert state["_esm"] == FRONT_END.read_text(encoding="utf-8")
    kept = [json.loads(key) for key in state["answers"]]
    assert {"cmd": "load"} in kept
    assert any(request.get("order") == order for request in kept)

    out = tmp_path / "saved_widget.html"
    assert export.main([str(jupyter_lab.root_dir / NOTEBOOK), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "html-manager" not in html and "require.js" not in html and "mathjax" not in html.lower()

    # Exported, from the file, with no kernel and nothing else to reach.
    page = offline_file_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(out.as_uri())
    widget_ready(page)
    step_to_end(page)
    assert on_screen(page, "data") == {name: node["data"] for name, node in expected.items()}
    page.get_by_role("button", name="Start backward", exact=True).click()
    step_to_end(page)
    assert on_screen(page, "grad") == {name: node["grad"] for name, node in expected.items()}
    page.locator("#stage").first.scroll_into_view_if_needed()
    screenshot(page, "gradwalk-export-backward.png")

    # The order run in JupyterLab replays, visit by visit, to the same grads.
    page.get_by_role("tab", name="Visit order", exact=True).click()
    assert wrong_order(page, b) == order
    assert run_order(page) == live_verdict
    step_to_end(page)
    assert on_screen(page, "grad") == live_grads
    screenshot(page, "gradwalk-export-order.png")

    # Anything new needs the kernel, and says so: another order, an edited input.
    page.locator("#visit-order li").nth(2).locator("button[data-move='-1']").click()
    page.get_by_role("button", name="Run order", exact=True).click()
    status = page.locator("#order-status")
    status.filter(has_text="needs one").wait_for(timeout=STEP_TIMEOUT_MS)
    field = page.locator(".value-input").first
    field.fill("3")
    field.press("Enter")
    narration = page.locator("#narration")
    narration.filter(has_text="no kernel running").wait_for(timeout=STEP_TIMEOUT_MS)
    assert "needs one: open the notebook in Jupyter" in narration.inner_text()
    assert on_screen(page, "data")[a] == 2  # nothing changed

    # On a phone.
    phone = offline_file_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    phone.goto(out.as_uri())
    widget_ready(phone)
    phone.get_by_role("button", name="Start backward", exact=True).click()
    step_to_end(phone)
    assert on_screen(phone, "grad") == {name: node["grad"] for name, node in expected.items()}
    phone.locator("[data-engine='ready']").first.scroll_into_view_if_needed()
    screenshot(phone, "gradwalk-export-phone.png", 390, 844)

    # In JupyterLab again, its kernel gone: the session is shut down, and the notebook opened
    # again starts a kernel that never ran its cells. The widget comes back from the saved
    # state (a model with no comm), steps what was saved, and says at once, not after the
    # 120 s timeout, that anything new needs a running kernel.
    notebook.page.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
    notebook.page.close()
    again = open_notebook(NOTEBOOK)
    restored = again.output(1)
    widget_ready(restored, lab_context.console_errors)
    restored.get_by_role("button", name="Start backward", exact=True).click()
    step_to_end(restored)
    assert on_screen(restored, "grad") == {name: node["grad"] for name, node in expected.items()}
    field = restored.locator(".value-input").first
    field.fill("3")
    started = time.monotonic()
    field.press("Enter")
    restored.locator("#narration", has_text="needs a running kernel").wait_for(timeout=1_000)
    assert time.monotonic() - started < 1.0
    assert on_screen(restored, "data")[a] == 2
