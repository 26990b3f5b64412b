"""How a graph is put on the page (web/panels/graph.js, web/lib/slices.js).

A preset is drawn whole, at once. A big program's node and edge groups (with the
DOM contract's data-* and aria-label) are all there at once, but what is drawn in
them is made only for the part in view, and for the rest as the learner scrolls
to it; the node table's rows arrive over a few frames. These tests check that
whatever the learner scrolls to is drawn and right, also after stepping, and that
a graph replaced by another leaves nothing behind.
"""

import json

from engine.api import REST_LATER_FROM, handle
from tests.support.editor import SUBMIT_JS
from tests.support.frames import pushes
from tests.support.page import open_page, show_tab
from tests.support.page_state import settle
from tests.support.waits import after_frames, wait_still


def layered_program(inputs: int = 12, layers: int = 12) -> str:
    """About inputs × layers × 3 nodes: relu(x[i] * x[i+1] + 0.1) layers, summed."""
    lines = [f"x{i} = {0.5 + 0.1 * i:.1f}" for i in range(inputs)]
    row = [f"x{i}" for i in range(inputs)]
    for layer in range(layers):
        nxt = []
        for i in range(inputs):
            name = f"h{layer}_{i}"
            lines.append(f"{name} = relu({row[i]} * {row[(i + 1) % inputs]} + 0.1)")
            nxt.append(name)
        row = nxt
    lines.append("y = " + " + ".join(row))
    return "\n".join(lines)


# Every node as drawn: its data-* and the numbers its box shows; every edge's line.
DRAWN_JS = """() => ({
  nodes: [...gwRoot().querySelectorAll('#graph [data-node]')].map((g) => ({
    label: g.dataset.node, data: g.dataset.data, grad: g.dataset.grad,
    box: !!g.querySelector('.node-box'),
    shown: [...g.querySelectorAll('.node-value')].map((t) => t.textContent),
    tag: g.querySelector('.node-tag:not([style*="none"]) text')?.textContent ?? null,
  })),
  edges: gwRoot().querySelectorAll('#graph [data-edge]').length,
  lines: gwRoot().querySelectorAll('#graph [data-edge] .edge-line').length,
  rows: gwRoot().querySelectorAll('#node-rows tr').length,
})"""

COMPLETE_JS = """(n) => gwRoot().querySelectorAll('#graph [data-node] .node-box').length === n
  && gwRoot().querySelectorAll('#graph [data-edge] .edge-line').length
     === gwRoot().querySelectorAll('#graph [data-edge]').length
  && gwRoot().querySelectorAll('#node-rows tr').length === n"""

FORMAT_JS = (
    "async (xs) => { const { fmt } = await import('/lib/format.js'); return xs.map((x) => x === null ? '—' : fmt(x)); }"
)


def load_program(page, program):
    page.click("#edit-program")
    page.evaluate(SUBMIT_JS, json.dumps(program))
    settle(page, timeout=30, what="the big program")


def expected_numbers(page, drawn):
    """What each node's box must show, from its own data-* (format.fmt of the exact value)."""
    values = []
    for n in drawn["nodes"]:
        values += [None if n["data"] == "" else float(n["data"]), None if n["grad"] == "" else float(n["grad"])]
    shown = page.evaluate(FORMAT_JS, values)
    return {n["label"]: shown[2 * i : 2 * i + 2] for i, n in enumerate(drawn["nodes"])}


# Scroll the graph from its left end to its right end, a screen at a time, a frame each.
SCROLL_THROUGH_JS = """() => new Promise((resolve) => {
  const s = gwRoot().querySelector('#graph-scroll');
  s.scrollLeft = 0;
  const next = () => {
    if (s.scrollLeft + s.clientWidth >= s.scrollWidth - 1) {
      return requestAnimationFrame(() => requestAnimationFrame(resolve));
    }
    s.scrollLeft += s.clientWidth;
    requestAnimationFrame(() => requestAnimationFrame(next));
  };
  requestAnimationFrame(next);
})"""


# The graph's scrollable size, once the new graph's layout has stopped changing (the node
# table filling in below it can resize the graph's box, and a refit then rescales it).
SCROLL_SIZE_JS = "() => { const s = gwRoot().querySelector('#graph-scroll'); return [s.scrollWidth, s.scrollHeight]; }"


def scroll_through(page):
    """Scroll the graph through from its left end to its right, a screen at a time, once
    its size has stopped changing (so that every part of it is scrolled past as laid out)."""
    wait_still(page, SCROLL_SIZE_JS, frames=5, timeout_ms=10_000)
    page.evaluate(SCROLL_THROUGH_JS)


def test_a_big_program_draws_what_is_seen_and_shows_its_numbers(page, site_url):
    program = layered_program()
    answer = json.loads(handle(json.dumps({"cmd": "load", "program": program})))
    count = len(answer["nodes"])
    assert count > 400  # far above the size that is drawn at once

    open_page(page, site_url, "diamond")
    load_program(page, program)
    # Every node's group is there at once, with the DOM contract's attributes...
    labels = page.eval_on_selector_all("#graph [data-node]", "gs => gs.map(g => g.dataset.node)")
    assert labels == [n["label"] for n in answer["nodes"]]
    # ...but only the part in view is drawn, the first layers (the inputs) among it.
    boxes = page.eval_on_selector_all("#graph [data-node]:has(.node-box)", "gs => gs.map(g => g.dataset.node)")
    assert 0 < len(boxes) < count and "x0" in boxes
    # Step with most of it undrawn, then look at all of it: the parts drawn later
    # show the steps too.
    page.locator("#step-forward").focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    scroll_through(page)
    page.wait_for_function(COMPLETE_JS, arg=count, timeout=20_000)

    drawn = page.evaluate(DRAWN_JS)
    assert drawn["edges"] == len(answer["edges"]) == drawn["lines"]
    assert drawn["rows"] == count
    computed = [n for n in drawn["nodes"] if n["data"] != ""]
    assert len(computed) == 30  # thirty steps forward: thirty nodes have their data
    want = expected_numbers(page, drawn)
    for n in drawn["nodes"]:
        assert n["box"], n["label"]
        assert n["shown"] == want[n["label"]], n["label"]
    # The node computed last, and only it, carries the "new" tag, wherever it sits.
    assert [n["tag"] for n in drawn["nodes"] if n["tag"]] == ["new"]


# Every text the narration shows from now on (a MutationObserver's record).
WATCH_NARRATION_JS = """() => {
  const el = gwRoot().querySelector('#narration');
  window.__narrations = [];
  new MutationObserver(() => window.__narrations.push(el.innerText.trim()))
    .observe(el, { childList: true, characterData: true, subtree: true });
}"""


def test_a_big_programs_sentences_and_questions_come_right_after_its_graph(page, site_url):
    # A graph this big comes in two parts (docs/api.md): the graph and its frames, then its
    # backward visits' sentences and its questions. What the learner reads is the whole
    # answer's, word for word, also at a visit they stood on while the program changed.
    program = layered_program()
    edited = program.replace("x0 = 0.5", "x0 = 0.7")
    whole, whole_edited = (json.loads(handle(json.dumps({"cmd": "load", "program": p}))) for p in (program, edited))
    assert len(whole["nodes"]) >= REST_LATER_FROM
    # the first visit whose sentence the new value changes
    k = next(k for k, (a, b) in enumerate(zip(whole["backward"], whole_edited["backward"])) if a["text"] != b["text"])
    assert k < 100

    open_page(page, site_url, "diamond")
    load_program(page, program)
    assert page.evaluate("gwHost().dataset.questions") == str(len(whole["questions"]))
    page.click("#start-backward")
    page.locator("#step-forward").focus()
    for _ in range(k):
        page.keyboard.press("ArrowRight")
    assert page.evaluate("[gwHost().dataset.pass, gwHost().dataset.step]") == ["backward", str(k)]
    assert page.inner_text("#narration").strip() == whole["backward"][k]["text"]

    page.evaluate(WATCH_NARRATION_JS)
    page.evaluate(SUBMIT_JS, json.dumps(edited))  # the place is kept: the same visit, new numbers
    settle(page, timeout=30, what="the edited program")
    assert page.evaluate("[gwHost().dataset.pass, gwHost().dataset.step]") == ["backward", str(k)]
    assert page.inner_text("#narration").strip() == whole_edited["backward"][k]["text"]
    # Before its sentence came the visit said nothing, never the old program's words.
    assert set(page.evaluate("window.__narrations")) <= {"", whole_edited["backward"][k]["text"]}
    assert page.evaluate("gwHost().dataset.questions") == str(len(whole_edited["questions"]))


def test_scrolling_draws_the_part_that_comes_into_view(page, site_url):
    open_page(page, site_url, "diamond")
    load_program(page, layered_program(inputs=10, layers=30))
    # Scroll to the far right at once: the output's end of the graph is drawn on the
    # next frame.
    page.evaluate("""() => new Promise((resolve) => {
      const s = gwRoot().querySelector('#graph-scroll');
      s.scrollLeft = s.scrollWidth;
      requestAnimationFrame(() => requestAnimationFrame(resolve));
    })""")
    assert page.evaluate("() => !!gwRoot().querySelector('#graph [data-node=\"y\"] .node-box')")


def test_the_graph_scrolls_to_the_node_being_visited(page, site_url):
    # The output sits at the far right of a wide graph: starting the backward pass
    # visits it, and the graph scrolls (itself, not the page) to show it, drawn.
    open_page(page, site_url, "diamond")
    load_program(page, layered_program(inputs=10, layers=30))
    assert page.evaluate("() => gwRoot().querySelector('#graph-scroll').scrollLeft") == 0
    page.click("#start-backward")  # the seed: the output's grad set to 1
    page.wait_for_function(
        """() => {
      const s = gwRoot().querySelector('#graph-scroll').getBoundingClientRect();
      const y = gwRoot().querySelector('#graph [data-node="y"]');
      const box = y.querySelector('.node-box')?.getBoundingClientRect();
      return box && box.left >= s.left - 1 && box.right <= s.right + 1;
    }""",
        timeout=10_000,
    )


SCROLL_TO_END_JS = """() => new Promise((resolve, reject) => {
  const s = gwRoot().querySelector('#graph-scroll');
  const timer = setTimeout(() => reject(new Error('no scroll event within 5 s')), 5000);
  s.addEventListener('scroll', () => { clearTimeout(timer); resolve(); }, { once: true });
  s.scrollLeft = s.scrollWidth;
})"""


def test_inputs_drawn_late_still_say_how_to_change_them(page, site_url):
    # Scrolled to the right end, a new big program is loaded: its inputs (at the left)
    # are drawn only when the learner scrolls back, and their tooltips say the same.
    open_page(page, site_url, "diamond")
    load_program(page, layered_program())
    # Scrolled, and its scroll event seen (by the graph's own listener first: added earlier).
    page.evaluate(SCROLL_TO_END_JS)
    page.evaluate(SUBMIT_JS, json.dumps(layered_program(inputs=11, layers=12)))
    settle(page, timeout=30, what="the second big program")
    assert page.evaluate("() => !gwRoot().querySelector('#graph [data-node=\"x0\"] .node-box')")
    page.evaluate("() => { gwRoot().querySelector('#graph-scroll').scrollLeft = 0; }")
    page.wait_for_function("() => !!gwRoot().querySelector('#graph [data-node=\"x0\"] title')")
    tips = page.eval_on_selector_all("#graph .is-input title", "ts => ts.map((t) => t.textContent)")
    assert len(tips) == 11 and all(
        t.endswith("(an input). Click to type a new value, or drag sideways.") for t in tips
    ), tips
    others = page.eval_on_selector_all("#graph [data-node]:not(.is-input) title", "ts => ts.map((t) => t.textContent)")
    assert others and not any("drag" in t for t in others)


def test_a_new_graph_stops_the_drawing_of_the_old_one(page, site_url):
    open_page(page, site_url, "diamond")
    load_program(page, layered_program())
    # At once another graph: nothing of the big one may be drawn into the new one.
    page.select_option("#preset", "add-mul")
    page.wait_for_function("() => gwRoot().querySelector('#graph').dataset.graph === 'add-mul'")
    after_frames(page, 10)  # frames in which a leftover drawing of the old graph would run (today it draws in one)
    drawn = page.evaluate(DRAWN_JS)
    preset = json.loads(handle(json.dumps({"cmd": "load", "preset": "add-mul"})))
    assert [n["label"] for n in drawn["nodes"]] == [n["label"] for n in preset["nodes"]]
    assert all(n["box"] for n in drawn["nodes"])
    assert page.evaluate("() => gwRoot().querySelectorAll('#graph .node-box').length") == len(preset["nodes"])
    assert drawn["rows"] == len(drawn["nodes"])


def test_a_new_graph_reuses_the_old_ones_elements_but_shows_nothing_of_it(page, site_url):
    # The second graph's nodes and rows are the first one's elements, relabelled:
    # after stepping in the first (tags, edge labels, numbers), none of that may stay.
    first = layered_program()
    second = layered_program(inputs=11, layers=13).replace("h", "k")
    answer = json.loads(handle(json.dumps({"cmd": "load", "program": second})))
    count = len(answer["nodes"])
    labels = [n["label"] for n in answer["nodes"]]
    open_page(page, site_url, "diamond")
    load_program(page, first)
    page.click("#start-backward")
    page.locator("#step-forward").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => gwRoot().querySelectorAll('#graph .edge-label').length > 0")
    page.evaluate(
        """(program) => {
      const area = gwRoot().querySelector('#program-editor');
      area.value = program; area.dispatchEvent(new Event('input', { bubbles: true }));
      [...gwRoot().querySelectorAll('#editor button')].find((b) => b.textContent.trim() === 'Done').click();
    }""",
        second,
    )
    page.wait_for_function(
        "(n) => gwRoot().querySelectorAll('#graph [data-node]').length === n"
        " && gwRoot().querySelector('#graph [data-node=\"k0_0\"]')",
        arg=count,
        timeout=20_000,
    )
    scroll_through(page)
    page.locator("#node-rows").scroll_into_view_if_needed()
    page.wait_for_function(COMPLETE_JS, arg=count, timeout=20_000)
    drawn = page.evaluate(DRAWN_JS)
    assert [n["label"] for n in drawn["nodes"]] == labels
    assert drawn["edges"] == drawn["lines"] == len(answer["edges"])
    # The editor keeps the learner's place: the same step of the new backward pass.
    # Every node shows the new graph's numbers, and only that step's tags and labels.
    assert [float(n["data"]) for n in drawn["nodes"]] == [float(n["data"]) for n in answer["nodes"]]
    want = expected_numbers(page, drawn)
    assert all(n["shown"] == want[n["label"]] for n in drawn["nodes"])
    frame = answer["backward"][3]
    tagged = {labels[frame["node"]]} | {labels[p["parent"]] for p in pushes(frame, answer)}
    assert {n["label"] for n in drawn["nodes"] if n["tag"]} == tagged
    texts = page.evaluate("""() => ({
      labels: [...gwRoot().querySelectorAll('#graph [data-node]')].map((g) =>
        [g.dataset.node, g.querySelector('.node-label').textContent,
         g.querySelector('title').textContent.split(' = ')[0], g.getAttribute('aria-label').split(':')[0]]),
      edges: [...gwRoot().querySelectorAll('#graph [data-edge]')].map((g) => [g.dataset.from, g.dataset.to]),
      edgeLabels: [...gwRoot().querySelectorAll('#graph .edge-label')].filter((g) => g.style.display !== 'none').length,
      rows: [...gwRoot().querySelectorAll('#node-rows tr')]
        .map((tr) => [tr.dataset.row, tr.querySelector('.row-label').textContent]),
    })""")

    # (A name too long for its box is shown shortened, with an ellipsis: graph-text.js.)
    def shows_its_name(label, shown, title, aria):
        return label == title == aria and (shown == label or (shown.endswith("…") and label.startswith(shown[:-1])))

    assert all(shows_its_name(*row) for row in texts["labels"]), "a node shows another node's name"
    assert texts["edges"] == [[labels[e["parent"]], labels[e["child"]]] for e in answer["edges"]]
    assert texts["edgeLabels"] == len(frame["pushes"])
    assert texts["rows"] == [[label, label] for label in labels]


def test_a_preset_is_drawn_whole_in_the_same_task(blank_page):
    # Small graphs never wait for a frame: right after build() every node is drawn.
    result = blank_page.evaluate("""async () => {
      const { GraphView } = await import('/panels/graph.js');
      const all = await (await fetch('/prerender/all.json')).json();
      const answer = all.answers['double-diamond'].load;
      const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      const box = document.createElement('div');
      box.append(svg);
      document.body.append(box);
      const view = new GraphView(svg);
      view.build(answer);
      return { nodes: answer.nodes.length, drawn: svg.querySelectorAll('[data-node] .node-box').length,
               edges: answer.edges.length, lines: svg.querySelectorAll('.edge-line').length };
    }""")
    assert result["drawn"] == result["nodes"] and result["lines"] == result["edges"]


def test_a_big_programs_visit_order_list_is_made_when_needed(page, site_url):
    program = layered_program()
    answer = json.loads(handle(json.dumps({"cmd": "load", "program": program})))
    correct = [n["label"] for n in answer["nodes"]][::-1]
    open_page(page, site_url, "diamond")
    load_program(page, program)
    # Run order works at once (the correct order: every grad right), list made or not.
    show_tab(page, "Visit order")
    page.get_by_role("button", name="Run order").click()
    page.wait_for_function(
        "() => /Every grad is right/.test(gwRoot().querySelector('#experiment-result').innerText)", timeout=20_000
    )
    # Near the screen (or once the page is idle) the list holds every node, in that order.
    page.locator("#visit-order").scroll_into_view_if_needed()
    page.wait_for_function(
        "(n) => gwRoot().querySelectorAll('#visit-order li').length === n", arg=len(correct), timeout=10_000
    )
    assert page.eval_on_selector_all("#visit-order li", "lis => lis.map(li => li.dataset.label)") == correct
