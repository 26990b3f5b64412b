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

All arithmetic goes through :mod:`engine.numbers`, so 1/0, log(0) or exp(1000) give
inf or nan, as in any IEEE-754 library, instead of raising.
"""

from __future__ import annotations

from . import numbers as num


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

    # -- building nodes ---------------------------------------------------------------

    @staticmethod
    def _node(data, op, parents, locals_, const=None):
        """A new node. Bypasses __init__ because graphs of 100,000 nodes are built here."""
        out = _new(Value)
        out.data = data
        out.grad = 0.0
        out._op = op
        out._prev = parents
        out._local = locals_
        if const is not None:
            out._const = const
        return out

    # -- the arithmetic operators -------------------------------------------------------
    # Each returns a node whose local derivatives are filled in right away.

    def __add__(self, other):
        if isinstance(other, Value):
            out = _new(Value)
            out.data, out.grad, out._op, out._prev, out._local = self.data + other.data, 0.0, "+", (self, other), _ONES
            return out
        k = _number(other)
        return Value._node(self.data + k, "+", (self,), (1.0,), (k, False))

    def __radd__(self, other):
        k = _number(other)
        return Value._node(k + self.data, "+", (self,), (1.0,), (k, True))

    def __sub__(self, other):
        if isinstance(other, Value):
            return Value._node(self.data - other.data, "-", (self, other), (1.0, -1.0))
        k = _number(other)
        return Value._node(self.data - k, "-", (self,), (1.0,), (k, False))

    def __rsub__(self, other):
        k = _number(other)
        return Value._node(k - self.data, "-", (self,), (-1.0,), (k, True))

    def __mul__(self, other):
        if isinstance(other, Value):
            # Multiplication swaps: each parent's local derivative is the *other* parent.
            out = _new(Value)
            out.data, out.grad, out._op = self.data * other.data, 0.0, "*"
            out._prev, out._local = (self, other), (other.data, self.data)
            return out
        k = _number(other)
        return Value._node(self.data * k, "*", (self,), (k,), (k, False))

    def __rmul__(self, other):
        k = _number(other)
        return Value._node(k * self.data, "*", (self,), (k,), (k, True))

    def __truediv__(self, other):
        x = self.data
        if isinstance(other, Value):
            y = other.data
            return Value._node(num.div(x, y), "/", (self, other), (num.div(1.0, y), num.div(-x, y * y)))
        k = _number(other)
        return Value._node(num.div(x, k), "/", (self,), (num.div(1.0, k),), (k, False))

    def __rtruediv__(self, other):
        k = _number(other)
        x = self.data
        return Value._node(num.div(k, x), "/", (self,), (num.div(-k, x * x),), (k, True))

    def __pow__(self, other):
        if isinstance(other, Value):
            raise TypeError("the exponent of ** must be a plain number, like x ** 2")
        p = _number(other)
        x = self.data
        return Value._node(num.power(x, p), "**", (self,), (p * num.power(x, p - 1.0),), (p, False))

    def __rpow__(self, other):
        raise TypeError("a Value can't be an exponent; only a plain number can, like x ** 2")

    def __neg__(self):
        return Value._node(-self.data, "neg", (self,), (-1.0,))

    def __pos__(self):
        return self

    # -- the functions ------------------------------------------------------------------

    def tanh(self):
        t = num.tanh(self.data)
        return Value._node(t, "tanh", (self,), (1.0 - t * t,))

    def relu(self):
        x = self.data
        # As in micrograd: negative inputs give 0, and the slope at exactly 0 is 0.
        return Value._node(0.0 if x < 0 else x, "relu", (self,), (1.0 if x > 0 else 0.0,))

    def exp(self):
        e = num.exp(self.data)
        return Value._node(e, "exp", (self,), (e,))

    def log(self):
        x = self.data
        return Value._node(num.log(x), "log", (self,), (num.div(1.0, x),))

    def sin(self):
        x = self.data
        return Value._node(num.sin(x), "sin", (self,), (num.cos(x),))

    def cos(self):
        x = self.data
        return Value._node(num.cos(x), "cos", (self,), (-num.sin(x),))

    def sigmoid(self):
        s = num.sigmoid(self.data)
        return Value._node(s, "sigmoid", (self,), (s * (1.0 - s),))

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
_ONES = (1.0, 1.0)


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


# The functions as free functions too, so programs can write tanh(n) as well as n.tanh().
tanh = _apply("tanh")
relu = _apply("relu")
exp = _apply("exp")
log = _apply("log")
sin = _apply("sin")
cos = _apply("cos")
sigmoid = _apply("sigmoid")

FUNCTIONS = ("tanh", "relu", "exp", "log", "sin", "cos", "sigmoid")
