"""The questions a graph asks, answered ahead: a preset's checkpoints or, for a learner's own
program, one generated question per backward visit.

Each question carries its right answer on this graph with these values, a hint and the
wrong numbers the catalogue of mistakes (:mod:`engine.mistakes`) predicts for it, so the
page can say what a wrong answer means the moment the learner checks it, with no round
trip to the engine. The page words a generated question itself, from the frames; here
they are only chosen: the seed, then before each backward visit that pushes something,
the grad of the first node it pushes into.
"""

from __future__ import annotations

import math

from .mistakes import MAX_DIAGNOSED, MISTAKES, Asked, answerer
from .text import fmt


def questions(graph, backward: list[dict], checkpoints: list[dict] | None) -> list[dict]:
    """``checkpoints``: a preset's, as presets.py reads them; None for a program (generated)."""
    if checkpoints is None:
        return _generated(graph, backward)
    # a question asks about one visit's push (or a total), never the visit order: the page's
    # questions are not diagnosed as a visit made too early
    answer = answerer(graph, backward, visit_order=False)
    return [_checkpoint(graph, backward, cp, answer) for cp in checkpoints]


def _checkpoint(graph, backward: list[dict], cp: dict, answer) -> dict:
    asked = {"id": cp["id"], "value": None, "hint": cp.get("hint"), "wrong": []}
    # A question about other input values or another visit order is answered by its author;
    # the catalogue's numbers are for the graph on screen.
    if cp.get("check") and not cp.get("values") and not cp.get("order"):
        step = None
        if cp["pass"] == "backward":
            step = len(backward) - 1 if cp["before_step"] == -1 else cp["before_step"]
        if step is None or 0 <= step < len(backward):
            found = answer(cp["check"], step)
            asked["value"] = found["value"]
            asked["wrong"] = _tellable(found["wrong"], found["value"], cp.get("tolerance", 1e-3))
            asked["hint"] = asked["hint"] or hint(graph, backward, cp["check"], step)
    if cp["kind"] == "choice":
        asked["choices"] = [_choice_text(asked["wrong"], text, mistake) for text, mistake in _choices(cp)]
    return asked


def _choices(cp: dict):
    return zip(cp["choices"], cp.get("choice_mistakes") or [None] * len(cp["choices"]))


def _choice_text(wrong: list[dict], text: str, mistake: str | None) -> str | None:
    """What picking a distractor says: the catalogue's sentence for its number on this graph
    if it has one, else the mistake's rule."""
    if mistake is None:
        return None
    try:
        number = float(text.replace("−", "-"))  # a choice may be written with the minus sign −
    except ValueError:
        number = None
    for entry in wrong:
        if mistake in entry["mistakes"] and number is not None and abs(entry["value"] - number) <= 1e-9:
            return entry["text"]
    m = MISTAKES[mistake]
    return f"That answer comes from {m.name}. {m.rule}"


def _generated(graph, backward: list[dict]) -> list[dict]:
    if not backward:
        return []
    out = graph.label(backward[0]["node"])
    listed = [{"id": "auto-seed", "step": 0, "node": backward[0]["node"], "check": f"{out}.grad"}]
    for k, frame in enumerate(backward):
        if k == 0 or not frame.get("pushes"):
            continue
        parent = frame["pushes"][0]["parent"]
        listed.append({"id": f"auto-b{k}", "step": k, "node": parent, "check": f"{graph.label(parent)}.grad"})
    answer = answerer(graph, backward, visit_order=False)  # the graph read once for all its questions
    ids = _ids(graph)
    for i, q in enumerate(listed):
        if i <= MAX_DIAGNOSED:
            found = answer(q["check"], q["step"])
            # graded as web/questions.js grades a generated question: within 1e-3, or 1e-4 of the answer
            tolerance = max(1e-3, abs(found["value"]) * 1e-4)
            q["value"], q["wrong"] = found["value"], _tellable(found["wrong"], found["value"], tolerance)
            q["hint"] = hint(graph, backward, q["check"], q["step"], ids)
        else:  # the page reads the answer from the frames; a wrong one gets the neutral line
            q["value"], q["wrong"], q["hint"] = None, [], None
    return listed


def _tellable(wrong: list[dict], value: float, tolerance: float) -> list[dict]:
    """The wrong numbers a learner's reply can be told apart by: not one the page would
    grade right, nor one an earlier (likelier) entry already takes. On a big graph of small
    grads, a mistake's number may fall within the tolerance of the answer or of another's."""
    kept: list[dict] = []
    for entry in wrong:
        shown = fmt(entry["value"])
        if not is_right(shown, value, tolerance) and diagnosed(shown, kept, value, tolerance) is None:
            kept.append(entry)
    return kept


def _ids(graph) -> dict[str, int]:
    return {graph.label(i): i for i in range(len(graph))}


def hint(graph, backward: list[dict], check: str, step: int | None, ids: dict[str, int] | None = None) -> str:
    """The next hint after a diagnosis: how to work the answer out, without the arithmetic.
    ``ids``: the graph's node ids by label, if the caller has them already."""
    asked = Asked(check)
    ids = ids if ids is not None else _ids(graph)
    node = ids[asked.node]
    x = asked.node
    if asked.what == "data":
        value = graph.values[node]
        operands = [graph.label(graph.edges[e].parent) for e in graph.parent_edges[node]]
        given = ", ".join(f"{name} = {fmt(graph.values[ids[name]].data)}" for name in dict.fromkeys(operands))
        return (
            f"Work it out from what it is made of: {x} = {graph.expressions[node]}"
            + (f", with {given}." if given else ".")
            if value._op
            else f"{x} is an input: its value is given."
        )
    if asked.what == "grad":
        if node == graph.output:
            return f"Nudge {x} by a small h: by how much does {x} itself move?"
        step = len(backward) - 1 if step is None else step
        frame = backward[step]
        pushes = [p for p in frame.get("pushes", ()) if p["parent"] == node] if frame.get("kind") == "visit" else []
        if pushes:
            child = graph.label(frame["node"])
            rules = "; ".join(dict.fromkeys(p["rule"] for p in pushes))
            given = [
                f"{graph.local_texts[p['edge']]} = {fmt(p['local'])}"
                for p in pushes
                if not _is_number(graph.local_texts[p["edge"]])
            ]
            given.append(f"{child}.grad = {fmt(frame['upstream'])}")
            held = pushes[0]["before"]
            twice = f" It runs once for each of the {len(pushes)} uses of {x} in {child}." if len(pushes) > 1 else ""
            return (
                f"Use the rule on the edge: {rules}, with {' and '.join(dict.fromkeys(given))}"
                + (f", added to the {fmt(held)} {x}.grad holds." if held else ".")
                + twice
            )
        uses = [graph.label(graph.edges[e].child) for e in graph.child_edges[node]]
        return (
            f"{x}.grad adds one contribution per use of {x} (in {', '.join(dict.fromkeys(uses))}): "
            "each is the local derivative times the grad of the node that uses it."
        )
    child = ids[asked.child]
    edge = next(graph.edges[e] for e in graph.parent_edges[child] if graph.edges[e].parent == node)
    if asked.what == "local":
        return f"The rule on this edge is {graph.rules[edge.id]}: the local derivative is {graph.local_texts[edge.id]}."
    local = graph.local_texts[edge.id]
    given = "" if _is_number(local) else f", with {local} = {fmt(edge.local)}"  # not "3 = 3"
    return f"It is the local derivative times the upstream grad: {local} × {asked.child}.grad{given}."


# -- grading a reply: the rule web/lib/grading.js follows too (web/questions.js grades with it) -----


def shown_slack(value: float) -> float:
    """Half a unit in the last digit of ``value`` as the page shows it (``fmt``: four
    significant digits, 0.5 read as 0.5000); 0 for a number shown whole, as it is."""
    if not math.isfinite(value) or value == 0 or (value == int(value) and abs(value) < 1e15):
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - 3)


def reply_number(reply) -> float | None:
    """A learner's typed reply as a number (the minus sign − read as -), or None."""
    try:
        x = float(str(reply).strip().replace("−", "-"))
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def is_right(reply, value: float, tolerance: float = 1e-3) -> bool:
    """A reply is right within the question's tolerance, or within half a unit of the last
    digit of the answer as shown: a learner who types the number the page shows is right."""
    x = reply_number(reply)
    return x is not None and abs(x - value) <= max(tolerance, shown_slack(value))


def diagnosed(reply, wrong: list[dict], value: float, tolerance: float = 1e-3) -> dict | None:
    """The wrong-answer entry (``questions()[i]["wrong"]``) a wrong reply is, compared as a
    right one is (each number as its diagnosis quotes it), or None; None for a right reply."""
    x = reply_number(reply)
    if x is None or is_right(reply, value, tolerance):
        return None
    for entry in wrong:
        if abs(x - entry["value"]) <= max(tolerance, shown_slack(entry["value"])):
            return entry
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


__all__ = ["diagnosed", "hint", "is_right", "questions", "reply_number", "shown_slack"]
