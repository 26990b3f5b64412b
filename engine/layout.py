"""Where to draw each node and edge: a layered (Sugiyama-style) layout, left to right.

1. Layers: inputs in layer 0, every other node one layer right of its last parent, so the
   output ends up alone in the last layer.
2. Edges that skip layers get invisible bend points, one per skipped layer, so they run
   around nodes instead of through them.
3. Within each layer, nodes are ordered by the average position of their neighbours
   (the barycenter heuristic), sweeping right and left, keeping the order with the fewest
   crossings.
4. Edges leave a parent's right side and enter a child's left side at separate ports, and
   parallel edges (``a * a``) bow apart, so a value used twice shows two edges.

Deterministic: the same graph always gives the same coordinates. Only the graph's shape
(its nodes and edges, not their numbers or names) decides them, so the last few layouts
are kept: a learner changing an input's value gets the same picture without the work.
"""

from __future__ import annotations

from .graph import Graph

NODE_WIDTH = 120
NODE_HEIGHT = 72
GAP_X = 104  # room between layers for an edge label such as "3 × 3 = 9"
GAP_Y = 28
BEND_SLOT = 24  # vertical room a bend point takes in its layer
MARGIN = 24
SWEEPS_SMALL = 8
BIG_GRAPH = 300  # above this many nodes, fewer sweeps and no crossing counts


_RECENT: dict[tuple, dict] = {}  # a graph's shape → its layout (callers only read it)
_RECENT_LIMIT = 4


def layout(graph: Graph) -> dict:
    shape = (len(graph), graph.output, tuple((edge.parent, edge.child) for edge in graph.edges))
    found = _RECENT.pop(shape, None)
    if found is None:
        found = _layout(graph)
    _RECENT[shape] = found  # now the newest
    while len(_RECENT) > _RECENT_LIMIT:
        del _RECENT[next(iter(_RECENT))]  # the oldest
    return found


def _layout(graph: Graph) -> dict:
    layers = _layers(graph)
    chains, columns = _columns(graph, layers)
    _order(columns, chains, small=len(graph) <= BIG_GRAPH)
    centre_y, height = _coordinates(columns)
    width = 2 * MARGIN + (len(columns) - 1) * (NODE_WIDTH + GAP_X) + NODE_WIDTH

    def x_of(layer):
        return MARGIN + layer * (NODE_WIDTH + GAP_X) + NODE_WIDTH / 2

    nodes = [{"x": _r(x_of(layers[i])), "y": _r(centre_y[("n", i)])} for i in range(len(graph))]
    edges = _route(graph, layers, chains, centre_y, x_of)
    return {
        "width": _r(width),
        "height": _r(height),
        "node_width": NODE_WIDTH,
        "node_height": NODE_HEIGHT,
        "nodes": nodes,
        "edges": edges,
    }


def _layers(graph: Graph) -> list[int]:
    layers = [0] * len(graph)
    for node in range(len(graph)):  # topological order: parents are already placed
        parents = [graph.edges[e].parent for e in graph.parent_edges[node]]
        if parents:
            layers[node] = 1 + max(layers[p] for p in parents)
    return layers


def _columns(graph: Graph, layers):
    """Each layer's items: ("n", node) for nodes, ("b", edge, k) for bend points."""
    columns = [[] for _ in range(max(layers) + 1)]
    for node in range(len(graph)):
        columns[layers[node]].append(("n", node))
    chains = {}  # edge → the items it passes through, parent first, child last
    for edge in graph.edges:
        items = [("n", edge.parent)]
        for k, layer in enumerate(range(layers[edge.parent] + 1, layers[edge.child])):
            bend = ("b", edge.id, k)
            columns[layer].append(bend)
            items.append(bend)
        items.append(("n", edge.child))
        chains[edge.id] = items
    return chains, columns


def _barycentre_key(neighbours, position, current):
    """The sort key of an item in a layer: the mean position of its neighbours in the
    layer beside it (its own position if it has none there), ties kept in order."""

    def key(item):
        linked = [position[n] for n in neighbours.get(item, ()) if n in position]
        centre = sum(linked) / len(linked) if linked else current[item]
        return (centre, current[item])

    return key


def _order(columns, chains, small: bool):
    """Reorder items within layers to reduce crossings (barycenter heuristic)."""
    left, right = {}, {}  # item → its neighbours in the previous / next layer
    for items in chains.values():
        for a, b in zip(items, items[1:]):
            right.setdefault(a, []).append(b)
            left.setdefault(b, []).append(a)

    def sweep(layer_indices, neighbours):
        for layer in layer_indices:
            position = {item: i for i, item in enumerate(columns[layer - 1 if neighbours is left else layer + 1])}
            current = {item: i for i, item in enumerate(columns[layer])}
            columns[layer].sort(key=_barycentre_key(neighbours, position, current))

    best = [list(c) for c in columns]
    best_crossings = _crossings(columns, right) if small else None
    for _ in range(SWEEPS_SMALL if small else 2):
        sweep(range(1, len(columns)), left)
        sweep(range(len(columns) - 2, -1, -1), right)
        if small:
            crossings = _crossings(columns, right)
            if crossings < best_crossings:
                best, best_crossings = [list(c) for c in columns], crossings
        else:
            best = [list(c) for c in columns]
    columns[:] = best


def _crossings(columns, right) -> int:
    total = 0
    for layer in range(len(columns) - 1):
        here = {item: i for i, item in enumerate(columns[layer])}
        there = {item: i for i, item in enumerate(columns[layer + 1])}
        segments = [(here[a], there[b]) for a in columns[layer] for b in right.get(a, ())]
        for i, (a1, b1) in enumerate(segments):
            for a2, b2 in segments[i + 1 :]:
                if (a1 - a2) * (b1 - b2) < 0:
                    total += 1
    return total


def _coordinates(columns):
    """Stack each layer's items top to bottom, centring every layer vertically."""

    def size(item):
        return NODE_HEIGHT if item[0] == "n" else BEND_SLOT

    heights = [sum(size(item) for item in items) + GAP_Y * (len(items) - 1) for items in columns]
    height = max(heights) + 2 * MARGIN
    centre_y = {}
    for items, column_height in zip(columns, heights):
        y = (height - column_height) / 2
        for item in items:
            centre_y[item] = y + size(item) / 2
            y += size(item) + GAP_Y
    return centre_y, height


def _route(graph, layers, chains, centre_y, x_of):
    """Each edge as points from the parent's right side to the child's left side."""
    out_port = _ports(graph, chains, centre_y, outgoing=True)
    in_port = _ports(graph, chains, centre_y, outgoing=False)
    parallel = {}
    for edge in graph.edges:
        parallel.setdefault((edge.parent, edge.child), []).append(edge.id)
    routes = []
    half = NODE_WIDTH / 2
    column_x = [x_of(layer) for layer in range(max(layers) + 1)]
    for edge in graph.edges:
        items = chains[edge.id]
        first, last = layers[edge.parent], layers[edge.child]
        start = (column_x[first] + half, centre_y[items[0]] + out_port[edge.id])
        end = (column_x[last] - half, centre_y[items[-1]] + in_port[edge.id])
        # One bend point per layer the edge passes through (items between its ends).
        middle = [(column_x[first + k], centre_y[item]) for k, item in enumerate(items[1:-1], 1)]
        twins = parallel[(edge.parent, edge.child)]
        if len(twins) > 1 and not middle:
            # A value used twice by one node: bow the edges apart so both are visible.
            k = twins.index(edge.id) - (len(twins) - 1) / 2
            middle = [((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + k * 2 * BEND_SLOT)]
        routes.append({"points": [[round(x, 1), round(y, 1)] for x, y in (start, *middle, end)]})
    return routes


def _ports(graph, chains, centre_y, outgoing: bool) -> dict[int, float]:
    """Vertical offsets of the edges on one side of each node, ordered to avoid crossings."""
    offsets = {}
    for node in range(len(graph)):
        edge_ids = graph.child_edges[node] if outgoing else graph.parent_edges[node]

        # Sort by where the edge goes next, so neighbouring edges don't cross at the node.
        def towards(edge_id):
            items = chains[edge_id]
            return (centre_y[items[1] if outgoing else items[-2]], edge_id)

        ordered = sorted(edge_ids, key=towards)
        count = len(ordered)
        spacing = min(14.0, (NODE_HEIGHT - 20) / max(count - 1, 1))
        for i, edge_id in enumerate(ordered):
            offsets[edge_id] = (i - (count - 1) / 2) * spacing
    return offsets


def _r(x: float) -> float:
    return round(x, 1)
