"""Helpers shared by the page's browser tests (tests/page/, tests/modes/, tests/robustness/)."""

import re
from pathlib import Path

from tests.support.fast_engine import route_fast_engine

WEB = Path(__file__).resolve().parents[2] / "web"


def web_number(module: str, name: str) -> int:
    """A whole-number constant of a front-end module (`export const NAME = 150;` in
    web/`module`), read from its source so that a test follows the page's own value."""
    found = re.search(rf"\bconst {name} = (\d+);", (WEB / module).read_text())
    assert found, f"web/{module} has no `const {name} = <number>;`"
    return int(found.group(1))


# The widget lives in an open shadow root (web/widget.js), which document.querySelector
# does not enter. Scripts that tests run in a page reach it through these: the
# widget's shadow root (or the document, on a page without one), its element, and
# the focused element inside it.
WIDGET_HELPERS = (
    "globalThis.gwHost = () => document.querySelector('#gradwalk, grad-walk') ?? document.documentElement;"
    "globalThis.gwRoot = () => document.querySelector('#gradwalk, grad-walk')?.shadowRoot ?? document;"
    "globalThis.gwActive = () => { let a = document.activeElement;"
    " while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement; return a; };"
)

# axe-core's CSSOM preload re-parses stylesheets it finds in shadow roots by adding
# <style> elements, which the site's Content-Security-Policy blocks (a violation the
# `page` fixture fails on, and no CSSOM for axe either way). Without the preload
# every rule still runs; css-orientation-lock, the only one that reads the CSSOM,
# reports "incomplete" instead.
AXE_OPTIONS = {"resultTypes": ["violations"], "preload": False}

BOOT_TIMEOUT_MS = 90_000  # Pyodide boots in a few seconds; a slow CI machine gets room
STEP_TIMEOUT_MS = 10_000


# A laptop and a phone: the two screens every page test looks at.
LAPTOP_AND_PHONE = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


def new_sized_page(browser, context_options, name, *, real_engine=False, console_errors=False, first_route=None):
    """A fresh page in a context of its own (context_options: Playwright's: a viewport,
    touch, reduced motion), named `name` (page.size_name), with the widget helpers,
    service workers blocked, a 15 s default timeout, and its engine CPython's behind
    the stand-in worker (tests/support/fast_engine.py) unless `real_engine`.
    page.errors collects its page errors (and console errors, with `console_errors`).
    `first_route(context)` installs a route before the stand-in engine's (Playwright asks the
    last route installed first, so the engine's answers its own requests and `first_route`
    sees every other one). The page tests open their pages here or through the `page`
    fixture (tests/conftest.py); close with page.context.close()."""
    context = browser.new_context(service_workers="block", **context_options)
    if first_route is not None:
        first_route(context)
    if not real_engine:
        route_fast_engine(context)
    context.set_default_timeout(15_000)
    context.add_init_script(WIDGET_HELPERS)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(f"page error: {e}"))
    if console_errors:
        page.on("console", lambda m: page.errors.append(f"console error: {m.text}") if m.type == "error" else None)
    page.size_name = name
    return page


def sized_page(browser, context_options, name, real_engine=False, console_errors=False):
    """new_sized_page as a generator for fixtures: it yields the page, then closes its
    context and fails the test if the page threw (or logged an error, with console_errors)."""
    page = new_sized_page(browser, context_options, name, real_engine=real_engine, console_errors=console_errors)
    yield page
    page.context.close()
    assert not page.errors, page.errors


def open_page(page, site_url, preset=None):
    """Open the page, wait until the engine is ready, and (optionally) choose a preset."""
    page.goto(site_url)
    wait_ready(page)
    if preset:
        choose(page, preset)
    return page


# The widget's host: the page's <html>, or a <grad-walk> (whose data-engine is unset until
# its script has run), when the page has WIDGET_HELPERS.
ENGINE_STATE = "(globalThis.gwHost?.() ?? document.documentElement).dataset.engine"


def wait_ready(page):
    page.wait_for_function(f"['ready', 'error'].includes({ENGINE_STATE})", timeout=BOOT_TIMEOUT_MS)
    if page.evaluate(ENGINE_STATE) != "ready":
        error = page.evaluate("() => (globalThis.gwRoot?.() ?? document).querySelector('#engine-error')?.innerText")
        raise AssertionError(f"the engine did not start: {error}")


def choose(page, preset):
    """Choose a preset and wait until its answer has arrived. Choosing the preset already
    shown loads it afresh too, and a click before that answer lands is undone by it."""
    page.get_by_label("Preset", exact=True).select_option(preset)
    page.wait_for_selector(f"svg[data-graph='{preset}']", timeout=STEP_TIMEOUT_MS)
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)


def button(page, name):
    return page.get_by_role("button", name=name, exact=True)


def nodes(page):
    """{label: (data-data, data-grad)} for every graph node, in document order."""
    return {
        label: (data, grad)
        for label, data, grad in page.eval_on_selector_all(
            "svg [data-node]",
            "gs => gs.map(g => [g.dataset.node, g.dataset.data, g.dataset.grad])",
        )
    }


def snapshot(page):
    """Everything a step changes: every attribute of every node and edge, the table,
    the step details, the position line and the narration. A class list is compared as a
    set (the order its names were added in means nothing)."""
    return page.evaluate(
        """() => ({
          nodes: [...gwRoot().querySelectorAll('svg [data-node]')].map(
            g => Object.fromEntries([...g.attributes].map(a => [a.name, a.name === 'class'
              ? [...g.classList].sort().join(' ') : a.value]))),
          edges: [...gwRoot().querySelectorAll('svg [data-edge]')].map(g => [...g.classList].sort().join(' ')),
          labels: [...gwRoot().querySelectorAll('svg .edge-label')]
            .filter(g => g.style.display !== 'none').map(g => g.textContent),
          table: gwRoot().querySelector('#node-rows').innerText,
          details: gwRoot().querySelector('#details').innerText,
          position: gwRoot().querySelector('#position').innerText,
          narration: gwRoot().querySelector('#narration').innerText,
        })"""
    )


def order(page):
    return page.eval_on_selector_all("#visit-order li", "lis => lis.map(li => li.dataset.label)")


def axe_audit(page):
    """axe-core's results for the page as it is now (violations only)."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().run(page, options=AXE_OPTIONS)


def axe_report(results) -> str:
    """The violations, one line per element (axe-playwright-python's own report cannot
    print the targets of elements inside a shadow root, which are lists)."""
    lines = []
    for violation in results.response["violations"]:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            lines.append(f"    {node['target']}: {node.get('failureSummary', '').replace(chr(10), ' | ')}")
    return "\n".join(lines)


def show_tab(page, name, root=None):
    """Bring one of the stage's tabs to the front ("Step the passes", "Visit order",
    "Why reverse mode"), as a learner would click it."""
    tab = (root or page).get_by_role("tab", name=name, exact=True)
    if tab.get_attribute("aria-selected") != "true":
        tab.click()
    return tab


# A run's result is drawn afresh for every run that lands, as a learner sees it: a test holds
# the result on screen (a handle to its element, or to null) before it acts, and waits for
# another. The visit-order run's verdict waits for the run's last visit (or for the learner
# to stop the play); a "Why reverse mode" experiment's result box is drawn when its answer
# comes, with its frames put on the stepper at once.
ORDER_RESULT_JS = "() => gwRoot().querySelector('#experiment-body .verdict')"
WHY_RESULT_JS = (
    "() => gwRoot().querySelector('#why-reverse .why-panel:not([hidden]) .why-result')?.firstElementChild ?? null"
)


def order_result(page):
    """The visit-order run's result on screen (its verdict), as a handle: null before any run
    has landed, and while a run plays."""
    return page.evaluate_handle(ORDER_RESULT_JS)


def wait_for_new(page, result_js, before, also="true"):
    """Wait until what `result_js` finds is an element, and not `before`, and `also` holds."""
    page.wait_for_function(
        f"(old) => {{ const now = ({result_js})(); return Boolean(now) && now !== old && ({also}); }}",
        arg=before,
        timeout=STEP_TIMEOUT_MS,
    )


def wait_for_run(page, before=None):
    """Wait until a run's result other than `before` (order_result's) is shown: a run has
    landed on the stepper, played to its last visit or at once."""
    wait_for_new(page, ORDER_RESULT_JS, before)
    assert page.evaluate("gwHost().dataset.pass") == "experiment"


def run_order(page):
    """Run the visit-order list as it stands (from its tab) and wait for the run."""
    show_tab(page, "Visit order")
    before = order_result(page)
    button(page, "Run order").click()
    wait_for_run(page, before)


def why_result(page):
    """What the "Why reverse mode" tab on screen shows in its result box (its first element,
    as a handle), or null."""
    return page.evaluate_handle(WHY_RESULT_JS)


def wait_for_why(page, before):
    """Wait until the section's answer has come (it is no longer busy) and its result box shows
    a result other than `before` (why_result's)."""
    wait_for_new(page, WHY_RESULT_JS, before, "!gwRoot().getElementById('why-reverse').hasAttribute('aria-busy')")
