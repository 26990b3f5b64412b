"""What the check and the watched runs found, as findings: one per mistake, each starting with
their line and naming every node the mistake affected, in the catalogue's words."""

from __future__ import annotations

import numbers
from collections import Counter

from ..foreign import close, rule
from ..mistakes import MISTAKES, diagnose, wrong_answers
from ..ops import OPS
from ..text import code_name, fmt
from ..trace import correct_backward, experiment
from .record import _close_numbers, _OrderFound, _Run, _same, _Write
from .watch import _def_line

_NO_BACKWARD_NOTE = "doesn't call a _backward on each node"  # engine.check's note, untrue once pushes show visits


class _Findings:
    """engine.check's problems said as findings, one per mistake: the line of their code, every
    node the mistake affected, the catalogue's mistake when one applies, and a sentence that
    starts with the line. What engine.check says node by node (a wrong local derivative for
    each operand, each node listed twice, each contribution too late) is one finding per line
    of theirs; ``=`` for ``+=`` is one finding, wherever it is written. A result that depends on
    the order of a set (:class:`_SetOrder`) is said in the finding of the node it changes."""

    ORDER_KINDS = ("overwrite", "order", "repeat", "missing", "grad")  # mistakes a set's order can show

    def __init__(self, report, right, ran: _Run, value_class: type, constants=(), set_order=None):
        self.report = report
        self.foreign = report.foreign
        self.right = right
        self.ran = ran
        self.value_class = value_class
        self.constants = set(constants)
        self.set_order: _OrderFound | None = set_order
        self.labels = [node.label for node in self.foreign.nodes]
        self.ids = {label: i for i, label in enumerate(self.labels)}
        self.frames = correct_backward(right)[0]
        self.correct = [report.correct_grads[label] for label in self.labels]
        self.replayed: list[float] | None = None  # the grads the visit order seen here gives

    def all(self) -> list[dict]:
        found = self.merged(self.raw())
        if self.set_order is not None:
            self.say_set_order(found)
        self.name_wrong_grads(found)
        return [self.public(f) for f in found]

    def name_wrong_grads(self, found: list[dict]):
        """Each node whose grad their run left wrong is named by a finding (its tag on the graph
        says that finding's line): the first whose nodes it passes its value on to, since a wrong
        grad flows back from where it went wrong, else the first mistake of the order or ``=``."""
        if not found:
            return
        named = {i for f in found for i in f["nodes"]}
        wrong = [
            i
            for i in range(len(self.labels))
            if i not in named and i not in self.constants and not _close_numbers(self.ran.grads[i], self.correct[i])
        ]
        if not wrong:
            return
        parents = [node.parents for node in self.foreign.nodes]
        upstream = []  # per finding: every node that reaches one of its nodes
        for f in found:
            seen, stack = set(f["nodes"]), list(f["nodes"])
            while stack:
                for p in parents[stack.pop()]:
                    if p not in seen:
                        seen.add(p)
                        stack.append(p)
            upstream.append(seen)
        fallback = next((f for f in found if f["kind"] in self.ORDER_KINDS + ("seed",)), found[0])
        for i in wrong:
            f = next((f for f, seen in zip(found, upstream) if i in seen), fallback)
            f["nodes"].append(i)

    def raw(self) -> list[dict]:
        """One finding per problem engine.check found (and per push seen here, for a class
        without _backward), before the findings of one mistake are made one."""
        problems = self.report.problems
        kinds = {p.kind for p in problems}
        found: list[dict] = self.pushes_order() if self.ran.infer else []
        replayed = self.replayed
        judged: set[int] = set()  # the nodes whose local derivatives have been judged
        specific_order = any(p.kind == "order" and "never reached" in p for p in problems)
        for problem in problems:
            node = self.ids.get(problem.node, self.foreign.output)
            kind = problem.kind
            if kind == "order" and specific_order and "never reached" not in problem:
                continue  # the general sentence: the specific ones say it with the paths
            if kind == "grad":
                if problem.node not in self.ids:  # "3 more grads are wrong in the same way."
                    if found:
                        self.cause(found, problem)["more"] = problem.split(" ", 1)[0]
                        continue
                elif any(node in f["nodes"] for f in found) or (node in self.constants and found):
                    continue  # its node already has the mistake that made it wrong; a constant's isn't said
                elif "seed" in kinds and _same(self.ran.grads[node], 0.0):
                    self.cause(found, problem)["nodes"].append(node)  # no seed: said once, at the output
                    continue
                elif replayed is not None and _same(self.ran.grads[node], replayed[node]):
                    self.cause(found, problem)["nodes"].append(node)  # the order's sentences already said it
                    continue
                elif found:  # a consequence of a mistake found: said in its finding, with its numbers
                    cause = self.cause(found, problem)
                    cause["nodes"].append(node)
                    cause["grads"].append(node)
                    continue
            if kind == "local":
                if node not in judged:  # engine.check says one sentence per parent; all are said at once
                    judged.add(node)
                    found += self.local(node, problem)
            elif kind == "overwrite":
                if not any(f["kind"] == "overwrite" for f in found):  # one finding, for every _backward
                    found.append(self.overwrite(node, problem))
            else:
                found.append(getattr(self, kind, self.other)(node, problem))
        return found

    def cause(self, found: list[dict], problem) -> dict:
        """The finding whose mistake left a grad wrong: the wrong local derivative engine.check
        names, else the first mistake of the order, a seed or ``=``, else the first one."""
        if "because of the wrong local derivative" in problem:
            local = next((f for f in found if f["kind"] == "local"), None)
            if local is not None:
                return local
        return next((f for f in found if f["kind"] in self.ORDER_KINDS + ("seed",)), found[0])

    def merged(self, raw: list[dict]) -> list[dict]:
        """The findings of one mistake made one: all of ``=`` for ``+=``; else those of one
        kind at one line of theirs. It names every node they name, its first sentence is the
        first's (about a node that isn't a constant, if one is named), then what each other adds."""
        groups: dict[tuple, list[dict]] = {}
        for k, f in enumerate(raw):
            key = (f["kind"],) if f["kind"] == "overwrite" else (f["kind"], f["line"] if f["line"] is not None else -k)
            groups.setdefault(key, []).append(f)
        out = []
        for group in groups.values():
            if any(f["nodes"][0] not in self.constants for f in group):  # a constant's share is no one's loss
                group = [f for f in group if f["nodes"][0] not in self.constants]
            first = group[0]
            sentences = [first["sentence"]] + [f["also"] or f["sentence"] for f in group[1:]]
            out.append(
                {
                    **first,
                    "nodes": list(dict.fromkeys(n for f in group for n in f["nodes"])),
                    "sentence": " ".join(dict.fromkeys(sentences)),  # never one sentence twice
                    "after": list(dict.fromkeys(s for f in group for s in f["after"])),
                    "grads": list(dict.fromkeys(n for f in group for n in f["grads"])),
                    "more": next((f["more"] for f in group if f["more"]), None),
                }
            )
        return out

    def say_set_order(self, found: list[dict]):
        """The run's grads depend on the order of a set: said in the finding that names the
        node whose grad changes, else in the finding of a mistake an order can show, else as a
        finding of its own at the line that walks the set."""
        order = self.set_order
        x = self.labels[order.node]
        walks = f"line {order.line} walks" if order.line is not None else "your code walks"
        numbers = (
            f"In this run {x}.grad ended at {_text(order.grad)}, in the other order at {_text(order.other)}; "
            f"the right grad is {fmt(self.correct[order.node])}."
        )
        at = next((f for f in found if order.node in f["nodes"]), None)
        at = at or next((f for f in found if f["kind"] in self.ORDER_KINDS), None) or (found[0] if found else None)
        if at is None:
            sentence = (
                f"your backward() walks a node's {order.attribute}, a set, and Python doesn't fix the order of a "
                f"set's items: your grads depend on it. {numbers}"
            )
            rule_text = "A right backward() gets the same grads in every order its topological sort allows."
            found.append(self.finding(order.node, order.line, None, sentence, "set-order", rule_text))
            return
        at["after"].append(
            f"Your grads also depend on the order of a set: {walks} a node's {order.attribute}, a set, and Python "
            f"doesn't fix the order of a set's items. {numbers}"
        )
        if order.node not in at["nodes"]:
            at["nodes"].append(order.node)

    def public(self, f: dict) -> dict:
        line = f["line"]
        nodes = [i for i in f["nodes"] if i not in self.constants] or f["nodes"]
        text = " ".join([f["sentence"], *([f["rule"]] if f["rule"] else []), *self.consequences(f), *f["after"]])
        return {
            "node": self.labels[nodes[0]],
            "nodes": [self.labels[i] for i in dict.fromkeys(nodes)],
            "line": line,
            "kind": f["kind"],
            "mistake": f["mistake"],
            "text": (f"line {line}: " if line is not None else "") + text,
        }

    def consequences(self, f: dict) -> list[str]:
        """The grads a mistake left wrong, with their numbers: "After your backward(), x1.grad is
        -0.6695 instead of -1.5 and w1.grad 0.4464 instead of 1." """
        said = [
            f"{code_name(self.labels[i])}.grad {'is ' if k == 0 else ''}{_text(self.ran.grads[i])} instead of "
            f"{fmt(self.correct[i])}"
            for k, i in enumerate(f["grads"])
        ]
        if f["more"]:
            said.append(f"{f['more']} more grads are wrong too")
        if not said:
            return []
        listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
        return [f"After your backward(), {listed}."]

    def finding(self, node: int, line, mistake, sentence: str, kind: str, rule_text: str = "", also=None) -> dict:
        """A finding before merging: ``sentence`` is said first, then ``rule_text``; ``also`` is
        what it adds to another finding of the same mistake (else its sentence)."""
        return {
            "nodes": [node],
            "line": line,
            "kind": kind,
            "mistake": mistake,
            "sentence": sentence,
            "rule": rule_text,
            "also": also,
            "after": [],  # sentences said after the rule
            "grads": [],  # the nodes whose wrong grads it explains, said with their numbers
            "more": None,  # how many more wrong grads engine.check didn't list
        }

    def pushes_order(self) -> list[dict]:
        """For a class without _backward: the visits seen in its pushes, judged as engine.check
        judges the _backward calls it records (a node visited twice; a contribution too late)."""
        visits = self.ran.visits
        counts = Counter(v.node for v in visits)
        found = []
        if any(w.op == "=" and w.visit is not None and not _same(w.before, 0.0) for w in self.ran.writes):
            found.append(self.overwrite(None, None))  # engine.check can't probe pushes without a _backward
        for node, count in counts.items():
            if count > 1:
                x = self.labels[node]
                text = (
                    f"{self.head(node)}: backward() passes {x}'s grad on {count} times; a topological sort lists "
                    "each node once (is its visited set missing?)."
                )
                also = f"The same goes for {x}: its grad is passed on {count} times."
                found.append(self.finding(node, self.again(node), None, text, "repeat", also=also))
        if any(f["kind"] == "repeat" for f in found) or not visits:
            return found
        order = list(dict.fromkeys(v.node for v in visits))
        full = order + [i for i in reversed(range(len(self.labels))) if i not in order]
        result = experiment(self.right, full, self.correct)
        if result["late"]:
            self.replayed = result["grads"]
        rule_text = MISTAKES["too-early"].rule
        for item, sentence in zip(result["late"], result["explanation"]):
            if "never reached" in sentence:
                node = item["parent"]
                line = next(v.line for v in visits if v.node == node) if node in counts else self.loop_line()
                sentence = self.without_constants(sentence, item, result)
                found.append(self.finding(node, line, "too-early", sentence, "order", rule_text))
        return found

    def again(self, node: int) -> int | None:
        """The line that listed ``node`` a second time (a sort's append), else that visited it again."""
        appended: Counter = Counter()
        for target, i, line in self.ran.appends:
            appended[(target, i)] += 1
            if i == node and appended[(target, i)] == 2:
                return line
        visits = [v for v in self.ran.visits if v.node == node]
        return visits[1].line if len(visits) > 1 else self.loop_line()

    # -- where in their code --

    def method_line(self, node: int) -> int | None:
        """Where their class defines the operation that made ``node``."""
        op = self.foreign.nodes[node].op
        entry = OPS.get(op)
        return None if entry is None else _def_line(getattr(self.value_class, entry.method, None))

    def backward_line(self) -> int | None:
        return _def_line(getattr(self.value_class, "backward", None))

    def loop_line(self) -> int | None:
        """The line that called the _backward of most nodes: their backward()'s loop."""
        lines = Counter(v.line for v in self.ran.visits if v.line is not None)
        return lines.most_common(1)[0][0] if lines else self.backward_line()

    def writes_into(self, parent: int, child: int | None = None) -> list[_Write]:
        return [
            w
            for w in self.ran.writes
            if w.node == parent and (child is None or (w.visit is not None and self.ran.visits[w.visit].node == child))
        ]

    def head(self, node: int) -> str:
        return f"{self.labels[node]} = {self.right.expressions[node]}"

    # -- each kind of problem --

    def local(self, child: int, problem) -> list[dict]:
        """A wrong local derivative: one finding per parent that got one, at the line that
        pushed it (or, for _local_grads, where the operation is defined)."""
        node = self.foreign.nodes[child]
        right = rule(node.op, [self.foreign.nodes[p].data for p in node.parents], node.const)[1]
        found = []
        for parent in dict.fromkeys(node.parents):
            slots = [s for s, p in enumerate(node.parents) if p == parent]
            given = sum(node.locals[s] for s in slots)
            want = sum(right[s] for s in slots)
            if close(given, want):
                continue
            writes = self.writes_into(parent, child)
            if node.source != "_backward":
                line = self.method_line(child)
            elif writes:
                line = writes[0].line
            else:  # it wrote nothing there: its _backward is where the push is missing
                line = _def_line(getattr(self.foreign.objects[child], "_backward", None)) or self.method_line(child)
            c, x = self.labels[child], self.labels[parent]
            entry = self.catalogue(f"{c}->{x}.local", given)
            text = f"in {self.head(child)}, your code gives {x} the local derivative {fmt(given)}"
            if entry is not None:
                did, fix = entry["text"].removeprefix(fmt(entry["value"]) + " ").split(". ", 1)
                text += f", which {did}. {fix}"
                mistake = entry["mistakes"][0]
            else:
                text += f", but the rule for {node.op} gives {fmt(want)}."
                mistake = None
            also = (
                f"The same line gives {x} the local derivative {fmt(given)} in {self.head(child)}, where the rule "
                f"gives {fmt(want)}."
            )
            found.append(self.finding(parent, line, mistake, text, "local", also=also))
        return found or [self.other(child, problem)]

    def overwrite(self, child: int | None, problem) -> dict:
        """``=`` for ``+=``, one finding wherever it is written: at the first write that lost a
        contribution, naming each node that lost one (else at the first ``=``, harmless on this
        run, and said so), and the other lines that write a grad with ``=``."""
        rule_text = MISTAKES["overwrite"].rule
        writes = [w for w in self.ran.writes if w.op == "=" and w.visit is not None]
        lines = list(dict.fromkeys(w.line for w in writes if w.line is not None))
        lost: dict[int, _Write] = {}  # node -> the first write that overwrote what it held
        for w in writes:
            if not _same(w.before, 0.0):
                lost.setdefault(w.node, w)
        if lost:
            first, *more = lost.values()
            sentence = self.overwrote(first)
            for w in more:
                where = "The same line" if w.line == first.line else f"Line {w.line}"
                y = self.labels[w.node]
                sentence += (
                    f" {where} overwrote {y}'s {_text(w.before)} with {_text(w.after)} too, so {y}.grad ends at "
                    f"{_text(self.ran.grads[w.node])} instead of {fmt(self.correct[w.node])}."
                )
            found = self.finding(first.node, first.line, "overwrite", sentence, "overwrite", rule_text)
            found["nodes"] = list(lost)
            said = {w.line for w in lost.values()}
        elif writes:
            w = writes[0]
            x, target = self.labels[w.node], w.target or code_name(self.labels[w.node])
            sentence = (
                f"`{target}.grad = …` sets {x}.grad instead of adding to it: nothing was lost in this run, but a "
                "node that receives two contributions would keep only the last."
            )
            found = self.finding(w.node, w.line, "overwrite", sentence, "overwrite", rule_text)
            said = {w.line}
        else:
            node = self.foreign.output if child is None else child
            line = self.method_line(node)
            return self.finding(node, line, "overwrite", str(problem or "A _backward overwrites a grad."), "overwrite",
                                rule_text)  # fmt: skip
        others = [line for line in lines if line not in said]
        if others:
            verb = "writes" if len(others) == 1 else "write"
            found["after"].append(f"{_lines_text(others)} {verb} a grad with = too.")
        return found

    def overwrote(self, w: _Write) -> str:
        x, target = self.labels[w.node], w.target or code_name(self.labels[w.node])
        final, right = self.ran.grads[w.node], self.correct[w.node]
        return (
            f"`{target}.grad = …` overwrote {x}'s {_text(w.before)} with {_text(w.after)}, so {x}.grad ends at "
            f"{_text(final)} instead of {fmt(right)}."
        )

    def repeat(self, node: int, problem) -> dict:
        """A node visited more than once: at the line that put it in the order a second time
        (a sort without a visited set), else at the call that visited it again."""
        count = sum(1 for v in self.ran.visits if v.node == node)
        x = self.labels[node]
        also = f"The same goes for {x}: backward() calls its _backward {count} times." if count > 1 else None
        return self.finding(node, self.again(node), None, str(problem), "repeat", also=also)

    def order(self, node: int, problem) -> dict:
        visits = [v for v in self.ran.visits if v.node == node]
        line = visits[0].line if visits else self.loop_line()
        sentence = str(problem)
        result = self.report.experiment
        if result is not None:
            item = next((i for i, s in zip(result["late"], result["explanation"]) if s == sentence), None)
            if item is not None:
                sentence = self.without_constants(sentence, item, result)
        return self.finding(node, line, "too-early", sentence, "order", MISTAKES["too-early"].rule)

    def without_constants(self, sentence: str, item: dict, result: dict) -> str:
        """The visit-order experiment's sentence about a contribution that came too late
        (engine.trace's words), with the paths that start at a constant left out: a number in
        an operation is no input, and its grad nobody's to get right."""
        graph = self.right
        paths = [p for p in result["lost_paths"] if p["late_edge"] == item["edge"]]
        kept = [p for p in paths if p["nodes"][0] not in self.constants]
        if len(kept) == len(paths) or not kept or "never reached" not in sentence:
            return sentence
        parent, child = graph.label(item["parent"]), graph.label(item["child"])
        shown = [" → ".join(graph.label(n) for n in p["nodes"]) for p in kept[:2]]
        more = f" (and {len(kept) - 2} more)" if len(kept) > 2 else ""
        inputs = sorted({p["nodes"][0] for p in kept}, key=graph.inputs.index)
        wrong = [n for n in inputs if not _close_numbers(result["grads"][n], self.correct[n])]
        names = [graph.label(n) for n in inputs]
        reached = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        text = (
            f"{parent} was visited before {child} had added its contribution to {parent}, so the "
            f"{'path' if len(kept) == 1 else 'paths'} {' and '.join(shown)}{more} never reached {reached}"
        )
        if wrong:
            text += ": " + ", ".join(
                f"{graph.label(n)}.grad is {fmt(result['grads'][n])}, not {fmt(self.correct[n])}" for n in wrong
            )
        else:
            text += f", but {'that path' if len(kept) == 1 else 'those paths'} carried 0, so no input's grad changed"
        return text + "."

    def missing(self, node: int, problem) -> dict:
        return self.finding(node, self.loop_line(), None, str(problem), "missing")

    def seed(self, node: int, problem) -> dict:
        first = next((v.upstream for v in self.ran.visits if v.node == node), self.ran.grads[node])
        data = self.foreign.nodes[node].data
        mistake = "seed-output" if isinstance(first, numbers.Real) and close(first, data) and data != 0 else "seed-zero"
        seeds = [w for w in self.writes_into(node) if w.visit is None]
        line = seeds[-1].line if seeds else self.backward_line()
        rule_text = "" if "The seed is" in problem else MISTAKES[mistake].rule  # the catalogue's sentence said it
        return self.finding(node, line, mistake, str(problem), "seed", rule_text)

    def grad(self, node: int, problem) -> dict:
        writes = self.writes_into(node)
        line = writes[-1].line if writes else self.loop_line()
        got = self.ran.grads[node]
        # The catalogue says why a grad is wrong only when nothing else did: a wrong local
        # derivative or order upstream makes numbers a mistake of the catalogue may share.
        alone = all(p.kind == "grad" for p in self.report.problems)
        entry = self.catalogue(f"{self.labels[node]}.grad", got) if alone and isinstance(got, numbers.Real) else None
        if entry is None:
            return self.finding(node, line, None, str(problem), "grad")
        return self.finding(node, line, entry["mistakes"][0], f"{problem} {entry['text']}", "grad")

    def data(self, node: int, problem) -> dict:
        return self.finding(node, self.method_line(node), None, str(problem), "data")

    def other(self, node: int, problem) -> dict:
        writes = [w for w in self.ran.writes if w.visit is not None and self.ran.visits[w.visit].node == node]
        line = writes[0].line if writes else self.method_line(node) or self.backward_line()
        return self.finding(node, line, None, str(problem), problem.kind)

    def catalogue(self, question: str, reply) -> dict | None:
        """The catalogue's entry for ``reply`` as the answer to ``question`` on the right graph."""
        try:
            found = wrong_answers(self.right, self.frames, question)
        except ValueError:
            return None
        tolerance = 1e-6 * max(1.0, abs(found["value"]))
        return diagnose(found["wrong"], float(reply), tolerance)


def _lines_text(lines: list[int]) -> str:
    """``Line 26``, ``Lines 26 and 39``, ``Lines 25, 26 and 39``."""
    numbers_ = [str(line) for line in sorted(lines)]
    if len(numbers_) == 1:
        return f"Line {numbers_[0]}"
    return "Lines " + ", ".join(numbers_[:-1]) + " and " + numbers_[-1]


def _text(x) -> str:
    return fmt(float(x)) if isinstance(x, numbers.Real) else repr(x)
