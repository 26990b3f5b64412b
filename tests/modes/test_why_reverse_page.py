"""'Why reverse mode' on the page: path sums with the growth plot, naive recursion,
push and pull, forward mode, backward twice and gradient descent. Each mode is reached
from its tab, stepped with the page's own stepper, and checked against the engine's
numbers (tests/modes/test_why_reverse_engine.py checks the engine itself)."""

from tests.support.page import (
    axe_audit,
    axe_report,
    button,
    choose,
    nodes,
    open_page,
    order,
    show_tab,
    wait_for_why,
    why_result,
)

SHARED = "a = 1\nb = a + a\nc = b + b"


def run(page, name):
    """Press one of the section's buttons and wait until its result is shown: its mode is
    then on the stepper."""
    before = why_result(page)
    button(page, name).click()
    wait_for_why(page, before)
    assert page.evaluate("gwHost().dataset.pass") == "mode"


def tab(page, name):
    show_tab(page, "Why reverse mode")  # the stage's tab, then the experiment's own
    page.get_by_role("tab", name=name, exact=True).click()
    assert page.get_by_role("tab", name=name, exact=True).get_attribute("aria-selected") == "true"


def position(page):
    return page.inner_text("#position")


def narration(page):
    return page.inner_text("#narration")


def step_to_end(page):
    for _ in range(50):
        if button(page, "Step forward").get_attribute("aria-disabled") == "true":
            return
        button(page, "Step forward").click()
    raise AssertionError("Step forward never reached the end")


def column(page):
    """{row label: the mode's extra table column} (empty when no mode column is shown)."""
    return dict(
        page.eval_on_selector_all(
            "#node-rows tr",
            "rows => rows.map(r => [r.dataset.row,"
            " r.querySelector('.row-extra').hidden ? null : r.querySelector('.row-extra').dataset.value])",
        )
    )


def test_path_sums_naive_recursion_and_push_pull(page, site_url):
    open_page(page, site_url, "diamond")

    # Path sums: the diamond's two paths from a, stepped one by one, summing to 15.
    tab(page, "Path sums")
    page.locator("#paths-wrt").select_option("a")
    run(page, "Walk its paths")
    result = page.inner_text("#paths-result")
    assert "a → b → d: 1 × 6 = 6" in result and "a → c → d: 3 × 3 = 9" in result
    assert "2 paths from a: their products sum to 15, and the backward pass gives a.grad = 15" in result
    assert "2 multiplications" in result and "One backward pass: 4" in result
    assert position(page) == "Path sums for a · path 1 of 2"
    assert page.locator("svg .edge.is-path").count() == 2  # a → b → d is highlighted
    assert column(page)["a"] == "6"
    assert "Σ paths = 6" in page.get_attribute("svg [data-node='a']", "aria-label")
    page.keyboard.press("ArrowRight")  # arrow keys walk the mode like any pass
    assert position(page) == "Path sums for a · path 2 of 2"
    assert column(page)["a"] == "15" and nodes(page)["a"] == ("2", "15")
    assert "running sum 6 → 15" in narration(page)
    page.keyboard.press("ArrowLeft")
    assert column(page)["a"] == "6"
    # The growth plot: both series, path enumeration overtaking the backward pass.
    page.wait_for_selector("#growth-plot svg .plot-series[data-series='backward'] .plot-point")
    paths = page.eval_on_selector_all(
        "#growth-plot [data-series='paths'] .plot-point", "ps => ps.map(p => Number(p.dataset.y))"
    )
    back = page.eval_on_selector_all(
        "#growth-plot [data-series='backward'] .plot-point", "ps => ps.map(p => Number(p.dataset.y))"
    )
    assert len(paths) == len(back) >= 8 and paths[-1] > 100 * back[-1]
    assert "One backward pass" in page.get_attribute("#growth-plot svg", "aria-label")
    page.get_by_label("Graph family").select_option("neuron")
    page.wait_for_function("gwRoot().querySelector('#growth-plot svg').getAttribute('aria-label').includes('neuron')")

    # Naive recursion on a shared intermediate: a.grad 6 where the truth is 4.
    tab(page, "Naive recursion")
    run(page, "Load a = 1, b = a + a, c = b + b")
    assert page.eval_on_selector_all("#program .code-text", "ls => ls.map(l => l.textContent)") == SHARED.split("\n")
    assert "✗ Double counted: a.grad = 6 where the truth is 4" in page.inner_text("#naive-result")
    assert "b re-sent 1" in page.inner_text("#naive-result")
    assert position(page) == "Naive recursion · seed"
    assert page.locator("svg .edge.is-resent").count() == 0
    for _ in range(4):
        button(page, "Step forward").click()
    # Frame 4: c's second push makes b call again with its running total 2.
    assert "re-sending the 1 it already passed on" in narration(page)
    button(page, "Step forward").click()
    # Frame 5: b's second call re-sends; the edge is marked in words and pattern, not colour only.
    assert "↻ re-sends 1" in page.text_content("svg .edge-labels")
    assert page.locator("svg .edge.is-resent").count() == 1
    assert "Counted twice" in page.inner_text("#details")
    step_to_end(page)
    assert nodes(page)["a"] == ("1", "6")
    page.locator(
        "tr[data-row='a'] .row-grad"
    ).first.scroll_into_view_if_needed()  # the table is drawn when near the screen
    assert page.inner_text("tr[data-row='a'] .row-grad").replace("\n", " ") == "✗ 6 (should be 4)"
    assert column(page)["a"] == "4"  # the true grad beside it
    assert "Result: a.grad is 6, not 4." in narration(page)
    button(page, "Step back").click()
    assert nodes(page)["a"] == ("1", "4")

    # On x·x + x·y only inputs are shared: the recursion agrees (16 and 3).
    choose(page, "xx-xy")
    assert page.evaluate("gwHost().dataset.pass") == "start"  # a new graph ends the mode
    run(page, "Run the recursion")
    assert "agrees with the backward pass here: x.grad = 16, y.grad = 3" in page.inner_text("#naive-result")
    step_to_end(page)
    assert nodes(page)["x"][1] == "16" and nodes(page)["y"][1] == "3"

    # Push and pull on the diamond with a before b and c.
    choose(page, "diamond")
    tab(page, "Push and pull")
    button(page, "Put an input first in the visit order").click()
    assert order(page)[0] == "a"
    before = why_result(page)  # what "Put an input first" said
    button(page, "Compare push and pull on this order").click()
    wait_for_why(page, before)
    compared = page.inner_text("#pushpull-result")
    assert "Push: ✓ every grad right" in compared
    assert "a is visited before b and c, but that does no harm" in compared
    assert "Pull: ✗ 1 wrong grad, 2 lost paths" in compared
    assert "a pulled from b before b had been visited" in compared
    # The rule switch on the visit-order experiment: Pull loses both paths, and is steppable.
    show_tab(page, "Visit order")
    page.get_by_label("Pull", exact=True).check()
    button(page, "Run order").click()
    page.wait_for_selector("#experiment-body .verdict.is-wrong")
    assert nodes(page)["a"] == ("2", "0")
    assert "a.grad is 0, not 15" in page.inner_text("#experiment-body")
    assert "(pull)" in narration(page)
    for _ in range(3):
        button(page, "Step back").click()
    assert "Too early" in page.inner_text("#details")  # a pulls from b before b has its grad
    assert "⚠ not final" in page.text_content("svg .edge-labels")
    page.get_by_label("Push", exact=True).check()
    button(page, "Run order").click()
    page.wait_for_selector("#experiment-body .verdict.is-right")
    assert nodes(page)["a"] == ("2", "15")
    assert "does no harm" in page.inner_text("#experiment-body")


def test_forward_mode_backward_twice_and_descent(page, site_url):
    open_page(page, site_url, "cos")

    # Forward mode for x1: one pass, dy/dx1 ≈ -2.14112, and 2 passes for both inputs.
    tab(page, "Forward mode")
    page.locator("#forward-wrt").select_option("x1")
    run(page, "Run forward mode")
    assert position(page) == "Forward mode for x1 · node 1 of 7"
    step_to_end(page)
    assert position(page) == "Forward mode for x1 · node 7 of 7"
    assert f"{float(column(page)['y']):.6g}" == "-2.14112"
    assert nodes(page)["y"][1] == ""  # forward mode computes no grads
    result = page.inner_text("#forward-result")
    assert "dy/dx1 = -2.141, the same as the backward pass's x1.grad = -2.141" in result
    assert "forward mode needs 2 passes" in result and "Forward-mode passes run: 1 of 2" in result
    assert "forward mode needs 2 passes" in narration(page)

    # Gradient descent on both inputs: 5 steps down, 6 points on the plot, each step steppable.
    tab(page, "Gradient descent")
    for _ in range(5):
        run(page, "Descend")
    ys = page.eval_on_selector_all("#descent-plot .plot-point", "ps => ps.map(p => Number(p.dataset.y))")
    assert len(ys) == 6 and all(b < a for a, b in zip(ys, ys[1:]))
    assert abs(ys[0] - 0.010007503399554585) < 1e-12
    assert position(page) == "Gradient descent · step 5 of 5"
    assert float(nodes(page)["y"][0]) == ys[-1]
    assert "6 points" in page.get_attribute("#descent-plot svg", "aria-label")
    button(page, "Step back").click()
    assert float(nodes(page)["y"][0]) == ys[-2]
    # Ascend from there goes up.
    page.get_by_label("Learning rate").fill("0.05")
    run(page, "Ascend")
    ys2 = page.eval_on_selector_all("#descent-plot .plot-point", "ps => ps.map(p => Number(p.dataset.y))")
    assert len(ys2) == 7 and ys2[-1] > ys2[-2]
    assert "+ 0.05 ×" in narration(page)
    button(page, "Reset descent").click()
    assert page.locator("#descent-plot svg").count() == 0
    assert page.evaluate("gwHost().dataset.pass") == "backward"

    # Backward twice on the diamond: 45 without zero_grad, 15 with it.
    choose(page, "diamond")
    tab(page, "Backward twice")
    run(page, "backward() again")
    assert nodes(page)["a"] == ("2", "15")  # the first pass's grads are where the second starts
    step_to_end(page)
    assert nodes(page)["a"] == ("2", "45") and nodes(page)["b"][1] == "12"
    page.locator(
        "tr[data-row='a'] .row-grad"
    ).first.scroll_into_view_if_needed()  # the table is drawn when near the screen
    # (its text, drawn or not: the table below the stage is laid out only near the screen)
    assert "".join(page.text_content("tr[data-row='a'].is-wrong .row-grad").split()) == "✗45(shouldbe15)"
    explained = page.inner_text("#again-result")
    assert "a.grad 15 → 45" in explained and "PyTorch" in explained
    run(page, "zero_grad(), then backward()")
    assert position(page) == "zero_grad(), then backward() · zero_grad()"
    assert nodes(page)["a"] == ("2", "0")
    step_to_end(page)
    assert nodes(page)["a"] == ("2", "15")
    assert "45" in page.inner_text("#again-result tr[data-row='a']")

    # Leaving the experiment goes back to the plain backward pass.
    button(page, "Leave this experiment").click()
    assert page.evaluate("gwHost().dataset.pass") == "backward"
    assert page.is_hidden("#why-active")


def test_modes_by_keyboard_and_axe_is_clean(page, site_url):

    def audit(state):
        results = axe_audit(page)
        assert results.violations_count == 0, f"{state}:\n{axe_report(results)}"

    open_page(page, site_url, "diamond")
    audit("the stage")
    # Tabs: arrow keys move between them (and do not step the trace).
    show_tab(page, "Why reverse mode")
    page.get_by_role("tab", name="Path sums", exact=True).focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("gwActive().textContent") == "Naive recursion"
    assert page.is_visible("#why-naive") and page.is_hidden("#why-paths")
    assert page.evaluate("gwHost().dataset.pass") == "start"
    page.keyboard.press("End")
    assert page.evaluate("gwActive().textContent") == "Gradient descent"
    page.keyboard.press("Home")
    page.keyboard.press("Tab")  # into the panel
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("gwActive().id") == "paths-run"
    before = why_result(page)
    page.keyboard.press("Enter")
    wait_for_why(page, before)
    page.wait_for_selector("#growth-plot svg")
    audit("path sums")
    tab(page, "Naive recursion")
    run(page, "Run the recursion")
    audit("naive recursion")
    tab(page, "Forward mode")
    run(page, "Run forward mode")
    audit("forward mode")
    tab(page, "Backward twice")
    run(page, "backward() again")
    step_to_end(page)
    audit("backward twice")
    tab(page, "Gradient descent")
    run(page, "Descend")
    audit("descent")
    tab(page, "Push and pull")
    button(page, "Put an input first in the visit order").click()
    button(page, "Compare push and pull on this order").click()
    page.wait_for_selector("#pushpull-result .why-table")
    audit("push and pull")


def test_modes_on_a_phone(page, site_url):
    page.set_viewport_size({"width": 375, "height": 740})
    open_page(page, site_url, "cos")
    tab(page, "Gradient descent")
    run(page, "Descend")
    tab(page, "Path sums")
    run(page, "Walk its paths")
    page.wait_for_selector("#growth-plot svg")
    width = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")
    assert max(width) <= 375, f"the page is wider than the phone: {width}"
    for name in ("Walk its paths", "Leave this experiment"):
        box = button(page, name).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375 and box["height"] >= 32, name


def test_modes_live_in_the_permalink(page, site_url):
    # A link brings a mode back at its step; the URL follows the learner.
    page.goto(site_url + "?preset=diamond&why=paths&run=paths&wrt=a&wstep=1")
    page.wait_for_function("gwRoot().getElementById('why-reverse').dataset.active === 'paths'", timeout=90_000)
    page.wait_for_function("gwRoot().getElementById('position').innerText.includes('path 2 of 2')")
    assert nodes(page)["a"] == ("2", "15")
    page.wait_for_function("location.search.includes('run=paths') && location.search.includes('wstep=1')")
    tab(page, "Backward twice")
    run(page, "zero_grad(), then backward()")
    page.wait_for_function("location.search.includes('run=again') && location.search.includes('zero=1')")
    assert "wstep=0" in page.evaluate("location.search")
    # Pull in the link: the visit-order run uses it.
    page.goto(site_url + "?preset=diamond&order=a,d,c,b&pass=experiment&step=4&rule=pull")
    page.wait_for_selector("#experiment-body .verdict.is-wrong", timeout=90_000)
    assert page.is_checked("input[name='order-rule'][value='pull']")
    assert nodes(page)["a"] == ("2", "0")
