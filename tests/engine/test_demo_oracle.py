"""Right numbers at scale: every grad of micrograd's demo loss (MLP(2, [16, 16, 1]) over 100
points, max-margin loss plus L2 regularisation, 65,818 nodes), as `gradwalk.show(loss,
model=model)` computes it, against independent oracles in float64:

* PyTorch (its CPU build, pinned in the test extra): the same network as tensors, from the
  parameters' and points' plain numbers, and its own autograd;
* the network's backward pass written as matrix calculus, from the same plain numbers (no
  graph at all): dz = da ⊙ relu′(z), dW += dz xᵀ, dx = Wᵀ dz, summed over the samples, plus
  2αp for the regularisation;
* forward-mode differentiation with dual numbers (a + εb, ε² = 0) on the same plain numbers,
  one parameter of each layer at a time: the derivative by its definition, with no backward
  pass.
"""

import math

import pytest

from engine.network import Network
from tests.support.demo_mlp import DEMO_NODES, demo_loss

REL = 1e-9  # the agreement asked for: relative
ABS = 1e-15  # below this a grad is zero up to rounding (the scale of these grads is 1e-6 .. 1)
ALPHA = 1e-4


@pytest.fixture(scope="module")
def demo():
    loss, model, points, labels = demo_loss(100)
    network = Network(loss, model)
    index = {id(obj): i for i, obj in enumerate(network.flat.objects)}
    grads = network.grouped.grads
    params = [grads[index[id(p)]] for p in model.parameters()]
    return model, points, labels, network, params


def weights(model):
    """Per layer: (W as rows, b), plain floats."""
    return [
        ([[w.data for w in n.w] for n in layer.neurons], [n.b.data for n in layer.neurons]) for layer in model.layers
    ]


def matrix_grads(model, points, labels):
    """d loss / d every parameter, in model.parameters() order, by matrix calculus."""
    layers = weights(model)
    d_weights = [[[0.0] * len(row) for row in w] for w, _ in layers]
    d_biases = [[0.0] * len(b) for _, b in layers]
    n = len(points)
    for x, y in zip(points, labels):
        activations, pre = [list(x)], []
        for k, (w, b) in enumerate(layers):
            z = [bj + sum(wjk * ak for wjk, ak in zip(row, activations[-1])) for row, bj in zip(w, b)]
            pre.append(z)
            last = k == len(layers) - 1
            activations.append(z if last else [max(0.0, zj) for zj in z])
        score = activations[-1][0]
        margin = 1 + -y * score
        if margin <= 0:  # relu'(0) is 0 in micrograd: no grad through a zero hinge
            continue
        dz = [(1.0 / n) * -y]
        for k in range(len(layers) - 1, -1, -1):
            w, _ = layers[k]
            a = activations[k]
            for j, dzj in enumerate(dz):
                d_biases[k][j] += dzj
                for i, ai in enumerate(a):
                    d_weights[k][j][i] += dzj * ai
            if k:
                da = [sum(dz[j] * w[j][i] for j in range(len(dz))) for i in range(len(a))]
                dz = [dai if zi > 0 else 0.0 for dai, zi in zip(da, pre[k - 1])]
    out = []
    for k, (w, b) in enumerate(layers):
        for j in range(len(w)):
            out.extend(d_weights[k][j][i] + 2 * ALPHA * w[j][i] for i in range(len(w[j])))
            out.append(d_biases[k][j] + 2 * ALPHA * b[j])
    return out


class Dual:
    """a + bε with ε² = 0: arithmetic on it carries the derivative along."""

    __slots__ = ("a", "b")

    def __init__(self, a, b=0.0):
        self.a, self.b = a, b

    def __add__(self, o):
        o = o if isinstance(o, Dual) else Dual(o)
        return Dual(self.a + o.a, self.b + o.b)

    __radd__ = __add__

    def __mul__(self, o):
        o = o if isinstance(o, Dual) else Dual(o)
        return Dual(self.a * o.a, self.a * o.b + self.b * o.a)

    __rmul__ = __mul__

    def relu(self):
        return self if self.a > 0 else Dual(0.0, 0.0)


def dual_grad(model, points, labels, layer, neuron, slot):
    """d loss / d one parameter (``slot`` len(w) is the bias), by forward mode."""
    layers = weights(model)
    duals = [([[Dual(v) for v in row] for row in w], [Dual(v) for v in b]) for w, b in layers]
    target = duals[layer][1][neuron] if slot == len(layers[layer][0][neuron]) else duals[layer][0][neuron][slot]
    target.b = 1.0
    total = Dual(0.0)
    for x, y in zip(points, labels):
        a = [Dual(v) for v in x]
        for k, (w, b) in enumerate(duals):
            z = [sum((wi * ai for wi, ai in zip(row, a)), bj) for row, bj in zip(w, b)]
            a = z if k == len(duals) - 1 else [zj.relu() for zj in z]
        total = total + (1 + -y * a[0]).relu()
    total = total * (1.0 / len(points))
    squares = Dual(0.0)
    for w, b in duals:
        for row, bj in zip(w, b):
            for p in [*row, bj]:
                squares = squares + p * p
    return (total + squares * ALPHA).b


def agree(a, b) -> bool:
    return abs(a - b) <= REL * max(abs(a), abs(b)) or abs(a - b) <= ABS


def test_the_demo_loss_is_the_demos_graph(demo):
    _, _, _, network, params = demo
    assert len(network.flat) == DEMO_NODES
    assert len(params) == 337


@pytest.mark.filterwarnings("ignore:Failed to initialize NumPy")  # (torch without NumPy: no arrays here)
def test_every_grad_of_the_network_agrees_with_pytorch(demo):
    import torch

    model, points, labels, network, params = demo
    # the network as PyTorch tensors, from the plain numbers of micrograd's parameters and points
    layers = [
        (
            torch.tensor(w, dtype=torch.float64, requires_grad=True),
            torch.tensor(b, dtype=torch.float64, requires_grad=True),
        )
        for w, b in weights(model)
    ]
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(labels, dtype=torch.float64)
    a = x
    for k, (w, b) in enumerate(layers):
        a = a @ w.T + b
        if k < len(layers) - 1:
            a = torch.relu(a)  # relu'(0) is 0, as in micrograd
    data_loss = torch.relu(1 + -y * a[:, 0]).sum() * (1.0 / len(points))
    reg_loss = ALPHA * sum((p * p).sum() for w, b in layers for p in (w, b))
    loss = data_loss + reg_loss
    loss.backward()
    theirs = []
    for w, b in layers:
        for j in range(w.shape[0]):
            theirs.extend(w.grad[j].tolist())
            theirs.append(b.grad[j].item())
    assert agree(network.flat.data[-1], loss.item())
    worst = max(abs(m - t) / max(abs(m), abs(t), 1e-300) for m, t in zip(params, theirs))
    assert len(theirs) == len(params) == 337
    assert all(agree(m, t) for m, t in zip(params, theirs)), worst
    assert sum(1 for g in params if g != 0) > 300  # most of them are not zero: a real check


def test_every_parameters_grad_agrees_with_matrix_calculus(demo):
    model, points, labels, _, params = demo
    expected = matrix_grads(model, points, labels)
    worst = max((abs(a - b) / max(abs(a), abs(b), 1e-300) for a, b in zip(params, expected) if a != b), default=0.0)
    assert all(agree(a, b) for a, b in zip(params, expected)), worst
    assert worst < REL
    assert sum(1 for g in params if g != 0) > 300  # most of them are not zero: a real check


@pytest.mark.parametrize("layer, neuron, slot", [(0, 3, 1), (1, 7, 16), (2, 0, 5)])
def test_a_parameter_of_each_layer_agrees_with_forward_mode(demo, layer, neuron, slot):
    model, points, labels, _, params = demo
    order = [
        (k, j, i) for k, lay in enumerate(model.layers) for j, n in enumerate(lay.neurons) for i in range(len(n.w) + 1)
    ]
    mine = params[order.index((layer, neuron, slot))]
    assert agree(mine, dual_grad(model, points, labels, layer, neuron, slot))
    assert not math.isclose(mine, 0.0, abs_tol=1e-12)


def test_every_node_agrees_with_micrographs_own_backward(demo):
    _, _, _, network, _ = demo
    objects = network.flat.objects
    for obj in objects:
        obj.grad = 0
    objects[-1].backward()
    ours = network.grouped.grads
    assert all(agree(obj.grad, g) for obj, g in zip(objects, ours))
