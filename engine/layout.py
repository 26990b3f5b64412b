"""Where to draw each node and edge: a layered (Sugiyama-style) layout, in two orientations.

1. Layers: every computed node one layer after its last parent, so the output ends up
   alone in the last layer; an input sits in the layer just before its first use (as
   Graphviz ranks micrograd's graphs), so a bias added late waits beside the sum it joins
   rather than crowding the first layer.
2. Edges that skip layers get invisible bend points, one per skipped layer, so they run
   around nodes instead of through them.
3. Within each layer, nodes are ordered by the average position of their neighbours
   (the barycenter heuristic), sweeping forth and back, keeping the order with the fewest
   crossings.
4. Edges leave a parent at separate ports and enter a child at separate ports, and
   parallel edges (``a * a``) bow apart, so a value used twice shows two edges.

The one ordering is drawn two ways: ``across`` (layers left to right, full-size nodes, room
between layers for an edge label: a landscape box) and ``down`` (layers top to bottom,
compact nodes side by side: a phone or a lesson's column). The front end picks the one that
shows the whole graph biggest in the box it has; ``down`` is sent only for graphs small
enough to fit a narrow box at all (DOWN_LIMIT nodes).

Deterministic: the same graph always gives the same coordinates. Only the graph's shape
(its nodes and edges, not their numbers or names) decides them, so the last few layouts
are kept: a learner changing an input's value gets the same picture without the work.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .graph import Graph


@dataclass(frozen=True)
class Orientation:
    """Sizes along the layers' axis (``along``: x across, y down) and within a layer."""

    name: str
    node_width: int
    node_height: int
    gap_along: int  # room between layers, for an edge label such as "3 × 3 = 9"
    gap_within: int  # room between neighbours in a layer
    bend_slot: int  # room a bend point takes in its layer
    margin: int  # beside the first and last node of a layer
    margin_along: int  # before the first layer and after the last (a node's tag sits above it)

    @property
    def node_along(self) -> int:
        return self.node_width if self.name == "across" else self.node_height

    @property
    def node_within(self) -> int:
        return self.node_height if self.name == "across" else self.node_width


ACROSS = Orientation(
    "across", node_width=120, node_height=72, gap_along=104, gap_within=28, bend_slot=24, margin=24, margin_along=24
)
# A compact node (its text as big, its padding smaller), four of them side by side in a
# phone's 360 px; rows far enough apart for a one-line edge label (the front end writes
# a down layout's labels on one line) beside a node's tag, and room above the first row
# for a tag.
DOWN = Orientation(
    "down", node_width=84, node_height=52, gap_along=32, gap_within=6, bend_slot=16, margin=6, margin_along=18
)
# Closed groups' boxes carry a note below ("12 nodes", 18 px to its bottom) as well as a tag
# above ("visiting", 17.5 px up): boxes in one layer (across) stand 38 px apart, and rows of
# boxes (down) 44 px, so that one box's tag clears the note of the box before it. (No more:
# a taller graph may no longer fit its box on a phone or beside the narration.)
ACROSS_BOXES = replace(ACROSS, gap_within=ACROSS.gap_within + 10)
DOWN_BOXES = replace(DOWN, gap_along=DOWN.gap_along + 12)
NODE_WIDTH = ACROSS.node_width
NODE_HEIGHT = ACROSS.node_height
SWEEPS_SMALL = 8
BUNDLE = 6  # this many long edges into one node from one layer share their bend points
BIG_GRAPH = 300  # above this many nodes, fewer sweeps and no crossing counts
# ... or above this many items to order (nodes and bend points): a network's view with 99
# closed samples feeding one sum many layers on has ten times more bends than boxes.
BIG_ITEMS = 1_200
DOWN_LIMIT = 60  # above this many nodes no narrow box shows the whole graph: no ``down``


_RECENT: dict[tuple, dict] = {}  # a graph's shape → its layout (callers only read it)
_RECENT_LIMIT = 4


def layout(graph: Graph, clusters: list[tuple[str, ...]] | None = None, boxes: bool = False) -> dict:
    """The ``across`` layout, carrying the ``down`` one under "down" for a small graph.

    ``clusters`` gives each node the groups it sits in, outermost first: within every layer a
    group's nodes are then kept next to each other, and an inner group's inside its outer one,
    so that a group drawn around its nodes covers no other node. ``boxes``: some of the nodes
    are closed groups' boxes, which need more room around them (BOX_ROOM)."""
    shape = (
        len(graph),
        graph.output,
        tuple((edge.parent, edge.child) for edge in graph.edges),
        clusters and tuple(clusters),
        boxes,
    )
    found = _RECENT.pop(shape, None)
    if found is None:
        found = _layout(graph, clusters, boxes)
    _RECENT[shape] = found  # now the newest
    while len(_RECENT) > _RECENT_LIMIT:
        del _RECENT[next(iter(_RECENT))]  # the oldest
    return found


def _layout(graph: Graph, clusters=None, boxes: bool = False) -> dict:
    layers = _layers(graph)
    chains, columns = _columns(graph, layers)
    small = len(graph) <= BIG_GRAPH and sum(map(len, columns)) <= BIG_ITEMS
    _order(columns, chains, small=small, path=_paths(graph, clusters, chains) if clusters else None)
    drawn = _draw(graph, layers, chains, columns, ACROSS_BOXES if boxes else ACROSS)
    if len(graph) <= DOWN_LIMIT:
        drawn["down"] = _draw(graph, layers, chains, columns, DOWN_BOXES if boxes else DOWN)
    return drawn


def _draw(graph, layers, chains, columns, o: Orientation) -> dict:
    """Coordinates for one orientation: (along, within) turned into (x, y)."""
    centre, extent_within = _coordinates(columns, o)
    extent_along = 2 * o.margin_along + (len(columns) - 1) * (o.node_along + o.gap_along) + o.node_along

    def along_of(layer):
        return o.margin_along + layer * (o.node_along + o.gap_along) + o.node_along / 2

    def point(along, within):
        return (along, within) if o.name == "across" else (within, along)

    nodes = [point(along_of(layers[i]), centre[("n", i)]) for i in range(len(graph))]
    edges = _route(graph, layers, chains, centre, along_of, o, point)
    width, height = point(extent_along, extent_within)
    return {
        "direction": o.name,
        "width": _r(width),
        "height": _r(height),
        "node_width": o.node_width,
        "node_height": o.node_height,
        "nodes": [{"x": _r(x), "y": _r(y)} for x, y in nodes],
        "edges": edges,
    }


def _layers(graph: Graph) -> list[int]:
    layers = [0] * len(graph)
    for node in range(len(graph)):  # topological order: parents are already placed
        parents = [graph.edges[e].parent for e in graph.parent_edges[node]]
        if parents:
            layers[node] = 1 + max(layers[p] for p in parents)
    for node in range(len(graph)):
        children = [graph.edges[e].child for e in graph.child_edges[node]]
        if not graph.parent_edges[node] and children:  # an input: just before its first use
            layers[node] = min(layers[c] for c in children) - 1
    return layers


def _columns(graph: Graph, layers):
    """Each layer's items: ("n", node) for nodes, ("b", key, k) for bend points.

    Edges into one node from the same layer that skip layers on the way, if there are
    BUNDLE or more of them (99 closed samples feeding one sum), share their bend points: they
    meet in the layer after their parents and run on as one line. Likewise the edges out of
    one node that skip layers, if there are BUNDLE or more of them (a weight that every step
    of an unrolled loop uses), run as one line, a trunk, each leaving it at its own layer:
    without it, a weight used at every depth of a deep chain had a line of its own to each
    use, so the bend points grew with the square of the depth (a 1,300-node chain took 16 s
    to lay out). Otherwise each edge has its own."""
    columns = [[] for _ in range(max(layers) + 1)]
    for node in range(len(graph)):
        columns[layers[node]].append(("n", node))
    fan_in: dict[tuple, int] = {}
    for edge in graph.edges:
        if layers[edge.child] - layers[edge.parent] > 1:
            key = (edge.child, layers[edge.parent])
            fan_in[key] = fan_in.get(key, 0) + 1
    # the long edges out of each node that no bundle into a node takes: a trunk's candidates
    fan_out: dict[int, int] = {}
    reach: dict[int, int] = {}  # a node → the farthest layer they go to (its trunk's end)
    for edge in graph.edges:
        if layers[edge.child] - layers[edge.parent] > 1 and fan_in[(edge.child, layers[edge.parent])] < BUNDLE:
            fan_out[edge.parent] = fan_out.get(edge.parent, 0) + 1
            reach[edge.parent] = max(reach.get(edge.parent, 0), layers[edge.child])
    chains = {}  # edge → the items it passes through, parent first, child last
    placed = set()  # the shared bend points in their layers already
    for edge in graph.edges:
        key = (edge.child, layers[edge.parent])
        first, last = layers[edge.parent], layers[edge.child]
        if fan_in.get(key, 0) >= BUNDLE:
            bend_key = ("to", *key)
        elif fan_out.get(edge.parent, 0) >= BUNDLE and last - first > 1:
            bend_key = ("from", edge.parent)
            if last < reach[edge.parent]:
                # on the trunk the farthest edge lays, it is only its own last bend point and
                # child: _order reads neighbours layer to layer, so that is all it needs
                bend = ("b", bend_key, last - first - 2)
                chains[edge.id] = [("n", edge.parent), bend, ("n", edge.child)]
                if bend not in placed:
                    columns[last - 1].append(bend)
                    placed.add(bend)
                continue
        else:
            bend_key = edge.id
        items = [("n", edge.parent)]
        for k, layer in enumerate(range(first + 1, last)):
            bend = ("b", bend_key, k)
            if bend not in placed:
                columns[layer].append(bend)
                placed.add(bend)
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


def _paths(graph: Graph, clusters, chains):
    """Each item's groups, outermost first: a node's own, and a bend point's the groups that
    hold both ends of its edge (of every edge sharing it). ``.rank`` numbers the groups in the order they first appear
    (the nodes' order, which is the order the graph was built in)."""
    path = {("n", node): tuple(clusters[node]) for node in range(len(graph))}
    rank: dict[str, int] = {}
    for groups in clusters:
        for group in groups:
            rank.setdefault(group, len(rank))
    for edge in graph.edges:
        items = chains[edge.id]
        if len(items) == 2:
            continue  # no bend point
        a, b = clusters[edge.parent], clusters[edge.child]
        common = 0
        while common < min(len(a), len(b)) and a[common] == b[common]:
            common += 1
        key = ("b", items[1][1])
        shared = path.get(key, a[:common])
        while common and shared[:common] != a[:common]:
            common -= 1
        path[key] = tuple(a[:common])

    def of(item):
        return path[item] if item[0] == "n" else path[("b", item[1])]

    of.rank = rank
    return of


def _together(items, path):
    """The layer's items reordered so that each group's items are next to each other (an inner
    group's inside its outer one's). A group goes where its items are on average, except that
    groups side by side in one parent keep their reading order (the order they first appear
    in, ``path.rank``): neuron 2 stays between neurons 1 and 3, closed or open, so opening a
    group changes no one else's order."""
    paths = [path(item) for item in items]
    if not any(paths):
        return items
    sums: dict[tuple, list] = {}
    for i, p in enumerate(paths):
        for depth in range(1, len(p) + 1):
            total = sums.setdefault(p[:depth], [0, 0])
            total[0] += i
            total[1] += 1
    place = {group: total / count for group, (total, count) in sums.items()}
    siblings: dict[tuple, list] = {}
    for group in place:
        siblings.setdefault(group[:-1], []).append(group)
    rank = path.rank
    for members in siblings.values():
        if len(members) > 1:
            spots = sorted(place[group] for group in members)
            for group, spot in zip(sorted(members, key=lambda group: rank[group[-1]]), spots):
                place[group] = spot

    keys = [(*((place[p[:d]], rank[p[d - 1]]) for d in range(1, len(p) + 1)), (i, -1)) for i, p in enumerate(paths)]
    return [items[i] for i in sorted(range(len(items)), key=keys.__getitem__)]


def _order(columns, chains, small: bool, path=None):
    """Reorder items within layers to reduce crossings (barycenter heuristic), a group's items
    kept together when ``path`` gives each item its groups."""
    left, right = {}, {}  # item → its neighbours in the previous / next layer
    shared = set()  # the links of bend points that edges share, each listed once
    layer_of = {item: layer for layer, items in enumerate(columns) for item in items}
    for items in chains.values():
        for a, b in zip(items, items[1:]):
            if layer_of[b] != layer_of[a] + 1:
                continue  # an edge leaving a trunk: its parent is layers away (its link is the trunk's)
            if a[0] == "b" or b[0] == "b":
                if (a, b) in shared:
                    continue
                shared.add((a, b))
            right.setdefault(a, []).append(b)
            left.setdefault(b, []).append(a)

    def sweep(layer_indices, neighbours):
        for layer in layer_indices:
            position = {item: i for i, item in enumerate(columns[layer - 1 if neighbours is left else layer + 1])}
            current = {item: i for i, item in enumerate(columns[layer])}
            columns[layer].sort(key=_barycentre_key(neighbours, position, current))
            if path is not None:
                columns[layer] = _together(columns[layer], path)

    if path is not None:
        columns[:] = [_together(items, path) for items in columns]
    best = [list(c) for c in columns]
    best_crossings = _crossings(columns, right) if small else None
    for _ in range(SWEEPS_SMALL if small else 2):
        before = [list(c) for c in columns]
        sweep(range(1, len(columns)), left)
        sweep(range(len(columns) - 2, -1, -1), right)
        if columns == before:
            break  # a fixed point: every further sweep would give these orders again
        if small:
            crossings = _crossings(columns, right)
            if crossings < best_crossings:
                best, best_crossings = [list(c) for c in columns], crossings
        else:
            best = [list(c) for c in columns]
    columns[:] = best


def _crossings(columns, right) -> int:
    """How many pairs of edges cross between neighbouring layers. Two segments cross when
    their ends are in opposite orders in the two layers: sorted by their ends in the first
    layer (then in the second), that is each pair out of order in the second, counted by
    a merge sort in O(s log s) rather than pair by pair."""
    total = 0
    for layer in range(len(columns) - 1):
        there = {item: i for i, item in enumerate(columns[layer + 1])}
        ends = []
        for item in columns[layer]:
            ends.extend(sorted(there[b] for b in right.get(item, ())))
        total += _inversions(ends)
    return total


def _inversions(values: list[int]) -> int:
    """The pairs i < j with values[i] > values[j] (equal values are not a crossing)."""
    count = 0
    width = 1
    values = list(values)
    n = len(values)
    while width < n:
        merged = []
        for lo in range(0, n, 2 * width):
            left, right = values[lo : lo + width], values[lo + width : lo + 2 * width]
            i = j = 0
            while i < len(left) and j < len(right):
                if right[j] < left[i]:
                    merged.append(right[j])
                    count += len(left) - i
                    j += 1
                else:
                    merged.append(left[i])
                    i += 1
            merged.extend(left[i:])
            merged.extend(right[j:])
        values = merged
        width *= 2
    return count


def _coordinates(columns, o: Orientation):
    """Stack each layer's items side by side within the layer, centring every layer."""

    def size(item):
        return o.node_within if item[0] == "n" else o.bend_slot

    extents = [sum(size(item) for item in items) + o.gap_within * (len(items) - 1) for items in columns]
    extent = max(extents) + 2 * o.margin
    centre = {}
    for items, column_extent in zip(columns, extents):
        at = (extent - column_extent) / 2
        for item in items:
            centre[item] = at + size(item) / 2
            at += size(item) + o.gap_within
    return centre, extent


def _route(graph, layers, chains, centre, along_of, o: Orientation, point):
    """Each edge as points from the parent's far side (right, or bottom) to the child's
    near side (left, or top), through one bend point per layer it passes."""
    out_port = _ports(graph, chains, centre, o, outgoing=True)
    in_port = _ports(graph, chains, centre, o, outgoing=False)
    parallel = {}
    for edge in graph.edges:
        parallel.setdefault((edge.parent, edge.child), []).append(edge.id)
    routes = []
    half = o.node_along / 2
    for edge in graph.edges:
        items = chains[edge.id]
        first, last = layers[edge.parent], layers[edge.child]
        start = (along_of(first) + half, centre[items[0]] + out_port[edge.id])
        end = (along_of(last) - half, centre[items[-1]] + in_port[edge.id])
        if len(items) == 3 and last - first > 2:
            # an edge leaving a trunk (_columns), which the farthest edge on it draws once: drawn
            # from its last bend point, so the points grow with the depth, not with its square
            start, middle = (along_of(last - 1), centre[items[1]]), []
        else:
            middle = [(along_of(first + k), centre[item]) for k, item in enumerate(items[1:-1], 1)]
        twins = parallel[(edge.parent, edge.child)]
        if len(twins) > 1 and not middle:
            # A value used twice by one node: bow the edges apart so both are visible.
            k = twins.index(edge.id) - (len(twins) - 1) / 2
            middle = [((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + k * 2 * o.bend_slot)]
        routes.append({"points": [[_r(x), _r(y)] for x, y in (point(*p) for p in (start, *middle, end))]})
    return routes


def _ports(graph, chains, centre, o: Orientation, outgoing: bool) -> dict[int, float]:
    """Offsets (within the layer) of the edges on one side of each node, ordered to avoid
    crossings."""
    offsets = {}
    for node in range(len(graph)):
        edge_ids = graph.child_edges[node] if outgoing else graph.parent_edges[node]

        # Sort by where the edge goes next, so neighbouring edges don't cross at the node.
        def towards(edge_id):
            items = chains[edge_id]
            return (centre[items[1] if outgoing else items[-2]], edge_id)

        ordered = sorted(edge_ids, key=towards)
        count = len(ordered)
        spacing = min(14.0, (o.node_within - 20) / max(count - 1, 1))
        for i, edge_id in enumerate(ordered):
            offsets[edge_id] = (i - (count - 1) / 2) * spacing
    return offsets


def _r(x: float) -> float:
    return round(x, 1)
