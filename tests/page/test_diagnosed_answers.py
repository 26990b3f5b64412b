"""A wrong answer names its mistake (web/panels/question-cards.js, engine/mistakes.py), in
headless Chromium at 1280×800 and on a 390×844 touch phone.

Which mistake each reply is, for every mistake of the catalogue in a question where it
applies, is the question model's (web/questions.js) and is checked in Node
(tests/web/questions.test.mjs, every case). Here one reply per graph is typed into the
page, a preset's own question or one generated for a learner's program: its sentence appears under the field,
announced (aria-live) and tied to the field (aria-describedby), and the nodes it names are
marked on the graph. A number no mistake gives gets the neutral line, a right answer no
diagnosis; a second wrong answer adds the hint and a third the answer. The expected
sentences are the engine's own for that question (what the page must show), and the
mistake each reply stands for is written here by hand from the graph's numbers.
"""

import base64
import json

import pytest

from engine import api
from tests.support.page import axe_audit, axe_report, sized_page, wait_ready

SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}

POWER_PROGRAM = "x1 = 1\nx2 = 2\ny = (x1 - x2)**2 + cos(x1 + x2)"

# One question per graph (preset or program, checkpoint id), reply, the mistake it is (by
# hand; the whole matrix is tests/web/questions.test.mjs's):
#   add-mul: a = 2, b = 3, c = 4, d = a + b = 5, e = d·c = 20; d.grad = c = 4
CASES = [
    ("add-mul", "leaf-a", "1", "no-upstream"),  # ∂d/∂a = 1 without d.grad = 4
    ("square", "a-grad", "3", "overwrite"),  # b = a·a: one of the two 3s
    ("double-diamond", "a-grad", "18", "one-path"),  # a.grad = 7 + 18: the path through c only
    ("diamond", "c-to-a", "6", "own-value"),  # c = 3·a carries a's own 2 × c.grad 3, not 3 × 3
    ("cos", "x2-grad", "-2.1411", "sub-sign"),  # x2 is subtracted in x1 - x2
    ("neuron", "through-tanh", "0.2232", "tanh-input"),  # 1 - n² with n = 0.8814
    (POWER_PROGRAM, "auto-b4", "2", "power-base"),  # 2·u with u = (x1 - x2)**2 = 1, not (x1 - x2) = -1
]


# The diagnosis's first and last lines are the topmost thing where they are drawn.
UNCOVERED_JS = """() => {
  const said = gwRoot().querySelector('.cp-diagnosis');
  const r = said.getBoundingClientRect();
  return [r.top + 4, r.bottom - 4].every((y) => said.contains(gwRoot().elementFromPoint(r.left + 30, y)));
}"""


def engine(request):
    return json.loads(api.handle(json.dumps(request)))


def src(program: str) -> str:
    return base64.urlsafe_b64encode(program.encode()).decode().rstrip("=")


def where_asked(subject: str, question_id: str) -> tuple[str, dict]:
    """The page's query for the position where a question is asked, and the engine's
    answer for the question (its "questions" entry)."""
    is_preset = "\n" not in subject
    load = engine({"cmd": "load", "preset": subject} if is_preset else {"cmd": "load", "program": subject})
    ahead = next(q for q in load["questions"] if q["id"] == question_id)
    if is_preset:
        checkpoints = engine({"cmd": "preset", "id": subject})["preset"]["checkpoints"]
        cp = next(c for c in checkpoints if c["id"] == question_id)
        passed, before = cp["pass"], cp["before_step"]
        frames = load[passed]
        step = len(frames) - 1 if before == -1 else before
        query = f"preset={subject}"
    else:
        passed, step = "backward", ahead["step"]
        query = f"src={src(subject)}"
    if passed == "forward":
        return f"{query}&pass=forward&step={step - 1}", ahead
    if step == 0:  # the seed is asked at the end of the forward pass
        return f"{query}&pass=forward&step={len(load['forward']) - 1}", ahead
    return f"{query}&pass=backward&step={step - 1}", ahead


@pytest.fixture(scope="module", params=sorted(SIZES))
def screen(browser, request):
    yield from sized_page(browser, SIZES[request.param], request.param)


def open_question(page, site_url, subject, question_id):
    query, ahead = where_asked(subject, question_id)
    page.goto(f"{site_url}?{query}")
    wait_ready(page)
    card = page.locator(f"#checkpoints [data-checkpoint='{question_id}'][data-mode='ask']")
    page.locator("#checkpoints .checkpoint:not(.is-folded)").wait_for()
    # Questions asked at one place come one at a time: show the answers of those before it.
    for _ in range(3):
        if card.count() and "is-folded" not in card.get_attribute("class"):
            break
        page.locator("#checkpoints .checkpoint:not(.is-folded)").get_by_role("button", name="Show answer").click()
    return card, ahead


def reply(card, question_id, text):
    field = card.locator(f"#cp-{question_id}-in")
    field.fill(text)
    field.press("Enter")
    return card.locator(".cp-feedback")


def test_each_mistake_gets_its_own_sentence_and_marks_its_nodes(screen, site_url):
    page = screen
    for subject, question_id, typed, mistake in CASES:
        card, ahead = open_question(page, site_url, subject, question_id)
        feedback = reply(card, question_id, typed)
        said = feedback.locator(".cp-diagnosis")
        said.wait_for()
        what = f"{mistake} ({typed} for {question_id} at {page.size_name})"
        assert mistake in said.get_attribute("data-mistake").split(), what
        expected = next(e for e in ahead["wrong"] if mistake in e["mistakes"] and abs(e["value"] - float(typed)) < 1e-3)
        assert said.inner_text().strip() == "✗ " + expected["text"], what
        assert card.get_attribute("data-state") == "wrong", what
        # Tied to the field and announced.
        field_id = f"cp-{question_id}-in"
        assert page.get_attribute(f"#{field_id}", "aria-describedby") == feedback.get_attribute("id"), what
        assert feedback.get_attribute("aria-live") == "polite", what
        # The nodes the sentence names are marked on the graph, and only those.
        marked = page.eval_on_selector_all("#graph [data-node].is-mentioned", "gs => gs.map(g => g.dataset.node)")
        assert sorted(marked) == sorted(expected["nodes"]), what
        # The sentence is on screen, not under the sticky controls or off the bottom (the
        # page scrolls it there at the next frame).
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        box = said.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"] + 1, what
        assert page.evaluate(UNCOVERED_JS), f"{what}: something covers the sentence"


def test_a_number_no_mistake_gives_is_neutral_then_hint_then_answer_and_a_right_one_is_not_diagnosed(screen, site_url):
    page = screen
    card, ahead = open_question(page, site_url, "add-mul", "first-step-d")
    feedback = reply(card, "first-step-d", "7")
    assert "Not quite. 7 is not it" in feedback.inner_text()
    assert feedback.locator(".cp-diagnosis").count() == 0
    assert page.locator("#graph .is-mentioned").count() == 0
    assert feedback.locator(".cp-next-hint").count() == 0
    # The second wrong answer: its diagnosis and the hint.
    reply(card, "first-step-d", "5")
    assert "d's own value" in feedback.locator(".cp-diagnosis").inner_text()
    assert feedback.locator(".cp-next-hint").inner_text() == "Hint: " + ahead["hint"]
    assert feedback.locator(".cp-answer-shown").count() == 0
    results = axe_audit(page)
    assert results.violations_count == 0, axe_report(results)
    # The third: the answer too.
    reply(card, "first-step-d", "6")
    assert "The answer: 4." in feedback.locator(".cp-answer-shown").inner_text()
    # The right answer: no diagnosis, the card folds to "Right", nothing stays marked.
    reply(card, "first-step-d", "4")
    answered = page.locator("#checkpoints [data-checkpoint='first-step-d']")
    assert answered.get_attribute("data-state") == "right"
    assert "✓ Right: 4" in answered.inner_text()
    assert page.locator("#checkpoints .cp-diagnosis").count() == 0
    assert page.locator("#graph .is-mentioned").count() == 0


def test_edited_values_are_diagnosed_with_the_new_numbers(screen, site_url):
    """With c = 10, d.grad on (a+b)·c is 10; d's own value is still 5, the output 50."""
    page = screen
    load = engine({"cmd": "load", "preset": "add-mul", "values": {"c": 10}})
    ahead = next(q for q in load["questions"] if q["id"] == "first-step-d")
    assert ahead["value"] == 10
    page.goto(f"{site_url}?preset=add-mul&v=c:10&pass=backward&step=0")
    wait_ready(page)
    card = page.locator("#checkpoints [data-checkpoint='first-step-d'][data-mode='ask']")
    card.wait_for()
    feedback = reply(card, "first-step-d", "50")
    assert "50 is the output's value (e)" in feedback.locator(".cp-diagnosis").inner_text()


def test_a_choice_tied_to_a_mistake_names_it(screen, site_url):
    """square: if _backward used = for +=, a.grad would be 3; "9" is b's value (a·a = 9)."""
    page = screen
    card, ahead = open_question(page, site_url, "square", "overwrite")
    square = engine({"cmd": "preset", "id": "square"})["preset"]
    choices = next(c for c in square["checkpoints"] if c["id"] == "overwrite")["choices"]
    card.locator(f"#cp-overwrite-c{choices.index('9')}").check()
    card.get_by_role("button", name="Check").click()
    said = card.locator(".cp-diagnosis")
    assert said.get_attribute("data-mistake") == "output-value"
    assert said.inner_text().strip() == "✗ " + ahead["choices"][choices.index("9")]
    assert page.get_attribute("#cp-overwrite-c0", "aria-describedby") == "cp-overwrite-fb"
    # An untagged distractor gets the neutral line.
    card.locator(f"#cp-overwrite-c{choices.index('0')}").check()
    card.get_by_role("button", name="Check").click()
    assert card.locator(".cp-diagnosis").count() == 0
    assert "Not quite" in card.locator(".cp-feedback").inner_text()


def test_the_answer_typed_as_shown_is_right(screen, site_url):
    """cos's x1.grad is -2.14112, asked to a tolerance of 1e-4 and shown as -2.141: typing what
    the page shows is right (within half a unit of its last digit: web/lib/grading.js)."""
    page = screen
    card, _ = open_question(page, site_url, "cos", "x1-grad")
    reply(card, "x1-grad", "-2.141")
    page.locator("#checkpoints [data-checkpoint='x1-grad'].state-right").wait_for()
