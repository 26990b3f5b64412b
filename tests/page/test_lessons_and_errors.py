"""Faithful to the lessons, and errors where the learner is looking, in headless Chromium
at 1280×800 and on a phone (390×844, touch):

* the lesson graph's backward pass walks its lesson's order (e, c, d, a, b), also in the
  visit-order list, so after visiting c a.grad = -3 and b.grad = 2;
* "More digits" writes five decimals in the graph and the table (the cos example:
  -2.14112, 1.85888, cos 3 ≈ -0.98999), through a step and a new graph;
* a value field given 1e300, NaN, inf or a word says why right next to the field, and the
  graph keeps the last good value;
* a program error shows next to the editor, on screen, and the graph panel says it shows
  the last graph that worked until the program is fixed;
* log(0), 1 / 0 and 0 ** -1 say what happened in the narration of the step that computes them.

Expected numbers come from the engine in CPython, formatted here independently.
"""

from __future__ import annotations

import json

import pytest

from engine import api
from tests.support.page import (
    STEP_TIMEOUT_MS,
    axe_audit,
    axe_report,
    button,
    choose,
    new_sized_page,
    nodes,
    order,
    wait_ready,
)
from tests.support.page_state import settle

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


def engine(request: dict) -> dict:
    return json.loads(api.handle(json.dumps(request)))


def five_decimals(x: float) -> str:
    """The number as "More digits" should write it (an independent formatter)."""
    text = f"{x:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@pytest.fixture(scope="module", params=list(VIEWPORTS))
def shared(browser, site_url, request):
    """One context and page per viewport for the module; each test opens the page again (`lp`)."""
    # (its engine the fast stand-in: what the page says of the engine's answers is the subject)
    page = new_sized_page(browser, VIEWPORTS[request.param], request.param, console_errors=True)
    yield {"page": page, "errors": page.errors, "viewport": request.param, "url": site_url}
    page.context.close()


@pytest.fixture
def lp(shared):
    """The viewport's page, opened afresh (the context's caches make that quick), so that
    no test starts from the preset, step or values another left on it."""
    page = shared["page"]
    page.goto(shared["url"] + "?cp=0")  # no questions: the steps run straight through
    wait_ready(page)
    shared["errors"].clear()
    yield page
    assert shared["errors"] == [], shared["errors"]


def step(page, n: int):
    for _ in range(n):
        button(page, "Step forward").click()


def node_text(page, label: str, field: str) -> str:
    settle(page)  # a step or a new graph is drawn once its answer is in
    return page.text_content(f"svg [data-node='{label}'] .node-{field} .node-value")


def row_text(page, label: str, field: str) -> str:
    settle(page)
    return page.inner_text(f"tr[data-row='{label}'] .row-{field}")


def wait_program_line(page, line: int, text: str):
    page.wait_for_function(
        "([line, text]) => gwRoot().querySelector(`#program [data-line='${line}'] .code-text`)?.textContent === text",
        arg=[line, text],
        timeout=STEP_TIMEOUT_MS,
    )


def load_program(page, text: str):
    """Type a program into the editor and wait for its graph."""
    if page.get_by_role("button", name="Edit", exact=True).count():
        page.get_by_role("button", name="Edit", exact=True).click()
    page.get_by_role("textbox", name="Type or paste a program").fill(text)
    first = text.split("\n")[0]
    wait_program_line(page, 1, first)
    page.wait_for_selector("svg[data-graph='program']", timeout=STEP_TIMEOUT_MS)
    page.get_by_role("button", name="Close editor").click()


def near(box: dict, other: dict, gap: float = 24) -> bool:
    """``other`` sits right beside ``box`` (to its right, on the same line) or right under it."""
    beside = (
        0 <= other["x"] - (box["x"] + box["width"]) <= gap
        and other["y"] < box["y"] + box["height"]
        and box["y"] < other["y"] + other["height"]
    )
    under = (
        0 <= other["y"] - (box["y"] + box["height"]) <= gap
        and other["x"] < box["x"] + box["width"]
        and box["x"] < other["x"] + other["width"]
    )
    return beside or under


def in_viewport(page, box: dict) -> bool:
    size = page.viewport_size
    return (
        box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"]
    )


# ---------------------------------------------------------------- 6a. the lesson's visit order


def test_lesson_graph_walks_the_lessons_order(lp):
    page = lp
    choose(page, "lesson-graph")
    assert order(page) == ["e", "c", "d", "a", "b"]  # the experiment's correct order starts from it
    button(page, "Start backward").click()
    step(page, 2)  # the seed, then e, then c
    assert page.inner_text("#position") == "Backward pass · visit 2 of 5"
    assert page.inner_text("#narration").startswith("Visit c = a * b")
    assert nodes(page)["a"][1] == "-3" and nodes(page)["b"][1] == "2"
    step(page, 1)  # d
    assert nodes(page)["a"][1] == "-2" and nodes(page)["b"][1] == "3"


def test_checkpoint_graph_after_processing_p(lp):
    page = lp
    choose(page, "checkpoint")
    button(page, "Start backward").click()
    step(page, 2)  # r, then p
    assert page.inner_text("#narration").startswith("Visit p = x * y")
    shown = nodes(page)
    assert (shown["x"][1], shown["y"][1], shown["q"][1]) == ("-1", "4", "1")


# ---------------------------------------------------------------- 6b. more digits


def test_more_digits_writes_five_decimals_in_the_graph_and_the_table(lp):
    page = lp
    answer = engine({"cmd": "load", "preset": "cos"})
    by_label = {n["label"]: n for n in answer["nodes"]}
    choose(page, "cos")
    toggle = page.get_by_role("button", name="More digits")
    assert toggle.get_attribute("aria-pressed") == "false"
    step(page, len(answer["forward"]) + len(answer["backward"]))  # to the end of the backward pass
    assert node_text(page, "x1", "grad") == "-2.141"  # the short format
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    expected = {
        ("x1", "grad"): "-2.14112",
        ("x2", "grad"): "1.85888",
        ("cos(x1+x2)", "data"): "-0.98999",
        ("y", "data"): "0.01001",
        ("x1+x2", "grad"): "-0.14112",
    }
    for (label, field), text in expected.items():
        assert five_decimals(by_label[label][field]) == text  # the engine's number, rounded here
        assert node_text(page, label, field) == text
        assert row_text(page, label, field) == text
    # It survives a step back (x1's grad before its last contribution) ...
    button(page, "Step back").click()
    assert node_text(page, "x1+x2", "grad") == "-0.14112"
    # ... and a new graph.
    choose(page, "neuron")
    neuron = engine({"cmd": "load", "preset": "neuron"})
    step(page, len(neuron["forward"]))  # the forward pass
    o = next(n for n in neuron["nodes"] if n["label"] == "o")
    assert node_text(page, "o", "data") == five_decimals(o["data"]) == "0.70711"
    assert row_text(page, "o", "data") == "0.70711"
    assert page.get_by_role("button", name="More digits").get_attribute("aria-pressed") == "true"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "false"
    assert node_text(page, "o", "data") == "0.7071" and row_text(page, "o", "data") == "0.7071"


# ---------------------------------------------------------------- 7a. value fields


@pytest.mark.parametrize(
    "typed, why",
    [
        ("1e300", "1e300 is too large: a value must be between -1e12 and 1e12."),
        ("NaN", "NaN (not a number) can't be a value"),
        ("inf", "inf is not a finite number"),
        ("abc", '"abc" is not a number'),
    ],
)
def test_a_refused_value_says_why_next_to_the_field(lp, typed, why):
    page = lp
    choose(page, "lesson-graph")
    step(page, 5)  # every node computed
    before = nodes(page)
    field = page.get_by_role("spinbutton", name="a")
    field.click()
    field.fill(typed)
    error = page.locator("#value-a-error")
    error.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    assert why in error.inner_text()
    assert field.get_attribute("aria-invalid") == "true"
    assert "value-a-error" in field.get_attribute("aria-describedby").split()
    assert near(field.bounding_box(), error.bounding_box()), (field.bounding_box(), error.bounding_box())
    # Settled: a value sent (at once, or after the typing delay) marks the page busy until it is answered.
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)
    assert nodes(page) == before and before["a"][0] == "2"
    # Leaving the field puts the last good value back and says so.
    page.keyboard.press("Tab")
    assert field.input_value() == "2"
    assert field.get_attribute("aria-invalid") is None
    assert "Kept a = 2." in error.inner_text()
    # A good value clears the message and reaches the graph.
    field.fill("3")
    wait_program_line(page, 1, "a = 3")
    assert error.is_hidden() and field.get_attribute("aria-invalid") is None
    assert nodes(page)["a"][0] == "3"
    button(page, "Reset values").click()
    wait_program_line(page, 1, "a = 2")


# ---------------------------------------------------------------- 7b. a program error


def test_a_program_error_shows_beside_the_editor_and_marks_the_last_good_graph(lp):
    page = lp
    choose(page, "lesson-graph")
    labels = list(nodes(page))
    page.get_by_role("button", name="Edit", exact=True).click()
    editor = page.get_by_role("textbox", name="Type or paste a program")
    editor.fill("a = 2\nb = -3\nc = a * b\nd = a +\ne = c + d")
    page.wait_for_selector("#editor-status[data-line='4']", timeout=STEP_TIMEOUT_MS)
    status = page.locator("#editor-status")
    # The message is right under the text area and on screen.
    area, message = editor.bounding_box(), status.bounding_box()
    assert 0 <= message["y"] - (area["y"] + area["height"]) <= 24
    assert in_viewport(page, message), message
    # The graph on screen is the preset's, marked as the last one that worked.
    note = page.locator(".last-good-text")
    assert (
        note.inner_text() == "Showing the last graph that worked: your program has an error (line 4), see the editor."
    )
    assert list(nodes(page)) == labels
    graph_box = page.locator("#graph-scroll").bounding_box()
    note_box = note.bounding_box()
    assert graph_box["x"] <= note_box["x"] and note_box["x"] + note_box["width"] <= graph_box["x"] + graph_box["width"]
    assert 0 <= note_box["y"] - (graph_box["y"] + graph_box["height"]) <= 12  # right under the graph
    assert "last-good-note" in page.get_attribute("#graph-scroll", "aria-describedby").split()
    assert page.evaluate("gwRoot().querySelector('.graph-panel').classList.contains('shows-last-good')")
    # Fixing the program takes the note away.
    editor.fill("a = 2\nb = -3\nc = a * b\nd = a + b\ne = c + d + 1")
    page.wait_for_selector("svg[data-graph='program']", timeout=STEP_TIMEOUT_MS)
    page.wait_for_function("() => !gwRoot().querySelector('.last-good-note')", timeout=STEP_TIMEOUT_MS)
    # The graph region's own descriptions (its keys, on a graph that pans) stay; the note's goes.
    assert "last-good-note" not in (page.get_attribute("#graph-scroll", "aria-describedby") or "").split()
    assert not page.evaluate("gwRoot().querySelector('.graph-panel').classList.contains('shows-last-good')")
    page.get_by_role("button", name="Close editor").click()


# ---------------------------------------------------------------- 7c. inf and nan in the narration


@pytest.mark.parametrize(
    "program, steps, said",
    [
        ("a = 0\nb = log(a)", 2, "b = log(a) = log(0) = -inf. log(0) is -inf: the logarithm falls without limit"),
        ("a = 1\nb = 0\nc = a / b", 3, "c = a / b = 1 / 0 = inf. 1 / 0: dividing by zero has no finite answer"),
        ("a = 0\nb = a ** -1", 2, "0 ** -1 divides by zero"),
    ],
)
def test_log_of_zero_and_division_by_zero_say_what_happened(lp, program, steps, said):
    page = lp
    load_program(page, program)
    button(page, "Reset").click()
    step(page, steps)
    assert said in page.inner_text("#narration")
    output = program.split("\n")[-1].split(" = ")[0]
    assert nodes(page)[output][0] in ("Infinity", "-Infinity")


# ---------------------------------------------------------------- accessibility of the new states


def test_axe_finds_nothing_with_a_refused_value_a_program_error_and_more_digits(lp):
    page = lp
    choose(page, "cos")
    page.get_by_role("button", name="More digits").click()
    field = page.get_by_role("spinbutton", name="x1")
    field.fill("1e300")
    page.locator("#value-x1-error").wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    page.get_by_role("button", name="Edit", exact=True).click()
    page.get_by_role("textbox", name="Type or paste a program").fill("x1 = 1\nx2 = 2\ny = (x1 - x2)**2 +")
    page.locator(".last-good-text").wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
    results = axe_audit(page)
    assert results.violations_count == 0, axe_report(results)
    # Leave the page as the other tests expect it.
    choose(page, "lesson-graph")
    page.get_by_role("button", name="Close editor").click()
    page.get_by_role("button", name="More digits").click()
    assert page.get_by_role("button", name="More digits").get_attribute("aria-pressed") == "false"
