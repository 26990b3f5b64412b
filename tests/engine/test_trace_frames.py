"""Traces: forward and backward frames, and the visit-order experiment with lost paths."""

from hypothesis import given
from hypothesis import strategies as st

from engine import Program
from engine.graph import Graph
from engine.trace import correct_backward, experiment, forward_frames

DIAMOND = "a = 2\nb = a + 1\nc = 3 * a\nd = b * c"
LESSON = "a = 2\nb = -3\nc = a * b\nd = a + b\ne = c + d"


def graph_of(source):
    return Graph.of(Program.parse(source).output)


def run(source, labels):
    graph = graph_of(source)
    ids = {graph.label(i): i for i in range(len(graph))}
    _, correct = correct_backward(graph)
    result = experiment(graph, [ids[label] for label in labels], correct)
    return graph, result, {graph.label(i): result["grads"][i] for i in range(len(graph))}


def test_forward_frames_fill_in_data_in_topological_order():
    graph = graph_of(DIAMOND)
    frames = forward_frames(graph)
    assert [graph.label(f["node"]) for f in frames] == ["a", "b", "c", "d"]
    assert [f["text"] for f in frames] == [
        "a = 2 (an input)",
        # The first step that names a node's inputs says, once, what micrograd calls them.
        "b = a + 1 = 2 + 1 = 3. micrograd keeps the values a node is made from in node._prev (the _children "
        "given to the Value constructor): b._prev holds a and a Value for the number 1.",
        "c = 3 * a = 3 * 2 = 6",
        "d = b * c = 3 * 6 = 18",
    ]
    assert [f["line"] for f in frames] == [1, 2, 3, 4]


def test_backward_frames_seed_then_push_with_before_and_after():
    graph = graph_of(DIAMOND)
    frames, grads = correct_backward(graph)
    assert frames[0]["kind"] == "seed" and frames[0]["after"] == 1.0
    visits = [graph.label(f["node"]) for f in frames[1:]]
    assert visits[0] == "d" and visits[-1] == "a"
    d = frames[1]
    assert [
        (graph.label(p["parent"]), p["local"], p["upstream"], p["contribution"], p["before"], p["after"])
        for p in d["pushes"]
    ] == [("b", 6.0, 1.0, 6.0, 0.0, 6.0), ("c", 3.0, 1.0, 3.0, 0.0, 3.0)]
    assert d["pushes"][0]["rule"] == "b.grad += c.data * d.grad"
    assert not any(p["late"] for f in frames[1:] for p in f["pushes"])
    assert grads[0] == 15.0
    # The two pushes into a accumulate: 9 then 15 (or 6 then 15), never overwrite.
    into_a = [p for f in frames[1:] for p in f["pushes"] if p["parent"] == 0]
    assert into_a[-1]["before"] in (6.0, 9.0) and into_a[-1]["after"] == 15.0


def test_a_times_a_pushes_twice_into_a():
    graph = graph_of("a = 3\nb = a * a")
    frames, grads = correct_backward(graph)
    pushes = frames[1]["pushes"]
    assert [(p["before"], p["after"]) for p in pushes] == [(0.0, 3.0), (3.0, 6.0)]
    assert grads[0] == 6.0


def test_diamond_visiting_b_before_d_loses_the_path_through_b():
    graph, result, grads = run(DIAMOND, ["b", "d", "c", "a"])
    assert grads["a"] == 9.0 and result["correct_grads"][0] == 15.0
    assert not result["is_topological"]
    assert result["lost_path_count"] == 1
    [path] = result["lost_paths"]
    assert [graph.label(n) for n in path["nodes"]] == ["a", "b", "d"]
    assert path["product"] == 6.0
    assert result["explanation"] == [
        "b was visited before d had added its contribution to b, so the path a → b → d never reached a: "
        "a.grad is 9, not 15."
    ]
    late = result["late"]
    assert [(graph.label(x["parent"]), graph.label(x["child"]), x["contribution"]) for x in late] == [("b", "d", 6.0)]


def test_diamond_visiting_c_before_d_loses_the_other_path():
    graph, result, grads = run(DIAMOND, ["c", "d", "b", "a"])
    assert grads["a"] == 6.0
    assert "the path a → c → d never reached a: a.grad is 6, not 15" in result["explanation"][0]


def test_a_wrong_order_names_the_catalogues_mistake_a_visit_too_early():
    # d = b * c adds b = 3 to c.grad; c, visited first, passed on 0 instead.
    _, result, _ = run(DIAMOND, ["c", "d", "b", "a"])
    assert result["mistake"] == {
        "id": "too-early",
        "name": "a node visited too early (a lost path)",
        "mistakes": ["too-early"],
        "text": "c was visited before d added its 3 to c.grad, so c passed on an incomplete grad: a.grad is 6, not "
        "15. Visit a node only after every node that uses it, so its grad is complete when it passes it on.",
        "nodes": ["c", "d"],
        "late": 0,
    }
    # Two nodes too early: the first late contribution is the one named.
    _, result, _ = run(DIAMOND, ["a", "b", "c", "d"])
    assert result["mistake"]["nodes"] == ["b", "d"] and "added its 6 to b.grad" in result["mistake"]["text"]
    assert result["late"][result["mistake"]["late"]]["parent"] == 1  # b


def test_a_pull_run_too_early_says_what_was_pulled_before_it_was_final():
    graph = graph_of(DIAMOND)
    ids = {graph.label(i): i for i in range(len(graph))}
    _, correct = correct_backward(graph)
    result = experiment(graph, [ids[x] for x in ["d", "c", "a", "b"]], correct, rule="pull")
    # a pulls from b before b has pulled its 6 from d: it reads b.grad = 0.
    assert result["mistake"]["id"] == "too-early" and result["mistake"]["nodes"] == ["a", "b"]
    assert result["mistake"]["text"].startswith(
        "a was visited before b, which uses it, so a pulled 0 from b before b.grad was final, and a.grad came "
        "out incomplete: a.grad is 9, not 15."
    )


def test_an_order_that_leaves_every_grad_right_names_no_mistake():
    for order in (["d", "b", "c", "a"], ["a", "d", "b", "c"]):
        _, result, _ = run(DIAMOND, order)
        assert result["mistake"] is None
    # A late contribution whose lost path carried 0 changes no grad: no mistake to name.
    _, result, _ = run("a = -1\nr = relu(a)\ns = r * 3 + a", ["s", "r", "r*3", "a"])
    assert result["late"] and result["mistake"] is None


def test_diamond_in_a_correct_order_gives_15_and_no_late_pushes():
    for order in (["d", "b", "c", "a"], ["d", "c", "b", "a"]):
        _, result, grads = run(DIAMOND, order)
        assert grads["a"] == 15.0 and result["is_topological"]
        assert result["late"] == [] and result["lost_path_count"] == 0
        assert "arrived in time" in result["explanation"][0]


def test_an_input_visited_early_does_no_harm_and_says_so():
    graph, result, grads = run(DIAMOND, ["a", "d", "b", "c"])
    assert grads["a"] == 15.0
    assert result["late"] == [] and not result["is_topological"]
    assert result["harmless"][0]["text"].startswith("a is visited before b and c, but that does no harm")


def test_lesson_graph_orders():
    graph, result, grads = run(LESSON, ["e", "d", "c", "b", "a"])
    assert (grads["a"], grads["b"]) == (-2.0, 3.0)
    graph, result, grads = run(LESSON, ["c", "e", "d", "b", "a"])
    # c visited first: the paths a → c → e and b → c → e are lost.
    assert (grads["a"], grads["b"]) == (1.0, 1.0)
    assert result["lost_path_count"] == 2
    assert {tuple(graph.label(n) for n in p["nodes"]) for p in result["lost_paths"]} == {
        ("a", "c", "e"),
        ("b", "c", "e"),
    }
    assert "a.grad is 1, not -2, b.grad is 1, not 3" in result["explanation"][0]


def test_the_output_visited_last_loses_everything():
    graph, result, grads = run(DIAMOND, ["a", "b", "c", "d"])
    assert grads["a"] == 0.0
    assert result["lost_path_count"] == 2
    assert result["frames"][1]["text"].startswith("Visit a: an input")


def test_a_lost_path_that_carried_zero_changes_no_grad_and_says_so():
    # relu(a) is dead at a = -1, so the path a → r → s carries 3 × 0 = 0.
    graph, result, grads = run("a = -1\nr = relu(a)\ns = r * 3 + a", ["s", "r", "r*3", "a"])
    assert grads["a"] == 1.0 == result["correct_grads"][0]
    assert result["lost_path_count"] == 1
    assert result["explanation"] == [
        "r was visited before r*3 had added its contribution to r, so the path a → r → r*3 → s never reached a, "
        "but that path carried 0 (a local derivative on the way is 0), so no input's grad changed."
    ]


def test_path_counting_is_exact_on_a_chain_of_diamonds():
    # 12 diamonds in a row: 2**12 paths from x to the output; visiting the output last loses all.
    lines = ["x0 = 1.5"]
    for i in range(12):
        lines += [f"l{i} = x{i} * 2", f"r{i} = x{i} + 1", f"x{i + 1} = l{i} * r{i}"]
    graph = graph_of("\n".join(lines))
    order = list(range(len(graph)))  # inputs first, output last: the worst possible order
    _, correct = correct_backward(graph)
    result = experiment(graph, order, correct)
    assert result["lost_path_count"] == 2**12
    assert len(result["lost_paths"]) == 50  # listed up to a cap, counted exactly


# fmt is written for speed (it formats every number of every sentence); it must say
# exactly what the plain definition says, for every float.
def _fmt_plainly(x: float, digits: int = 4) -> str:
    import math

    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}g}"


@given(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([4, 6]))
def test_fmt_says_what_the_plain_definition_says(x, digits):
    from engine.text import fmt

    assert fmt(x, digits) == _fmt_plainly(x, digits)
