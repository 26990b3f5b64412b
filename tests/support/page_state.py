"""Helpers for the reliability tests: waiting until the page has settled,
reading its state from its permalink, and checking every node against the CPython
engine's trace (tests/robustness/).

The page is under a strict Content-Security-Policy: waits give wait_for_function a
function expression, which Playwright calls through the debugger (a bare expression would
need 'unsafe-eval'; tests/conftest.py wraps those).
"""

import base64
import json
import zlib
from functools import lru_cache
from urllib.parse import parse_qs

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from buildtools.prerender import outer_groups
from engine.api import handle
from tests.support.frames import changes, is_matrix

SETTLE_TIMEOUT_S = 20.0

# <html data-engine> is not "loading" and no engine call or debounced work is pending
# (<html data-busy>, web/boot/busy.js).
SETTLED_JS = """() => {
  const d = document.documentElement.dataset;
  return d.engine !== undefined && d.engine !== 'loading' && !d.busy;
}"""


def settle(page, timeout=SETTLE_TIMEOUT_S, what="the page"):
    """Wait until the page is settled; raise AssertionError (a hang) after `timeout` s."""
    try:
        page.wait_for_function(SETTLED_JS, timeout=timeout * 1000)
    except PlaywrightTimeoutError:
        state = page.evaluate("() => [document.documentElement.dataset.engine, document.documentElement.dataset.busy]")
        raise AssertionError(f"{what} did not settle within {timeout} s (engine, busy = {state})") from None


def open_settled(page, url, timeout=90.0):
    page.goto(url)
    settle(page, timeout=timeout, what=f"{url} (boot)")
    engine = page.evaluate("() => document.documentElement.dataset.engine")
    assert engine == "ready", f"{url}: data-engine={engine!r}: {page.inner_text('#engine-error')}"
    return page


# ---------------------------------------------------------------- the link


def decode_program(text, fmt):
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if fmt == "prog":
        raw = zlib.decompress(raw, -15)
    return raw.decode("utf-8")


def link_state(search):
    """The state a permalink query holds (as the page writes it)."""
    q = parse_qs(search.lstrip("?"), keep_blank_values=True)
    one = lambda k: q[k][0] if k in q else None  # noqa: E731
    state = {
        "preset": one("preset"),
        "program": None,
        "values": None,
        "pass": one("pass") or "start",
        "step": int(one("step") or -1),
        "order": None,
    }
    if one("prog") is not None:
        state["program"] = decode_program(one("prog"), "prog")
    elif one("src") is not None:
        state["program"] = decode_program(one("src"), "src")
    if one("v"):
        state["values"] = {k: float(x) for k, x in (p.split(":") for p in one("v").split(","))}
    if one("order"):
        state["order"] = one("order").split(",")
    if one("open") is not None:
        state["open"] = [g for g in one("open").split(",") if g]
    if state["pass"] == "start":
        state["step"] = -1
    return state


@lru_cache(maxsize=256)
def _load(request_json):
    return json.loads(handle(request_json))


def engine_answer(state, rule="push"):
    request = {"cmd": "load"}
    if state["preset"]:
        request["preset"] = state["preset"]
    else:
        request["program"] = state["program"]
    if state["values"]:
        request["values"] = state["values"]
    if state["order"]:
        request["order"] = state["order"]
        request["rule"] = rule
    outer = outer_groups(state["program"]) if state["program"] is not None else None
    if outer is not None:
        # at the level the page draws: the link's open groups, or the ones it opens with
        request["expanded"] = state.get("open", outer)
    answer = _load(json.dumps(request, sort_keys=True))
    assert answer["ok"], f"the CPython engine refused the page's own state {request}: {answer['error']}"
    return answer


def expected_nodes(answer, pass_, step):
    """{label: [data, grad]}: the raw engine values (numbers, "NaN"/"Infinity" strings,
    or None where nothing is revealed) at frame `step` of `pass_` (docs/api.md)."""
    if answer.get("grouped"):
        return _expected_units(answer, pass_, step)
    n = len(answer["nodes"])
    data = [None] * n
    grad = [None] * n
    if pass_ == "forward":
        for frame in answer["forward"][: step + 1]:
            for c in changes(frame, answer):
                if c["field"] == "data":
                    data[c["node"]] = c["after"]
    elif pass_ in ("backward", "experiment"):
        for frame in answer["forward"]:
            for c in changes(frame, answer):
                if c["field"] == "data":
                    data[c["node"]] = c["after"]
        grad = [0.0] * n
        frames = answer["backward"] if pass_ == "backward" else answer["experiment"]["frames"]
        assert 0 <= step < len(frames), f"step {step} is outside the {pass_} pass ({len(frames)} frames)"
        for frame in frames[: step + 1]:
            for c in changes(frame, answer):
                if c["field"] == "grad":
                    grad[c["node"]] = c["after"]
    else:
        assert pass_ == "start", f"unexpected pass {pass_!r}"
    return {node["label"]: [data[i], grad[i]] for i, node in enumerate(answer["nodes"])}


def _expected_units(answer, pass_, step):
    """expected_nodes for a grouped graph at the level on screen: each node drawn by its
    label, each closed group's box by its name with its last output's numbers, or with none
    when it has several (a closed layer, a tensor: it shows none of its own)."""
    label = {n["id"]: n["label"] for n in answer["nodes"]}
    boxes = {g["id"]: g for g in answer["groups"]}
    several = []
    for unit in answer["units"]:
        if isinstance(unit, str):
            label[boxes[unit]["outputs"][-1]] = boxes[unit]["name"]
            if len(boxes[unit]["outputs"]) > 1:
                several.append(boxes[unit]["outputs"][-1])
    data = dict.fromkeys(label)
    grad = dict.fromkeys(label)
    forward = answer["forward"] if pass_ != "forward" else answer["forward"][: step + 1]
    if pass_ != "start":
        for frame in forward:
            for c in changes(frame, answer):
                if c["field"] == "data" and c["node"] in data:
                    data[c["node"]] = c["after"]
    if pass_ in ("backward", "experiment"):
        grad = dict.fromkeys(label, 0.0)
        frames = answer["backward"] if pass_ == "backward" else answer["experiment"]["frames"]
        for frame in frames[: step + 1]:
            for c in changes(frame, answer):
                if c["field"] == "grad" and c["node"] in grad:
                    grad[c["node"]] = c["after"]
    for v in several:
        data[v] = grad[v] = None
    # A closed tensor's box of more than one number shows its matrices (web/grouped.js): its
    # data rows once its line has run, its grad rows once a push reached one of its elements
    # (null for an element not reached yet).
    matrices = {unit: boxes[unit] for unit in answer["units"] if isinstance(unit, str) and is_matrix(boxes[unit])}
    cell = {
        v: (unit, i, j)
        for unit, box in matrices.items()
        for i, row in enumerate(box["cells"])
        for j, v in enumerate(row)
    }
    values = dict.fromkeys(matrices)
    grads = dict.fromkeys(matrices)
    if pass_ != "start":
        for frame in forward:
            if frame.get("kind") == "group" and frame["group"] in matrices:
                values[frame["group"]] = matrices[frame["group"]]["values"]
    if pass_ in ("backward", "experiment"):
        for frame in frames[: step + 1]:
            for c in changes(frame, answer):
                if c["field"] == "grad" and c["node"] in cell:
                    unit, i, j = cell[c["node"]]
                    if grads[unit] is None:
                        grads[unit] = [[None] * len(row) for row in matrices[unit]["cells"]]
                    grads[unit][i][j] = c["after"]
    expected = {label[v]: [data[v], grad[v]] for v in label}
    for unit, box in matrices.items():
        expected[box["name"]] = [values[unit], grads[unit]]
    return expected


# One evaluate: the page's URL, pass and step, and every mismatch between its nodes and
# the expected values (compared as JavaScript's String(Number(x)), "" for unknown).
COMPARE_JS = """(expected) => {
  // (a tensor's box: its rows as JSON, as the page writes them)
  const exact = (x) => (x === null || x === undefined ? "" : Array.isArray(x) ? JSON.stringify(x) : String(Number(x)));
  const seen = new Set();
  const wrong = [];
  for (const g of gwRoot().querySelectorAll('#graph [data-node]')) {
    const label = g.dataset.node;
    seen.add(label);
    const want = expected[label];
    if (!want) { wrong.push(`${label}: on screen but not in the engine's graph`); continue; }
    const [d, gr] = [exact(want[0]), exact(want[1])];
    if (g.dataset.data !== d || g.dataset.grad !== gr) {
      const shown = `data-data=${JSON.stringify(g.dataset.data)} data-grad=${JSON.stringify(g.dataset.grad)}`;
      wrong.push(`${label}: ${shown}, engine: ${JSON.stringify(d)} ${JSON.stringify(gr)}`);
    }
  }
  for (const label of Object.keys(expected)) if (!seen.has(label)) wrong.push(`${label}: missing from the graph`);
  return wrong;
}"""

PAGE_STATE_JS = """() => ({
  search: location.search,
  pass: gwHost().dataset.pass,
  step: gwHost().dataset.step,
  graph: gwRoot().querySelector('#graph').dataset.graph,
  rule: gwRoot().querySelector('#order-rule input:checked')?.value ?? 'push',
})"""


def check_against_engine(page):
    """Compare every node on screen with the CPython engine at the page's own state.
    Returns (state, list of problems)."""
    info = page.evaluate(PAGE_STATE_JS)
    state = link_state(info["search"])
    problems = []
    if info["pass"] != state["pass"] or int(info["step"]) != state["step"]:
        problems.append(
            f"the URL says {state['pass']} {state['step']} but the page is at {info['pass']} {info['step']}"
        )
    if info["pass"] == "mode":
        return state, problems
    answer = engine_answer(state, rule=info["rule"])
    expected = expected_nodes(answer, info["pass"], int(info["step"]))
    problems += page.evaluate(COMPARE_JS, expected)
    return state, problems
