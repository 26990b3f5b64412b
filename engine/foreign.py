"""Reading a micrograd-style graph that Gradwalk did not build, without changing it.

A learner's graph comes in one of two shapes:

* **micrograd** (karpathy's, the lecture's with ``label``, or a learner's own class):
  ``data``, ``grad``, ``_prev`` (usually a *set* of parents), ``_op`` and a ``_backward``
  closure that adds ``local × out.grad`` into each parent's grad;
* **microgpt**: ``data``, ``grad``, ``_children`` (a tuple, duplicates kept) and
  ``_local_grads`` (the local derivative of each child, as numbers).

Gradwalk's own :class:`~engine.value.Value` (``_prev`` a tuple, ``_local`` numbers) reads
the same way. :func:`read` turns any of them into a :class:`Foreign`: plain numbers and
labels, with nothing pointing back into the learner's objects except ``objects`` (kept for
:mod:`engine.check`). ``Foreign.graph()`` gives a :class:`ForeignGraph`, which
:mod:`engine.graph`, :mod:`engine.trace` and :mod:`engine.layout` use like any other, and
``Foreign.recompute(values)`` the same graph at new input values. A :class:`Foreign` is
what ``engine.api.handle(request, source=...)`` takes for a graph that is not a program
(docs/api.md, "A graph of your own").

**Local derivatives come from the graph itself**: ``_local_grads`` (or ``_local``) when the
graph has them, else the node's own ``_backward`` is called with controlled grads
(``node.grad = 1``, every parent's grad 0) and each parent's grad is read back. A parent
that fills several operand slots gets the sum, which is all ``_backward`` can say; for a
known operation such as ``a * a`` the sum is split into the rule's two edges. Every
attribute of every node is put back exactly as it was, even when something fails.

**Operations** (:func:`engine.ops.infer_op`, which :mod:`engine.flat` uses too).
``_op`` texts Gradwalk knows (every name of engine/ops.py's table, in any case: ``+ * - /
tanh ReLU exp log sin cos sigmoid neg``, and micrograd's ``**2``) read as the engine's own;
a node without ``_op`` (microgpt) gets the table's operation that reproduces its data, when
exactly one does; anything else is
a *custom* operation, written ``name(a, b)``, and still differentiates with the graph's
own local derivatives.

**Order.** ``_prev`` is usually a set, whose order changes from run to run. The operand
order of each node is recovered, in this order of preference: the order the graph keeps
(``_children`` or a tuple ``_prev``); the ``_backward`` closure's ``self`` and ``other``
(micrograd's operators all close over both, so ``a * b`` reads ``a * b``, and ``a * a``
has two edges); for ``-`` and ``/``, the one order that reproduces the node's data; else a
fingerprint of each parent's whole subgraph (operation, data, label, parents' fingerprints),
which does not depend on memory addresses. The topological order then follows the operand
order, so the same graph always gives the same nodes, edges and layout.

**Names.** A node's ``label`` when it has one (repeats get primes, like a reassigned
variable: ``c``, ``c'``). Otherwise the engine's naming: an unlabelled input is named by
the number it held when the graph was read (``2``, ``-1``; micrograd turns every plain
number into such a node), an intermediate by its expression (``x1*w1``) when that is short,
else ``t1``, ``t2``. Names never change afterwards, also when inputs are edited.

Anything Gradwalk can't read raises :class:`ForeignGraphError` (a ``ValueError``) with one
sentence a learner can act on.
"""

from __future__ import annotations

import hashlib
import math
import numbers as _numbers
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property

from .graph import Graph
from .numbers import as_float, close
from .ops import OPS, infer_op, named_op
from .program import LITERAL_RANGE, MAX_LABEL_CHARS, MAX_LITERAL, MAX_NODES, READABLE_LABEL_CHARS, Program
from .text import code_name, expression_text, fmt, forward_text, local_text, rule_text, short
from .value import Value, topological_order

MAX_EDGES = 2 * MAX_NODES

SHAPE = "a micrograd-style value: an object with .data and ._prev (micrograd) or .data and ._children (microgpt)"


class ForeignGraphError(ValueError):
    """A graph Gradwalk can't read, said in one sentence a learner can act on."""


class TooManyNodes(ForeignGraphError):
    """A graph with more nodes (or edges) than the careful reader draws node by node."""


# -- the engine's rule for each operation ------------------------------------------------------


def rule(op: str, xs: list[float], const: tuple | None = None) -> tuple[float, tuple[float, ...]]:
    """The engine's own answer for ``op`` (a name in engine/ops.py) on parents with data
    ``xs``: (data, local derivative per slot), computed by the engine's Value itself.

    ``const`` is a folded number, ``(number, number_is_on_the_left)``, as in
    ``Value._const``; for ``**`` it is the exponent.
    """
    entry = OPS[op]
    operand = Value(xs[0])
    if entry.arity == 1:
        result = getattr(operand, entry.method)()
    elif const is None:
        result = getattr(operand, entry.method)(Value(xs[1]))
    else:
        number, on_left = const
        result = getattr(operand, entry.reflected if on_left else entry.method)(number)
    return result.data, result._local


# -- what was read -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """One node of a foreign graph, as plain data."""

    label: str
    op: str  # the engine's symbol when known ("" for an input), else the graph's own name
    known: bool  # Gradwalk knows the operation (and can check and recompute it)
    const: tuple | None  # a folded number (the exponent of **), as Value._const
    data: float
    parents: tuple[int, ...]  # one per edge, in operand order
    locals: tuple[float, ...]  # d(node)/d(parent) per edge, from the graph itself
    source: str  # where the locals came from: "_backward", "_local_grads", "_local", "rule" (recomputed) or ""


class ForeignGraph(Graph):
    """A :class:`Graph` that writes its own texts: a custom operation has no rule in
    :mod:`engine.text`, so its expression, its edges' rules and local derivatives, and its
    forward step are written here (a known operation's as the engine writes them). Each
    list is written the first time it is asked for."""

    known: list[bool]  # per node: Gradwalk knows the operation (set by _graph_of)

    @cached_property
    def expressions(self) -> list[str]:
        return [_expression(value, known) for value, known in zip(self.values, self.known)]

    @cached_property
    def _edge_texts(self) -> list[tuple[str, str]]:
        """(local_text, rule) per edge: the engine's texts where the graph's local derivative
        is the rule's, else the number the graph gave (a custom operation, or a graph that
        disagrees with the rule)."""
        rules = [
            rule(value._op, [p.data for p in value._prev], value._const)[1] if known and value._prev else None
            for value, known in zip(self.values, self.known)
        ]
        texts = []
        for edge in self.edges:
            child, rule_locals = self.values[edge.child], rules[edge.child]
            if rule_locals is not None and close(edge.local, rule_locals[edge.slot]):
                texts.append((local_text(child, edge.slot), rule_text(child, edge.slot)))
            else:
                texts.append(
                    (
                        fmt(edge.local),
                        f"{code_name(self.values[edge.parent].label)}.grad += "
                        f"{fmt(edge.local)} * {code_name(child.label)}.grad",
                    )
                )
        return texts

    @cached_property
    def local_texts(self) -> list[str]:
        """Per edge, as an answer's edge ``local_text``."""
        return [local for local, _ in self._edge_texts]

    @cached_property
    def rules(self) -> list[str]:
        return [rule_ for _, rule_ in self._edge_texts]

    @cached_property
    def forward_texts(self) -> list[str]:
        """Per node, the narration of its forward step (``h = hypot(a, b) = hypot(3, 4) = 5``)."""
        texts = []
        for value, known, expression in zip(self.values, self.known, self.expressions):
            if known or not value._prev:
                texts.append(forward_text(value, expression))
            else:
                numeric = _expression(value, False, names=lambda parent: fmt(parent.data))
                texts.append(f"{value.label} = {expression} = {numeric} = {fmt(value.data)}")
        return texts


class Foreign:
    """A foreign graph read into plain data; ``objects`` are the learner's nodes, same order."""

    def __init__(self, nodes: list[Node], objects: list, style: str):
        self.nodes = nodes
        self.objects = objects
        self.style = style
        self.output = len(nodes) - 1
        self._graph = None

    @property
    def custom(self) -> list[int]:
        """The nodes whose operation Gradwalk doesn't know."""
        return [i for i, node in enumerate(self.nodes) if not node.known]

    @property
    def inputs(self) -> dict[str, int]:
        return {node.label: i for i, node in enumerate(self.nodes) if not node.parents}

    def graph(self) -> ForeignGraph:
        """The graph as the engine's modules want it (built once; callers only read it)."""
        if self._graph is None:
            self._graph = _graph_of(self.nodes)
        return self._graph

    def recompute(self, values: dict[str, float]) -> ForeignGraph:
        """The graph with some inputs changed (by label; ``{}``: none), every other node
        recomputed with the engine's rules: a new graph each call, the learner's objects
        never touched. A custom operation can't be recomputed, so a graph with one refuses
        (ForeignGraphError, in a sentence)."""
        inputs = self.inputs
        for label, value in values.items():
            if label not in inputs:
                raise ForeignGraphError(f"There is no input named {short(label)} to change.")
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not math.isfinite(value)
                or abs(value) > MAX_LITERAL
            ):
                raise ForeignGraphError(f"The new value of {short(label)} must be a number {LITERAL_RANGE}.")
        if self.custom:
            i = self.custom[0]
            node = self.nodes[i]
            raise ForeignGraphError(
                f"{node.label} = {self.graph().expressions[i]} uses {node.op!r}, an operation Gradwalk doesn't "
                "know, so it can't compute this graph at new input values; change the value in your own code "
                "and show the graph again."
            )
        nodes = []
        for node in self.nodes:
            if not node.parents:
                nodes.append(replace(node, data=float(values.get(node.label, node.data))))
                continue
            data, locals_ = rule(node.op, [nodes[p].data for p in node.parents], node.const)
            nodes.append(replace(node, data=data, locals=tuple(locals_), source="rule"))
        return _graph_of(nodes)


# -- reading ---------------------------------------------------------------------------------------

_MISSING = object()


@dataclass
class _Raw:
    """One learner's node as found, before ordering and naming."""

    obj: object
    data: float
    op_text: str
    label: str
    operands: list  # parent objects, duplicates kept
    ordered: bool  # the graph keeps operand order (a tuple or list)
    locals: list | None  # per operand, when the graph stores them
    locals_from: str
    backward: object  # the _backward callable, or None
    const: tuple | None = None
    measured: dict | None = None  # id(parent) -> local (summed over its slots), from _backward
    op: str | None = None  # the engine's symbol, once known
    name: str = ""  # the operation's name for text (custom ops)
    slots: list | None = None  # parent objects per edge, in operand order
    slot_locals: list | None = None
    fingerprint: str = ""


def read(value, names: dict[int, str] | None = None) -> Foreign:
    """Read the graph of ``value`` (any micrograd-style value, or a Program) without changing it.

    ``names`` gives some nodes their label by ``id()``, in place of the node's own ``label``
    (a graph built from a program, whose variables name its nodes, by a class without labels)."""
    try:
        return _read(value.output if isinstance(value, Program) else value, names or {})
    except ForeignGraphError:
        raise
    except Exception as error:  # a bug of ours: still one clear error, never a traceback from inside
        raise ForeignGraphError(
            f"Gradwalk failed while reading this graph ({type(error).__name__}: {error}); "
            "this is a bug in Gradwalk, not in your code."
        ) from error


def _read(value, names: dict[int, str]) -> Foreign:
    raws, post = _discover(value)
    for key, raw in raws.items():
        raw.label = names.get(key, raw.label)
    root = raws[id(value)]
    with untouched([raw.obj for raw in raws.values()]):
        for key in post:
            raw = raws[key]
            if raw.operands and raw.locals is None:
                raw.measured = _measure(raw, raws)
    for key in post:  # parents before children
        _resolve(raws[key], raws)
    return _assemble(raws, post, root)


def _discover(root) -> tuple[dict[int, _Raw], list[int]]:
    """Every node ``root`` depends on (keyed by id), in some post-order; refuses cycles and
    graphs over the size limits."""
    raws = {id(root): _raw(root, None)}
    post = []
    on_stack = {id(root)}
    stack = [(id(root), iter(_distinct(raws[id(root)].operands)))]
    edges = len(raws[id(root)].operands)
    while stack:
        key, parents = stack[-1]
        for obj in parents:
            k = id(obj)
            if k in on_stack:
                path = [_describe(raws[s], capital=False) for s, _ in stack[[s for s, _ in stack].index(k) :]]
                path.append(path[0])
                raise ForeignGraphError(
                    "This graph has a cycle (" + " → ".join(path) + "): a value is computed from itself, "
                    "so it has no order to compute or differentiate in."
                )
            if k in raws:
                continue
            raws[k] = raw = _raw(obj, raws[key])
            edges += len(raw.operands)
            if len(raws) > MAX_NODES or edges > MAX_EDGES:
                raise TooManyNodes(
                    f"This graph has more than {MAX_NODES:,} nodes (or {MAX_EDGES:,} edges), too many to draw; "
                    "show a smaller part of it, for example one neuron's output."
                )
            on_stack.add(k)
            stack.append((k, iter(_distinct(raw.operands))))
            break
        else:
            stack.pop()
            on_stack.discard(key)
            post.append(key)
    return raws, post


def _raw(obj, child: _Raw | None) -> _Raw:
    """One node's data, operation, label and parents, checked."""
    data = _get(obj, "data", child)
    children, prev = _get(obj, "_children", child), _get(obj, "_prev", child)
    found = [c for c in (children, prev) if c is not _MISSING and c is not None]
    if data is _MISSING or not found:
        what = _object_text(obj)
        if child is None:
            raise ForeignGraphError(f"Gradwalk can't read {what}: it needs {SHAPE}.")
        raise ForeignGraphError(f"{_describe(child)} has {what} among its parents, but a parent must be {SHAPE}.")
    if not isinstance(data, _numbers.Real) or isinstance(data, bool):
        raise ForeignGraphError(f"{_describe_parts(obj, '', '')}'s data is {_object_text(data)}, which isn't a number.")
    data = as_float(data)
    label = _get(obj, "label", child)
    label = label.strip() if isinstance(label, str) and label.isprintable() else ""
    if len(label) > MAX_LABEL_CHARS:
        label = label[: MAX_LABEL_CHARS - 1] + "…"
    op_text = _get(obj, "_op", child)
    op_text = op_text.strip() if isinstance(op_text, str) and op_text.isprintable() else ""
    # The ordered collection wins when a class keeps both (a tuple _children and a set _prev).
    collection = next((c for c in found if isinstance(c, (tuple, list))), found[0])
    ordered = isinstance(collection, (tuple, list))
    if not ordered and not isinstance(collection, (set, frozenset)):
        raise ForeignGraphError(
            f"{_describe_parts(obj, label, op_text)} keeps its parents in a "
            f"{type(collection).__name__}; Gradwalk reads a set, a tuple or a list."
        )
    operands = list(collection)
    locals_, locals_from = None, ""
    for name in ("_local_grads", "_local"):
        stored = _get(obj, name, child)
        if stored is not _MISSING and stored is not None and (operands or _has_items(stored)):
            locals_, locals_from = stored, name
            break
    raw = _Raw(obj, data, op_text, label, operands, ordered, None, locals_from, _get(obj, "_backward", child))
    if locals_ is not None:
        if not isinstance(locals_, (tuple, list)) or len(locals_) != len(operands) or not ordered:
            raise ForeignGraphError(
                f"{_describe(raw)} has {len(operands)} parents but its {locals_from} doesn't "
                "hold one number for each of them."
            )
        raw.locals = [_number(x, raw, locals_from) for x in locals_]
    elif operands and not callable(raw.backward):
        raise ForeignGraphError(
            f"{_describe(raw)} has parents but neither _local_grads nor a _backward, so "
            "Gradwalk can't tell how it passes gradients on."
        )
    if isinstance(obj, Value):
        raw.const = obj._const
    return raw


def _has_items(stored) -> bool:
    return not isinstance(stored, (tuple, list)) or len(stored) > 0


def _get(obj, name, child):
    """``obj.name``, or _MISSING. A property that raises is reported, not passed on."""
    try:
        return getattr(obj, name, _MISSING)
    except Exception as error:
        where = _object_text(obj) if child is None else f"a parent of {_describe(child, capital=False)}"
        raise ForeignGraphError(f"Reading .{name} of {where} raised {_raised(error)}.") from None


def _number(x, raw, where) -> float:
    if not isinstance(x, _numbers.Real):
        raise ForeignGraphError(f"{_describe(raw)}: {where} holds {_object_text(x)}, which isn't a number.")
    return as_float(x)


def _measure(raw: _Raw, raws) -> dict[int, float]:
    """Each parent's local derivative, by calling the node's own _backward with
    node.grad = 1 and every parent's grad = 0 (the caller puts every grad back)."""
    parents = _distinct(raw.operands)
    try:
        raw.obj.grad = 1.0
        for parent in parents:
            parent.grad = 0.0
    except Exception as error:
        raise ForeignGraphError(
            f"{_describe(raw)}: Gradwalk can't set the grads around it to call its _backward ({_raised(error)})."
        ) from None
    try:
        raw.backward()
    except Exception as error:
        raise ForeignGraphError(f"{_describe(raw)}: calling its _backward raised {_raised(error)}.") from None
    found = {}
    for parent in parents:
        grad = _get(parent, "grad", raw)
        found[id(parent)] = _number(grad, raw, f"{raws[id(parent)].label or 'a parent'}.grad after its _backward")
    return found


def _resolve(raw: _Raw, raws: dict[int, _Raw]):
    """The node's operation, its operand slots and a local derivative per slot."""
    raw.fingerprint = _fingerprint(raw, raws)
    if not raw.operands:
        raw.op, raw.slots, raw.slot_locals = "", [], []
        return
    distinct = _distinct(raw.operands)
    data_of = [raws[id(p)].data for p in distinct]
    op, const = named_op(raw.op_text) or (None, None)  # by its _op text; the slots are checked below
    raw.const = const if raw.const is None else raw.const
    raw.name = raw.op_text or "f"
    if raw.ordered:
        raw.slots = list(raw.operands)
    else:
        raw.slots = (
            _closure_order(raw, distinct)
            or _data_order(raw, op, distinct, data_of)
            or sorted(distinct, key=lambda p: raws[id(p)].fingerprint)
        )
        if op is not None and OPS[op].arity == 2 and raw.const is None and len(raw.slots) == 1:
            raw.slots = raw.slots * 2  # a set of one under + or *: the same value on both sides (a * a)
    local = raw.locals
    if local is None:  # measured per parent: shared among the slots it fills
        local = [raw.measured[id(p)] / raw.slots.count(p) for p in raw.slots]
    found = infer_op(raw.op_text, [raws[id(p)].data for p in raw.slots], raw.data, local, raw.const)
    op = None
    if found is not None:
        op, const = found
        raw.const = const if raw.const is None else raw.const
    raw.op = op
    if raw.locals is not None:
        raw.slot_locals = list(raw.locals)
        return
    # Measured per distinct parent: a parent in one slot gets its number; a parent in several
    # slots gets the rule's split when the graph agrees with the rule, else equal shares.
    rule_locals = rule(op, [raws[id(p)].data for p in raw.slots], raw.const)[1] if op is not None else None
    slots, locals_ = [], []
    for parent in _distinct(raw.slots):
        positions = [i for i, p in enumerate(raw.slots) if p is parent]
        total = raw.measured[id(parent)]
        if len(positions) == 1:
            shares = [total]
        elif op is None:
            positions, shares = positions[:1], [total]  # one edge: _backward can't tell the slots apart
        elif close(sum(rule_locals[i] for i in positions), total):
            shares = [rule_locals[i] for i in positions]
        else:
            shares = [total / len(positions)] * len(positions)
        slots += positions
        locals_ += shares
    order = sorted(range(len(slots)), key=slots.__getitem__)
    raw.slots = [raw.slots[slots[i]] for i in order]
    raw.slot_locals = [locals_[i] for i in order]


def _closure_order(raw: _Raw, distinct: list) -> list | None:
    """Operand order from a micrograd-style _backward closure over ``self`` and ``other``."""
    function = raw.backward
    code, cells = getattr(function, "__code__", None), getattr(function, "__closure__", None)
    if code is None or not cells:
        return None
    captured = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            captured[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    keys = {id(p) for p in distinct}
    me, other = captured.get("self", _MISSING), captured.get("other", _MISSING)
    if id(me) in keys and id(other) in keys and {id(me), id(other)} == keys:
        return [me, other]
    if keys == {id(me)} and (other is _MISSING or id(other) not in keys):  # one operand; other is a number
        return [me]
    return None


def _data_order(raw: _Raw, op, distinct: list, data_of: list) -> list | None:
    """For - and /, the one operand order that reproduces the node's data."""
    if op is None or OPS[op].arity != 2 or OPS[op].only_number_right or len(distinct) != 2:
        return None
    fits = [order for order in ((0, 1), (1, 0)) if close(rule(op, [data_of[i] for i in order])[0], raw.data)]
    return [distinct[i] for i in fits[0]] if len(fits) == 1 else None


def _fingerprint(raw: _Raw, raws) -> str:
    """A digest of the node's whole subgraph that doesn't depend on memory addresses."""
    parents = [raws[id(p)].fingerprint for p in raw.operands]
    if not raw.ordered:
        parents.sort()
    text = repr((raw.op_text, raw.data.hex(), raw.label, raw.ordered, parents))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _assemble(raws: dict[int, _Raw], post: list[int], root: _Raw) -> Foreign:
    """Mirror nodes in the engine's own Value, sorted and named."""
    mirrors = {}
    for key in post:
        raw = raws[key]
        mirror = Value(raw.data, tuple(mirrors[id(p)] for p in raw.slots), raw.op if raw.op is not None else raw.name)
        mirror._local = tuple(raw.slot_locals)
        if raw.const is not None and raw.op is not None:
            mirror._const = raw.const
        mirrors[key] = mirror
    order = topological_order(mirrors[id(root.obj)])
    back = {id(mirror): raws[key] for key, mirror in mirrors.items()}
    found = [back[id(mirror)] for mirror in order]
    _name(order, [raw.label for raw in found], [raw.op is not None for raw in found])
    index = {id(mirror): i for i, mirror in enumerate(order)}
    nodes = [
        Node(
            mirror.label,
            mirror._op,
            raw.op is not None,
            mirror._const,
            raw.data,
            tuple(index[id(p)] for p in mirror._prev),
            tuple(mirror._local),
            "" if not raw.operands else raw.locals_from or "_backward",
        )
        for mirror, raw in zip(order, found)
    ]
    style = "_children" if any(raw.locals_from == "_local_grads" for raw in found) else "_prev"
    return Foreign(nodes, [raw.obj for raw in found], style)


def _name(values: list[Value], labels: list[str], known: list[bool]):
    """Unique, short, stable labels: the graph's own first, then the engine's naming."""
    taken = set()

    def claim(text):
        taken.add(text)
        return text

    for value, label in zip(values, labels):
        if label:
            version, name = 1, label
            while name in taken:
                version += 1
                name = label + "'" * (version - 1) if version <= 3 else f"{label}#{version}"
            value.label = claim(name)
    temp = 0
    for value, is_known in zip(values, known):
        if value.label:
            continue
        text = _expression(value, is_known, spaced=False)
        if len(text) > READABLE_LABEL_CHARS:
            temp += 1
            while f"t{temp}" in taken:
                temp += 1
            text = f"t{temp}"
        elif text in taken:
            suffix = 2
            while f"{text}#{suffix}" in taken:
                suffix += 1
            text = f"{text}#{suffix}"
        value.label = claim(text)


def _expression(value: Value, known: bool, spaced: bool = True, names=None) -> str:
    """expression_text, with ``name(a, b)`` for an operation Gradwalk doesn't know."""
    if known:
        return expression_text(value, spaced, names)
    names = names or (lambda parent: parent.label)
    return f"{value._op}(" + (", " if spaced else ",").join(names(p) for p in value._prev) + ")"


def _graph_of(nodes: list[Node]) -> ForeignGraph:
    values = []
    for node in nodes:
        value = Value(node.data, tuple(values[p] for p in node.parents), node.op, node.label)
        value._local = node.locals
        if node.const is not None:
            value._const = node.const
        values.append(value)
    graph = ForeignGraph.of(values[-1], values)
    graph.known = [node.known for node in nodes]
    return graph


# -- leaving the learner's objects exactly as they were -------------------------------------------


@contextmanager
def untouched(objects: list):
    """Every attribute of every object (its __dict__ and its slots) is put back on exit,
    whatever happened inside: the same objects, in the same slots."""
    saved = [(obj, _state(obj)) for obj in objects]
    try:
        yield
    finally:
        for obj, state in saved:
            _restore(obj, state)


def _state(obj):
    instance_dict = getattr(obj, "__dict__", None)
    slots = {}
    for cls in type(obj).__mro__:
        names = cls.__dict__.get("__slots__", ())
        for name in (names,) if isinstance(names, str) else names:
            if name in ("__dict__", "__weakref__"):
                continue
            attr = f"_{cls.__name__.lstrip('_')}{name}" if name.startswith("__") else name
            descriptor = cls.__dict__.get(attr)
            if descriptor is None or not hasattr(descriptor, "__set__"):
                continue
            try:
                slots[(cls, attr)] = descriptor.__get__(obj, type(obj))
            except AttributeError:
                slots[(cls, attr)] = _MISSING
    return (dict(instance_dict) if isinstance(instance_dict, dict) else None), slots


def _restore(obj, state):
    saved_dict, slots = state
    for (cls, attr), value in slots.items():
        descriptor = cls.__dict__[attr]
        if value is _MISSING:
            try:
                descriptor.__delete__(obj)
            except AttributeError:
                pass
        else:
            descriptor.__set__(obj, value)
    if saved_dict is not None:
        current = obj.__dict__
        if current.keys() != saved_dict.keys() or any(current[k] is not v for k, v in saved_dict.items()):
            current.clear()
            current.update(saved_dict)


# -- words ---------------------------------------------------------------------------------------------


def _distinct(objects) -> list:
    seen, out = set(), []
    for obj in objects:
        if id(obj) not in seen:
            seen.add(id(obj))
            out.append(obj)
    return out


def _describe(raw: _Raw, capital: bool = True) -> str:
    return _describe_parts(raw.obj, raw.label, raw.op_text, raw.data, capital)


def _describe_parts(obj, label, op_text, data=None, capital=True) -> str:
    """A node before it has a name: by its label, else by its operation and data."""
    if label:
        text = f"the node {label}"
    else:
        text = f"the {op_text!r} node" if op_text else _article(type(obj).__name__)
        text += f" with data {fmt(data)}" if data is not None else ""
    return text[0].upper() + text[1:] if capital else text


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _object_text(obj) -> str:
    try:
        text = repr(obj)
    except Exception:
        return _article(type(obj).__name__)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{text} ({_article(type(obj).__name__)})"


def _raised(error: Exception) -> str:
    detail = str(error)
    return f"{type(error).__name__} ({detail})" if detail else type(error).__name__


__all__ = [
    "ForeignGraphError",
    "TooManyNodes",
    "Foreign",
    "ForeignGraph",
    "Node",
    "read",
    "rule",
    "close",
    "untouched",
    "MAX_EDGES",
]
