"""The keyboard hands the stage back, and the graph stays where it can be seen (issue 32, 7 and 8).

At 1280×800 the "Keys: ← →" hint shows. In a question's answer field, ← and → step while
the field is empty or holds the answer just checked; Escape there, or Enter on an answer
already checked, puts the focus on Step forward, so the arrows step again at once. On a
laptop the graph stays on screen when the page scrolls down a mode's panel, and the graph's
accessible name says the way it is drawn (left to right, or top to bottom).
"""

import pytest

from tests.support.page import LAPTOP_AND_PHONE, open_page, show_tab, sized_page

pytestmark = pytest.mark.browser


@pytest.fixture
def laptop(browser):
    yield from sized_page(browser, LAPTOP_AND_PHONE["desktop"], "desktop")


@pytest.fixture(params=sorted(LAPTOP_AND_PHONE))
def screen(browser, request):
    yield from sized_page(browser, LAPTOP_AND_PHONE[request.param], request.param)


def position(page):
    return page.evaluate("() => `${gwHost().dataset.pass}:${gwHost().dataset.step}`")


def focused_id(page):
    return page.evaluate("() => gwActive()?.id ?? ''")


def first_question(page):
    """Step with → until a question with an answer field is on screen; its field."""
    page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(20):
        field = page.locator(".checkpoint:not(.is-folded) .cp-input")
        if field.count() and field.first.is_visible():
            return field.first
        page.keyboard.press("ArrowRight")
    raise AssertionError("no question with an answer field came up")


def test_the_keys_hint_shows_on_a_laptop(laptop, site_url):
    open_page(laptop, site_url, "add-mul")
    assert laptop.locator(".keys-hint").is_visible()


def test_arrows_step_from_a_question_and_escape_or_enter_hand_the_keys_back(laptop, site_url):
    page = open_page(laptop, site_url, "add-mul")
    field = first_question(page)
    field.focus()
    # An empty field: the arrows step (the caret has nowhere to go).
    at = position(page)
    page.keyboard.press("ArrowRight")
    assert position(page) != at
    page.keyboard.press("ArrowLeft")
    assert position(page) == at
    field = page.locator(".checkpoint:not(.is-folded) .cp-input").first
    field.focus()
    field.fill("12345")  # a wrong answer, typed: the arrows move the caret
    page.keyboard.press("ArrowLeft")
    assert position(page) == at
    page.keyboard.press("Enter")  # checked
    page.wait_for_selector(".checkpoint[data-checked='12345']")
    page.keyboard.press("ArrowRight")  # the answer just checked: the arrows step again
    assert position(page) != at
    page.keyboard.press("ArrowLeft")
    assert position(page) == at
    field = page.locator(".checkpoint:not(.is-folded) .cp-input").first
    field.focus()
    page.keyboard.press("Enter")  # Enter on the checked answer: the keys go back to the stage
    assert focused_id(page) == "step-forward"
    field.focus()
    page.keyboard.press("Escape")
    assert focused_id(page) == "step-forward"
    page.keyboard.press("ArrowRight")
    assert position(page) != at


def test_the_graph_names_the_way_it_is_drawn(screen, site_url):
    for preset in ("neuron", "diamond"):
        open_page(screen, site_url, preset)
        direction, label = screen.evaluate(
            "() => { const g = gwRoot().getElementById('graph');"
            " return [g.dataset.direction, g.getAttribute('aria-label')]; }"
        )
        expected = "inputs at the top, the output at the bottom" if direction == "down" else "inputs on the left"
        assert expected in label, (preset, screen.size_name, direction, label)


def test_the_graph_stays_on_screen_while_a_mode_panel_scrolls(laptop, site_url):
    page = open_page(laptop, site_url, "diamond")
    show_tab(page, "Why reverse mode")
    page.locator("#stage-why").get_by_role("button", name="Walk its paths").click()
    # down to the end of the mode's panel, as a learner reading it does
    page.evaluate("() => gwRoot().getElementById('stage-why').scrollIntoView({block: 'end'})")
    page.wait_for_function("() => scrollY > 100")
    box = page.evaluate(
        "() => { const r = gwRoot().getElementById('graph').getBoundingClientRect(); return [r.top, r.bottom]; }"
    )
    assert box[0] >= 0 and box[1] <= 800, box
