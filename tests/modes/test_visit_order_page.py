"""The visit-order experiment on the page: reorder by keyboard, mouse and touch, run
the order, and see the wrong grad, the late contribution, the lost path and the
mistake it shows, in the catalogue's words; a correct order gives the right grads again."""

from tests.support.page import (
    button,
    nodes,
    open_page,
    order,
    run_order,
    show_tab,
    snapshot,
    wait_for_run,
)

CORRECT = ["d", "c", "b", "a"]


def result_text(page):
    return page.inner_text("#experiment-body")


def assert_b_before_d_result(page):
    """The diamond run with b visited before d: the path a → b → d is lost."""
    assert nodes(page)["a"] == ("2", "9")
    assert page.inner_text("tr[data-row='a'] .row-grad").replace("\n", " ") == "✗ 9 (should be 15)"
    text = result_text(page)
    assert "a → b → d" in text  # the lost path
    assert "a.grad is 9, not 15" in text  # the engine's explanation, said by the mistake's sentence
    # The late edge (b → d) is dashed and labelled, not only coloured.
    late = page.locator("svg .edge.is-late")
    assert late.count() == 1
    assert late.get_attribute("data-edge") == edge_id(page, "b", "d")
    assert (
        page.evaluate("getComputedStyle(gwRoot().querySelector('svg .edge.is-late .edge-line')).strokeDasharray")
        != "none"
    )
    assert "⚠ late" in page.locator("svg .edge-label.is-late").text_content()
    # The lost path's edges are marked: a → b and b → d.
    lost = sorted(page.eval_on_selector_all("svg .edge.is-lost", "gs => gs.map(g => g.dataset.edge)"))
    assert lost == sorted([edge_id(page, "a", "b"), edge_id(page, "b", "d")])
    # The verdict names the mistake as the catalogue words it (d = b * c passes b the 6 of c),
    # and the graph tags the node visited too early.
    assert page.get_attribute("#experiment-body .verdict", "data-mistake") == "too-early"
    mistake = page.inner_text("#experiment-body .mistake")
    assert mistake.startswith("Mistake: a node visited too early (a lost path).")
    assert "b was visited before d added its 6 to b.grad, so b passed on an incomplete grad: a.grad is 9" in mistake
    named = page.eval_on_selector_all("svg [data-node].is-named", "gs => gs.map(g => g.dataset.node)")
    assert named == ["b"] and "too early" in page.locator("svg [data-node='b'] .node-tag").text_content()


def edge_id(page, parent, child):
    return page.get_attribute(f"svg .edge[data-from='{parent}'][data-to='{child}']", "data-edge")


def test_wrong_order_by_keyboard_then_restore(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Visit order")
    assert order(page) == CORRECT

    # Space picks b up, arrows move it, Space drops it; every move is announced.
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Space")
    assert "picked up" in page.inner_text("#order-status")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Space")
    assert order(page) == ["b", "d", "c", "a"]
    assert "b dropped at position 1 of 4" in page.inner_text("#order-status")

    # Run order from the keyboard.
    button(page, "Run order").focus()
    page.keyboard.press("Enter")
    wait_for_run(page)  # the first run's result
    assert_b_before_d_result(page)
    assert "wrong" in page.inner_text("#narration")
    assert "Mistake: a node visited too early (a lost path)." in page.inner_text("#narration")

    # The wrong-order run is steppable with the same stepper: back to its seed and forward again.
    end = snapshot(page)
    for _ in range(4):
        button(page, "Step back").click()
    assert "seed" in page.inner_text("#position")
    assert nodes(page)["a"] == ("2", "0")
    button(page, "Step forward").click()  # visits b while b.grad is still 0
    assert nodes(page)["a"] == ("2", "0")
    assert "Too early" in page.inner_text("#narration")
    button(page, "Step forward").click()  # visits d: the push into b is late
    assert page.locator("svg .edge.is-late").count() == 1
    assert "Too late" in page.inner_text("#details")
    button(page, "Step forward").click()
    button(page, "Step forward").click()
    replayed = snapshot(page)
    # The same state as right after Run order (only the narration differs: that one
    # summed up the run, this one narrates the last visit).
    assert {**replayed, "narration": ""} == {**end, "narration": ""}

    # Alt+Arrow moves the focused item straight away.
    page.locator("#visit-order li[data-label='b']").focus()
    page.keyboard.press("Alt+ArrowDown")
    page.keyboard.press("Alt+ArrowDown")
    assert order(page) == ["d", "c", "b", "a"]
    assert "b moved to position 3 of 4" in page.inner_text("#order-status")

    # A correct order gives 15 again, and so does Restore correct order.
    run_order(page)
    assert nodes(page)["a"] == ("2", "15")
    assert "Every grad is right" in result_text(page)
    assert page.locator("svg .edge.is-late").count() == 0
    assert page.locator("#experiment-body .mistake, #experiment-body [data-mistake], svg .is-named").count() == 0
    page.locator("#visit-order li[data-label='a']").focus()
    page.keyboard.press("Alt+ArrowUp")
    button(page, "Restore correct order").click()
    assert order(page) == CORRECT
    assert nodes(page)["a"] == ("2", "15")
    assert page.locator("svg .edge.is-lost").count() == 0


def drag(page, label, above_label):
    """Drag a list item with the mouse until it sits just above another item."""
    item = page.locator(f"#visit-order li[data-label='{label}'] .vo-label")
    target = page.locator(f"#visit-order li[data-label='{above_label}']")
    item.scroll_into_view_if_needed()
    box = item.bounding_box()
    goal = target.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(goal["x"] + 40, goal["y"] + 3, steps=12)
    page.mouse.up()


def test_wrong_order_by_mouse_drag(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Visit order")
    drag(page, "b", "d")
    assert order(page) == ["b", "d", "c", "a"]
    assert "b dropped at position 1 of 4" in page.inner_text("#order-status")
    run_order(page)
    assert_b_before_d_result(page)

    # Drag b back below c: a correct order again, and a.grad is 15.
    drag(page, "b", "a")
    assert order(page) == ["d", "c", "b", "a"]
    run_order(page)
    assert nodes(page)["a"] == ("2", "15")
    assert "Every grad is right" in result_text(page)


def test_wrong_order_by_touch_drag(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Visit order")
    page.locator("#visit-order").scroll_into_view_if_needed()
    grip = page.locator("#visit-order li[data-label='c'] .vo-grip").bounding_box()
    goal = page.locator("#visit-order li[data-label='d']").bounding_box()
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        point = {"x": x, "y": y + (goal["y"] + 3 - y) * k / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait_for_function("gwRoot().querySelector('#visit-order li').dataset.label === 'c'")
    assert order(page) == ["c", "d", "b", "a"]
    run_order(page)
    # c visited before d: the path a → c → d (worth 9) is lost, a.grad is 6.
    assert nodes(page)["a"] == ("2", "6")
    assert "a → c → d" in result_text(page)


def test_the_mistake_tells_one_late_push_and_the_explanation_the_others(page, site_url):
    open_page(page, site_url, "diamond")
    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='d']").focus()
    for _ in range(3):
        page.keyboard.press("Alt+ArrowDown")
    assert order(page) == ["c", "b", "a", "d"]
    run_order(page)
    # d, visited last, pushes late into both b and c: the mistake tells the first (its 6 into
    # b), the explanation the other, and each sentence is said once.
    mistake = page.inner_text("#experiment-body .mistake")
    assert "b was visited before d added its 6 to b.grad" in mistake
    explanation = page.eval_on_selector_all("#experiment-body .explanation li", "lis => lis.map(li => li.innerText)")
    assert explanation == [
        "c was visited before d had added its contribution to c, so the path a → c → d never reached a: "
        "a.grad is 0, not 15."
    ]
    assert "Step back and forward" not in result_text(page)  # the narration says how to replay
    assert "Step back to replay it" in page.inner_text("#narration")
