"""Value: one number in a computation graph, and how to differentiate through it.

This is micrograd's Value with the bookkeeping a teacher needs kept as data instead of
hidden in closures:

* ``_prev`` lists the parents in operand order and keeps duplicates, so ``a * a`` has two
  edges into ``a``, each with its own contribution;
* ``_local`` holds, for each of those edges, the local derivative d(self)/d(parent) as a
  plain number, computed in the forward pass. The backward pass is then one rule for every
  operation: ``parent.grad += local * self.grad``;
* a plain number on either side of an operator is folded into the node (``_const``)
  rather than becoming a node of its own, so ``a + 1`` draws as one node with one edge.

What each operation computes, and its local derivatives, is one entry in the table in
:mod:`engine.ops`; the operators and functions of Value are made from that table.
"""

from __future__ import annotations

from . import numbers as num
from .ops import FUNCTIONS, OPS, Op


class Value:
    # The five attributes every node needs live in slots: fast to set, small in memory.
    # The teaching metadata (label, source position, a folded number) only some nodes
    # have, so it defaults to the class attributes below and goes into the instance's
    # __dict__ only when set; building a 100,000-node graph stays cheap.
    __slots__ = ("data", "grad", "_op", "_prev", "_local", "__dict__")
    label = ""
    _const = None  # (number, number_is_on_the_left) when an operand was a plain number
    line = 0  # where a Program created this node (0 = not from a program)
    col = 0

    def __init__(self, data, _children=(), _op="", label=""):
        if type(data) is not float:
            if isinstance(data, Value):
                raise TypeError("Value() takes a plain number, not another Value")
            data = num.as_float(data)
        self.data = data
        self.grad = 0.0
        self._op = _op
        if _children:
            self._prev = tuple(_children)
            self._local = (0.0,) * len(self._prev)
        else:  # an input: the common case, kept cheap
            self._prev = self._local = ()
        if label:
            self.label = label

    def __repr__(self):
        name = f"{self.label}: " if self.label else ""
        return f"Value({name}data={self.data!r}, grad={self.grad!r})"

    # -- the operators and functions ---------------------------------------------------
    # a + b, 3 * a, a ** 2, -a, a.tanh(), ...: every one is made from its entry in
    # engine/ops.py (below the class), which computes the value and the local
    # derivatives together; a plain number on either side is folded into the node.

    def __pos__(self):
        return self

    # -- differentiation ----------------------------------------------------------------

    def backward(self):
        """Reverse-mode autodiff: seed this node with 1, then push grads to the parents.

        Every node is visited after all the nodes it feeds into (reverse topological
        order), so its grad is complete before it passes it on. Grads accumulate with +=,
        so calling backward twice without zero_grad() adds the gradients twice, exactly as
        micrograd and PyTorch do.
        """
        order = topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            parents = node._prev
            if parents:  # an input has nothing to pass on
                upstream = node.grad
                for parent, local in zip(parents, node._local):
                    parent.grad += local * upstream

    def zero_grad(self):
        """Set the grad of this node and everything it depends on back to 0."""
        for node in topological_order(self):
            node.grad = 0.0


_new = object.__new__


def _binary(op: Op):
    """``a + b`` and ``a + 2`` (and the reflected ``2 + a``) for a two-operand op."""
    compute, name, number_only = op.compute, op.name, op.only_number_right

    def method(self, other):
        if isinstance(other, Value):
            if number_only:
                raise TypeError(number_only)
            # The common case, written out: 100,000-node graphs are built here.
            out = _new(Value)
            out.data, out._local = compute(self.data, other.data)
            out.grad, out._op, out._prev = 0.0, name, (self, other)
            return out
        k = _number(other)
        data, local = compute(self.data, k)
        return _node(data, name, self, local[0], (k, False))

    def reflected(self, other):
        if op.only_number_reflected:
            raise TypeError(op.only_number_reflected)
        k = _number(other)
        data, local = compute(k, self.data)
        return _node(data, name, self, local[1], (k, True))

    _name(method, op.method, f"self {op.symbol} other", op)
    _name(reflected, op.reflected, f"other {op.symbol} self, for a plain number other", op)
    return method, reflected


def _unary(op: Op):
    """``-a`` or ``a.tanh()`` for a one-operand op."""
    compute, name = op.compute, op.name

    def method(self):
        out = _new(Value)
        out.data, out._local = compute(self.data)
        out.grad, out._op, out._prev = 0.0, name, (self,)
        return out

    _name(method, op.method, f"{op.symbol}self" if op.written == "prefix" else f"{op.symbol}(self)", op)
    return method


def _name(method, name: str, what: str, op: Op):
    method.__name__, method.__qualname__ = name, f"Value.{name}"
    method.__doc__ = f"{what}: a new node; its value and local derivatives come from engine.ops.{op.compute.__name__}."


def _node(data, op, parent, local, const):
    """A node with one Value parent and a plain number ``const`` = (number, on_the_left)."""
    out = _new(Value)
    out.data, out.grad, out._op, out._prev, out._local, out._const = data, 0.0, op, (parent,), (local,), const
    return out


for _op in OPS.values():
    if _op.arity == 2:
        _method, _reflected = _binary(_op)
        setattr(Value, _op.method, _method)
        setattr(Value, _op.reflected, _reflected)
    else:
        setattr(Value, _op.method, _unary(_op))


def topological_order(root: Value) -> list[Value]:
    """Every node ``root`` depends on, each one after all of its parents.

    The same depth-first post-order as micrograd's recursive build_topo, written with an
    explicit stack so that a 100,000-deep chain doesn't hit Python's recursion limit.
    """
    order = []
    visited = {root}
    stack = [(root, iter(root._prev))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if parent not in visited:
                visited.add(parent)
                if parent._prev:
                    stack.append((parent, iter(parent._prev)))
                    break
                order.append(parent)  # an input is finished as soon as it is reached
        else:
            stack.pop()
            order.append(node)
    return order


def _number(x) -> float:
    if isinstance(x, (int, float)):
        return num.as_float(x)
    raise TypeError(f"can't combine a Value with {type(x).__name__}; use a number or a Value")


def _apply(name):
    def function(x):
        return getattr(x, name)()

    function.__name__ = name
    function.__doc__ = f"{name}(x) is the same as x.{name}()."
    return function


# The functions as free functions too, so programs can write tanh(n) as well as n.tanh():
# tanh, relu, exp, log, sin, cos, sigmoid, and any function the table gains.
globals().update({name: _apply(name) for name in FUNCTIONS})
