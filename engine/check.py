"""check(loss): test a learner's own autodiff engine on the graph of ``loss``.

The lesson after the widget has the learner write their own ``Value``: ``_backward``
closures and a topological sort. Three mistakes are classic, and each one is caught here
at the node where it happens:

1. **a wrong local derivative** (``tanh``'s written as ``1 - x**2`` instead of
   ``1 - t**2``): each node's local derivatives, read from the graph exactly as
   :mod:`engine.foreign` reads them, are compared with the engine's rule for the same
   operation on the same data (the engine's own Value computes it). An operation Gradwalk
   doesn't know is said plainly and not judged;
2. **``=`` instead of ``+=``** in ``_backward``: each ``_backward`` is called with the
   parents' grads set to a known nonzero number; it must add its contribution to that
   number, not replace it;
3. **a wrong visit order** (a topological sort without a visited set, or not reversed, or
   none at all): the learner's own ``backward()`` is run with every node's ``_backward``
   wrapped to record when it is called and with what grad. The seed (the output's grad
   must be 1 when its ``_backward`` runs), nodes visited twice or never, and the final
   grads are compared with the right ones; a wrong order is replayed through the engine's
   visit-order experiment, which names the contribution that arrived late and the path it
   lost.

Where a problem is one of the mistakes in the catalogue (:mod:`engine.mistakes`), it is
worded with the catalogue's sentence and carries the mistake's id: a local derivative
whose number a mistake gives (tanh′ with the input, a product's own value, ...), ``=`` for
``+=``, a seed of 0 or of the output's value, a visit too early, and a wrong final grad
whose number a mistake predicts.

The learner's graph is left exactly as it was found: every attribute of every node (grads,
``_backward``, everything in its ``__dict__`` and its slots) is put back, and a class
whose ``_backward`` had to be wrapped on the class itself gets its own back.
"""

from __future__ import annotations

import numbers
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from .foreign import _MISSING, Foreign, ForeignGraphError, close, read, rule, untouched
from .mistakes import grad_entry, local_mistake, too_early_text
from .text import code_name, expression_text, fmt, local_text
from .trace import correct_backward, experiment

# The catalogue's mistakes in a local derivative: once every local derivative checks out,
# none of them explains a wrong grad.
LOCAL_MISTAKES = ("own-value", "sum-zero", "sum-halves", "sub-sign", "tanh-input", "tanh-itself", "power-base")
PROBE = 1000.0  # what each parent's grad is set to before its child's _backward is called
MAX_GRAD_SENTENCES = 8


class Problem(str):
    """One sentence about one mistake; ``node`` is the label of the node it is about and
    ``kind`` one of ``data``, ``local``, ``overwrite``, ``accumulate``, ``backward``,
    ``seed``, ``repeat``, ``missing``, ``order``, ``grad``. ``mistake`` is the id of the
    catalogue's mistake it is (engine/mistakes.py), or None."""

    node: str
    kind: str
    mistake: str | None

    def __new__(cls, text: str, node: str, kind: str, mistake: str | None = None):
        problem = super().__new__(cls, text)
        problem.node = node
        problem.kind = kind
        problem.mistake = mistake
        return problem


@dataclass
class Report:
    """What check found. ``problems`` are mistakes, in the order backward meets them;
    ``notes`` are what could not be checked, and why."""

    output: str
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    visit_order: list[str] | None = None  # labels, in the order backward() first visited them
    grads: dict[str, float] | None = None  # what the learner's backward() produced
    correct_grads: dict[str, float] = field(default_factory=dict)
    experiment: dict | None = None  # the visit-order experiment, when the order was wrong
    order: list[str] | None = None  # the whole visit order that experiment ran (labels)
    foreign: Foreign | None = field(default=None, repr=False, compare=False)  # the graph as read

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        if self.ok:
            lines = [
                f"check({self.output}): no problems found. Every local derivative Gradwalk knows follows "
                "its rule, every _backward adds into the grads, and backward() gets every grad right."
            ]
        else:
            count = len(self.problems)
            lines = [f"check({self.output}): {count} problem{'s' if count != 1 else ''}"]
            lines += [f"  {i}. {problem}" for i, problem in enumerate(self.problems, 1)]
        if self.notes:
            lines.append("Not checked:")
            lines += [f"  - {note}" for note in self.notes]
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle):  # IPython shows the sentences, not the dataclass
        printer.text(str(self))

    def as_dict(self) -> dict:
        """The report as plain data, for the widget (which opens on the first problem's node)."""
        return {
            "ok": self.ok,
            "output": self.output,
            "problems": [{"text": str(p), "node": p.node, "kind": p.kind, "mistake": p.mistake} for p in self.problems],
            "notes": list(self.notes),
            "visit_order": self.visit_order,
            "order": self.order,
            "grads": self.grads,
            "correct_grads": self.correct_grads,
        }


def check(loss, names: dict[int, str] | None = None) -> Report:
    """Test the engine that built ``loss`` against Gradwalk's rules; see the module's doc.
    ``names`` labels nodes by ``id()``, as :func:`engine.foreign.read` takes them."""
    try:
        return _Checker(read(loss, names)).run()
    except ForeignGraphError:
        raise
    except Exception as error:  # a bug of ours: still one clear error, never a traceback from inside
        raise ForeignGraphError(
            f"Gradwalk failed while checking this graph ({type(error).__name__}: {error}); "
            "this is a bug in Gradwalk, not in your code."
        ) from error


class _Checker:
    def __init__(self, foreign: Foreign):
        self.foreign = foreign
        self.nodes = foreign.nodes
        self.objects = foreign.objects
        self.graph = foreign.graph()  # as the graph says (its own local derivatives)
        labels = [node.label for node in self.nodes]
        self.labels = labels
        expressions = self.graph.expressions
        self.heads = [
            n.label
            if expressions[i] == n.label
            else f"{n.label} = {expressions[i]}"
            if n.parents
            else f"{n.label} (an input)"
            for i, n in enumerate(self.nodes)
        ]
        # The right graph: the engine's rule wherever Gradwalk knows the operation.
        right = [
            replace(n, locals=tuple(rule(n.op, [self.nodes[p].data for p in n.parents], n.const)[1]))
            if n.known and n.parents
            else n
            for n in self.nodes
        ]
        self.right = Foreign(right, [], foreign.style).graph()
        self.correct_frames, self.correct = correct_backward(self.right)
        self.report = Report(labels[foreign.output], correct_grads=dict(zip(labels, self.correct)), foreign=foreign)
        self.local_problems: dict[tuple[int, int], Problem] = {}

    def problem(self, text, node, kind, mistake=None):
        self.report.problems.append(Problem(text, self.labels[node], kind, mistake))

    def run(self) -> Report:
        with untouched(self.objects):  # whatever a learner's code touches is put back at the end
            for i in reversed(range(len(self.nodes))):  # the order backward meets them: output first
                if self.nodes[i].parents:
                    self.check_rule(i)
                    if self.nodes[i].source == "_backward":
                        self.check_accumulates(i)
            self.check_backward()
        return self.report

    # -- 1. each node's data and local derivatives against the engine's rule --------------------

    def check_rule(self, i):
        node, head = self.nodes[i], self.heads[i]
        where = {
            "_backward": "its _backward gives",
            "_local_grads": "its _local_grads give",
            "_local": "its _local gives",
        }.get(node.source, "it gives")
        if not node.known:
            given = ", ".join(f"{self.labels[p]} {fmt(local)}" for p, local in zip(node.parents, node.locals))
            self.report.notes.append(
                f"{head}: Gradwalk doesn't know the operation {node.op!r}, so it can't check "
                f"it; it takes the local derivatives the graph gives ({given})."
            )
            return
        data, locals_ = rule(node.op, [self.nodes[p].data for p in node.parents], node.const)
        if not close(data, node.data):
            numbers = expression_text(self.graph.values[i], names=lambda parent: fmt(parent.data))
            self.problem(f"{head}: its data is {fmt(node.data)}, but {numbers} = {fmt(data)}.", i, "data")
        for parent in dict.fromkeys(node.parents):
            slots = [s for s, p in enumerate(node.parents) if p == parent]
            given = sum(node.locals[s] for s in slots)
            want = sum(locals_[s] for s in slots)
            if close(given, want):
                continue
            name = self.labels[parent]
            found = None
            if len(slots) == 1:
                rule_text = f"{local_text(self.right.values[i], slots[0])} = {fmt(want)}"
                found = local_mistake(self.right, i, parent, given)
            else:
                rule_text = f"{' + '.join(fmt(locals_[s]) for s in slots)} = {fmt(want)}, one term per use of {name}"
            if found is None:
                text = f"{head}: {where} {name} a local derivative of {fmt(given)}, but the rule for {node.op} says "
                text += f"{rule_text}."
            else:  # the catalogue's mistake: what the learner did, then the rule with these numbers
                text = f"{head}: {where} {name} a local derivative of {fmt(given)}, which {found['did']}. "
                text += found["fix"]
            self.local_problems[(i, parent)] = Problem(
                text, self.labels[i], "local", None if found is None else found["mistakes"][0]
            )
            self.report.problems.append(self.local_problems[(i, parent)])

    # -- 2. does _backward add (+=) or overwrite (=)? ------------------------------------------------

    def check_accumulates(self, i):
        node, obj = self.nodes[i], self.objects[i]
        parents = list(dict.fromkeys(node.parents))
        with untouched([obj] + [self.objects[p] for p in parents]):
            try:
                obj.grad = 1.0
                for p in parents:
                    self.objects[p].grad = PROBE
                obj._backward()
                after = {p: self.objects[p].grad for p in parents}
            except Exception as error:
                self.problem(
                    f"{self.heads[i]}: its _backward raised {type(error).__name__} ({error}) when the "
                    f"grads were not 0.",
                    i,
                    "accumulate",
                )
                return
        overwritten, twice, other = [], [], []
        for p in parents:
            name = code_name(self.labels[p])
            local = sum(edge_local for q, edge_local in zip(node.parents, node.locals) if q == p)
            got = after[p]
            if _is_number(got) and close(got, PROBE + local):
                continue
            if _is_number(got) and close(got, local):
                overwritten.append(f"{name}.grad")
                uses = node.parents.count(p)
                if uses > 1:
                    # The local derivative it gave is one use's share only: the overwrite says it all.
                    wrong = self.local_problems.pop((i, p), None)
                    if wrong is not None:
                        self.report.problems.remove(wrong)
                    twice.append(
                        f"{name} is used {uses} times here, so only the last of its {uses} contributions survives"
                    )
            else:
                other.append(
                    f"its _backward changes {name}.grad from {fmt(PROBE)} to {_text(got)}; adding its "
                    f"local derivative {fmt(local)} would give {fmt(PROBE + local)}"
                )
        if overwritten:
            them = "it" if len(overwritten) == 1 else "them"
            self.problem(
                f"{self.heads[i]}: its _backward overwrites {_join(overwritten)} (=) instead of adding to "
                f"{them} (+=)" + "".join(f"; {t}" for t in twice) + ".",
                i,
                "overwrite",
                "overwrite",
            )
        if other:
            self.problem(f"{self.heads[i]}: " + "; ".join(other) + ".", i, "accumulate")

    # -- 3. the learner's own backward() -------------------------------------------------------------

    def check_backward(self):
        out = self.foreign.output
        label = self.labels[out]
        root = self.objects[out]
        backward = getattr(root, "backward", None)
        if not callable(backward):
            self.report.notes.append(
                f"{label} has no backward() method, so only the local derivatives and _backward were checked."
            )
            return
        visits = []  # (run() puts every object back afterwards)
        with _recording(self.objects, visits):
            try:
                for obj in self.objects:
                    obj.grad = 0.0
                backward()
            except Exception as error:
                self.problem(f"{label}.backward() raised {type(error).__name__}: {error}", out, "backward")
                return
            final = [obj.grad for obj in self.objects]
        self.report.grads = dict(zip(self.labels, (g if _is_number(g) else None for g in final)))
        if visits:
            self.check_visits(visits)
        else:
            self.report.notes.append(
                f"{label}.backward() doesn't call a _backward on each node, so the order it "
                "visits the nodes in couldn't be recorded; its final grads were checked."
            )
            if not (_is_number(final[out]) and close(final[out], 1.0)):
                self.seed_problem(
                    f"{label}: after backward(), {label}.grad is {_text(final[out])}; backward() must "
                    f"seed it with {label}.grad = 1.",
                    final[out],
                )
        self.check_grads(final)

    def check_visits(self, visits):
        out = self.foreign.output
        label = self.labels[out]
        first = {}
        counts = [0] * len(self.nodes)
        for node, upstream in visits:
            counts[node] += 1
            first.setdefault(node, upstream)
        order = list(first)
        self.report.visit_order = [self.labels[i] for i in order]
        if out not in first:
            self.problem(
                f"{label}: backward() never calls {label}._backward(), so the output passes nothing on.", out, "missing"
            )
        elif not (_is_number(first[out]) and close(first[out], 1.0)):
            self.seed_problem(
                f"{label}: backward() doesn't seed {label}.grad = 1: when {label}'s _backward ran, "
                f"{label}.grad was {_text(first[out])}.",
                first[out],
            )
        repeated = [i for i in range(len(self.nodes)) if counts[i] > 1]
        missing = [i for i, n in enumerate(self.nodes) if n.parents and counts[i] == 0 and i != out]
        if any(self.nodes[i].parents for i in repeated):
            repeated = [i for i in repeated if self.nodes[i].parents]  # the harmless ones add nothing then
        for i in reversed(repeated):
            name = self.labels[i]
            effect = (
                f"so {name} passes its grad on {counts[i]} times"
                if self.nodes[i].parents
                else f"which does no harm here only because {name} is an input and passes nothing on"
            )
            self.problem(
                f"{self.heads[i]}: backward() calls its _backward {counts[i]} times, {effect}; a "
                "topological sort lists each node once (is its visited set missing?).",
                i,
                "repeat",
            )
        for i in reversed(missing):
            parents = ", ".join(dict.fromkeys(self.labels[p] for p in self.nodes[i].parents))
            self.problem(
                f"{self.heads[i]}: backward() never calls its _backward, so nothing reaches {parents} "
                f"through {self.labels[i]}.",
                i,
                "missing",
            )
        if any(self.nodes[i].parents for i in repeated) or missing or out not in first:
            return
        full = order + [i for i in reversed(range(len(self.nodes))) if i not in first]
        result = experiment(self.right, full, self.correct)
        if not result["late"]:
            return
        self.report.experiment = result
        self.report.order = [self.labels[i] for i in full]
        # Only the sentences about lost paths: "already cut off earlier" adds nothing here.
        said = {}
        for item, sentence in zip(result["late"], result["explanation"]):
            if "never reached" in sentence:
                said.setdefault(sentence, item["parent"])
        first = next(iter(said.values()), result["late"][0]["parent"])
        visited = ", ".join(self.labels[i] for i in order)
        # The catalogue's sentence names the first visit made too early and its rule; when no
        # grad came out wrong (the lost paths carried 0) it has none, and the general words stay.
        # (Said without the grads it left wrong: the sentences after it say which paths and grads.)
        mistake = result["mistake"]
        if mistake:
            item = result["late"][mistake["late"]]
            why = too_early_text(self.right, item["parent"], item["child"], item["contribution"])["text"]
        else:
            why = "some are visited before every node that uses them has passed its grad on."
        self.problem(f"backward() visits the nodes in a wrong order ({visited}): {why}", first, "order", "too-early")
        for sentence, node in said.items():
            self.problem(sentence, node, "order", "too-early")

    def seed_problem(self, text, grad):
        """A wrong seed; a seed of 0 or of the output's value is the catalogue's mistake, and
        its sentence follows."""
        out = self.foreign.output
        entry = grad_entry(self.right, self.correct_frames, out, grad) if _is_number(grad) else None
        if entry is None:
            self.problem(text, out, "seed")
        else:
            self.problem(f"{text} {entry['text']}", out, "seed", entry["mistakes"][0])

    def ruled_out(self) -> set[str]:
        """The catalogue's mistakes check has tested for and found not made: none of them
        explains a wrong grad."""
        kinds = {p.kind for p in self.report.problems}
        # Every _backward was called with its node's grad = 1 (engine/foreign.py measures the local
        # derivatives so, and check_accumulates): one that leaves out the local derivative,
        # or adds it to the grad, gave a wrong local derivative there. One that leaves out
        # the upstream grad gives the right number at grad = 1, so only the final grads show it.
        every_backward_run = all(n.source == "_backward" for n in self.nodes if n.parents)
        ruled_out = set()
        if "local" not in kinds:
            ruled_out.update(LOCAL_MISTAKES)
            if every_backward_run:
                ruled_out.update(("no-local", "factors-added"))
        if self.report.visit_order is not None and self.report.experiment is None and "order" not in kinds:
            ruled_out.add("too-early")
        if every_backward_run and not kinds & {"overwrite", "accumulate"}:
            ruled_out.update(("overwrite", "one-path"))
        return ruled_out

    def check_grads(self, final):
        """The final grads against the right ones: the inputs' (what training uses), or the
        intermediates' when every input's is right."""
        graph = self.right
        inputs = graph.inputs
        wrong = [i for i in inputs if not self.grad_is_right(final, i)]
        if not wrong:
            wrong = [i for i in reversed(range(len(graph))) if i not in inputs and not self.grad_is_right(final, i)]
        own = correct_backward(self.graph)[1]  # the graph's own local derivatives, in the right order
        ruled_out = self.ruled_out()
        replayed = self.report.experiment["grads"] if self.report.experiment else None
        if replayed is not None:  # what the order's sentences already said is not said again
            wrong = [i for i in wrong if not (_is_number(final[i]) and close(final[i], replayed[i]))]
        for i in wrong[:MAX_GRAD_SENTENCES]:
            name = code_name(self.labels[i])
            text = (
                f"{self.labels[i]}: after your backward(), {name}.grad is {_text(final[i])}, but it should be "
                f"{fmt(self.correct[i])}"
            )
            if (
                _is_number(final[i])
                and close(final[i], own[i])
                and any(p.kind == "local" for p in self.report.problems)
            ):
                self.problem(text + " (because of the wrong local derivative above).", i, "grad")
                continue
            # A number one of the catalogue's mistakes gives: its sentence says what was done.
            entry = (
                grad_entry(self.right, self.correct_frames, i, final[i], ruled_out) if _is_number(final[i]) else None
            )
            if entry is None:
                self.problem(text + ".", i, "grad")
            else:
                self.problem(f"{text}. {entry['text']}", i, "grad", entry["mistakes"][0])
        if len(wrong) > MAX_GRAD_SENTENCES:
            self.problem(f"{len(wrong) - MAX_GRAD_SENTENCES} more grads are wrong in the same way.", wrong[-1], "grad")

    def grad_is_right(self, final, i) -> bool:
        return _is_number(final[i]) and close(final[i], self.correct[i])


@contextmanager
def _recording(objects: list, visits: list):
    """Wrap every node's _backward to record (node, its grad at the call) while inside.

    On the instance when the instance can hold it (micrograd's closures, a slot); else on
    the class (a _backward method of a class with __slots__), put back on exit.
    """
    index = {id(obj): i for i, obj in enumerate(objects)}
    patched = {}  # class -> what its own __dict__ held under _backward (or _MISSING)
    for i, obj in enumerate(objects):
        try:
            original = obj._backward
        except Exception:
            continue
        if not callable(original):
            continue
        try:
            obj._backward = _recorder(original, i, obj, visits)
            continue
        except (AttributeError, TypeError):
            pass
        cls = type(obj)
        if cls not in patched:
            patched[cls] = cls.__dict__.get("_backward", _MISSING)
            cls._backward = _class_recorder(cls, index, visits)
    try:
        yield
    finally:
        for cls, own in patched.items():
            if own is _MISSING:
                delattr(cls, "_backward")
            else:
                cls._backward = own


def _recorder(original, i, obj, visits):
    def recorded(*args, **kwargs):
        visits.append((i, getattr(obj, "grad", None)))
        return original(*args, **kwargs)

    return recorded


def _class_recorder(cls, index, visits):
    descriptor = next(c.__dict__["_backward"] for c in cls.__mro__ if "_backward" in c.__dict__)

    def recorded(self, *args, **kwargs):
        if id(self) in index:
            visits.append((index[id(self)], getattr(self, "grad", None)))
        return descriptor.__get__(self, type(self))(*args, **kwargs)

    return recorded


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real)


def _text(x) -> str:
    return fmt(float(x)) if _is_number(x) else repr(x)


__all__ = ["check", "Report", "Problem"]
