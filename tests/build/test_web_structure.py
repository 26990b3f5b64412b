"""What docs/architecture.md says of the front end's structure, checked on web/'s source:
its modules import one another without a cycle, only update.js writes the widget's
state (through changes.js, which is given the state itself), only the actions (actions/)
call update(), only changes.js decodes an engine's answer, and only actions/requests.js
calls the engine."""

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
IMPORT = re.compile(
    r"""(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["'](\.{1,2}/[^"']+)["']|import\s*["'](\.{1,2}/[^"']+)["']"""
)


def sources():
    return {path.relative_to(WEB).as_posix(): path.read_text() for path in sorted(WEB.rglob("*.js"))}


def import_graph():
    graph = {}
    for name, text in sources().items():
        here = (WEB / name).parent
        graph[name] = set()
        for match in IMPORT.finditer(text):
            target = (here / (match.group(1) or match.group(2))).resolve()
            if target.is_relative_to(WEB):
                graph[name].add(target.relative_to(WEB).as_posix())
    return graph


def cycles(graph):
    """Every strongly connected set of more than one module (Tarjan's, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}, "d.js": set()}) == [["a.js", "b.js", "c.js"]]


def test_web_modules_import_one_another_without_a_cycle():
    assert cycles(import_graph()) == []


def test_only_update_js_writes_the_widgets_state():
    write = re.compile(
        r"\bw\.state(\.[A-Za-z_$][\w$]*)*\s*(=|\+=|-=|\+\+|--)(?!=)|\.state\.\w+\.(push|splice|set|delete|add|clear)\("
    )
    writers = [name for name, text in sources().items() if name not in ("update.js", "state.js") and write.search(text)]
    assert writers == []


def test_only_update_js_applies_changes():
    # changes.js is given the state itself (s.x = ...), which the check above does not see:
    # so no module but update.js may reach it.
    importers = sorted(name for name, imports in import_graph().items() if "changes.js" in imports)
    assert importers == ["update.js"]


def test_only_the_actions_import_update_js():
    # What changes the state is an action's to decide: the panels, the modes and the helpers
    # that read the DOM or the URL (learn.js, links.js, widget.js) call an action instead.
    importers = sorted(name for name, imports in import_graph().items() if "update.js" in imports)
    assert importers and all(name.startswith("actions/") for name in importers), importers


def test_only_the_requests_action_calls_the_engine():
    call = re.compile(r"\bw\.engine\.call\(|\bengine\.call\(")
    callers = [
        name for name, text in sources().items() if call.search(text) and not name.startswith(("boot/", "worker"))
    ]
    assert callers == ["actions/requests.js"]


def test_only_changes_js_decodes_an_answer():
    # An engine's answer is decoded in one place, the change that stores it: an action hands
    # update() the answer as it came (stepper.js defines decodeAnswer; the build's Node
    # scripts and tests/web call it outside web/).
    call = re.compile(r"(?<!function )\bdecodeAnswer\(")
    callers = [name for name, text in sources().items() if call.search(text)]
    assert callers == ["changes.js"]
