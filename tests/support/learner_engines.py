"""Engines a learner writes: the lecture's micrograd, a microgpt-style one, and three broken ones.

`Lecture` is the Value class built in the micrograd lecture (labels, tanh, exp, a set for
_prev, _backward closures, a recursive topological sort). The broken engines are the same
class with one classic mistake each, the way a learner makes it:

* `Overwriting`: every `_backward` assigns (=) where it should add (+=);
* `NoVisitedSet`: the topological sort has no visited set, so a shared node is visited
  (and passes its grad on) more than once; `NotReversed` walks the sort forwards;
* `WrongTanh`: tanh's local derivative is written with the input, 1 - x**2, instead of
  the output, 1 - t**2.

`Sqrt` has operations Gradwalk doesn't know (sqrt, hypot). `MicroGPT` is the microgpt
style: __slots__, `_children` (a tuple, duplicates kept) and `_local_grads`, no `_op`, no
`_backward`; the backward loop is in `backward()`.
"""

import math


class Lecture:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data})"

    def _new(self, data, children, op):
        return type(self)(data, children, op)

    def _wrap(self, other):
        return other if isinstance(other, Lecture) else type(self)(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = self._new(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = self._new(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = self._new(self.data**other, (self,), f"**{other}")

        def _backward():
            self.grad += other * (self.data ** (other - 1)) * out.grad

        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __radd__(self, other):
        return self + other

    def __truediv__(self, other):
        return self * other**-1

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = self._new(t, (self,), "tanh")

        def _backward():
            self.grad += self.tanh_local(x, t) * out.grad

        out._backward = _backward
        return out

    @staticmethod
    def tanh_local(x, t):
        return 1 - t**2

    def exp(self):
        x = self.data
        out = self._new(math.exp(x), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def topological_order(self):
        return build_topo(self)

    def backward(self):
        topo = self.topological_order()
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


class Overwriting(Lecture):
    def __add__(self, other):
        other = self._wrap(other)
        out = self._new(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = 1.0 * out.grad
            other.grad = 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = self._new(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad

        out._backward = _backward
        return out


class NoVisitedSet(Lecture):
    def topological_order(self):
        topo = []

        def build_topo(v):
            for child in v._prev:
                build_topo(child)
            topo.append(v)

        build_topo(self)
        return topo


class NotReversed(Lecture):
    def backward(self):
        topo = self.topological_order()
        self.grad = 1.0
        for node in topo:
            node._backward()


class WrongTanh(Lecture):
    @staticmethod
    def tanh_local(x, t):
        return 1 - x**2


class MicroGPT:
    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children
        self._local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, MicroGPT) else MicroGPT(other)
        return MicroGPT(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, MicroGPT) else MicroGPT(other)
        return MicroGPT(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        return MicroGPT(self.data**other, (self,), (other * self.data ** (other - 1),))

    def log(self):
        return MicroGPT(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return MicroGPT(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return MicroGPT(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    walk_backwards = True  # a broken engine forgets to reverse the sort

    def backward(self):
        topo = build_topo(self, lambda v: v._children)
        self.grad = 1
        for v in reversed(topo) if self.walk_backwards else topo:
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad += local_grad * v.grad


def build_topo(root, parents=lambda v: v._prev):
    """micrograd's topological sort, as the lecture writes it (recursive, with a visited set)."""
    topo = []
    visited = set()

    def build(v):
        if v not in visited:
            visited.add(v)
            for child in parents(v):
                build(child)
            topo.append(v)

    build(root)
    return topo


class Sqrt(Lecture):
    """The lecture's class with operations Gradwalk doesn't know."""

    def sqrt(self):
        out = self._new(math.sqrt(self.data), (self,), "sqrt")

        def _backward():
            self.grad += 0.5 / out.data * out.grad

        out._backward = _backward
        return out

    def hypot(self, other):
        out = self._new(math.hypot(self.data, other.data), (self, other), "hypot")

        def _backward():
            self.grad += self.data / out.data * out.grad
            other.grad += other.data / out.data * out.grad

        out._backward = _backward
        return out


def neuron(cls):
    """The lecture's neuron, with labels: o = tanh(x1*w1 + x2*w2 + b)."""
    x1, x2 = cls(2.0, label="x1"), cls(0.0, label="x2")
    w1, w2 = cls(-3.0, label="w1"), cls(1.0, label="w2")
    b = cls(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def diamond(cls):
    """a = 2; b = a + 1; c = 3 * a; d = b * c (every node labelled)."""
    a = cls(2.0)
    a.label = "a"
    b = a + 1
    b.label = "b"
    c = 3 * a
    c.label = "c"
    d = b * c
    d.label = "d"
    return d


def shared_intermediate(cls):
    """h = x * 2 is used by two nodes: visiting it twice counts its grad twice."""
    x = cls(3.0)
    x.label = "x"
    h = x * 2
    h.label = "h"
    p = h + 1
    p.label = "p"
    q = h * h
    q.label = "q"
    y = p * q
    y.label = "y"
    return y
