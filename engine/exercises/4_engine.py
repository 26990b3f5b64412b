"""Your own engine: the whole Value class, written your way.

Give Value the operations the graphs use (+, *, -, /, ** with a number, tanh, relu, exp,
log, sin, cos, sigmoid; numbers on either side, as in 3 * a) and a backward() that fills in
every grad. Keep the parents in _prev with a _backward closure per node (micrograd's way), or
in _children with their local derivatives in _local_grads (microgpt's way).
"""

import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    # >>> write here: the operations, each with its _backward, and backward()
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        out = Value(self.data**other, (self,), f"**{other}")

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad

        out._backward = _backward
        return out

    def _unary(self, data, local, op):
        """A one-input operation: its value and its local derivative d(out)/d(self)."""
        out = Value(data, (self,), op)

        def _backward():
            self.grad += local * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        return self._unary(t, 1 - t**2, "tanh")

    def relu(self):
        return self._unary(max(0.0, self.data), float(self.data > 0), "ReLU")

    def exp(self):
        e = math.exp(self.data)
        return self._unary(e, e, "exp")

    def log(self):
        return self._unary(math.log(self.data), 1 / self.data, "log")

    def sin(self):
        return self._unary(math.sin(self.data), math.cos(self.data), "sin")

    def cos(self):
        return self._unary(math.cos(self.data), -math.sin(self.data), "cos")

    def sigmoid(self):
        s = 1 / (1 + math.exp(-self.data))
        return self._unary(s, s * (1 - s), "sigmoid")

    def __neg__(self):  # -a
        return self * -1

    def __sub__(self, other):  # a - b
        return self + (-other)

    def __truediv__(self, other):  # a / b
        return self * other**-1

    def __radd__(self, other):  # 3 + a
        return self + other

    def __rsub__(self, other):  # 3 - a
        return other + (-self)

    def __rmul__(self, other):  # 3 * a
        return self * other

    def __rtruediv__(self, other):  # 3 / a
        return other * self**-1

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    # <<<
