"""Multiplication and addition: write the _backward of a * b and of a + b.

Each _backward adds into each operand's grad its local derivative times out.grad.
The rest of the class, backward() included, is written for you.
"""


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            # >>> write here: what out = self + other adds to self.grad and to other.grad
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
            # <<<

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            # >>> write here: what out = self * other adds to self.grad and to other.grad
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
            # <<<

        out._backward = _backward
        return out

    def __radd__(self, other):  # 3 + a
        return self + other

    def __rmul__(self, other):  # 3 * a
        return self * other

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
