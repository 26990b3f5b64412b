"""Every sentence is true (issue 32): the sentence checker (tests/support/sentences.py) over
everything the engine gives a learner to read, for every preset (found by glob), in every
mode the engine answers, at every group level the page offers.

What is read:

* the passes: each forward and backward frame's narration, and each push's rule card as the
  page writes it (web/panels/details.js: ``local × upstream = contribution`` and
  ``x.grad: before → after``), checked against the push's own numbers;
* the visit-order experiment with a wrong order (the forward order: every node before its
  users), push and pull, node by node and at each group level: its frames, explanation and
  mistake;
* every "Why reverse mode" mode, with the requests it declares for a graph (its samples):
  every sentence of its answer;
* each question's hint and each wrong answer's diagnosis, and how a reply is graded: the
  right answer typed as shown is right, each diagnosed number typed as shown gets its own
  diagnosis;
* on a grouped preset, at each level: all groups closed, the page's default, each group
  opened on its own, all open; no group's name written as a node's (``layer 1.grad``).
"""

import json

import pytest

from engine import api
from engine.level import MAX_LISTED
from engine.questions import diagnosed, is_right
from engine.registry import modes
from engine.text import fmt
from tests.support.presets import PRESET_IDS
from tests.support.sentences import problems

SENTENCE_KEYS = ("text", "explanation", "hint", "choices", "message", "math", "rule")


def ask(request: dict) -> dict:
    return json.loads(api.handle(request))


def texts(answer, where="") -> list[tuple[str, str]]:
    """Every sentence of an answer, with where it is (a path of keys)."""
    out = []
    if isinstance(answer, dict):
        for key, value in answer.items():
            path = f"{where}.{key}"
            if key in SENTENCE_KEYS and isinstance(value, str):
                out.append((path, value))
            elif key in SENTENCE_KEYS and isinstance(value, list) and all(isinstance(v, str | None) for v in value):
                out += [(f"{path}[{i}]", v) for i, v in enumerate(value) if v]
            else:
                out += texts(value, path)
    elif isinstance(answer, list):
        for i, value in enumerate(answer):
            out += texts(value, f"{where}[{i}]")
    return out


def card_texts(answer: dict) -> list[tuple[str, str]]:
    """Each push's rule card as web/panels/details.js writes it from the push's numbers."""
    out = []
    edges = answer.get("edges", [])
    frames = [("backward", answer.get("backward", []))]
    if answer.get("experiment"):
        frames.append(("experiment", answer["experiment"]["frames"]))
    for name, listed in frames:
        for k, frame in enumerate(listed):
            for i, push in enumerate(frame.get("pushes") or []):
                where = f"{name}[{k}].pushes[{i}]"
                if "edge" in push and "local" not in push and edges and "local" in edges[0]:
                    local = edges[push["edge"]]["local"]
                else:
                    local = push.get("local")
                upstream = push.get("upstream", frame.get("upstream"))
                if local is not None and upstream is not None and frame.get("kind") == "visit":
                    # "local 4 × upstream 1 = 4": its arithmetic
                    out.append((where, f"{fmt(local)} × {fmt(upstream)} = {fmt(push['contribution'])}"))
                    out.append(
                        (where, f"x.grad += {fmt(push['contribution'])}, {fmt(push['before'])} → {fmt(push['after'])}")
                    )
    return out


def number_problems(answer: dict) -> list[str]:
    """Each backward visit's sentence against the engine's numbers: every grad it changes is
    said as ``before → after`` with the numbers the frame changes it by, as shown."""
    found = []
    frames = [("backward", answer.get("backward") or [])]
    if answer.get("experiment"):
        frames.append(("experiment", answer["experiment"]["frames"]))
    for name, listed in frames:
        for k, frame in enumerate(listed):
            if frame.get("kind") not in ("visit", "group") or not frame.get("text"):
                continue
            changes = frame.get("changes")
            if changes is None:  # a graph answer's push visit: its pushes are its changes
                changes = frame.get("pushes") or []
            if frame["kind"] == "group" and " more inputs" in frame["text"]:
                changes = changes[:MAX_LISTED]  # a big group's visit lists its first inputs
            for c in changes:
                said = f"{fmt(c['before'])} → {fmt(c['after'])}"
                if said not in frame["text"]:
                    found.append(f"{name}[{k}]: does not say {said}: {frame['text']}")
    return found


def levels(preset: str) -> list[list[str]]:
    """The group levels the page offers for a preset (none for a preset without groups):
    every group closed, the default (outermost groups that hold others open), each group
    opened, every group open."""
    whole = ask({"cmd": "load", "preset": preset})
    groups = whole.get("groups")
    if not groups:
        return []
    default = [g["id"] for g in groups if g["parent"] is None and g["groups"]]
    out = [[], default, *([g["id"]] for g in groups), [g["id"] for g in groups]]
    return [list(x) for x in dict.fromkeys(tuple(x) for x in out)]


def messages(preset: str):
    """(where, text, group names, engine-made) for everything the engine gives a learner to read
    on the preset: its own sentences, and the preset's words (its lesson, its questions and
    their explanations), whose arithmetic must hold too though they may quote more digits."""
    load = ask({"cmd": "load", "preset": preset})
    assert load["ok"], load
    labels = [n["label"] for n in load["nodes"]]
    inputs = [load["nodes"][i]["label"] for i in load["inputs"]]
    names = [g["name"] for g in load.get("groups", [])]
    # the preset's program as a learner's own: its generated questions (one per visit)
    answers = [("load", load), ("as a program", ask({"cmd": "load", "program": load["program"]}))]
    for rule in ("push", "pull"):  # a wrong order: every node before the nodes that use it
        answers.append((f"order {rule}", ask({"cmd": "load", "preset": preset, "order": labels, "rule": rule})))
    for mode in modes():
        for sample in mode.samples(inputs, labels):
            answers.append((f"mode {sample}", ask({"preset": preset, **sample})))
    for expanded in levels(preset):
        level = ask({"cmd": "load", "preset": preset, "expanded": expanded})
        answers.append((f"level {expanded}", level))
        units = [level["nodes"][[n["id"] for n in level["nodes"]].index(u)]["label"] if isinstance(u, int) else u
                 for u in level["units"]]  # fmt: skip
        answers.append((f"level {expanded} order", ask({"cmd": "load", "preset": preset, "expanded": expanded,
                                                        "order": units})))  # fmt: skip
    for name, answer in answers:
        for where, text in texts(answer) + card_texts(answer):
            yield f"{name} {where}", text, names, True
    authored = ask({"cmd": "preset", "id": preset})["preset"]
    for key in ("summary", "lesson"):
        yield f"preset {key}", authored[key], names, False
    for cp in authored["checkpoints"]:
        for key in ("question", "explanation", "hint"):
            if cp.get(key):
                yield f"preset {cp['id']}.{key}", cp[key], names, False


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_every_visit_says_the_engines_numbers(preset):
    found = []
    for expanded in [None, *levels(preset)]:
        extra = {} if expanded is None else {"expanded": expanded}
        load = ask({"cmd": "load", "preset": preset, **extra})
        labels = [load["nodes"][[n["id"] for n in load["nodes"]].index(u)]["label"] if isinstance(u, int) else u
                  for u in load.get("units", [n["id"] for n in load["nodes"]])]  # fmt: skip
        wrong = ask({"cmd": "load", "preset": preset, "order": labels, **extra})
        for answer in (load, wrong):
            found += [f"{expanded}: {problem}" for problem in number_problems(answer)]
    assert not found, "\n".join(found[:20])


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_every_sentence_holds(preset):
    found = []
    for where, text, names, engine_made in messages(preset):
        for problem in problems(text, engine_made=engine_made, group_names=names):
            found.append(f"{where}: {problem}\n    {text}")
    assert not found, f"{len(found)} problems:\n" + "\n".join(found[:40])


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_a_learner_who_types_what_is_shown_is_told_so(preset):
    """The right answer typed as shown is right; each diagnosed number typed as the diagnosis
    quotes it gets that diagnosis, and not another's."""
    load = ask({"cmd": "load", "preset": preset})
    tolerances = {
        cp["id"]: cp.get("tolerance", 1e-3) for cp in ask({"cmd": "preset", "id": preset})["preset"]["checkpoints"]
    }
    generated = ask({"cmd": "load", "program": load["program"]})["questions"]
    found = []
    for q in load["questions"] + generated:
        if q["value"] is None:
            continue
        # a generated question's tolerance is the page's: 1e-3, or 1e-4 of the answer (web/questions.js)
        tol = tolerances[q["id"]] if q["id"] in tolerances else max(1e-3, abs(q["value"]) * 1e-4)
        if not is_right(fmt(q["value"]), q["value"], tol):
            found.append(f"{q['id']}: the answer typed as shown, {fmt(q['value'])}, is not right")
        for entry in q["wrong"]:
            shown = fmt(entry["value"])
            if not entry["text"].startswith(shown + " "):
                found.append(f"{q['id']}: {entry['text']!r} does not start with the number as shown, {shown}")
            if is_right(shown, q["value"], tol):
                found.append(f"{q['id']}: {shown} is both right and diagnosed")
            elif diagnosed(shown, q["wrong"], q["value"], tol) is not entry:
                found.append(f"{q['id']}: {shown} typed is not diagnosed as {entry['mistakes']}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_a_closed_box_shows_its_one_output_or_none(preset):
    """A closed group's box shows its output's numbers only when it has one output; with
    several it shows none of its own (a layer is not one of its neurons), and lists each."""
    found = []
    for expanded in levels(preset):
        for box in ask({"cmd": "load", "preset": preset, "expanded": expanded})["groups"]:
            if box["open"]:
                continue
            shown = [(o["data"], o["grad"]) for o in box["shown"]]
            if len(box["outputs"]) == 1 and (box["data"], box["grad"]) != shown[0]:
                found.append(f"{expanded}: {box['name']} shows {box['data']}, {box['grad']}, not its output's")
            if len(box["outputs"]) > 1 and (box["data"] is not None or box["grad"] is not None):
                found.append(f"{expanded}: {box['name']} has {len(box['outputs'])} outputs but shows one's numbers")
    assert not found, "\n".join(found)


def test_the_checker_finds_what_issue_32_found():
    """The checker itself, on the sentences issue 32 reported and on their corrections."""
    lie = "Visit layer 1: x1.grad += 0.2264 × 0.3159 = 0.4896, 0 → 0.4896."  # one ∂h3/∂x1 × one grad
    assert problems(lie, group_names=["layer 1"])
    truth = (
        "x1.grad += 0.3895 × 0.5528 + (-0.5134) × (-0.3949) + 0.2264 × 0.3159 = 0.2153 + 0.2027 + 0.07151 = 0.4896, "
        "0 → 0.4896."
    )
    assert problems(truth, group_names=["layer 1"]) == []
    twice = "Multiply it by ∂c/∂a = 3: 3 × 3 = 9. The chain rule multiplies it by c.grad = 3: 3 × 3 = 9."
    assert problems(twice) == ["works out '3 × 3 = 9' twice"]
    assert problems("Visit layer 1 (upstream layer 1.grad = 0.3159).", group_names=["layer 1"])
    assert problems("a.grad = 0.1 + 0.2 = 0.30000000000000004") == ["quotes 0.30000000000000004, shown as 0.3"]
    assert problems("x2.grad += -1 × -2 = 2, -0.1411 → 1.859; y = 1 + (-0.99) = 0.01001; 1 − 0.7071² = 0.5") == []
    assert problems("x.grad += 1 × 4 = 4, 4 → 9")  # 4 + 4 is not 9
