"""Nothing covers anything (DESIGN.md, "The stage"): at every frame, on every screen, no two
things that carry text in the graph cover each other — node boxes, edge labels, the tags over
nodes, the notes under them, open groups' names — nor the graph panel's heading and its tools.

Every preset the page's chooser offers (a new preset is walked without changing this test) is
stepped through every frame of its passes, and through a run of its visit order, at 390×844,
360×740, 1280×800 and as a <grad-walk> in a 760 px lesson column on a 1280×800 page; on a
grouped graph each closed group is opened in turn and the whole walk repeated, and so is the
graph with its outer groups closed, and a tensor program shown as scalars. One page per
screen, presets switched in place, reduced motion; each walk is one evaluate
(tests/support/overlaps.js), which steps to the end by itself.
"""

from pathlib import Path

import pytest

from buildtools import csp
from tests.support.page import STEP_TIMEOUT_MS, new_sized_page, run_order, wait_ready

pytestmark = pytest.mark.browser

WALK = (Path(__file__).resolve().parents[1] / "support" / "overlaps.js").read_text()
PHONE = {"has_touch": True, "is_mobile": True}
SCREENS = {
    "390x844": {"viewport": {"width": 390, "height": 844}, **PHONE},
    "360x740": {"viewport": {"width": 360, "height": 740}, **PHONE},
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
    "column-760": {"viewport": {"width": 1280, "height": 800}},
}
COLUMN = 760
COLUMN_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
    + csp.META_TAG
    + "<link rel='icon' href='data:,'><title>a lesson column</title></head><body></body></html>"
)
COLUMN_PATH = "__test__/column.html"


@pytest.fixture(params=sorted(SCREENS))
def screen(browser, site_url, request):
    name = request.param
    page = new_sized_page(browser, {"reduced_motion": "reduce", **SCREENS[name]}, name)
    page.context.set_default_timeout(STEP_TIMEOUT_MS)
    if name.startswith("column"):
        page.route(f"**/{COLUMN_PATH}", lambda route: route.fulfill(body=COLUMN_HTML, content_type="text/html"))
        page.goto(site_url + COLUMN_PATH)
        # A lesson's column: a <grad-walk> (with its preset chooser) 760 px wide, as a lesson page has it.
        page.evaluate(
            """(width) => {
              const column = document.createElement('main');
              Object.assign(column.style, {width: width + 'px', margin: '0 auto', fontFamily: 'sans-serif'});
              const widget = document.createElement('grad-walk');
              widget.setAttribute('preset', 'add-mul');
              column.append(widget);
              document.body.append(column);
              const script = document.createElement('script');
              script.type = 'module';
              script.src = '../gradwalk.js';
              document.head.append(script);
            }""",
            COLUMN,
        )
    else:
        page.goto(site_url + "index.html")
    wait_ready(page)
    page.wait_for_function("() => gwRoot().querySelector('#graph [data-node]')")
    yield page
    page.context.close()
    assert not page.errors, page.errors


def presets(page):
    return page.evaluate("() => [...gwRoot().getElementById('preset').options].map((o) => o.value).filter(Boolean)")


def settle(page):
    page.wait_for_function(
        "() => !document.documentElement.dataset.busy && !gwHost().dataset.busy"
        " && !gwRoot().querySelector('#graph .pulse')"
    )
    # the graph's box may choose its other layout once it has its size (a ResizeObserver)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def choose(page, preset):
    page.evaluate(
        """(preset) => {
          const select = gwRoot().getElementById('preset');
          select.value = preset;
          select.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        preset,
    )
    page.wait_for_function(f"() => gwRoot().querySelector(\"svg[data-graph='{preset}']\")")
    settle(page)


def walk(page):
    found = page.evaluate(WALK)
    assert found["frames"] > 1
    return found["problems"]


def closed_groups(page):
    return page.evaluate(
        "() => [...gwRoot().querySelectorAll('#graph g[data-group][aria-expanded=false]')].map((g) => g.dataset.group)"
    )


def toggle(page, name):
    page.evaluate(
        """(name) => [...gwRoot().querySelectorAll('#graph [data-group]')]
          .find((g) => g.dataset.group === name).dispatchEvent(new MouseEvent('click', {bubbles: true}))""",
        name,
    )
    page.wait_for_function(
        """(name) => [...gwRoot().querySelectorAll('#graph [data-group]')].some((g) => g.dataset.group === name)""",
        arg=name,
    )
    settle(page)


def report(problems, limit=40):
    lines = [f"{p['where']} {p['frame']}: {p['a']} / {p['b']}" for p in problems[:limit]]
    return f"{len(problems)} overlapping pairs:\n" + "\n".join(lines)


def test_no_text_covers_text_in_any_frame(screen):
    problems = []

    def note(where, found):
        problems.extend({**p, "where": where} for p in found)

    for preset in presets(screen):
        choose(screen, preset)
        note(preset, walk(screen))
        run_visit_order(screen)
        note(f"{preset} (visit order)", walk(screen))
        show_passes(screen)
        groups = closed_groups(screen)
        for name in groups:  # each closed group opened in turn (its level's whole walk)
            toggle(screen, name)
            note(f"{preset} ({name} open)", walk(screen))
            toggle(screen, name)
        opened = screen.evaluate(
            "() => [...gwRoot().querySelectorAll('#graph .group-tab[data-group]')].map((g) => g.dataset.group)"
        )
        for name in opened:  # and each open one closed
            toggle(screen, name)
            note(f"{preset} ({name} closed)", walk(screen))
            toggle(screen, name)
        if scalars(screen):  # a tensor program as its scalar graph: every element a node
            note(f"{preset} (as scalars)", walk(screen))
            scalars(screen)
    assert not problems, report(problems)


def scalars(page):
    """Press "Show as scalars" where the page offers it (a tensor program); whether it did."""
    pressed = page.evaluate(
        """() => { const b = gwRoot().getElementById('show-scalars');
                   if (b.hidden) return null; const was = b.ariaPressed; b.click(); return was; }"""
    )
    if pressed is None:
        return False
    page.wait_for_function(
        "(was) => gwRoot().getElementById('show-scalars').ariaPressed !== was", arg=pressed, timeout=STEP_TIMEOUT_MS
    )
    settle(page)
    return True


def run_visit_order(page):
    run_order(page)
    settle(page)


def show_passes(page):
    page.evaluate("() => gwRoot().getElementById('stage-tab-passes').click()")
    settle(page)
