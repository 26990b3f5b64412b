"""Grid: a tensor of a program, held as the scalars it is made of.

A program may write tensors (``X = tensor([[0.5, -1.0], [1.5, 0.3]])``, ``X @ W + b``,
``.sum()``: engine/program.py reads them). Their graph is the scalar graph that PyTorch's
tensor rules summarise: every element a node, ``X[0,1]``, and every tensor operation its
scalar operations, one ``+=`` path each. A 1×n bias added to 4 rows is one node used by 4
additions, so its grad is the sum of 4 contributions: the sum over the batch that
``sum_to`` is in :mod:`engine.tensor`, seen one path at a time.

A :class:`Grid` is a list of rows of values of whatever class the program is built with;
every scalar operation goes through ``make(op, value, args, reflected=False)``, the
walker's, so each node is counted, placed and grouped as any other. Shapes are checked
by :mod:`engine.tensor`'s own functions, so a shape error reads the same in both engines.
"""

from __future__ import annotations

from collections.abc import Callable

from .tensor import ShapeError, Tensor, broadcast_shape, checked_labels, matmul_shape, shape_text

__all__ = [
    "Grid", "ShapeError", "elementwise", "matmul", "unary", "total", "summed", "mean", "cross_entropy",
    "mirror_input", "mirrored", "line_rules",
]  # fmt: skip

# make(op, value, args, reflected=False, label=None): the value ``op`` gives on ``value`` and
# ``args``, a key of engine.ops.OPS applied as its method (``reflected``: 2 * x is
# x.__rmul__(2.0)); ``label`` names a node a learner should find by name (a row's loss).
Make = Callable[..., object]

ELEMENTWISE = ("+", "-", "*")  # what engine.tensor broadcasts; its rules are the tensor view's


class Grid:
    """A tensor: ``rows`` of values, rectangular, at least 1×1. ``mirror``: the same tensor in
    :mod:`engine.tensor`, shape only (its numbers are ones), made by the same operations, so
    that a line's backward step can be said as engine.tensor's rules say it (:func:`line_rules`)."""

    __slots__ = ("rows", "mirror")

    def __init__(self, rows: list[list], mirror: Tensor | None = None):
        self.rows = rows
        self.mirror = mirror

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    def __repr__(self):
        return f"Grid({shape_text(self.shape)})"

    @property
    def T(self) -> Grid:
        """The transpose: the same nodes, read by columns (no new node: .T computes nothing)."""
        return Grid([list(column) for column in zip(*self.rows)])

    def elements(self):
        """(i, j, value) for every element, row by row."""
        for i, row in enumerate(self.rows):
            for j, value in enumerate(row):
                yield i, j, value


def _at(grid: Grid, shape, i: int, j: int):
    """Element (i, j) of ``grid`` broadcast to ``shape``: a 1×n row repeats down, an n×1 column across."""
    rows, columns = grid.shape
    return grid.rows[i if rows == shape[0] else 0][j if columns == shape[1] else 0]


def elementwise(op: str, left, right, make: Make) -> Grid:
    """``left op right`` element by element; one side may be a plain number (a float), folded
    into each node as the scalar engine folds it, and a 1×n, n×1 or 1×1 side broadcasts."""
    if not isinstance(left, Grid):  # 2 * X: the number goes to each element's reflected method
        return Grid([[make(op, x, (left,), reflected=True) for x in row] for row in right.rows])
    if not isinstance(right, Grid):
        return Grid([[make(op, x, (right,)) for x in row] for row in left.rows])
    shape = broadcast_shape(op, left.shape, right.shape)
    return Grid(
        [
            [make(op, _at(left, shape, i, j), (_at(right, shape, i, j),)) for j in range(shape[1])]
            for i in range(shape[0])
        ]
    )


def unary(op: str, x: Grid, make: Make) -> Grid:
    """A function of one value (tanh, relu, exp, log, neg) on every element."""
    return Grid([[make(op, value, ()) for value in row] for row in x.rows])


def total(values: list, make: Make):
    """Values added left to right, ``((a + b) + c) + d``, as Python adds a sum: one node per ``+``."""
    result = values[0]
    for value in values[1:]:
        result = make("+", result, (value,))
    return result


def matmul(x: Grid, w: Grid, make: Make) -> Grid:
    """``x @ w``: element (i, j) is the sum over k of x[i,k] · w[k,j], a product node per k."""
    (m, k), (_, n) = x.shape, matmul_shape(x.shape, w.shape)
    return Grid(
        [
            [total([make("*", x.rows[i][p], (w.rows[p][j],)) for p in range(k)], make) for j in range(n)]
            for i in range(m)
        ]
    )


def summed(x: Grid, dim: int | None, make: Make) -> Grid:
    """``x.sum()`` to 1×1, ``x.sum(0)`` down the rows to 1×n, ``x.sum(1)`` across each row to m×1."""
    if dim is None:
        return Grid([[total([value for _, _, value in x.elements()], make)]])
    if dim == 0:
        return Grid([[total(list(column), make) for column in zip(*x.rows)]])
    return Grid([[total(row, make)] for row in x.rows])


def mean(x: Grid, make: Make) -> Grid:
    """``x.mean()``: the sum of every element divided by their count, 1×1."""
    m, n = x.shape
    return Grid([[make("/", summed(x, None, make).rows[0][0], (float(m * n),))]])


def cross_entropy(logits: Grid, labels: list[int], make: Make) -> Grid:
    """Softmax cross-entropy averaged over the rows, 1×1: each row's loss is
    ``log(exp(z0) + exp(z1) + ...) − z[label]``, the formula as a learner writes it.

    (PyTorch subtracts each row's largest logit first, so that no exp overflows; the grads
    are the same, and a node that overflows here shows inf rather than failing.)
    """
    labels = checked_labels(logits.shape, labels)
    losses = [
        make(
            "-",
            make("log", total([make("exp", z, ()) for z in row], make), (), label=f"logsumexp[{i}]"),
            (row[label],),
            label=f"loss[{i}]",
        )
        for i, (row, label) in enumerate(zip(logits.rows, labels))
    ]
    m = len(losses)
    loss = total(losses, make)
    return Grid([[loss if m == 1 else make("/", loss, (float(m),))]])


# -- the tensor view of a line ---------------------------------------------------------------
# Each Grid has a mirror in engine.tensor, made by the same operations on tensors of ones, so
# a line's backward step can be written as the tensor rules it is (``W.grad += Xᵀ · dY``),
# each the scalar ``+=`` rule applied to every element. The rules are engine.tensor's own,
# the ones tested against PyTorch; only their names are the line's.


_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def mirror_input(shape: tuple[int, int], name: str) -> Tensor:
    """The mirror of an input tensor ``name`` (or of a single value broadcast as 1×1)."""
    return Tensor([[1.0] * shape[1] for _ in range(shape[0])], label=name)


def mirrored(result: Grid, operation: Callable, operands, code: str) -> Grid:
    """``result`` with its mirror: ``operation`` on the operands' mirrors (a number stays a
    number), named by the ``code`` that wrote it."""
    result.mirror = operation(*(x.mirror if isinstance(x, Grid) else x for x in operands))
    result.mirror.label = code
    return result


def line_rules(steps: list[Grid], name: str) -> list[str]:
    """A line's backward step as tensor rules, in the order the backward pass applies them:
    ``steps`` are the tensors the line made, in the order it made them (its value last), each
    mirror named by its code (an operation in brackets: ``(X @ W)``); ``name`` the variable it
    assigns. The grad arriving from outside is ``dH`` (H: ``name``); a part of the line has its
    grad written ``d(X @ W)``, set once (each part is used once); a tensor from outside the line
    grows by ``+=``, as the scalar rule says."""
    # the same code written twice makes two tensors ((o - y) * (o - y)): each its own grad,
    # told apart by a subscript, (o - y)₁ and (o - y)₂
    written: dict[str, list[Tensor]] = {}
    for step in steps:
        written.setdefault(step.mirror.label, []).append(step.mirror)
    for label, mirrors in written.items():
        if len(mirrors) > 1:
            for k, mirror in enumerate(mirrors, 1):
                mirror.label = f"{label}{str(k).translate(_SUBSCRIPTS)}"
    made = {step.mirror.label for step in steps}
    final = steps[-1].mirror

    def grad(label: str) -> str:
        return f"d{label}" if label.startswith("(") else f"d({label})"

    lines = []
    # the grad from outside: dH, but d(o) for a one-letter name in lower case ("do" is a word)
    outer = f"d({name})" if len(name) == 1 and name.islower() else f"d{name}"
    for step in reversed(steps):
        upstream = outer if step.mirror is final else grad(step.mirror.label)
        for rule in step.mirror.rules():
            formula = rule.formula.replace("dY", upstream)
            if rule.parent in made:  # a part of this line: its grad is set here, whole
                formula = formula.replace(f"{rule.parent}.grad +=", f"{grad(rule.parent)} =", 1)
            for label in made:  # tanh((X @ W)) reads tanh(X @ W)
                formula = formula.replace(f"({label})", label) if label.startswith("(") else formula
            lines.append(f"{formula}: {rule.shapes}")
    return lines
