"""Helpers shared by the page's browser tests (tests/page/, tests/modes/, tests/robustness/)."""

BOOT_TIMEOUT_MS = 90_000  # Pyodide boots in a few seconds; a slow CI machine gets room
STEP_TIMEOUT_MS = 10_000


def open_page(page, site_url, preset=None):
    """Open the page, wait until the engine is ready, and (optionally) choose a preset."""
    page.goto(site_url)
    wait_ready(page)
    if preset:
        choose(page, preset)
    return page


def wait_ready(page):
    page.wait_for_function(
        "document.documentElement.dataset.engine !== 'loading'", timeout=BOOT_TIMEOUT_MS
    )
    state = page.evaluate("document.documentElement.dataset.engine")
    if state != "ready":
        raise AssertionError(f"the engine did not start: {page.inner_text('#engine-error')}")


def choose(page, preset):
    page.get_by_label("Preset", exact=True).select_option(preset)
    page.wait_for_selector(f"svg[data-graph='{preset}']", timeout=STEP_TIMEOUT_MS)


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
    the step details, the position line and the narration."""
    return page.evaluate(
        """() => ({
          nodes: [...document.querySelectorAll('svg [data-node]')].map(
            g => Object.fromEntries([...g.attributes].map(a => [a.name, a.value]))),
          edges: [...document.querySelectorAll('svg [data-edge]')].map(g => g.getAttribute('class')),
          labels: [...document.querySelectorAll('svg .edge-label')].filter(g => g.style.display !== 'none').map(g => g.textContent),
          table: document.querySelector('#node-rows').innerText,
          details: document.querySelector('#details').innerText,
          position: document.querySelector('#position').innerText,
          narration: document.querySelector('#narration').innerText,
        })"""
    )


def order(page):
    return page.eval_on_selector_all("#visit-order li", "lis => lis.map(li => li.dataset.label)")
