"""The "Your code" mode (web/modes/your-code.js, web/actions/code.js) in headless Chromium,
at 1280×800 and on a 390×844 touch phone, driven by its DOM contract (docs/page.md): the tab
"Your code", the mode's one multi-line textbox, "Run my code", the nodes' data-grad (the
learner's) and data-expected (the right grads), [data-findings] with one [data-finding] per
problem, and the host's data-code.

Every exercise's solution gets the right grads (the engine's own load answer is the oracle)
and no finding on every preset it can build; each classic mistake is named at its node and
at its line (the line found in the source here, by hand); errors show where they belong; the
code is kept in the browser's storage and in links. The broken sources are the ones
tests/engine/test_yourcode.py runs in CPython.
"""

import base64
import json
import re
import zlib
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from engine import api, yourcode
from engine.presets import load_presets
from tests.support.page import BOOT_TIMEOUT_MS, axe_audit, axe_report, sized_page, wait_ready

SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
PRESETS = [preset["id"] for preset in load_presets()]
PR64 = "a = 1\nb = a + a\nc = b + b"  # plain recursion visits b twice
RUN_TIMEOUT_MS = 60_000  # the first run waits for the code worker's boot


@pytest.fixture(scope="module", params=sorted(SIZES))
def screen(browser, request):
    yield from sized_page(browser, SIZES[request.param], request.param)


def solution(exercise_id):
    return yourcode.exercise(exercise_id)["solution"]


def changed(source, old, new):
    """``source`` with ``old`` replaced (it must be there once), and the line ``new`` starts on."""
    assert source.count(old) == 1, old
    edited = source.replace(old, new)
    return edited, edited[: edited.index(new)].count("\n") + 1


def line_of(source, text, after=""):
    start = source.index(after) if after else 0
    return source[: source.index(text, start)].count("\n") + 1


def src(program):
    return base64.urlsafe_b64encode(program.encode()).decode().rstrip("=")


def open_mode(page, site_url, query=""):
    page.goto(f"{site_url}?start=code&{query}")
    wait_ready(page)
    editor(page).wait_for(timeout=BOOT_TIMEOUT_MS)
    return page


def editor(page):
    return page.locator("#stage-code").get_by_role("textbox")


def write(page, text):
    """Replace the editor's whole text, as a paste over select-all does."""
    editor(page).focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text)


# A copy event on the editor (what Ctrl+C sends it), with clipboard data of its own: the
# editor puts the selected text there.
COPY = """box => {
  const data = new DataTransfer();
  box.dispatchEvent(new ClipboardEvent("copy", { clipboardData: data, bubbles: true, composed: true,
                                                  cancelable: true }));
  return data.getData("text/plain");
}"""


def text_of(box):
    """The editor's whole text, as a learner copies it out: select-all, then copy. (The
    editor draws only the lines near its visible part; a copy gives its whole text.)"""
    box.focus()
    box.page.keyboard.press("ControlOrMeta+a")
    return box.evaluate(COPY)


def reset_button(page):
    return page.locator("#stage-code").get_by_role("button", name="Reset", exact=True)


def choose_exercise(page, exercise_id):
    page.locator("#stage-code").get_by_label("Exercise").select_option(exercise_id)


def choose_preset(page, preset_id):
    """Load a preset from the chooser and wait until its own graph (not a run's) is on screen."""
    page.get_by_label("Preset", exact=True).select_option(preset_id)
    page.wait_for_function(
        "(id) => gwRoot().getElementById('graph').dataset.graph === id && gwHost().dataset.pass !== 'mode'"
        " && !gwHost().hasAttribute('aria-busy')",
        arg=preset_id,
        timeout=20_000,
    )


def run(page):
    """Click Run my code and wait for its answer; returns every data-code the host took."""
    page.evaluate(
        """() => {
          const host = gwHost();
          window.__codeStates = [];
          new MutationObserver(() => window.__codeStates.push(host.dataset.code ?? null))
            .observe(host, { attributes: true, attributeFilter: ["data-code"] });
        }"""
    )
    page.locator("#stage-code").get_by_role("button", name="Run my code", exact=True).click()
    page.wait_for_function("gwHost().dataset.code && gwHost().dataset.code !== 'running'", timeout=RUN_TIMEOUT_MS)
    return page.evaluate("window.__codeStates")


def graph_grads(page):
    """{label: (data-grad, data-expected)} of every node on the graph."""
    return {
        label: (grad, expected)
        for label, grad, expected in page.eval_on_selector_all(
            "#graph [data-node]", "gs => gs.map(g => [g.dataset.node, g.dataset.grad, g.dataset.expected])"
        )
    }


# Where the editor's marked line is, and what of the screen the learner sees: below the
# sticky controls and graph (on a phone) and above the screen's foot.
MARKED_LINE_AND_VIEW = """() => {
  const line = gwRoot().querySelector("#code-editor-box .cm-marked-line");
  const sticky = gwRoot().querySelector(".stage-main");
  const top = getComputedStyle(sticky).position === "sticky" ? sticky.getBoundingClientRect().bottom : 0;
  const rect = line?.getBoundingClientRect();
  return rect ? { top: rect.top, bottom: rect.bottom, viewTop: top, viewBottom: innerHeight } : null;
}"""


def assert_line_in_view(page, what):
    """The picked finding's line is on screen, clear of the sticky graph (it scrolls there)."""
    try:
        page.wait_for_function(
            f"() => {{ const at = ({MARKED_LINE_AND_VIEW})();"
            " return Boolean(at) && at.top >= at.viewTop && at.bottom <= at.viewBottom; }",
            timeout=3_000,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: the marked line is not in view: {page.evaluate(MARKED_LINE_AND_VIEW)}") from None


def findings(page):
    return page.eval_on_selector_all(
        "[data-findings] [data-finding]", "lis => lis.map(li => [li.dataset.node, li.dataset.line])"
    )


def named(page):
    """(node, line) for every node each finding names (data-nodes: every node its mistake affected)."""
    return {
        (node, int(line))
        for nodes, line in page.eval_on_selector_all(
            "[data-findings] [data-finding]", "lis => lis.map(li => [JSON.parse(li.dataset.nodes), li.dataset.line])"
        )
        for node in nodes
        if line
    }


def link_with(page, code, timeout_s=10):
    """The page's address once its link holds `code` (code=, deflate-raw and base64url), and
    the browser's storage holds it too."""
    # The code is kept (storage, then the link) by debounced work the page counts as busy:
    # once the storage holds it and nothing is pending, the link is written too.
    try:
        page.wait_for_function(
            "(code) => !document.documentElement.dataset.busy && location.search.includes('code=')"
            " && localStorage.getItem('gradwalk:your-code:' + gwRoot().querySelector('#code-exercise').value) === code",
            arg=code,
            timeout=timeout_s * 1000,
        )
    except PlaywrightTimeoutError:
        pass  # said below
    link = page.evaluate("location.href")
    encoded = parse_qs(urlsplit(link).query).get("code", [""])[0]
    packed = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    if not encoded or zlib.decompress(packed, -15).decode() != code:
        raise AssertionError(f"the link never held the code: {link}")
    stored = page.evaluate(
        "localStorage.getItem('gradwalk:your-code:' + gwRoot().querySelector('#code-exercise').value)"
    )
    assert stored == code, f"the browser's storage does not hold the code: {stored!r}"
    return link


def engine_grads(preset_id):
    answer = json.loads(api.handle(json.dumps({"cmd": "load", "preset": preset_id})))
    return {node["label"]: node["grad"] for node in answer["nodes"]}


def buildable(exercise_id):
    """The presets an exercise's solution can build (CPython's engine.yourcode says which)."""
    out = []
    for preset_id in PRESETS:
        request = {"exercise": exercise_id, "source": solution(exercise_id), "preset": preset_id}
        if json.loads(yourcode.run(json.dumps(request)))["ok"]:
            out.append(preset_id)
    return out


# -- a right engine ---------------------------------------------------------------------------


def test_every_solution_gets_the_right_grads_and_no_finding_on_every_preset_it_builds(screen, site_url):
    page = open_mode(screen, site_url)
    assert page.get_by_role("tab", name="Your code", exact=True).get_attribute("aria-selected") == "true"
    for exercise_id in yourcode.EXERCISES:
        choose_exercise(page, exercise_id)
        page.get_by_role("button", name="Show a solution", exact=True).click()
        assert text_of(editor(page)) == solution(exercise_id)
        presets = buildable(exercise_id)
        assert len(presets) >= 8
        for preset_id in presets:
            what = f"{exercise_id} on {preset_id} at {page.size_name}"
            choose_preset(page, preset_id)
            states = run(page)
            assert states[0] == "running" and states[-1] == "done", what
            assert page.locator("[data-findings]").count() == 1, what
            assert findings(page) == [], what
            grads = graph_grads(page)
            constants = set(page.eval_on_selector_all("#graph .node.is-constant", "gs => gs.map(g => g.dataset.node)"))
            for label, (grad, expected) in grads.items():
                if label in constants:  # a number in an operation: no right grad to judge it by
                    assert expected == "", what
                    continue
                assert grad != "" and float(grad) == pytest.approx(float(expected), rel=1e-9, abs=1e-12), what
            own = engine_grads(preset_id)  # the engine's own backward pass: an independent oracle
            # (t1, t2, ... are numbered in the order each graph lists its nodes: another node there)
            named = [label for label in own if label in grads and not re.search(r"\bt\d+\b", label)]
            assert len(named) >= 2, what
            for label in named:
                assert float(grads[label][0]) == pytest.approx(own[label], rel=1e-9, abs=1e-12), (what, label)
            assert page.locator("#graph .node.is-wrong").count() == 0, what
            assert page.evaluate("gwHost().dataset.pass") == "mode", what


# -- each classic mistake, at its node and its line ------------------------------------------------


def overwrite():
    source, _ = changed(solution("mul"), "self.grad += 1.0 * out.grad", "self.grad = 1.0 * out.grad")
    source, line = changed(source, "other.grad += 1.0 * out.grad", "other.grad = 1.0 * out.grad")
    return "mul", source, f"src={src(PR64)}", {("a", line), ("b", line)}, {"a"}


def own_value():
    source, line = changed(solution("mul"), "self.grad += other.data * out.grad", "self.grad += self.data * out.grad")
    return "mul", source, "preset=add-mul", {("d", line)}, {"d"}


def no_visited_set():
    source, _ = changed(
        solution("backward"),
        "            if v not in visited:\n"
        "                visited.add(v)\n"
        "                for child in v._prev:\n"
        "                    build_topo(child)\n"
        "                topo.append(v)\n",
        "            for child in v._prev:\n                build_topo(child)\n            topo.append(v)\n",
    )
    line = line_of(source, "topo.append(v)")
    return "backward", source, "preset=double-diamond", {("c", line), ("d", line)}, {"a"}


def forwards():
    source, line = changed(solution("backward"), "for v in reversed(topo):", "for v in topo:")
    return "backward", source, "preset=diamond", {("b", line + 1), ("c", line + 1)}, {"a"}


def plain_recursion():
    source, _ = changed(solution("backward"), "self._prev = set(_children)", "self._prev = tuple(_children)")
    start, end = source.index("        # >>> write here"), source.index("        # <<<")
    source = (
        source[:start] + "        # >>> write here\n        self.grad = 1.0\n        self.walk()\n\n"
        "    def walk(self):\n        self._backward()\n        for child in self._prev:\n            child.walk()\n"
        + source[end:]
    )
    line = line_of(source, "self._backward()", after="def walk")
    return "backward", source, f"src={src(PR64)}", {("b", line)}, {"a"}


def no_seed():
    source, _ = changed(solution("backward"), "        self.grad = 1.0\n", "")
    return "backward", source, "preset=diamond", {("d", line_of(source, "def backward"))}, set()


def tanh_derivative():
    source, line = changed(solution("tanh"), "self.grad += (1 - t**2) * out.grad", "self.grad += (1 - x**2) * out.grad")
    return "tanh", source, "preset=neuron", {("n", line)}, {"n"}


MISTAKES = [overwrite, own_value, no_visited_set, forwards, plain_recursion, no_seed, tanh_derivative]


def test_each_classic_mistake_is_named_at_its_node_and_line(screen, site_url):
    page = screen
    for mistake in MISTAKES:
        exercise_id, source, query, expected, wrong = mistake()
        what = f"{mistake.__name__} at {page.size_name}"
        if query.startswith("preset=") and page.evaluate("location.search.includes('start=code')"):
            choose_exercise(page, exercise_id)
            choose_preset(page, query.removeprefix("preset="))
        else:
            open_mode(page, site_url, f"exercise={exercise_id}&{query}")
        write(page, source)
        assert run(page)[-1] == "done", what
        found = named(page)
        assert expected <= found, (what, found)
        # Their grads beside the right ones; a wrong node is marked.
        grads = graph_grads(page)
        for label in wrong:
            grad, right = grads[label]
            assert float(grad) != pytest.approx(float(right)), (what, label)
            assert "is-wrong" in page.locator(f"#graph [data-node='{label}']").get_attribute("class"), what
        # A finding picked marks its node on the graph.
        node, line = sorted(expected)[0]
        index = page.evaluate(
            "([node, line]) => [...gwRoot().querySelectorAll('[data-finding]')]"
            ".findIndex(li => JSON.parse(li.dataset.nodes).includes(node) && li.dataset.line === String(line))",
            [node, line],
        )
        item = page.locator("[data-finding]").nth(index)
        item.get_by_role("button").click()
        assert "is-picked" in item.get_attribute("class"), what
        marked = page.locator(f"#graph [data-node='{node}']").get_attribute("class")
        assert "is-named" in marked, (what, marked)
        assert f"line {line}" in page.locator("#narration").inner_text(), what
        assert_line_in_view(page, what)


# -- stepping their run, errors, kept code ------------------------------------------------------------


def test_their_run_is_stepped_with_the_same_controls_and_axe_finds_nothing(screen, site_url):
    page = open_mode(screen, site_url, "exercise=mul&preset=add-mul")
    exercise_id, source, *_ = own_value()
    choose_exercise(page, exercise_id)
    write(page, source)
    assert run(page)[-1] == "done"
    host = page.locator("#gradwalk")
    assert host.get_attribute("data-pass") == "mode"
    last = int(host.get_attribute("data-step"))
    assert last >= 3  # the seed and a visit per operation
    page.get_by_role("button", name="Step back").click()
    assert int(host.get_attribute("data-step")) == last - 1
    position = page.locator("#position").inner_text()
    assert position.startswith("Your run")
    # The position counts visits as the frame's sentence does, and steps apart from them.
    visit = re.search(r"visit (\d+ of \d+)", position)
    if visit:
        assert f"(visit {visit.group(1)})" in page.locator("#narration").inner_text(), position
    assert re.search(rf"\(step {last} of {last + 1}\)$", position), position
    page.get_by_role("button", name="Step forward").click()
    assert int(host.get_attribute("data-step")) == last
    # The arrow keys step it too (from anywhere in the widget but a text field).
    page.locator("#stage-code").get_by_role("button", name="Run my code").focus()
    page.keyboard.press("ArrowLeft")
    assert int(host.get_attribute("data-step")) == last - 1
    page.keyboard.press("ArrowRight")
    results = axe_audit(page)
    assert results.violations_count == 0, axe_report(results)


def test_a_python_error_shows_at_its_line_and_a_missing_operation_offers_graphs(screen, site_url):
    page = open_mode(screen, site_url, "exercise=engine&preset=diamond")
    write(page, "class Value:\n    def f(self)\n        pass\n")
    assert run(page)[-1] == "error"
    said = page.locator("#code-result").inner_text()
    assert "Line 2" in said and "SyntaxError" in said
    # An operation their class lacks: named, with the presets it can build.
    choose_exercise(page, "mul")
    page.get_by_role("button", name="Show a solution", exact=True).click()
    choose_preset(page, "cos")
    assert run(page)[-1] == "error"
    said = page.locator("#code-result").inner_text()
    assert "can't build this graph" in said and "__sub__" in said
    offered = page.eval_on_selector_all("#code-result [data-preset]", "bs => bs.map(b => b.dataset.preset)")
    assert "cos" not in offered and "diamond" in offered
    page.locator("#code-result [data-preset='diamond']").click()
    page.wait_for_function("gwHost().dataset.code === 'done'", timeout=RUN_TIMEOUT_MS)
    assert findings(page) == []
    assert page.locator("#graph").get_attribute("data-graph") == "diamond"


def test_a_sandbox_error_shows_its_message_and_the_next_run_works(screen, site_url):
    page = open_mode(screen, site_url, "exercise=mul&preset=add-mul")
    write(page, "import builtins\ndel builtins.len\n" + solution("mul"))
    assert run(page)[-1] == "error"
    assert "changed Python itself" in page.locator("#stage-code").inner_text()
    reset_button(page).click()
    assert text_of(editor(page)) == yourcode.exercise("mul")["scaffold"]
    page.get_by_role("button", name="Show a solution", exact=True).click()
    assert run(page)[-1] == "done"  # a fresh worker
    assert findings(page) == []


def test_the_code_is_kept_per_exercise_and_travels_in_links(screen, site_url):
    page = open_mode(screen, site_url, "exercise=tanh&preset=neuron")
    mine = solution("tanh").replace('"""', '"""Mine. ', 1)
    write(page, mine)
    link = link_with(page, mine)
    assert "exercise=tanh" in link and "start=code" in link
    # The page opened again without the code in its link: kept in the browser's storage.
    open_mode(page, site_url, "exercise=tanh&preset=neuron")
    assert text_of(editor(page)) == mine
    # Another exercise keeps its own.
    choose_exercise(page, "mul")
    other = solution("mul").replace('"""', '"""Mine too. ', 1)
    write(page, other)
    choose_exercise(page, "tanh")
    assert text_of(editor(page)) == mine
    choose_exercise(page, "mul")
    assert text_of(editor(page)) == other
    choose_exercise(page, "tanh")
    # The link alone, in a browser with nothing stored.
    fresh_page = sized_page(page.context.browser, SIZES[page.size_name], page.size_name)
    fresh = next(fresh_page)
    fresh.goto(link)
    wait_ready(fresh)
    editor(fresh).wait_for(timeout=BOOT_TIMEOUT_MS)
    assert text_of(editor(fresh)) == mine
    assert fresh.locator("#stage-code").get_by_label("Exercise").input_value() == "tanh"
    next(fresh_page, None)  # closes it, and fails on any error the page threw
    # Reset brings the scaffold back.
    reset_button(page).click()
    assert text_of(editor(page)) == yourcode.exercise("tanh")["scaffold"]
    # The chooser offers the exercises engine/exercises/ has, in its order, and a link to one
    # the site does not have opens the first.
    open_mode(page, site_url, "exercise=no-such-exercise&preset=neuron")
    chooser = page.locator("#stage-code").get_by_label("Exercise")
    assert chooser.locator("option").evaluate_all("os => os.map(o => o.value)") == list(yourcode.EXERCISES)
    assert chooser.input_value() == yourcode.EXERCISES[0]
    assert text_of(editor(page)) == other  # (mul is the first: what the learner kept for it)


def test_a_full_storage_is_tolerated(screen, site_url):
    full_page = sized_page(screen.context.browser, SIZES[screen.size_name], screen.size_name)
    page = next(full_page)
    page.add_init_script("Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); }")
    open_mode(page, site_url, "exercise=mul&preset=add-mul")
    write(page, solution("mul"))
    assert run(page)[-1] == "done"
    page.wait_for_function("location.search.includes('code=')", timeout=5_000)  # kept in the link all the same
    next(full_page, None)  # closes it, and fails on any error the page threw


def test_the_element_opens_the_mode_on_its_exercise_with_the_chooser_hidden(screen, site_url):
    page = screen
    page.goto(f"{site_url}lesson.html")
    page.evaluate("localStorage.clear()")
    page.evaluate(
        """() => {
          const el = document.createElement("grad-walk");
          el.id = "code-widget";
          for (const [k, v] of [["preset", "add-mul"], ["start", "code"], ["exercise", "engine"],
                                ["hide", "exercises"]]) el.setAttribute(k, v);
          document.body.append(el);
        }"""
    )
    widget = page.locator("#code-widget")
    box = widget.locator("#stage-code").get_by_role("textbox")
    box.wait_for(timeout=BOOT_TIMEOUT_MS)
    assert widget.get_by_role("tab", name="Your code", exact=True).get_attribute("aria-selected") == "true"
    assert widget.locator("#code-exercise").input_value() == "engine"
    assert not widget.locator("#code-exercise").is_visible()
    assert text_of(box) == yourcode.exercise("engine")["scaffold"]


# -- one run, consistent: one finding per mistake, constants, a set's order, errors, on screen --------


def equals_everywhere():
    """The mul exercise with = for += in both _backwards (issue 32's run, on the diamond)."""
    source = solution("mul")
    for old in ("self.grad += 1.0", "other.grad += 1.0", "self.grad += other.data", "other.grad += self.data"):
        source, _ = changed(source, old, old.replace("+=", "="))
    return source


# What the graph says of each node: its classes, its tag (the pill above it) and its data-*.
NODES = """() => Object.fromEntries([...gwRoot().querySelectorAll('#graph [data-node]')].map(g => {
  const tag = g.querySelector('.node-tag');
  return [g.dataset.node, { classes: [...g.classList], expected: g.dataset.expected ?? null, grad: g.dataset.grad,
    tag: tag && tag.style.display !== 'none' ? tag.textContent : null }];
}))"""

# Where the graph's panel, the first finding and the marked line of code are, and the part of
# the screen the learner sees (below the controls and graph stuck at the top of a phone).
ON_SCREEN = """() => {
  const box = (el) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom };
  };
  const sticky = gwRoot().querySelector('.stage-main');
  const stuck = getComputedStyle(sticky).position === 'sticky';
  return { graph: box(gwRoot().querySelector('.graph-panel')), finding: box(gwRoot().querySelector('[data-finding]')),
    line: box(gwRoot().querySelector('#code-editor-box .cm-marked-line')),
    viewTop: stuck ? sticky.getBoundingClientRect().bottom : 0, viewBottom: innerHeight };
}"""


def assert_on_screen_together(page, what):
    """The graph, the first finding and its marked line are on screen at once (after a run they
    are brought there; the page may still be settling, so this waits a little)."""
    try:
        page.wait_for_function(
            f"""() => {{
              const at = ({ON_SCREEN})();
              const {{ graph, finding, line }} = at;
              return Boolean(graph && finding && line
                && graph.top >= -1 && graph.bottom <= at.viewBottom + 1
                && finding.top >= at.viewTop - 1 && finding.bottom <= at.viewBottom + 1
                && line.top >= at.viewTop - 1 && line.bottom <= at.viewBottom + 1);
            }}""",
            timeout=5_000,
        )
    except PlaywrightTimeoutError:
        at = page.evaluate(ON_SCREEN)
        raise AssertionError(
            f"{what}: the graph, the first finding and its line are not on screen together: {at}"
        ) from None


def assert_part_to_write_in_view(page, what):
    """The exercise's first "# >>> write here" line is drawn in the editor's view and on screen."""
    probe = """() => {
      const line = [...gwRoot().querySelectorAll('#code-editor-box .cm-line')]
        .find(l => l.textContent.includes('# >>> write here'));
      if (!line) return null;
      const r = line.getBoundingClientRect(), box = gwRoot().querySelector('#code-editor-box .cm-scroller')
        .getBoundingClientRect();
      const sticky = gwRoot().querySelector('.stage-main');
      const top = getComputedStyle(sticky).position === 'sticky' ? sticky.getBoundingClientRect().bottom : 0;
      return { top: r.top, bottom: r.bottom, boxTop: box.top, boxBottom: box.bottom, viewTop: top,
               viewBottom: innerHeight };
    }"""
    try:
        page.wait_for_function(
            f"""() => {{
              const at = ({probe})();
              return Boolean(at) && at.top >= Math.max(at.boxTop, at.viewTop) - 1
                && at.bottom <= Math.min(at.boxBottom, at.viewBottom) + 1;
            }}""",
            timeout=5_000,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: the part to write is not in view: {page.evaluate(probe)}") from None


def test_one_mistake_is_one_finding_and_each_tag_names_its_line(screen, site_url):
    page = open_mode(screen, site_url, "exercise=mul&preset=diamond")
    assert_part_to_write_in_view(page, f"mul opened at {page.size_name}")
    source = equals_everywhere()
    write(page, source)
    assert run(page)[-1] == "done"
    items = page.eval_on_selector_all(
        "[data-findings] [data-finding]",
        "lis => lis.map(li => ({ node: li.dataset.node, nodes: JSON.parse(li.dataset.nodes), line: li.dataset.line,"
        " text: li.innerText, picked: li.classList.contains('is-picked') }))",
    )
    assert len(items) == 1, items  # = for += in four lines: one mistake
    [finding] = items
    line = int(finding["line"])
    assert finding["node"] == "a" and finding["nodes"] == ["a"] and finding["picked"]
    # The learner's line quoted as code, not in the engine's backticks.
    assert finding["text"].startswith(f"line {line}: self.grad = … overwrote a's "), finding["text"]
    quoted = page.locator("[data-findings] [data-finding] code").first.inner_text()
    assert quoted == "self.grad = …"
    # The run says its result depends on the order of a set, where, and for which node.
    walk = line_of(source, "for child in v._prev:")
    assert f"Your grads also depend on the order of a set: line {walk} walks a node's _prev" in finding["text"]
    assert "In this run a.grad ended at " in finding["text"]
    nodes = page.evaluate(NODES)
    # Each tag names the line of the finding that names its node; a's is its finding's line.
    for label, node in nodes.items():
        if node["tag"] and node["tag"].startswith("⚠"):
            assert label in finding["nodes"] and node["tag"] == f"⚠ line {line}", (label, node)
    assert nodes["a"]["tag"] == f"⚠ line {line}"
    # The numbers in operations are constants: not inputs, not editable, not judged or counted.
    for label in ("1", "3"):
        classes = nodes[label]["classes"]
        assert "is-constant" in classes and "is-input" not in classes and "is-editable" not in classes, label
        assert "is-wrong" not in classes and not nodes[label]["expected"], label  # no right grad to judge by
    assert "is-input" in nodes["a"]["classes"] and "is-wrong" in nodes["a"]["classes"]
    assert page.locator("#code-status").inner_text() == "Your run: 1 grad wrong, 1 problem."
    inputs = page.eval_on_selector_all(".inputs-list input", "ins => ins.map(i => i.id)")
    assert len(inputs) == 1, inputs  # a alone
    # The graph, the first finding and its line are on screen together, the editor at the line.
    assert_on_screen_together(page, f"mul at {page.size_name}")
    # Their run stepped back to its start: a constant's visit is never one of its steps.
    host = page.locator("#gradwalk")
    said = []
    while int(host.get_attribute("data-step")) > 0:
        page.get_by_role("button", name="Step back").click()
        said.append(page.locator("#narration").inner_text())
    visits = [s for s in said if s.startswith("Your code visits")]
    assert visits and not any(s.startswith(("Your code visits 1 ", "Your code visits 3 ")) for s in said), said
    assert all("of 4)" in s for s in visits), visits  # d, b, c, a


def test_an_error_clears_the_stage_of_the_run_before(screen, site_url):
    page = open_mode(screen, site_url, "exercise=mul&preset=diamond")
    write(page, equals_everywhere())
    assert run(page)[-1] == "done"
    assert page.locator("#graph [data-node='3']").count() == 1
    endless = solution("mul").replace("        build_topo(self)\n", "        while True:\n            pass\n", 1)
    write(page, endless)
    assert run(page)[-1] == "error"
    assert "endless loop" in page.locator("#code-result").inner_text()  # its step budget, or its worker's 5 s
    # The graph on screen before the run, not stepped: no grad, tag or finding of the last run.
    assert page.locator("#graph").get_attribute("data-graph") == "diamond"
    nodes = page.evaluate(NODES)
    assert sorted(nodes) == ["a", "b", "c", "d"]
    assert all(node["grad"] == "" and node["tag"] is None for node in nodes.values()), nodes
    assert page.locator("[data-finding]").count() == 0
    shown = page.eval_on_selector_all("#graph .node-tag", "ts => ts.filter(t => t.style.display !== 'none').length")
    assert shown == 0  # no "your visit 4" beside "ran too long"
    assert page.evaluate("gwHost().dataset.pass") != "mode"
    # The next run draws its own again.
    write(page, solution("mul"))
    assert run(page)[-1] == "done"
    assert findings(page) == []


def test_the_backward_exercise_shows_its_part_and_its_first_finding_with_its_line(screen, site_url):
    page = open_mode(screen, site_url, "exercise=mul&preset=diamond")
    choose_exercise(page, "backward")
    assert_part_to_write_in_view(page, f"backward chosen at {page.size_name}")
    source, line = changed(solution("backward"), "for v in reversed(topo):", "for v in topo:")
    write(page, source)
    assert run(page)[-1] == "done"
    assert findings(page) == [["b", str(line + 1)]]  # one finding: b and c visited too early
    nodes = json.loads(page.locator("[data-finding]").get_attribute("data-nodes"))
    assert sorted(nodes) == ["a", "b", "c"]
    tags = {label: node["tag"] for label, node in page.evaluate(NODES).items()}
    assert all(tags[label] == f"⚠ line {line + 1}" for label in nodes), tags
    assert_on_screen_together(page, f"backward at {page.size_name}")
