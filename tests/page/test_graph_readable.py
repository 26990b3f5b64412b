"""The graph is readable at any size (web/panels/graph.js, graph-scroll.js, graph-text.js).

No text in the graph is drawn smaller than 11 CSS px (font size × the SVG's scale on
screen) unless the learner asks for it: a graph is shrunk to fit its box only down to
11/12 of its size (its smallest text is 12 px), a graph too big for that is panned and
zoomed, and every node can be brought into view. Fit and zooming out may go further on a
big program; the zoom readout then says the text is small. Checked on every preset and on a program of about 200
nodes, at 1280×800 and on a 390×844 touch phone. Panning and zooming by keyboard, mouse,
wheel and two fingers change the view; Fit fits the whole graph (never below 12 px); the
step in progress stays in the graph's visible box; long names are shortened with an
ellipsis and given whole on hover (<title>) and in the accessible name.
"""

import base64
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.page import BOOT_TIMEOUT_MS, STEP_TIMEOUT_MS, choose, sized_page, wait_ready

ROOT = Path(__file__).resolve().parents[2]
PRESETS = sorted(p.stem for p in (ROOT / "presets").glob("*.toml"))
VIEWPORTS = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
MIN_PX = 11


def src(program: str) -> str:
    return base64.urlsafe_b64encode(program.encode()).decode().rstrip("=")


def big_program() -> str:
    """About 200 nodes: 8 inputs, 8 layers of relu(x[i] * x[i+1] + 0.1), summed."""
    inputs, layers = 8, 8
    lines = [f"x{i} = {0.5 + 0.1 * i:.1f}" for i in range(inputs)]
    row = [f"x{i}" for i in range(inputs)]
    for layer in range(layers):
        nxt = []
        for i in range(inputs):
            lines.append(f"h{layer}_{i} = relu({row[i]} * {row[(i + 1) % inputs]} + 0.1)")
            nxt.append(f"h{layer}_{i}")
        row = nxt
    lines.append("y = " + " + ".join(row))
    return "\n".join(lines)


LONG_NAMES = "\n".join(
    [
        "learning_rate_for_layer1 = 0.5",
        "weight_of_first_neuron_a = -2.0",
        "activation_before_relu_x = learning_rate_for_layer1 * weight_of_first_neuron_a",
        "output_of_the_whole_net_ = relu(activation_before_relu_x) + 1.0",
    ]
)


def page_at(browser, name):
    """A page at one of the two viewports, with the widget helpers; fails on page errors."""
    yield from sized_page(browser, VIEWPORTS[name], name)


@pytest.fixture(params=sorted(VIEWPORTS))
def stage(browser, request):
    yield from page_at(browser, request.param)


@pytest.fixture
def desktop(browser):
    yield from page_at(browser, "desktop")


@pytest.fixture
def phone(browser):
    yield from page_at(browser, "phone")


def open_at(page, site_url, query=""):
    page.goto(f"{site_url}?hide=questions{'&' + query if query else ''}", timeout=BOOT_TIMEOUT_MS)
    wait_ready(page)
    page.wait_for_function(
        "() => gwRoot().querySelector('#graph [data-node] .node-box') !== null", timeout=STEP_TIMEOUT_MS
    )


# The smallest text drawn in the graph's nodes and edge labels, in CSS px on screen (font
# size × the SVG's scale), and as measured: the smallest node name's box height.
SMALLEST_TEXT_JS = """() => {
  const svg = gwRoot().querySelector('#graph');
  const texts = [...svg.querySelectorAll('[data-node] text, [data-node] tspan, .edge-label text, .edge-label tspan')]
    .filter((t) => t.textContent.trim() && t.getClientRects().length);
  const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
  const names = [...svg.querySelectorAll('[data-node] .node-label')].map((t) => t.getBoundingClientRect().height);
  return { count: texts.length, min: Math.min(...sizes), nameHeight: Math.min(...names),
    edgeLabels: [...svg.querySelectorAll('.edge-label')]
      .filter((g) => g.getClientRects().length && g.textContent).length };
}"""

# Every node, brought into the graph's box by scrolling it there: the labels of those
# that cannot be wholly seen. A node's box comes from its place in the layout (the
# transform of its group) and the SVG's scale, so that nodes not drawn yet count too.
UNREACHABLE_JS = """() => {
  const s = gwRoot().querySelector('#graph-scroll');
  const svg = gwRoot().querySelector('#graph');
  const box = svg.querySelector('.node-box');
  const [w, h] = [Number(box.getAttribute('width')), Number(box.getAttribute('height'))];
  const missed = [];
  for (const g of svg.querySelectorAll('[data-node]')) {
    const [x, y] = g.getAttribute('transform').match(/-?[\\d.]+/g).map(Number);
    const rectOf = () => {
      const m = svg.getScreenCTM();
      return { left: m.e + x * m.a, top: m.f + y * m.d, right: m.e + (x + w) * m.a, bottom: m.f + (y + h) * m.d };
    };
    let r = rectOf();
    let v = s.getBoundingClientRect();
    s.scrollTo({ behavior: 'instant',
      left: s.scrollLeft + (r.left + r.right) / 2 - (v.left + s.clientLeft + s.clientWidth / 2),
      top: s.scrollTop + (r.top + r.bottom) / 2 - (v.top + s.clientTop + s.clientHeight / 2) });
    r = rectOf();
    v = s.getBoundingClientRect();
    const inside = r.left >= v.left - 0.5 && r.right <= v.left + s.clientLeft + s.clientWidth + 0.5
      && r.top >= v.top - 0.5 && r.bottom <= v.top + s.clientTop + s.clientHeight + 0.5;
    if (!inside) missed.push(g.dataset.node);
  }
  return missed;
}"""

CLICK_JS = "(id) => gwRoot().getElementById(id).click()"


def click(page, id_):
    page.evaluate(CLICK_JS, id_)


def fit(page):
    page.get_by_role("button", name="Fit the whole graph").click()


# An edge label with text on screen: a step's label is written when its pulse lands,
# which on a slow machine can be after the click returns.
EDGE_LABEL_SHOWN_JS = """() => [...gwRoot().querySelectorAll('#graph .edge-label')]
  .some((g) => g.getClientRects().length && g.textContent)"""


def assert_readable(page, what, edge_labels=True):
    if edge_labels:
        try:
            page.wait_for_function(EDGE_LABEL_SHOWN_JS, timeout=STEP_TIMEOUT_MS)
        except Exception:
            pass  # the assertion below says what is missing
    t = page.evaluate(SMALLEST_TEXT_JS)
    assert t["count"] > 0, f"{what}: no text drawn"
    assert t["min"] >= MIN_PX - 0.01, f"{what} at {page.size_name}: text drawn at {t['min']:.2f} px"
    assert t["nameHeight"] >= MIN_PX, f"{what}: a node name {t['nameHeight']:.2f} px high"
    if edge_labels:
        assert t["edgeLabels"] >= 1, f"{what}: no edge label was measured"


def test_every_preset_is_drawn_at_11px_or_more_and_every_node_can_be_seen(stage, site_url):
    page = stage
    open_at(page, site_url)
    for preset in PRESETS:
        choose(page, preset)
        click(page, "start-backward")  # seed the output, then visit it: tags and edge labels
        click(page, "step-forward")
        assert_readable(page, preset)
        fit(page)
        # Fit shows the whole graph: readable, or, in a phone's box while stepping (it
        # leaves room for the narration), smaller with the readout saying so.
        if "small text" not in page.inner_text(".graph-zoom"):
            assert_readable(page, f"{preset} after Fit")
        assert page.evaluate(UNREACHABLE_JS) == [], f"{preset}: nodes that cannot be brought into view"


def test_a_200_node_program_is_drawn_at_11px_or_more_and_every_node_can_be_seen(stage, site_url):
    page = stage
    open_at(page, site_url, "src=" + src(big_program()))
    count = page.evaluate("() => gwRoot().querySelectorAll('#graph [data-node]').length")
    assert 190 <= count <= 260
    assert_readable(page, "the big program", edge_labels=False)
    click(page, "start-backward")
    click(page, "step-forward")
    assert page.evaluate(UNREACHABLE_JS) == []
    # Fit shows it whole, below readable size, and says so; zooming in makes it readable again.
    fit(page)
    assert page.evaluate(
        "() => { const s = gwRoot().querySelector('#graph-scroll'); return s.scrollWidth <= s.clientWidth + 1; }"
    )
    assert "small text" in page.inner_text(".graph-zoom")
    for _ in range(20):
        if "small text" not in page.inner_text(".graph-zoom"):
            break
        page.get_by_role("button", name="Zoom in").click()
    assert "small text" not in page.inner_text(".graph-zoom")
    # Scrolled to its far end and back, what is drawn there is as big.
    page.evaluate(
        "() => { const s = gwRoot().querySelector('#graph-scroll');"
        " s.scrollTo({ left: s.scrollWidth, top: s.scrollHeight, behavior: 'instant' }); }"
    )
    # What comes into view is drawn at the next frame: wait for the far end's last node.
    page.wait_for_function(FAR_END_DRAWN_JS, timeout=STEP_TIMEOUT_MS)
    assert_readable(page, "the big program's far end")


# The node furthest right in the layout is drawn (a scroll's drawing has reached the far end).
FAR_END_DRAWN_JS = """() => {
  const nodes = [...gwRoot().querySelectorAll('#graph [data-node]')];
  const x = (g) => Number(g.getAttribute('transform').match(/-?[\\d.]+/)[0]);
  const last = nodes.reduce((a, b) => (x(b) > x(a) ? b : a));
  return last.querySelector('.node-box') !== null;
}"""


VIEW_JS = """() => {
  const s = gwRoot().querySelector('#graph-scroll');
  const svg = gwRoot().querySelector('#graph');
  return { left: s.scrollLeft, top: s.scrollTop, width: svg.getBoundingClientRect().width,
    box: s.clientWidth, viewBox: svg.viewBox.baseVal.width, step: gwHost().dataset.step,
    zoom: gwRoot().querySelector('.graph-zoom').textContent };
}"""


def view(page):
    return page.evaluate(VIEW_JS)


def wait_view(page, check, what, timeout=3.0, arg=None):
    """The view once `check` (a JavaScript function of the view and `arg`) holds for it."""
    try:
        handle = page.wait_for_function(
            f"(arg) => {{ const v = ({VIEW_JS})(); return ({check})(v, arg) ? v : false; }}",
            arg=arg,
            timeout=timeout * 1000,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: {view(page)}") from None
    return handle.json_value()


def test_keys_pan_and_zoom_the_graph_without_stepping(desktop, site_url):
    page = desktop
    open_at(page, site_url, "src=" + src(big_program()))
    start = view(page)
    assert start["width"] == pytest.approx(start["viewBox"], abs=1)  # too big to fit readably: scale 1
    assert start["width"] > start["box"]  # so it pans at 1280 px
    assert start["left"] == 0
    page.locator("#graph-scroll").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    moved = wait_view(page, "(v) => v.left > 0", "→ did not pan")
    assert moved["step"] == start["step"]  # the arrows pan here; they do not step
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_view(page, "(v) => v.left === 0", "← did not pan back")
    page.keyboard.press("+")
    zoomed = view(page)
    assert zoomed["width"] == pytest.approx(start["width"] * 1.25, abs=2)
    assert zoomed["zoom"] == "125%"
    page.keyboard.press("-")
    page.keyboard.press("-")  # below readable size, as asked, and the readout says so
    assert view(page)["width"] == pytest.approx(start["width"] / 1.25, abs=2)
    assert "small text" in view(page)["zoom"]
    page.keyboard.press("+")
    page.keyboard.press("+")
    page.keyboard.press("0")  # fit: the whole graph
    fitted = view(page)
    assert fitted["width"] <= fitted["box"] + 1 and "small text" in fitted["zoom"]


def test_dragging_and_ctrl_wheel_pan_and_zoom(desktop, site_url):
    page = desktop
    open_at(page, site_url, "src=" + src(big_program()))
    page.locator("#graph-scroll").scroll_into_view_if_needed()
    box = page.locator("#graph-scroll").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    start = view(page)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 60, y, steps=3)
    page.mouse.move(x - 150, y, steps=3)
    page.mouse.up()
    dragged = view(page)
    assert dragged["left"] == pytest.approx(150, abs=3)
    assert dragged["step"] == start["step"]
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    zoomed = wait_view(page, "(v, w) => v.width > w + 10", "ctrl + wheel did not zoom in", arg=start["width"])
    assert zoomed["zoom"] != "100%"
    fit(page)
    assert view(page)["width"] <= view(page)["box"] + 1  # the whole graph


def test_fit_shows_a_small_graph_whole_and_the_buttons_zoom(desktop, site_url):
    page = desktop
    open_at(page, site_url, "preset=diamond")
    fitted = view(page)
    assert fitted["width"] <= fitted["box"] + 1  # the whole diamond in its box
    assert fitted["width"] > fitted["viewBox"]  # and bigger than its layout, room allowing
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    assert view(page)["width"] == pytest.approx(fitted["width"] * 1.25**2, abs=3)
    page.get_by_role("button", name="Zoom out").click()
    assert view(page)["width"] == pytest.approx(fitted["width"] * 1.25, abs=3)
    fit(page)
    assert view(page)["width"] == pytest.approx(fitted["width"], abs=1)


def test_two_fingers_zoom_on_a_phone(phone, site_url):
    page = phone
    open_at(page, site_url, "preset=neuron")
    page.locator("#graph-scroll").scroll_into_view_if_needed()
    box = page.locator("#graph-scroll").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    start = view(page)
    cdp = page.context.new_cdp_session(page)

    def touch(kind, spread):
        points = (
            [] if kind == "touchEnd" else [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
        )
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 40)
    for spread in (50, 60, 70, 80):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    zoomed = wait_view(page, "(v, w) => v.width > w * 1.5", "two fingers did not zoom in", arg=start["width"])
    assert zoomed["zoom"] != "100%"


# The node the step is about (being computed or visited) lies wholly inside the graph's box.
FOCUS_IN_VIEW_JS = """() => {
  const s = gwRoot().querySelector('#graph-scroll');
  const g = gwRoot().querySelector('#graph .node.is-visiting, #graph .node.is-current');
  if (!g || !g.querySelector('.node-box')) return false;
  const r = g.querySelector('.node-box').getBoundingClientRect();
  const v = s.getBoundingClientRect();
  return r.left >= v.left - 1 && r.right <= v.left + s.clientLeft + s.clientWidth + 1
    && r.top >= v.top - 1 && r.bottom <= v.top + s.clientTop + s.clientHeight + 1;
}"""


def wait_focus_in_view(page, what, timeout=4.0):
    try:
        page.wait_for_function(FOCUS_IN_VIEW_JS, timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: the step's node is not in the graph's box") from None


def test_the_step_in_progress_stays_in_view_through_a_big_graph(stage, site_url):
    page = stage
    open_at(page, site_url, "src=" + src(big_program()))
    # Questions off: a question about a node is kept in view before the step's own
    # (test_whole_graph_in_view.py checks that one).
    page.locator("#checkpoint-switch").uncheck()
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)
    assert not page.evaluate(
        "() => { const s = gwRoot().querySelector('#graph-scroll'); return s.scrollWidth <= s.clientWidth; }"
    )
    click(page, "start-backward")  # the output, at the far right
    wait_focus_in_view(page, "the seed")
    for i in range(12):
        click(page, "step-forward")
        wait_focus_in_view(page, f"backward visit {i + 1}")
    click(page, "reset")
    for i in range(10):
        click(page, "step-forward")
        wait_focus_in_view(page, f"forward node {i + 1}")


def test_long_names_are_shortened_and_given_whole_on_hover_and_focus(stage, site_url):
    page = stage
    open_at(page, site_url, "src=" + src(LONG_NAMES))
    shown = page.evaluate("""() => [...gwRoot().querySelectorAll('#graph [data-node]')].map((g) => ({
      name: g.dataset.node, shown: g.querySelector('.node-label').textContent,
      width: g.querySelector('.node-label').getBBox().width,
      op: g.querySelector('.node-op').textContent ? g.querySelector('.node-op').getBBox().x
        : Number(g.querySelector('.node-box').getAttribute('width')),
      pad: Number(g.querySelector('.node-label').getAttribute('x')),
      title: g.querySelector('title').textContent, label: g.getAttribute('aria-label') }))""")
    long = [n for n in shown if len(n["name"]) == 24]
    assert len(long) == 4
    for n in long:
        assert n["shown"].endswith("…") and n["name"].startswith(n["shown"][:-1])
        assert len(n["shown"]) >= 5  # still says something
        assert n["pad"] + n["width"] <= n["op"]  # clear of the operation's symbol (or the box's edge)
        assert n["title"].startswith(n["name"])
        assert n["label"].startswith(n["name"] + ":")
    assert_readable(page, "long names", edge_labels=False)
