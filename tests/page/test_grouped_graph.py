"""A grouped graph on the page (web/grouped.js, actions/groups.js), in headless Chromium at
1280×800 and on a 390×844 phone: the small-network preset opens with its neurons closed
and its layers open; the passes step at the level on screen, one frame per closed neuron,
with the engine's exact numbers; a neuron opens with a click, Enter or Space and closes
again, the learner's place moving to the matching frame; axe finds nothing."""

import json

import pytest

from buildtools import prerender
from engine import api
from tests.support.page import (
    LAPTOP_AND_PHONE,
    STEP_TIMEOUT_MS,
    axe_audit,
    axe_report,
    button,
    nodes,
    order,
    run_order,
    show_tab,
    sized_page,
    wait_ready,
)

SIZES = LAPTOP_AND_PHONE
PRESET = "small-network"
NEURONS = ["neuron 1 of layer 1", "neuron 2 of layer 1", "neuron 3 of layer 1", "neuron 1 of layer 2"]


@pytest.fixture(scope="module", params=sorted(SIZES))
def screen(browser, request):
    yield from sized_page(browser, SIZES[request.param], request.param)


def engine(request: dict) -> dict:
    return json.loads(api.handle(json.dumps(request)))


# The engine's own answers: the view the page opens, and the whole graph (every node's
# label and its right grad): the oracles the page's numbers are compared with, exactly.
FIRST = engine(json.loads(prerender.requests_for(PRESET)["load"]))
WHOLE = engine({"cmd": "load", "preset": PRESET})
GRAD = {n["label"]: n["grad"] for n in WHOLE["nodes"]}
DATA = {n["label"]: n["data"] for n in WHOLE["nodes"]}


def opened(page):
    page.goto(f"{page.site_url}?preset={PRESET}")
    wait_ready(page)
    page.wait_for_selector(f"svg[data-graph='{PRESET}']", timeout=STEP_TIMEOUT_MS)
    settle(page)
    return page


def settle(page):
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)


def group(page, name):
    return page.locator(f"svg [data-group='{name}']")


def wait_group(page, name, expanded):
    page.wait_for_selector(f"svg [data-group='{name}'][aria-expanded='{expanded}']", timeout=STEP_TIMEOUT_MS)
    settle(page)


def focused_group(page):
    return page.evaluate("() => { const a = gwActive(); return [a?.dataset.group, a?.getAttribute('aria-expanded')]; }")


def position(page):
    return page.inner_text("#position")


def forward_to_end(page):
    forward = button(page, "Step forward")
    steps = 0
    while forward.get_attribute("aria-disabled") != "true":
        forward.click()
        steps += 1
        assert steps < 200
    return steps


def test_opens_with_its_neurons_closed_and_its_layers_open(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    shown = nodes(page)
    assert list(shown) == ["x1", "x2", *NEURONS]
    for name in NEURONS:
        box = group(page, name)
        assert box.count() == 1
        assert box.get_attribute("role") == "button" and box.get_attribute("aria-expanded") == "false"
        assert box.get_attribute("data-node") == name
        assert box.get_attribute("tabindex") == "0"
    boxes = {g["name"]: g for g in FIRST["groups"]}
    for name in NEURONS:  # "N nodes" under each box, and its accessible name says so too
        assert f"{boxes[name]['size']} nodes" in group(page, name).text_content()
        assert group(page, name).get_attribute("aria-label").startswith(f"{name}, a closed group of ")
    for layer in ("layer 1", "layer 2"):  # the open layers: their names close them
        tab = group(page, layer)
        assert tab.get_attribute("aria-expanded") == "true" and tab.get_attribute("role") == "button"
    results = axe_audit(page)
    assert not results.response["violations"], axe_report(results)


def test_the_passes_step_one_frame_per_closed_neuron_with_exact_numbers(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    forward = button(page, "Step forward")
    for k in range(1, 7):
        forward.click()
        assert position(page) == f"Forward pass · node {k} of 6"
    assert page.inner_text("#narration").startswith("Neuron 1 of layer 2 computes its 11 nodes")
    boxes = {g["name"]: g for g in FIRST["groups"]}
    for name in NEURONS:  # a box shows its output's data
        assert float(group(page, name).get_attribute("data-data")) == boxes[name]["data"]
    button(page, "Start backward").click()
    assert "seed" in position(page)
    forward.click()  # the output neuron's whole visit: one frame
    assert position(page).endswith("visit 1 of 6")
    assert page.inner_text("#narration").startswith(
        "Visit neuron 1 of layer 2: its output's grad, o.grad = 1, goes back through its 11 nodes to 3 inputs"
    )
    for name in NEURONS[:3]:  # each layer-1 neuron's output got its whole grad from it
        assert float(group(page, name).get_attribute("data-grad")) == boxes[name]["grad"]
    assert nodes(page)["x1"][1] == "0"
    assert forward_to_end(page) == 5
    shown = nodes(page)
    for label in ("x1", "x2"):
        assert float(shown[label][1]) == GRAD[label]
    # The table follows the level: one row per unit drawn.
    assert page.locator("#node-rows tr").count() == 6


def test_a_neuron_opens_with_enter_steps_node_by_node_and_closes_with_space(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    forward = button(page, "Step forward")
    for _ in range(3):  # x1, x2, then neuron 1 of layer 1's whole forward step
        forward.click()
    assert page.inner_text("#narration").startswith("Neuron 1 of layer 1 computes")
    name = NEURONS[0]
    group(page, name).focus()
    page.keyboard.press("Enter")
    wait_group(page, name, "true")
    assert focused_group(page) == [name, "true"]  # the keyboard's focus moved to its open name
    # Its frame became the first of its parts' frames: w11's, the third of 13.
    assert position(page) == "Forward pass · node 3 of 13"
    assert page.inner_text("#narration").startswith("Neuron 1 of layer 1 is open")
    shown = nodes(page)
    inner = ["w11", "x1*w11", "w12", "x2*w12", "t1", "b1", "t1+b1", "h1"]
    assert set(inner) <= set(shown)
    assert float(shown["w11"][0]) == DATA["w11"]
    assert shown["x1*w11"][0] == ""  # not computed yet at this step
    assert group(page, NEURONS[1]).get_attribute("aria-expanded") == "false"  # the other neurons stay closed
    results = axe_audit(page)
    assert not results.response["violations"], axe_report(results)

    # Stepping node by node inside it: its backward visits push into its own nodes.
    button(page, "Start backward").click()
    assert forward_to_end(page) == 13  # one visit per unit: x1, x2, 8 nodes of neuron 1, 3 closed neurons
    shown = nodes(page)
    for label in inner + ["x1", "x2"]:
        assert float(shown[label][1]) == GRAD[label], label
    # Step back into the visit of x1*w11 and see it push into w11 and x1.
    back = button(page, "Step back")
    while not page.inner_text("#narration").startswith("Visit x1*w11"):
        back.click()
    assert float(nodes(page)["w11"][1]) == GRAD["w11"]
    assert "+=" in page.inner_text("#details")

    # Space on the open neuron's name closes it again; the place goes to its one frame.
    group(page, name).focus()
    page.keyboard.press(" ")
    wait_group(page, name, "false")
    assert focused_group(page) == [name, "false"]  # and back to its box
    page.keyboard.press("Enter")  # so the same key opens it again
    wait_group(page, name, "true")
    page.keyboard.press("Enter")
    wait_group(page, name, "false")
    assert "w11" not in nodes(page)
    assert page.inner_text("#narration").startswith("Neuron 1 of layer 1 is closed")
    assert "Backward pass · visit" in position(page)


def test_a_click_opens_a_neuron_and_its_name_closes_it(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    name = NEURONS[3]
    group(page, name).click()
    wait_group(page, name, "true")
    shown = nodes(page)
    assert {"o", "v1", "c"} <= set(shown) and name not in shown
    button(page, "Start backward").click()
    assert forward_to_end(page) == 5 + 11
    assert float(nodes(page)["v1"][1]) == GRAD["v1"]
    group(page, name).click()
    wait_group(page, name, "false")
    assert list(nodes(page)) == ["x1", "x2", *NEURONS]


def test_the_visit_order_experiment_runs_on_the_boxes(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    show_tab(page, "Visit order")
    assert order(page) == [NEURONS[3], NEURONS[2], NEURONS[1], NEURONS[0], "x2", "x1"]
    # The output neuron moved after the layer-1 neurons: its grad reaches them too late.
    page.locator(f"#visit-order li[data-label='{NEURONS[3]}']").focus()
    for _ in range(3):
        page.keyboard.press("Alt+ArrowDown")
    wrong = [NEURONS[2], NEURONS[1], NEURONS[0], NEURONS[3], "x2", "x1"]
    assert order(page) == wrong
    run_order(page)
    page.wait_for_function("gwRoot().querySelector('.has-result .verdict') !== null", timeout=STEP_TIMEOUT_MS)
    ran = engine({"cmd": "load", "preset": PRESET, "expanded": FIRST["expanded"], "order": wrong})["experiment"]
    assert ran["wrong_inputs"] > 0 and len(ran["late"]) == 3
    result = page.inner_text("#experiment-result")
    assert "wrong" in result and "too late" in result
    assert page.locator("svg .edge.is-late").count() == 3  # each layer-1 neuron's edge into the output neuron
    shown = nodes(page)
    # The neurons' outputs got their grads, too late: nothing went on to the inputs.
    assert shown["x1"][1] == "0" and shown["x2"][1] == "0"
    assert float(shown[NEURONS[0]][1]) == GRAD["h1"]
    assert float(shown[NEURONS[3]][1]) == 1.0
    # Pull is not offered on boxes (they are visited by push)
    assert page.locator("#order-rule input[value='pull']").is_disabled()

    # The link replays the same order on the same boxes, with the same verdict.
    page.wait_for_function("() => location.search.includes('order=')", timeout=STEP_TIMEOUT_MS)
    link = page.url
    assert "open=" not in link
    page.goto(link)
    wait_ready(page)
    page.wait_for_function("gwRoot().querySelector('.has-result .verdict') !== null", timeout=STEP_TIMEOUT_MS)
    assert page.inner_text("#experiment-result") == result
    assert page.locator("#link-notice").is_hidden()


def test_the_experiments_that_answer_node_by_node_offer_to_open_every_group(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    show_tab(page, "Why reverse mode")
    note = page.locator("#why-reverse .groups-note")
    assert note.is_visible()
    assert note.inner_text().startswith("These experiments work with every group open, node by node, and 4 groups")
    assert page.locator("#why-reverse .why-panel:visible").count() == 0
    nudge_note = page.locator("#nudge .groups-note")
    assert nudge_note.get_attribute("hidden") is None
    assert page.locator("#nudge .nudge-controls").get_attribute("hidden") is not None
    note.get_by_role("button", name="Open every group").click()
    page.wait_for_function("gwRoot().querySelector(\"svg [aria-expanded='false']\") === null", timeout=STEP_TIMEOUT_MS)
    page.wait_for_selector(f"svg [data-group='{NEURONS[0]}'][aria-expanded='true']", state="attached")
    settle(page)
    # Every node of the graph is drawn, each group an open area, and the experiments are back.
    assert sorted(nodes(page)) == sorted(GRAD)
    assert page.locator("svg [data-group][aria-expanded='true']").count() == len(WHOLE["groups"])
    assert note.is_hidden() and page.locator("#why-reverse .why-panel:visible").count() == 1
    assert nudge_note.get_attribute("hidden") is not None
    assert page.locator("#nudge .nudge-controls").get_attribute("hidden") is None
    assert page.inner_text("#narration").startswith("Every group is open")


def test_the_link_keeps_the_open_groups_and_the_step_at_that_level(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    assert "open=" not in page.url  # the groups a preset opens with need no word in its link
    name = NEURONS[3]
    group(page, name).click()
    wait_group(page, name, "true")
    button(page, "Start backward").click()
    for _ in range(3):
        button(page, "Step forward").click()
    page.wait_for_function("() => location.search.includes('step=3')", timeout=STEP_TIMEOUT_MS)
    link = page.url
    assert "open=g0,g4,g5" in link or "open=g0,g5,g4" in link, link
    where, said = position(page), page.inner_text("#narration")

    # The same link in a fresh page: the neuron open, the same step at that level.
    page.goto(link)
    wait_ready(page)
    wait_group(page, name, "true")
    assert position(page) == where
    assert page.inner_text("#narration") == said
    assert {"o", "v1", "c"} <= set(nodes(page))

    # Every group closed is a link too (open= with nothing), and a damaged one is said.
    page.goto(f"{page.site_url}?preset={PRESET}&open=")
    wait_ready(page)
    wait_group(page, "layer 1", "false")
    assert list(nodes(page)) == ["x1", "x2", "layer 1", "layer 2"]
    page.goto(f"{page.site_url}?preset={PRESET}&open=g99")
    wait_ready(page)
    page.wait_for_selector("text=the open groups could not be used", timeout=STEP_TIMEOUT_MS)
    wait_group(page, NEURONS[0], "false")


def test_a_question_counted_node_by_node_waits_until_every_group_is_open(screen, site_url):
    # h1-grad is asked before backward frame 7 of the graph drawn node by node (the visit of
    # h1*v1). With three neurons open the view also has a frame 7, but another one: no
    # question there. With every group open the view steps as the graph itself does.
    screen.site_url = site_url
    page = opened(screen)
    asked = page.locator("#checkpoints [data-checkpoint='h1-grad'][data-mode='ask']")

    def before_frame_7():
        button(page, "Start backward").click()
        for _ in range(6):
            button(page, "Step forward").click()

    for name in NEURONS[:3]:
        group(page, name).click()
        wait_group(page, name, "true")
    before_frame_7()
    assert "visit 6 of" in position(page)
    assert asked.count() == 0
    group(page, NEURONS[3]).click()
    wait_group(page, NEURONS[3], "true")
    before_frame_7()
    assert asked.count() == 1
    button(page, "Step forward").click()
    assert page.inner_text("#narration").startswith("Visit h1*v1")


RECT = """(name) => {
  const e = [...gwRoot().querySelectorAll('svg [data-group]')].find((e) => e.dataset.group === name);
  const r = (e.querySelector('rect') ?? e).getBoundingClientRect();
  const box = gwRoot().querySelector('#graph-scroll').getBoundingClientRect();
  const inside = r.x >= box.left && r.right <= box.right && r.y >= box.top && r.bottom <= box.bottom;
  return { x: r.x, y: r.y, inside };
}"""


def test_a_group_opened_and_closed_stays_where_it_was_on_screen(screen, site_url):
    screen.site_url = site_url
    page = opened(screen)
    for name in (NEURONS[1], NEURONS[3]):
        closed = page.evaluate(RECT, name)
        group(page, name).click()
        wait_group(page, name, "true")
        assert page.evaluate(RECT, name)["inside"]  # its open name is in view
        group(page, name).click()
        wait_group(page, name, "false")
        again = page.evaluate(RECT, name)
        assert (round(again["x"]), round(again["y"])) == (round(closed["x"]), round(closed["y"])), name


def test_an_edited_program_with_groups_opens_as_a_new_one_does(screen, site_url):
    # With a neuron open, the learner edits the program: one neuron fewer, so its groups' ids
    # are others. The new program is drawn at its own first level, with no error.
    from engine.presets import get_preset
    from tests.support.editor import submit

    screen.site_url = site_url
    page = opened(screen)
    group(page, NEURONS[0]).click()
    wait_group(page, NEURONS[0], "true")
    program = get_preset(PRESET)["program"]
    start = program.index('    with group("neuron 3 of layer 1"):')
    end = program.index('with group("layer 2"):')
    edited = program[:start] + program[end:]
    edited = edited.replace(" + h3 * v3", "").replace("        v3 = 0.4\n", "")
    page.click("#edit-program")
    shown = submit(page, edited)
    assert not shown["error"], shown["text"]
    assert list(nodes(page)) == ["x1", "x2", *NEURONS[:2], NEURONS[3]]


def test_inputs_visited_first_make_no_late_edge(screen, site_url):
    # A push into an input already visited changes nothing that was passed on: the engine
    # calls no pair late, and the page marks no edge late either.
    screen.site_url = site_url
    page = opened(screen)
    show_tab(page, "Visit order")
    for label in ("x2", "x1"):
        item = page.locator(f"#visit-order li[data-label='{label}']")
        item.focus()
        while order(page)[0] != label:
            page.keyboard.press("Alt+ArrowUp")
    assert order(page)[:2] == ["x1", "x2"]
    run_order(page)
    page.wait_for_function("gwRoot().querySelector('.has-result .verdict') !== null", timeout=STEP_TIMEOUT_MS)
    assert "every grad is right" in page.inner_text("#experiment-result")
    assert page.locator("svg .edge.is-late").count() == 0


def test_a_closed_layer_shows_each_output_and_each_share(screen, site_url):
    """Small network with layer 1 closed (issue 32): the box has three outputs, so it shows no
    one number as its own (data-data and data-grad empty) and its accessible name names h1, h2
    and h3; its visit's card quotes each share into x1 and their sum, 0.4896, and nothing on
    the page writes the layer as a node ("layer 1.grad", "∂layer 1")."""
    page = screen
    page.goto(f"{site_url}?preset={PRESET}&open=g4")
    wait_ready(page)
    wait_group(page, "layer 1", "false")
    button(page, "Start backward").click()
    forward = button(page, "Step forward")
    forward.click()  # neuron 1 of layer 2 passes into h1, h2, h3: all inside the closed layer
    details = page.inner_text("#details")
    assert "h1.grad: 0 → 0.5528" in details and "h3.grad: 0 → 0.3159" in details, details
    forward.click()  # layer 1's visit
    box = group(page, "layer 1")
    assert box.get_attribute("data-data") == "" and box.get_attribute("data-grad") == ""
    label = box.get_attribute("aria-label")
    assert "3 outputs (h1, h2, h3)" in label, label
    said = page.inner_text("#narration")
    assert "0.3895 × 0.5528 + (-0.5134) × (-0.3949) + 0.2264 × 0.3159 = 0.2153 + 0.2027 + 0.07151 = 0.4896" in said
    details = page.inner_text("#details")
    assert "its 3 outputs' grads: h1.grad = 0.5528, h2.grad = -0.3949, h3.grad = 0.3159" in details, details
    assert "x1.grad += ∂h1/∂x1 × h1.grad + ∂h2/∂x1 × h2.grad + ∂h3/∂x1 × h3.grad" in details, details
    assert "= 0.2153 + 0.2027 + 0.07151 = 0.4896" in details and "x1.grad: 0 → 0.4896" in details, details
    assert float(nodes(page)["x1"][1]) == GRAD["x1"]
    text = page.evaluate("() => gwRoot().textContent + [...gwRoot().querySelectorAll('[aria-label]')]"
                         ".map((e) => e.getAttribute('aria-label')).join(' ')")  # fmt: skip
    assert "layer 1.grad" not in text and "∂layer" not in text
    # Both layers closed, where a phone has least room: layer 2's push into layer 1 is one
    # label with each share, never shortened to the last of them.
    page.goto(f"{site_url}?preset={PRESET}&open=&pass=backward&step=1")
    wait_ready(page)
    wait_group(page, "layer 2", "false")
    shown = page.eval_on_selector_all(
        "#graph .edge-label", "gs => gs.filter((g) => g.getBoundingClientRect().width).map((g) => g.textContent)"
    )
    assert any(all(f"{out} += " in text for out in ("h1", "h2", "h3")) for text in shown), shown
