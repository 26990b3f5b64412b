"""The widget's layout at the sizes it is embedded at: 1280×800, a 900×700 window (the
width of a lesson's column), and 390×844 and 360×740 touch screens. Checked with
bounding boxes, on index.html, on its embedded form (?embed=1) and on lesson.html's
<grad-walk> elements:

- the four step buttons share one row (and at 900 px and wider, the scrubber shares it),
  inside the controls, with their labels whole, at least 24 px tall (44 on touch);
- every part `hide=` can leave out (web/url.js's HIDEABLE), alone and in the lesson
  page's combinations, leaves no hole: each row of the lesson bar, the tabs and the
  shelf starts at its box's left edge, no box keeps empty room after its last row, and
  the stage starts at the top when the whole lesson bar is gone;
- titles wrap instead of being cut (the heading and the preset chooser's text);
- the stage's tabs lie inside the screen with a margin;
- at 900×700 the lesson bar and the controls take little height.
"""

import re
from pathlib import Path

import pytest

from tests.support.page import (
    BOOT_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    axe_audit,
    axe_report,
    choose,
    new_sized_page,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
_HIDEABLE_SOURCE = re.search(r"export const HIDEABLE = \[(.*?)\];", (ROOT / "web/url.js").read_text(), re.S)
HIDEABLE = re.findall(r'"([a-z]+)"', _HIDEABLE_SOURCE.group(1))
# The sample lesson's widgets hide these (web/lesson.html), and a few other likely sets.
HIDE_SETS = [
    "presets,editor,nudge,order,why,share",
    "presets,editor,order,why,questions,table,share",
    "presets,editor,nudge,questions,code,why,share",
    "presets,share",
    "presets,questions,share",
    "presets,lesson,questions,share",
    "order,why",
    "values,nudge",
    "code,table",
    "lesson",
]

VIEWPORTS = {
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
    "900x700": {"viewport": {"width": 900, "height": 700}},
    "390x844": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "360x740": {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True},
}
TOUCH = {"390x844", "360x740"}
WIDE = {"1280x800", "900x700"}
TAB_MARGIN = 8  # px between a tab and the screen's edge, at least


def new_page(browser, size):
    """A page at one of the sizes, with the widget helpers; errors collected in page.errors."""
    page = new_sized_page(browser, VIEWPORTS[size], size, console_errors=True)  # the layout is the subject
    page.size = size
    return page


@pytest.fixture(scope="module", params=list(VIEWPORTS))
def shared(browser, request):
    """One page per size for the module (its engine the fast stand-in: the layout is the subject)."""
    page = new_page(browser, request.param)
    yield page
    page.context.close()


@pytest.fixture
def sized(shared):
    """The size's page; fails the test on a page error or a console error."""
    shared.errors.clear()
    yield shared
    assert shared.errors == [], shared.errors


@pytest.fixture
def at_900(browser):
    page = new_page(browser, "900x700")
    yield page
    page.context.close()
    assert page.errors == [], page.errors


def open_at(page, site_url, path):
    page.goto(site_url + path)
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#gradwalk, grad-walk')].every("
        "(h) => h.shadowRoot.getElementById('graph').dataset.graph)",
        timeout=STEP_TIMEOUT_MS,
    )


def hosts(page):
    return page.locator("#gradwalk, grad-walk")


# The step controls of one widget: the buttons' boxes and whether their text fits.
CONTROLS_JS = """(host) => {
  const r = host.shadowRoot;
  const box = (e) => { const b = e.getBoundingClientRect();
    return {top: b.top, bottom: b.bottom, left: b.left, right: b.right, height: b.height}; };
  return {
    buttons: [...r.querySelectorAll('#controls .buttons .button')].map((b) => ({
      ...box(b), text: b.innerText, cut: b.scrollWidth > b.clientWidth + 0.5 })),
    scrubber: box(r.getElementById('scrubber')),
    controls: box(r.getElementById('controls')),
  };
}"""


@pytest.mark.parametrize("path", ["index.html?preset=neuron", "index.html?embed=1&preset=neuron", "lesson.html"])
def test_the_step_buttons_share_one_row(sized, site_url, path):
    page = sized
    open_at(page, site_url, path)
    for i in range(hosts(page).count()):
        host = hosts(page).nth(i)
        host.scroll_into_view_if_needed()
        c = host.evaluate(CONTROLS_JS)
        where = f"{path} widget {i + 1} at {page.size}"
        tops = [b["top"] for b in c["buttons"]]
        assert len(tops) == 4 and max(tops) - min(tops) <= 1, f"{where}: the buttons are on several rows: {c}"
        for b in c["buttons"]:
            assert c["controls"]["left"] <= b["left"] and b["right"] <= c["controls"]["right"], f"{where}: {b}"
            assert not b["cut"], f"{where}: {b['text']!r} is cut"
            assert b["height"] >= (44 if page.size in TOUCH else 24) - 0.5, f"{where}: {b['text']!r} is small"
        if path.startswith("index.html") and page.size in WIDE:
            middle = (c["scrubber"]["top"] + c["scrubber"]["bottom"]) / 2
            assert min(tops) < middle < c["buttons"][0]["bottom"], f"{where}: the scrubber has a row of its own"


# Holes in one widget: for each box that lays out parts a hide= may remove, each row of
# its parts starts at its left edge and it keeps no empty room above its first row or
# below its last (a part's own last margin, under 12 px, is not a hole; a row is taller);
# a part still laid out but empty (zero area) takes a gap for nothing.
HOLES_JS = """(host) => {
  const r = host.shadowRoot;
  const problems = [];
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const inFlow = (e) => !['absolute', 'fixed'].includes(getComputedStyle(e).position);
  const content = (e) => {
    const b = e.getBoundingClientRect(), s = getComputedStyle(e), px = (v) => parseFloat(v) || 0;
    return {left: b.left + px(s.borderLeftWidth) + px(s.paddingLeft),
            top: b.top + px(s.borderTopWidth) + px(s.paddingTop),
            bottom: b.bottom - px(s.borderBottomWidth) - px(s.paddingBottom)};
  };
  for (const sel of ['.gw-main', '.lesson', '.lesson-text', '.learn-bar', '.stage-tabs', '.shelf', '.values-box']) {
    const box = r.querySelector(sel);
    if (!box || !shown(box)) continue;
    const kids = [...box.children].filter((k) => shown(k) && inFlow(k));
    const parts = [];
    for (const k of kids) {
      const b = k.getBoundingClientRect();
      if (b.width < 0.5 || b.height < 0.5) problems.push(`${sel}: an empty ${k.className || k.tagName} is laid out`);
      else parts.push(b);
    }
    if (!parts.length) { problems.push(`${sel} is on screen with nothing in it`); continue; }
    const c = content(box);
    const rows = [];
    for (const p of parts.sort((a, b) => a.top - b.top)) {
      const row = rows.find((w) => p.top < w.bottom - 1 && p.bottom > w.top + 1);
      if (row) { row.left = Math.min(row.left, p.left); row.bottom = Math.max(row.bottom, p.bottom); }
      else rows.push({top: p.top, bottom: p.bottom, left: p.left});
    }
    for (const row of rows) {
      if (row.left - c.left > 1.5) problems.push(`${sel}: a row starts ${Math.round(row.left - c.left)} px in`);
    }
    const first = Math.min(...parts.map((p) => p.top)), last = Math.max(...parts.map((p) => p.bottom));
    if (first - c.top > 12) problems.push(`${sel}: ${Math.round(first - c.top)} px empty above its first row`);
    if (sel !== '.gw-main' && c.bottom - last > 12) {
      problems.push(`${sel}: ${Math.round(c.bottom - last)} px empty below its last row`);
    }
  }
  const title = r.getElementById('preset-title'), lesson = r.querySelector('.lesson');
  const chooserShown = shown(r.getElementById('preset'));
  return {problems, chooserShown, titleShown: shown(title),
          titleLeft: title.getBoundingClientRect().left, lessonLeft: content(lesson).left};
}"""

SET_HIDE = """([host, hide]) => {
  const element = document.querySelectorAll('grad-walk')[host];
  element.setAttribute('hide', hide);
}"""


def test_a_hidden_part_leaves_no_hole(sized, site_url):
    page = sized
    # The URL's parameter (the iframe form) ...
    open_at(page, site_url, "index.html?embed=1&preset=neuron&hide=presets")
    found = hosts(page).first.evaluate(HOLES_JS)
    assert found["problems"] == [], f"?hide=presets at {page.size}: {found['problems']}"
    assert not found["chooserShown"] and found["titleShown"]
    assert abs(found["titleLeft"] - found["lessonLeft"]) <= 1, f"the title is not at the left edge at {page.size}"

    # ... and the element's attribute, part by part and in sets: the first lesson widget
    # is rebuilt for each (the page's one engine stays), and measured once its
    # stylesheets are in.
    open_at(page, site_url, "lesson.html")
    host = page.locator("grad-walk").first
    problems = []
    for hide in [*HIDEABLE, *HIDE_SETS]:
        page.evaluate(SET_HIDE, [0, hide])
        page.wait_for_function(
            "(hide) => { const h = document.querySelector('grad-walk');"
            " return h.dataset.engine === 'ready' && h.shadowRoot.getElementById('graph').dataset.graph"
            " && hide.split(',').every((part) => h.classList.contains('hide-' + part))"
            " && [...h.shadowRoot.querySelectorAll('link[rel=stylesheet]')].every((link) => link.sheet); }",
            arg=hide,
            timeout=STEP_TIMEOUT_MS,
        )
        found = host.evaluate(HOLES_JS)
        problems += [f"hide={hide}: {p}" for p in found["problems"]]
        title_in = found["titleLeft"] - found["lessonLeft"]
        if "presets" in hide.split(",") and found["titleShown"] and abs(title_in) > 1:
            problems.append(f"hide={hide}: the title starts {title_in:.0f} px in")
    assert problems == [], f"at {page.size}:\n" + "\n".join(problems)


# The title and the chooser of one widget: the heading is not cut (it wraps), and the
# chooser is as wide as the text of the preset it shows.
TITLES_JS = """(host) => {
  const r = host.shadowRoot, title = r.getElementById('preset-title'), select = r.getElementById('preset');
  const s = getComputedStyle(title);
  // On a phone the chooser is the title: the heading is then for screen readers only
  // (1 px, clipped), which is no cut, as long as the chooser shows the same words whole.
  const forReaders = title.clientWidth <= 1 && s.position === 'absolute';
  const out = {title: title.textContent, titleCut: !forReaders && (title.scrollWidth > title.clientWidth + 0.5
    || s.textOverflow === 'ellipsis' || s.whiteSpace === 'nowrap')};
  if (select.getClientRects().length) {
    const ss = getComputedStyle(select);
    const measure = document.createElement('canvas').getContext('2d');
    measure.font = `${ss.fontWeight} ${ss.fontSize} ${ss.fontFamily}`;
    const text = select.selectedOptions[0]?.text ?? '';
    // The text, its padding and the arrow (about 1em) must fit.
    const need = measure.measureText(text).width + parseFloat(ss.paddingLeft) + parseFloat(ss.paddingRight)
      + parseFloat(ss.fontSize);
    out.select = text;
    out.selectCut = need > select.clientWidth + 0.5;
  }
  if (forReaders && (out.select !== out.title || out.selectCut !== false)) out.titleCut = true;
  return out;
}"""


def test_titles_wrap_instead_of_being_cut(sized, site_url):
    from tests.support.links import PRESETS

    page = sized
    cut = []
    open_at(page, site_url, "index.html")
    for preset in PRESETS:  # chosen as a learner does, on one page
        choose(page, preset)
        found = hosts(page).first.evaluate(TITLES_JS)
        if found["titleCut"] or found.get("selectCut"):
            cut.append(found)
    open_at(page, site_url, "lesson.html")
    for i in range(hosts(page).count()):
        found = hosts(page).nth(i).evaluate(TITLES_JS)
        if found["titleCut"] or found.get("selectCut"):
            cut.append(found)
    assert cut == [], f"at {page.size}: {cut}"


TABS_JS = """(host) => {
  const strip = host.shadowRoot.getElementById('stage-tabs');
  return {
    tabs: [...strip.querySelectorAll('[role=tab]')].filter((t) => t.getClientRects().length).map((t) => {
      const b = t.getBoundingClientRect();
      return {name: t.textContent, left: b.left, right: b.right, cut: t.scrollWidth > t.clientWidth + 0.5};
    }),
    scrolls: strip.scrollWidth > strip.clientWidth + 0.5,
  };
}"""


@pytest.mark.parametrize("path", ["index.html", "index.html?embed=1", "lesson.html"])
def test_the_tabs_lie_inside_the_screen(sized, site_url, path):
    page = sized
    open_at(page, site_url, path)
    width = page.viewport_size["width"]
    for i in range(hosts(page).count()):
        found = hosts(page).nth(i).evaluate(TABS_JS)
        assert not found["scrolls"], f"{path} at {page.size}: the tabs scroll: {found}"
        for tab in found["tabs"]:
            assert tab["left"] >= TAB_MARGIN and tab["right"] <= width - TAB_MARGIN, f"{path} at {page.size}: {tab}"
            assert not tab["cut"], f"{path} at {page.size}: {tab}"


def test_the_lesson_bar_and_controls_are_short_at_900(at_900, site_url):
    page = at_900
    for preset in ("add-mul", "neuron"):
        open_at(page, site_url, f"index.html?preset={preset}")
        lesson = page.locator(".lesson").bounding_box()
        controls = page.locator("#controls").bounding_box()
        assert lesson["height"] <= 72, f"{preset}: the lesson bar is {lesson['height']} px tall"
        assert controls["height"] <= 100, f"{preset}: the controls are {controls['height']} px tall"


# The wide and the 390 px layouts are audited by the stage's and the presets' tests.
@pytest.mark.parametrize("size", ["900x700", "360x740"])
def test_axe_finds_nothing_in_the_compact_layouts(browser, site_url, size):
    page = new_page(browser, size)
    try:
        for path in ("index.html?preset=neuron", "lesson.html"):
            open_at(page, site_url, path)
            results = axe_audit(page)
            assert results.violations_count == 0, f"{path} at {size}:\n{axe_report(results)}"
        assert page.errors == [], page.errors
    finally:
        page.context.close()
