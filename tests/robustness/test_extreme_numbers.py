"""nan, inf, -inf, -0, huge and tiny numbers display as themselves in
the graph, the table, the narration and the link, never break the layout, and stepping
forward and back through them keeps every node equal to the CPython engine's trace.
"""

import json

from engine.api import handle
from tests.support.links import deflate
from tests.support.page_state import check_against_engine, link_state, open_settled, settle

# a = 0; log(0) = -inf; -inf * 0 = nan; 0 * -1 = -0; exp(700) ≈ 1.014e+304; 5e-324 is
# the smallest float; the grads bring inf (a.grad) and 1.014e+304 too.
PROGRAM = """a = 0
b = log(a)
c = b * 0
d = a * -1
e = exp(a + 700)
s = 5e-324
t = s * 1
u = d + e
v = b + c
y = t + u + v"""

# What a learner reads (format.fmt, the engine's "%.4g") and what data-data holds.
SHOWN = {"b": "-inf", "c": "nan", "d": "-0", "e": "1.014e+304", "s": "4.941e-324", "y": "nan", "a": "0"}
EXACT = {"b": "-Infinity", "c": "NaN", "d": "0", "e": "1.0142320547350045e+304", "s": "5e-324", "y": "NaN"}

READ_JS = """() => {
  const out = {};
  for (const g of gwRoot().querySelectorAll('#graph [data-node]')) {
    const box = g.querySelector('.node-box').getBBox();
    const texts = [...g.querySelectorAll('text')].map((t) => {
      const b = t.getBBox();
      return {cls: t.getAttribute('class'), text: t.textContent,
              x: b.x, right: b.x + b.width, y: b.y, bottom: b.y + b.height};
    });
    const values = [...g.querySelectorAll('.node-value')].map((t) => t.textContent);
    const row = gwRoot().querySelector(`#node-rows tr[data-row="${CSS.escape(g.dataset.node)}"]`);
    out[g.dataset.node] = {
      data: g.dataset.data, grad: g.dataset.grad, aria: g.getAttribute('aria-label'), values,
      box: {w: box.width, h: box.height}, texts,
      row: row ? [row.querySelector('.row-data').textContent, row.querySelector('.row-grad').textContent] : null,
    };
  }
  return {nodes: out, narration: gwRoot().querySelector('#narration').innerText};
}"""


def layout_problems(nodes):
    problems = []
    for label, n in nodes.items():
        for t in n["texts"]:
            if t["cls"] and "node-tag" in t["cls"] or "node-note" in (t["cls"] or ""):
                continue  # tags and notes sit outside the box on purpose
            if not t["text"]:
                continue
            if t["x"] < -0.5 or t["right"] > n["box"]["w"] + 0.5 or t["y"] < -0.5 or t["bottom"] > n["box"]["h"] + 0.5:
                problems.append(
                    f"{label}: {t['text']!r} ({t['cls']}) spills out of its box "
                    f"({t['x']:.1f}..{t['right']:.1f} of {n['box']['w']})"
                )
    return problems


def step_and_check(page, key_or_button, count):
    """Step `count` times, checking every node against the engine; the narrations."""
    narrations = []
    for i in range(count):
        if key_or_button.startswith("#"):
            page.click(key_or_button)
        else:
            page.keyboard.press(key_or_button)
        settle(page)
        state, problems = check_against_engine(page)
        assert not problems, f"after {key_or_button} #{i + 1} ({state['pass']} {state['step']}):\n" + "\n".join(
            problems
        )
        narrations.append(page.inner_text("#narration"))
    return narrations


def test_special_numbers_show_as_themselves_and_step(page, site_url):
    answer = json.loads(handle(json.dumps({"cmd": "load", "program": PROGRAM})))
    assert answer["ok"]
    n_forward, n_backward = len(answer["forward"]), len(answer["backward"])
    open_settled(page, site_url + "index.html?gw=1&prog=" + deflate(PROGRAM))
    assert page.evaluate("() => gwRoot().querySelector('#graph').dataset.graph") == "program"
    assert link_state(page.evaluate("() => location.search"))["program"] == PROGRAM

    page.locator("#position").click()  # focus off any input, so the arrow keys step
    narrations = step_and_check(page, "ArrowRight", n_forward)
    shown = page.evaluate(READ_JS)
    for label, text in SHOWN.items():
        node = shown["nodes"][label]
        assert node["values"][0] == text, f"{label}: the graph shows {node['values'][0]!r}, not {text!r}"
        assert node["row"][0] == text, f"{label}: the table shows {node['row'][0]!r}, not {text!r}"
        assert f"data {text}," in node["aria"], f"{label}: aria-label {node['aria']!r}"
    for label, text in EXACT.items():
        assert shown["nodes"][label]["data"] == text, (label, shown["nodes"][label]["data"])
    assert "nan" in shown["narration"], shown["narration"]  # y = ... + nan = nan
    assert not layout_problems(shown["nodes"]), layout_problems(shown["nodes"])

    # The narration of each special forward step says the number as itself.
    for label, text in [("b", "= -inf"), ("c", "= nan"), ("d", "= -0"), ("e", "= 1.014e+304"), ("s", "4.941e-324")]:
        index = next(i for i, f in enumerate(answer["forward"]) if answer["nodes"][f["node"]]["label"] == label)
        assert text in narrations[index], f"step {index} ({label}): {narrations[index]!r}"

    narrations_back = step_and_check(page, "#step-forward", n_backward)  # the whole backward pass
    shown = page.evaluate(READ_JS)
    assert shown["nodes"]["a"]["grad"] == "Infinity" and shown["nodes"]["a"]["values"][1] == "inf"
    assert shown["nodes"]["a"]["row"][1] == "inf"
    assert shown["nodes"]["a+700"]["values"][1] == "1.014e+304"
    assert not layout_problems(shown["nodes"]), layout_problems(shown["nodes"])
    assert any("inf" in t for t in narrations_back), narrations_back
    assert link_state(page.evaluate("() => location.search"))["pass"] == "backward"

    step_and_check(page, "#step-back", n_forward + n_backward)  # all the way back
    assert page.evaluate("() => gwHost().dataset.pass") == "start"


def test_special_values_round_trip_through_the_link(page, site_url):
    values = "x1:-0,w1:1e-300,x2:-1000000000000,w2:5e-324"
    open_settled(page, site_url + f"index.html?gw=1&preset=neuron&v={values}&pass=backward&step=3")
    search = page.evaluate("() => location.search")
    assert f"v={values}&" in search, f"the values did not round-trip: {search}"
    state, problems = check_against_engine(page)
    assert not problems, "\n".join(problems)
    assert (state["pass"], state["step"]) == ("backward", 3)
    # A value typed into an input field goes into the link as itself, too.
    field = page.locator("#value-w1")
    field.fill("1e-200")
    field.press("Enter")
    settle(page)
    search = page.evaluate("() => location.search")
    assert "w1:1e-200" in search, search
    state, problems = check_against_engine(page)
    assert not problems, "\n".join(problems)
    assert (state["pass"], state["step"]) == ("backward", 3), "editing a value lost the learner's place"
