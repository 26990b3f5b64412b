"""Their backward() watched: each visit and each write to a .grad, with its line (:class:`_Run`);
then run again with each set of parents walked in the other order (:class:`_SetOrder`)."""

from __future__ import annotations

import numbers
import sys
from collections import Counter
from dataclasses import dataclass

from .. import check as _check
from ..foreign import Foreign, close, untouched
from .request import _Refusal
from .watch import LEARNER_FILE, _Watch

FULL_SWEEP_NODES = 200  # up to this many nodes, every grad is compared after every line

# Frames of engine/check.py's wrapping sit between a visit and its caller; the file name its
# code objects carry (a precompiled engine's too) is the one to compare with.
_CHECK_FILE = _check._recorder.__code__.co_filename


@dataclass
class _Visit:
    node: int  # the node whose grad is passed on
    line: int | None  # the line of theirs that called its _backward (or made its first push)
    upstream: object  # its grad at that moment


@dataclass
class _Write:
    node: int
    line: int | None
    op: str  # "=", "+=" (or another augmented operator), as their statement writes it
    before: object
    after: object
    visit: int | None  # index into the visits: the node passing its grad on, if any
    target: str | None  # the name the statement writes through (self, other, child), when it has one


class _Run:
    """Their backward(), run once on the graph as they built it, watched: the visits, every
    write to a grad with its line, and the grads it leaves. The graph is put back afterwards."""

    def __init__(self, foreign: Foreign, right, watch: _Watch):
        self.objects = foreign.objects
        self.output = foreign.output
        self.index = {id(obj): i for i, obj in enumerate(self.objects)}
        self.parents = [set(node.parents) for node in foreign.nodes]
        self.right = right
        self.watch = watch
        # Without any _backward (microgpt's way), a visit is inferred from the pushes.
        self.infer = not any(node.source == "_backward" for node in foreign.nodes)
        self.full = len(self.objects) <= FULL_SWEEP_NODES
        self.recorded: list = []  # (node, grad) per _backward call: engine.check's wrapping appends
        self.seen = 0  # how many of those have become visits
        self.visits: list[_Visit] = []
        self.writes: list[_Write] = []
        self.appends: list[tuple[int, int, int]] = []  # (id of the list, node, line): list.append of a node
        self.known: list = []  # each grad as last seen
        self.pending: dict = {}  # frame -> writes its current statement is making
        self.active: list = []  # (frame, visit) of the _backward calls under way, innermost last
        self.where: tuple | None = None  # (frame, line) of the statement of theirs under way
        self.inferred: tuple[int, int] | None = None  # (node, visit) of the pushes under way
        self.calling: dict = {}  # id(list) -> (the list, line) of an append under way
        self.grads: list = []

    def run(self):
        root = self.objects[self.output]
        with untouched(self.objects), _check._recording(self.objects, self.recorded):
            self.known = [self.grad(obj) for obj in self.objects]
            self.watch.recorder = self
            try:
                self.watch.guarded(root.backward, runtime=True)
            finally:
                self.watch.recorder = None
            self.catch_up()
            self.sweep()
            self.grads = [self.grad(obj) for obj in self.objects]
        return self

    @staticmethod
    def grad(obj):
        try:
            return obj.grad
        except Exception:
            return None

    # -- events (from _Watch) --

    def on_call(self, frame):
        self.sweep()
        back = frame.f_back
        if back is not None and back.f_code.co_filename == _CHECK_FILE and self.seen < len(self.recorded):
            self.catch_up()  # a _backward of theirs, called through engine.check's wrapping
            self.active.append((frame, len(self.visits) - 1))

    def catch_up(self):
        """Every _backward call recorded so far becomes a visit (one that isn't Python, such as
        a builtin, is recorded without a frame of its own)."""
        line = self.caller_line()
        while self.seen < len(self.recorded):
            node, upstream = self.recorded[self.seen]
            self.visits.append(_Visit(node, line, upstream))
            self.seen += 1

    def caller_line(self) -> int | None:
        return None if self.where is None else self.where[1]

    def on_line(self, frame):
        self.finish(frame)
        self.sweep()
        line = frame.f_lineno
        self.where = (frame, line)
        stores = self.watch.stores.get(line)
        if not stores:
            return
        local = frame.f_locals
        for name, op in stores:
            obj = local.get(name) if name is not None else None
            i = self.index.get(id(obj)) if obj is not None else None
            if i is not None:
                write = _Write(i, line, op, self.known[i], None, self.visit_of(local, i, line), name)
                self.pending.setdefault(frame, []).append(write)

    def on_return(self, frame):
        self.finish(frame)
        self.sweep()
        if self.active and self.active[-1][0] is frame:
            self.active.pop()
        caller = frame.f_back
        while caller is not None and caller.f_code.co_filename != LEARNER_FILE:
            caller = caller.f_back
        self.where = None if caller is None else (caller, caller.f_lineno)

    def on_profile(self, frame, event, arg):
        """list.append of a node, and the line that did it (a topological sort's)."""
        if event not in ("c_call", "c_return") or getattr(arg, "__name__", None) != "append":
            return
        target = getattr(arg, "__self__", None)
        if type(target) is not list or frame.f_code.co_filename != LEARNER_FILE:
            return
        if event == "c_call":
            self.calling[id(target)] = len(target)
        elif self.calling.pop(id(target), None) == len(target) - 1:
            i = self.index.get(id(target[-1]))
            if i is not None:
                self.appends.append((id(target), i, frame.f_lineno))

    # -- writes --

    def visit_of(self, local: dict, node: int, line: int) -> int | None:
        """The visit a write into ``node`` belongs to: the _backward call under way; without
        _backward, the node in the frame's variables that ``node`` is a parent of."""
        if self.active:
            return self.active[-1][1]
        if not self.infer:
            return None
        candidates = [
            j
            for j in (self.index.get(id(v)) for v in list(local.values()))
            if j is not None and node in self.parents[j]
        ]
        if not candidates:
            return None
        j = candidates[-1]
        if self.inferred is None or self.inferred[0] != j:
            self.visits.append(_Visit(j, line, self.known[j]))
            self.inferred = (j, len(self.visits) - 1)
        return self.inferred[1]

    def finish(self, frame):
        """The statement ``frame`` was making is done: its writes, with the grads they left."""
        for write in self.pending.pop(frame, ()):
            write.after = self.grad(self.objects[write.node])
            self.known[write.node] = write.after
            self.writes.append(write)

    def sweep(self):
        """A grad that changed without a statement seen to write it (a write through an
        expression, a helper that isn't theirs): recorded at the statement under way."""
        if not self.full:
            return
        busy = {write.node for writes in self.pending.values() for write in writes}
        line = self.caller_line()
        for i, obj in enumerate(self.objects):
            now = self.grad(obj)
            if i in busy or _same(now, self.known[i]):
                continue
            ops = {op for _, op in self.watch.stores.get(line, ())}
            op = ops.pop() if len(ops) == 1 else "="
            visit = self.active[-1][1] if self.active else None
            self.writes.append(_Write(i, line, op, self.known[i], now, visit, None))
            self.known[i] = now

    def writes_as_data(self, labels: list[str]) -> list[dict]:
        """The writes as the answer gives them, each on its edge where it maps to one: the
        k-th write into a parent during a visit goes on the k-th edge from that child into it."""
        counts: Counter = Counter()
        out = []
        for write in self.writes:
            edge = None
            if write.visit is not None:
                child = self.visits[write.visit].node
                edges = [e for e in self.right.parent_edges[child] if self.right.edges[e].parent == write.node]
                if edges:
                    k = counts[(write.visit, write.node)]
                    counts[(write.visit, write.node)] += 1
                    edge = edges[min(k, len(edges) - 1)]
            out.append(
                {
                    "node": labels[write.node],
                    "edge": edge,
                    "line": write.line,
                    "op": write.op,
                    "before": _number_or_none(write.before),
                    "after": _number_or_none(write.after),
                    "visit": write.visit,
                }
            )
        return out


@dataclass
class _OrderFound:
    """Their backward() gave another grad when their sets of parents were walked in another order."""

    line: int | None  # the line of theirs that walked a set of parents
    attribute: str  # the set's attribute: "_prev" (micrograd's), or "_children"
    node: int  # the node whose grad differs (the first of them)
    grad: object  # its grad in the run shown
    other: object  # its grad in the other order
    nodes: list[int]  # every node whose grad differs

    def as_data(self, labels: list[str]) -> dict:
        return {
            "line": self.line,
            "attribute": self.attribute,
            "node": labels[self.node],
            "grad": _number_or_none(self.grad),
            "other": _number_or_none(self.other),
            "nodes": [labels[i] for i in self.nodes],
        }


class _SetOrder:
    """Does their result depend on the order of a set? Python fixes no order for a set's items
    (micrograd's ``_prev`` is one, ordered by the objects' addresses, so the same code can walk
    it one way in one run and the other way in the next). Their backward() is run once more on
    the same graph with each set of parents, of two items or more, walked in the reverse of its
    own order; both orders are orders a set may have. A node whose grad comes out otherwise is
    named, with the line of theirs that walked the set. Their objects are put back afterwards;
    a second run that fails or runs too long only means no answer here."""

    ATTRIBUTES = ("_prev", "_children")

    def __init__(self, foreign: Foreign, watch: _Watch, ran: _Run, constants: list[int]):
        self.objects = foreign.objects
        self.output = foreign.output
        self.watch = watch
        self.ran = ran
        self.constants = set(constants)

    def run(self) -> _OrderFound | None:
        if not self.ran.grads:
            return None
        walked: list[int] = []  # the line of theirs at each walk of a reversed set
        steps = self.watch.steps
        try:
            with untouched(self.objects):
                found = self.watch.guarded(self.other_order, walked)
        except (_Refusal, Exception):  # an order their code can't take is not this question's to answer
            return None
        finally:
            self.watch.steps = steps  # the other order has a budget of its own
        if found is None:
            return None
        attribute, grads = found
        differ = [i for i, (g, h) in enumerate(zip(self.ran.grads, grads)) if not _close_numbers(g, h)]
        if all(i in self.constants for i in differ):
            return None  # (a constant's grad is nobody's to get right)
        node = next(i for i in differ if i not in self.constants)
        line = Counter(walked).most_common(1)[0][0] if walked else None
        return _OrderFound(line, attribute, node, self.ran.grads[node], grads[node], differ)

    def other_order(self, walked: list) -> tuple[str, list] | None:
        """Each set of parents walked backwards, then their backward(): the grads it leaves."""
        kinds = {set: _walked_backwards(set, walked), frozenset: _walked_backwards(frozenset, walked)}
        attributes = []
        for obj in self.objects:
            for name in self.ATTRIBUTES:
                parents = getattr(obj, name, None)
                if type(parents) in kinds and len(parents) >= 2:
                    setattr(obj, name, kinds[type(parents)](parents))
                    attributes.append(name)
        if not attributes:
            return None
        self.objects[self.output].backward()
        return attributes[0], [_Run.grad(obj) for obj in self.objects]


def _walked_backwards(kind: type, walked: list):
    """A subclass of set (or frozenset) whose items are walked in the reverse of the set's own
    order, noting each line of their code that walks it."""

    def __iter__(self):
        caller = sys._getframe(1)
        if caller.f_code.co_filename == LEARNER_FILE:
            walked.append(caller.f_lineno)
        return iter(list(kind.__iter__(self))[::-1])

    return type(f"reversed_{kind.__name__}", (kind,), {"__iter__": __iter__, "__slots__": ()})


def _close_numbers(x, y) -> bool:
    if isinstance(x, numbers.Real) and isinstance(y, numbers.Real):
        return _same(x, y) or close(float(x), float(y))
    return _same(x, y)


def _same(x, y) -> bool:
    if x is y:
        return True
    try:
        return bool(x == y) or (isinstance(x, float) and isinstance(y, float) and x != x and y != y)
    except Exception:
        return False


def _number_or_none(x) -> float | None:
    return float(x) if isinstance(x, numbers.Real) else None
