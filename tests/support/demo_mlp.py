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
