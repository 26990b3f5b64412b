"""micrograd's demo loss, built deterministically: ``MLP(2, [16, 16, 1])`` over 100 points of
two interleaved half moons, with the max-margin loss and L2 regularisation of its
``demo.ipynb``. The points come from a seeded generator of our own (the demo draws them with
scikit-learn's make_moons), so the graph is the same on every machine: 65,818 nodes.

``demo_loss(samples)`` returns ``(loss, model, points, labels)``; it needs micrograd (0.1.0,
pinned in pyproject.toml's ``test`` extra).
"""

from __future__ import annotations

import math
import random

DEMO_NODES = 65_818  # the graph of demo_loss() with 100 samples


def moons(count: int, noise: float = 0.1, seed: int = 1337) -> tuple[list[list[float]], list[int]]:
    """``count`` points of two half circles, labelled -1 and 1, with Gaussian noise."""
    rng = random.Random(seed)
    points, labels = [], []
    outer = count // 2
    for i in range(count):
        if i < outer:
            t = math.pi * i / max(outer - 1, 1)
            x, y, label = math.cos(t), math.sin(t), -1
        else:
            t = math.pi * (i - outer) / max(count - outer - 1, 1)
            x, y, label = 1 - math.cos(t), 0.5 - math.sin(t), 1
        points.append([x + rng.gauss(0, noise), y + rng.gauss(0, noise)])
        labels.append(label)
    return points, labels


def demo_model(sizes=(16, 16, 1), seed: int = 1337):
    """The demo's model, with weights drawn from ``random`` seeded as the demo seeds it."""
    from micrograd.nn import MLP

    state = random.getstate()
    random.seed(seed)
    try:
        return MLP(2, list(sizes))
    finally:
        random.setstate(state)


def demo_loss(samples: int = 100, sizes=(16, 16, 1), alpha: float = 1e-4):
    """The demo's ``loss()``: the mean SVM max-margin loss over ``samples`` points plus
    ``alpha`` times the sum of the squared parameters, as micrograd's Values."""
    from micrograd.engine import Value

    model = demo_model(sizes)
    points, labels = moons(samples)
    inputs = [[Value(x) for x in row] for row in points]
    scores = [model(row) for row in inputs]
    losses = [(1 + -label * score).relu() for label, score in zip(labels, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = alpha * sum(p * p for p in model.parameters())
    return data_loss + reg_loss, model, points, labels


# -- the lecture's own classes, and a microgpt-style model ----------------------------------------


class LectureNeuron:
    """The lecture's Neuron, over any Value class: tanh(w · x + b)."""

    def __init__(self, value, nin, rng):
        self.w = [value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = value(rng.uniform(-1, 1))

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class LectureLayer:
    def __init__(self, value, nin, nout, rng):
        self.neurons = [LectureNeuron(value, nin, rng) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for neuron in self.neurons for p in neuron.parameters()]


class LectureMLP:
    def __init__(self, value, nin, nouts, seed=42):
        rng = random.Random(seed)
        sizes = [nin] + list(nouts)
        self.layers = [LectureLayer(value, sizes[i], sizes[i + 1], rng) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def lecture_loss(value):
    """The lecture's MLP(3, [4, 4, 1]) over its four examples, with the squared-error loss:
    (loss, model)."""
    model = LectureMLP(value, 3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    predictions = [model([value(x) for x in row]) for row in xs]
    loss = sum(((out - value(y)) ** 2 for y, out in zip(ys, predictions)), value(0.0))
    return loss, model


class Linear:
    """A microgpt-style layer: a weight matrix (a list of rows of Values), no bias."""

    def __init__(self, value, nin, nout, rng):
        self.w = [[value(rng.gauss(0, 0.5)) for _ in range(nin)] for _ in range(nout)]

    def __call__(self, x):
        return [sum(wi * xi for wi, xi in zip(row, x)) for row in self.w]

    def parameters(self):
        return [p for row in self.w for p in row]


class MicroNet:
    """Two Linear layers with a relu between them, as microgpt's MLP block is built."""

    def __init__(self, value, seed=7):
        rng = random.Random(seed)
        self.layers = [Linear(value, 2, 3, rng), Linear(value, 3, 1, rng)]

    def __call__(self, x):
        hidden = [h.relu() for h in self.layers[0](x)]
        return self.layers[1](hidden)[0]

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]
