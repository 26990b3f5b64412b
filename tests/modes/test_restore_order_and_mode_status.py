"""The visit-order experiment's state kept straight: Restore correct order keeps the
learner's place (and with nothing to restore only says so), and after Compare push and
pull every status line names the mode on screen. Each test was seen failing before the
page was fixed.

The diamond (presets/diamond.toml): a = 2, b = 3, c = 6, d = 18; correct grads a 15,
b 6, c 3, d 1. Visiting b before d loses the path a → b → d: a.grad 9."""

from tests.support.page import (
    button,
    nodes,
    open_page,
    order,
    run_order,
    show_tab,
    snapshot,
    wait_for_why,
    why_result,
)

CORRECT = ["d", "c", "b", "a"]


def place(page):
    return page.evaluate("[gwHost().dataset.pass, gwHost().dataset.step]")


def move_b_first(page):
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Alt+ArrowUp")
    page.keyboard.press("Alt+ArrowUp")
    assert order(page) == ["b", "d", "c", "a"]


def test_restore_correct_order_keeps_the_learners_place(page, site_url):
    open_page(page, site_url, "diamond")
    for _ in range(7):  # 4 forward frames, the seed, visits d and c
        button(page, "Step forward").click()
    assert place(page) == ["backward", "2"]
    show_tab(page, "Visit order")
    before = snapshot(page)

    # Never changed: nothing happens but a word that the order is already right.
    button(page, "Restore correct order").click()
    assert place(page) == ["backward", "2"]
    assert snapshot(page) == before
    assert page.inner_text("#order-status") == "The order is already the correct one: d, c, b, a."

    # Changed but not run: the list comes back, the place stays.
    move_b_first(page)
    button(page, "Restore correct order").click()
    assert order(page) == CORRECT
    assert place(page) == ["backward", "2"]
    assert {**snapshot(page), "narration": ""} == {**before, "narration": ""}
    assert page.inner_text("#order-status") == "Restored a correct order: d, c, b, a."

    # Run and replayed to its second visit: Restore drops the run, at the same step of the correct pass.
    move_b_first(page)
    run_order(page)
    assert nodes(page)["a"] == ("2", "9")
    for _ in range(2):
        button(page, "Step back").click()
    assert place(page) == ["experiment", "2"]
    button(page, "Restore correct order").click()
    assert order(page) == CORRECT
    assert place(page) == ["backward", "2"]
    assert {**snapshot(page), "narration": ""} == {**before, "narration": ""}
    assert page.locator("svg .edge.is-late, svg .edge.is-lost").count() == 0

    # Forward pass, order changed and run: Restore leaves the forward step alone.
    button(page, "Reset").click()
    button(page, "Step forward").click()
    button(page, "Step forward").click()
    move_b_first(page)
    run_order(page)
    button(page, "Reset").click()
    button(page, "Step forward").click()
    assert place(page) == ["forward", "0"]
    button(page, "Restore correct order").click()
    assert place(page) == ["forward", "0"]
    assert nodes(page)["a"] == ("2", "")


def test_every_status_names_the_current_mode_after_compare_push_and_pull(page, site_url):
    open_page(page, site_url, "diamond")
    # A "Why reverse mode" experiment on the stepper: naive recursion.
    show_tab(page, "Why reverse mode")
    page.get_by_role("tab", name="Naive recursion", exact=True).click()
    before = why_result(page)
    button(page, "Run the recursion").click()
    wait_for_why(page, before)
    assert "Naive recursion" in page.inner_text("#why-active-text")

    # Compare push and pull: naive recursion is no longer what the stage shows.
    page.get_by_role("tab", name="Push and pull", exact=True).click()
    button(page, "Put an input first in the visit order").click()
    before = why_result(page)
    button(page, "Compare push and pull on this order").click()
    wait_for_why(page, before)
    assert page.locator("#why-active").is_hidden()
    assert "Naive" not in page.inner_text("#position")
    assert "naive" not in page.inner_text("#why-now").lower()
    assert page.evaluate("gwHost().dataset.pass") == "backward"
    assert nodes(page)["a"] == ("2", "15")  # the ordinary backward pass's grads
    assert (
        page.inner_text("#order-status")
        == "Compared push and pull on a, d, c, b: the results are in the Push and pull panel."
    )

    # Run with pull, then flip the switch to push: the lines say which rule the run on screen used.
    show_tab(page, "Visit order")
    page.get_by_label("Pull", exact=True).check()
    run_order(page)
    assert page.inner_text("#position") == "Backward pass (your order, pull) · visit 4 of 4"
    assert page.inner_text("#order-status") == "Ran a, d, c, b with pull."
    page.get_by_label("Push", exact=True).check()
    assert page.inner_text("#order-status") == (
        "Push chosen: the run on the graph used pull; press Run order to run this order with push."
    )
    assert "pull" in page.inner_text("#position")
    show_tab(page, "Why reverse mode")
    before = why_result(page)  # the first comparison
    button(page, "Compare push and pull on this order").click()
    wait_for_why(page, before)
    assert (
        page.inner_text("#order-status")
        == "Compared push and pull on a, d, c, b: the results are in the Push and pull panel."
    )
    assert page.inner_text("#position") == "Backward pass (your order, pull) · visit 4 of 4"
