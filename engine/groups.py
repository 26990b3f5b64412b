"""Groups: a big graph's nodes gathered into nested, named boxes (a neuron in a layer in a model,
sample k in the batch), so a learner can step a network one neuron or one layer at a time.

A :class:`Groups` is a tree over a :class:`~engine.flat.FlatGraph`'s nodes. Each node is in at
most one innermost group; a group holds its own nodes and its child groups. Groups come from:

* **the learner's model** (:func:`model_parts`): any object with ``parameters()`` whose
  attributes hold Values, lists (or lists of lists) of them, or more such objects, read with
  ``vars()`` only, so nothing is called and nothing changes. micrograd's ``MLP`` gives
  ``MLP → layers → neurons → w, b``; a module's Values are its parameters, labelled by their
  place in the model (``L1.N2.w1``: layer 1, neuron 2, its first weight);
* **inference**, when no model is given: a *neuron* is a sum of an input (its bias) and two
  or more products (``b + w1*x1 + w2*x2``), with the activation that takes it, if any
  (relu, tanh, sigmoid);
* **a program's** ``with group("name"):`` blocks (:mod:`engine.program`), given as the
  nodes each block made.

From the parameters, an *application* of a module is the nodes between its parameters and its
activation: every node that uses one of its parameters, and every node made only from those
(and plain numbers), up to and including an activation. It must multiply one of the module's
parameters by something else (``w * x``): ``p * p`` for a regularisation term is not one. Applications that feed each
other form a *sample*; with two or more samples the tree is ``batch → sample k → layer →
neuron``, and the parameters sit apart in ``parameters → layer → neuron``; with one sample it is
``model → layer → neuron``, each neuron holding its own parameters.

Then, so that the top level stays small: a chain of three or more additions (micrograd's
``sum()``) is a group "sum of n terms" (its real terms: not the 0 ``sum()`` starts from), with
the terms only it uses; a node made from one
sample's nodes alone joins that sample (the sample's loss term); an input joins the innermost
group that holds every node using it.

A name found twice gets a number ("sum of 5 terms (2)"): the page finds a group by its name.

Every group is *convex*: no path leaves it and comes back. That is what lets the backward pass
visit a collapsed group as one step (:func:`Groups.order`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .flat import FlatGraph

ACTIVATIONS = ("relu", "tanh", "sigmoid")
MIN_SUM_TERMS = 4  # a chain of additions with at least this many terms is a group


class GroupError(ValueError):
    """Groups that can't be drawn (they overlap, or one is not convex), in a sentence."""


class NotConvex(GroupError):
    """A path leaves a group and comes back into it, so it can't be stepped as one visit."""


@dataclass
class Group:
    id: str  # "g0", "g1", ... in the order they were made
    name: str  # readable and unique: "neuron 2 of layer 1", "sample 5"
    kind: str  # "model", "layer", "neuron", "batch", "sample", "parameters", "sum", "part", "tensor"
    parent: str | None
    children: list[str] = field(default_factory=list)  # child groups, in the graph's order
    nodes: list[int] = field(default_factory=list)  # nodes directly in it (not in a child), ascending
    size: int = 0  # every node inside it, nested
    outputs: list[int] = field(default_factory=list)  # its nodes used outside it (or the graph's output)
    input_nodes: dict[int, int] | None = field(default=None, repr=False)  # each of them → the edges it feeds in

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "parent": self.parent,
            "groups": list(self.children),
            "nodes": list(self.nodes),
            "size": self.size,
            "outputs": list(self.outputs),
        }


class Groups:
    """The group tree of a graph: ``owner[v]`` is node v's innermost group (or None)."""

    def __init__(self, graph: FlatGraph, owner: list[str | None], groups: dict[str, Group]):
        self.graph = graph
        self.owner = owner
        self.groups = groups
        self.top = [g.id for g in groups.values() if g.parent is None]
        nodes_of = {gid: g.nodes for gid, g in groups.items()}
        for v, gid in enumerate(owner):
            if gid is not None:
                nodes_of[gid].append(v)
        self._paths: dict[str | None, list[str]] = {None: []}
        self._blocks: dict[str, tuple[int, int]] = {}
        self._names: dict[str, Group] | None = None
        for gid in groups:
            self.group_path(gid)
        self._sizes()
        self._outputs()
        self.forward_order = self._contiguous_order()

    def __len__(self) -> int:
        return len(self.groups)

    def by_name(self, name: str) -> Group | None:
        """The group with this name, or this id; None if there is none."""
        if self._names is None:
            self._names = {g.name: g for g in self.groups.values()}
        return self.groups.get(name) or self._names.get(name)

    def path(self, node: int) -> list[str]:
        """The groups holding ``node``, outermost first (a list not to be changed)."""
        return self._paths[self.owner[node]]

    def group_path(self, gid: str | None) -> list[str]:
        """The groups around group ``gid`` and itself, outermost first (a list not to be changed)."""
        found = self._paths.get(gid)
        if found is None:
            found = self._paths[gid] = [*self.group_path(self.groups[gid].parent), gid] if gid else []
        return found

    def members(self, gid: str) -> list[int]:
        """Every node inside group ``gid``, nested, ascending."""
        out, stack = [], [gid]
        while stack:
            group = self.groups[stack.pop()]
            out.extend(group.nodes)
            stack.extend(group.children)
        return sorted(out)

    def _sizes(self):
        for group in self.groups.values():
            group.size = len(group.nodes)
        for group in sorted(self.groups.values(), key=lambda g: -self._depth(g)):
            if group.parent is not None:
                self.groups[group.parent].size += group.size

    def _depth(self, group: Group) -> int:
        depth = 0
        while group.parent is not None:
            depth += 1
            group = self.groups[group.parent]
        return depth

    def _outputs(self):
        """One pass over the edges: each group's outputs (its nodes with a consumer outside it,
        or the graph's output), and the edges between the parts of each group (for the order)."""
        graph, owner, paths, groups = self.graph, self.owner, self._paths, self.groups
        # per group with parts (None: the whole graph), the edges between its parts (a child group or a node)
        part_edges: dict[str | None, set[tuple]] = {gid: set() for gid, g in groups.items() if g.children}
        part_edges[None] = set()
        leaves_at: dict[int, int] = {}  # a node used outside: the depth of the outermost group it leaves
        crossing: dict[str | None, dict] = {}  # per child's group, per parent's group: where the edge crosses
        for child, parents in enumerate(graph.parents):
            if not parents:
                continue
            mine = owner[child]
            inner = part_edges.get(mine)  # None: the child's group has no parts, an edge inside it orders nothing
            into_mine = crossing.get(mine)
            if into_mine is None:
                into_mine = crossing[mine] = {}
            for parent in parents:
                theirs = owner[parent]
                if theirs == mine:
                    if inner is not None:
                        inner.add((parent, child))
                    continue
                found = into_mine.get(theirs)
                if found is None:
                    found = into_mine[theirs] = self._crossing(paths[theirs], paths[mine], part_edges)
                d, edges, part_p, part_c = found
                if part_p is not None and d < leaves_at.get(parent, 1 << 30):
                    leaves_at[parent] = d
                if edges is not None:
                    edges.add((parent if part_p is None else part_p, child if part_c is None else part_c))
        self._part_edges = part_edges
        outputs: dict[str, list[int]] = {gid: [] for gid in groups}
        for node, d in sorted(leaves_at.items()):
            for gid in paths[owner[node]][d:]:
                outputs[gid].append(node)
        for gid in self.path(graph.output):
            outputs[gid].append(graph.output)
        for gid, found in outputs.items():
            groups[gid].outputs = sorted(set(found))

    @staticmethod
    def _crossing(path_p: list[str], path_c: list[str], part_edges: dict) -> tuple:
        """An edge from a node with groups ``path_p`` into one with ``path_c``: the depth where
        the paths part, the edge set of the group holding both (None once the edge between two
        of its child groups is in it: every such edge is that same one), and those parts (a
        child group, or None for a node directly in it)."""
        d = 0
        for outer_p, outer_c in zip(path_p, path_c):
            if outer_p != outer_c:
                break
            d += 1
        edges = part_edges[path_p[d - 1] if d else None]
        part_p = path_p[d] if d < len(path_p) else None
        part_c = path_c[d] if d < len(path_c) else None
        if part_p is not None and part_c is not None:
            edges.add((part_p, part_c))
            edges = None
        return d, edges, part_p, part_c

    def inputs_of(self, gid: str) -> dict[int, int]:
        """The nodes outside group ``gid`` that its nodes use, each with how many of its edges
        it feeds (ascending; worked out the first time it is asked for). The group's nodes
        are one block of the forward order, so "outside" is a place outside that block."""
        group = self.groups[gid]
        if group.input_nodes is None:
            lo, hi = self.block(gid)
            place, parents = self.position, self.graph.parents
            found: dict[int, int] = {}
            for v in self.forward_order[lo:hi]:
                for p in parents[v]:
                    if not lo <= place[p] < hi:
                        found[p] = found.get(p, 0) + 1
            group.input_nodes = dict(sorted(found.items()))
        return group.input_nodes

    @cached_property
    def position(self) -> list[int]:
        """Each node's place in the forward order."""
        out = [0] * len(self.graph)
        for i, v in enumerate(self.forward_order):
            out[v] = i
        return out

    def block(self, gid: str) -> tuple[int, int]:
        """Where group ``gid``'s nodes are in the forward order: [lo, hi)."""
        found = self._blocks.get(gid)
        if found is None:
            group, place = self.groups[gid], self.position
            lows = [place[v] for v in group.nodes] + [self.block(c)[0] for c in group.children]
            highs = [place[v] + 1 for v in group.nodes] + [self.block(c)[1] for c in group.children]
            found = self._blocks[gid] = (min(lows), max(highs))
        return found

    def _contiguous_order(self) -> list[int]:
        """A topological order of the nodes in which every group's nodes come one after
        another, at every depth: the forward pass; reversed, the backward pass. Within a
        group, its parts (child groups and nodes) come in a topological order of the parts,
        earliest first (a group without child groups: its nodes in id order, which is one);
        a cycle among parts means a group is not convex."""
        import heapq  # (here: only a grouped graph needs it, and the page's Python starts without it)

        groups = self.groups
        first: dict[str, int] = {}
        for gid in sorted(groups, key=lambda g: -len(self._paths[g])):  # innermost first
            group = groups[gid]
            candidates = [first[c] for c in group.children]
            if group.nodes:
                candidates.append(group.nodes[0])
            first[gid] = min(candidates)

        def order(container: str | None) -> list[int]:
            if container is None:
                parts = [v for v in range(len(self.graph)) if self.owner[v] is None] + self.top
                name = "the graph"
            else:
                group = groups[container]
                if not group.children:
                    return list(group.nodes)
                parts = group.nodes + group.children
                name = group.name
            waiting = dict.fromkeys(parts, 0)
            succs: dict = {p: [] for p in parts}
            for a, b in self._part_edges[container]:
                succs[a].append(b)
                waiting[b] += 1
            key = {p: (p if isinstance(p, int) else first[p]) for p in parts}
            ready = [(key[p], p) for p in parts if not waiting[p]]
            heapq.heapify(ready)
            out, done = [], 0
            while ready:
                _, p = heapq.heappop(ready)
                done += 1
                if isinstance(p, int):
                    out.append(p)
                else:
                    out.extend(order(p))
                for q in succs[p]:
                    waiting[q] -= 1
                    if not waiting[q]:
                        heapq.heappush(ready, (key[q], q))
            if done != len(parts):
                stuck = next(p for p in parts if waiting[p])
                what = groups[stuck].name if isinstance(stuck, str) else self.graph.labels[stuck]
                raise NotConvex(
                    f"The groups in {name} can't be stepped one at a time: a path leaves {what} and comes back "
                    "into it through another group. Make each group a piece of the computation that starts "
                    "after its inputs and ends before anything outside uses it."
                )
            return out

        return order(None)


# -- the learner's model ----------------------------------------------------------------------


@dataclass
class Part:
    """A module of the learner's model: its name, its own parameters (node objects), its parts."""

    name: str
    kind: str
    params: list = field(default_factory=list)  # (node object, its name in the part: "w1", "b")
    parts: list[Part] = field(default_factory=list)
    parent: Part | None = None

    def path(self) -> list[Part]:
        out, part = [], self
        while part is not None:
            out.append(part)
            part = part.parent
        return out[::-1]


def is_value(x) -> bool:
    return hasattr(x, "data") and (hasattr(x, "_prev") or hasattr(x, "_children"))


def is_module(x) -> bool:
    return not is_value(x) and callable(getattr(type(x), "parameters", None))


def model_parts(model) -> Part:
    """The learner's model as a tree of parts, read from its attributes (``vars()``) only."""
    if not is_module(model):
        raise GroupError(
            f"model= takes the object your network is made of, with a parameters() method (like micrograd's MLP); "
            f"this is {type(model).__name__}."
        )
    seen: set[int] = set()

    def walk(obj, name: str, kind: str, parent: Part | None) -> Part:
        seen.add(id(obj))
        part = Part(name, kind, parent=parent)
        try:
            attributes = dict(vars(obj))
        except TypeError:  # no __dict__ (slots): nothing we can read without calling it
            attributes = {}
        for attr, value in attributes.items():
            if attr.startswith("_"):
                continue
            collect(part, value, attr)
        return part

    def collect(part: Part, value, attr: str, depth: int = 0):
        if depth > 3 or id(value) in seen:
            return
        if is_value(value):
            part.params.append((value, attr))
        elif is_module(value):
            part.parts.append(walk(value, attr, _singular(attr), part))
        elif isinstance(value, (list, tuple)):
            modules = [item for item in value if is_module(item)]
            if modules:
                kind = _singular(attr)
                for k, item in enumerate(value, start=1):
                    if is_module(item) and id(item) not in seen:
                        part.parts.append(walk(item, f"{kind} {k}", kind, part))
            else:
                for k, item in enumerate(value, start=1):
                    collect(part, item, f"{attr}{k}" if depth == 0 else f"{attr}.{k}", depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                if is_module(item) and id(item) not in seen:
                    part.parts.append(walk(item, str(key), "module", part))
                elif is_value(item) or isinstance(item, (list, tuple)):
                    collect(part, item, str(key), depth + 1)

    return walk(model, type(model).__name__, "model", None)


def _singular(word: str) -> str:
    word = word.lower().strip("_")
    return word[:-1] if word.endswith("s") and len(word) > 2 else word


def _short_name(name: str) -> str:
    """ "layer 1" → "L1", "neuron 2" → "N2": a parameter's label is its part's path, L1.N2.w1."""
    word, _, number = name.rpartition(" ")
    return f"{word[:1].upper()}{number}" if word and number.isdigit() else name


def _full_name(path: list[str]) -> str:
    """["layer 1", "neuron 2"] → "neuron 2 of layer 1"."""
    return " of ".join(reversed(path)) if path else ""


# -- finding the groups ---------------------------------------------------------------------------


class _Builder:
    def __init__(self, graph: FlatGraph):
        self.graph = graph
        self.owner: list[str | None] = [None] * len(graph)
        self.groups: dict[str, Group] = {}
        self.consumers = graph.consumers

    def new(self, name: str, kind: str, parent: str | None) -> str:
        gid = f"g{len(self.groups)}"
        self.groups[gid] = Group(gid, name, kind, parent)
        if parent is not None:
            self.groups[parent].children.append(gid)
        return gid


def find_groups(
    graph: FlatGraph,
    model=None,
    parts: list[tuple[str, list[int]]] | None = None,
    nested: bool = True,
    kinds: dict[str, str] | None = None,
) -> Groups:
    """The groups of ``graph``: from ``model`` (the learner's objects), from ``parts`` (a
    program's named blocks: (name, the nodes it made), nested blocks listed inside their
    block's nodes too; ``kinds``: a block's kind by its name, if not "part"), else inferred.
    Not ``nested``: a model's or the inferred neurons each alone, with no layers, samples or
    parameters around them (the fallback when those would not be convex)."""
    builder = _Builder(graph)
    if parts:
        _program_groups(builder, parts, kinds or {})
    else:
        if model is not None:
            applications, param_parts = _model_applications(builder, model_parts(model))
        else:
            applications, param_parts = _inferred_applications(builder), {}
        _network_groups(builder, applications, param_parts, nested)
        if model is None and nested:
            _shared_inputs(builder)
        _sum_chains(builder)
        _sample_terms(builder)
        _single_use(builder)
        _inputs(builder)  # (a program's inputs stay where its author wrote them)
    groups = {gid: g for gid, g in builder.groups.items()}
    _drop_empty(groups, builder.owner)
    _unique_names(groups)
    return Groups(graph, builder.owner, groups)


def _unique_names(groups: dict[str, Group]):
    """A name the graph already has gets a number, in the order the groups were made: two
    sums of 5 terms are "sum of 5 terms" and "sum of 5 terms (2)". (The page finds a group
    by its name.)"""
    taken = {group.name for group in groups.values()}
    seen: set[str] = set()
    for group in groups.values():
        if group.name not in seen:
            seen.add(group.name)
            continue
        k = 2
        while f"{group.name} ({k})" in taken:
            k += 1
        group.name = f"{group.name} ({k})"
        taken.add(group.name)
        seen.add(group.name)


def _model_applications(builder: _Builder, root: Part):
    """Each application of each part with parameters: (its path of names, its nodes)."""
    graph = builder.graph
    index = graph.node_of
    param_of: dict[int, Part] = {}
    param_parts: dict[int, Part] = {}
    stack = [root]
    while stack:
        part = stack.pop()
        stack.extend(part.parts)
        prefix = ".".join(_short_name(p.name) for p in part.path()[1:])
        for obj, name in part.params:
            node = index.get(id(obj))
            if node is not None and not graph.parents[node] and node not in param_of:
                param_of[node] = part
                param_parts[node] = part
                graph.labels[node] = f"{prefix}.{name}" if prefix else name
    owner_of: list[Part | None] = [None] * len(graph)  # a parameter's part
    for node, part in param_of.items():
        owner_of[node] = part
    member: list[Part | None] = [None] * len(graph)
    closed = [False] * len(graph)
    ops, parents_of = graph.ops, graph.parents
    for v, parents in enumerate(graph.parents):
        if not parents:
            continue
        part = None
        for p in parents:  # a node that uses a part's parameter is the part's
            part = owner_of[p]
            if part is not None:
                break
        op = ops[v]
        if part is None:  # a node made only from one part's open nodes (and plain numbers)
            for p in parents:
                if op == "+" and not parents_of[p] and owner_of[p] is None:
                    continue  # a number added, such as sum()'s starting 0
                theirs = member[p] if not closed[p] else None
                if theirs is None or (part is not None and theirs is not part):
                    part = None
                    break
                part = theirs
        if part is not None:
            member[v] = part
            closed[v] = op in ACTIVATIONS
    return _components(builder, member, closed, param_of), param_parts


def _inferred_applications(builder: _Builder):
    """Neurons found by their shape: an activation (if any) over a sum of two or more products."""
    graph = builder.graph
    consumers = builder.consumers
    ops, parents = graph.ops, graph.parents
    member: list[object] = [None] * len(graph)
    closed = [False] * len(graph)
    for root in range(len(graph) - 1, -1, -1):
        if ops[root] != "+" or member[root] is not None:
            continue
        users = consumers[root]
        top = root
        if len(users) == 1 and ops[users[0]] in ACTIVATIONS and member[users[0]] is None:
            top = users[0]
        elif len(users) == 1 and ops[users[0]] == "+":
            continue  # not the top of its sum
        tree, products, stack, bias = [], [], [root], False
        while stack:
            v = stack.pop()
            tree.append(v)
            for p in parents[v]:
                if not parents[p]:
                    bias = True
                elif len(consumers[p]) != 1:
                    continue
                elif ops[p] == "+":
                    stack.append(p)
                elif ops[p] == "*" and len(set(parents[p])) == 2:
                    products.append(p)
        if len(products) < 2 or not bias:  # a neuron adds a bias to its weighted inputs
            continue
        key = object()
        for v in tree + products + ([top] if top != root else []):
            member[v] = key
        closed[top] = True
    return _components(builder, member, closed, {})


def _disjoint_sets(n: int):
    """Union-find over 0..n-1: ``find(a)`` is the smallest member of a's set, ``join(a, b)``
    merges their sets."""
    root = list(range(n))

    def find(a: int) -> int:
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    def join(a: int, b: int):
        a, b = find(a), find(b)
        if a != b:
            root[max(a, b)] = min(a, b)

    return find, join


def _components(builder: _Builder, member: list, closed: list[bool], param_of: dict) -> list[tuple]:
    """Split each part's nodes into applications (connected pieces); keep those that take
    an input from outside. Returns [(part or None, nodes)] in the graph's order."""
    graph = builder.graph
    find, join = _disjoint_sets(len(graph))
    for v, parents in enumerate(graph.parents):
        mine = member[v]
        if mine is None:
            continue
        for p in parents:
            if member[p] is mine and not closed[p]:
                join(v, p)
    pieces: dict[int, list[int]] = {}
    for v, mine in enumerate(member):
        if mine is not None:
            pieces.setdefault(find(v), []).append(v)
    applications = []
    for nodes in pieces.values():
        part = member[nodes[0]]
        if param_of:  # a use of a part multiplies one of its parameters by something else (w * x)
            ok = any(
                graph.ops[v] == "*"
                and any(param_of.get(p) is part for p in graph.parents[v])
                and any(param_of.get(p) is not part for p in graph.parents[v])
                for v in nodes
            )
        else:  # an inferred neuron takes an input from outside
            inside = set(nodes)
            ok = any(p not in inside for v in nodes for p in graph.parents[v])
        if ok:
            applications.append((part if isinstance(part, Part) else None, nodes))
    applications.sort(key=lambda a: a[1][0])
    return applications


def _network_groups(builder: _Builder, applications: list[tuple], param_parts: dict[int, Part], nested: bool = True):
    """batch → sample k → layer → neuron (or model → layer → neuron for one sample); not
    ``nested``: each application alone (:func:`_application_groups`)."""
    if not applications:
        return
    graph = builder.graph
    app_of: list[int | None] = [None] * len(graph)
    for k, (_, nodes) in enumerate(applications):
        for v in nodes:
            app_of[v] = k
    # samples: applications that feed each other
    find, join = _disjoint_sets(len(applications))
    feeds: list[set[int]] = [set() for _ in applications]
    parents_of = graph.parents
    for k, (_, nodes) in enumerate(applications):
        fed = feeds[k]
        for v in nodes:
            for p in parents_of[v]:
                j = app_of[p]
                if j is not None and j != k and j not in fed:
                    fed.add(j)
                    join(k, j)
    samples: dict[int, list[int]] = {}
    for k in range(len(applications)):
        samples.setdefault(find(k), []).append(k)
    # an application's path of names: from its part, or its layer (depth) when inferred
    layer = [0] * len(applications)
    for k in range(len(applications)):  # applications are in topological order of their first node
        layer[k] = 1 + max((layer[j] for j in feeds[k]), default=0)
    paths: list[list[tuple[str, str]]] = []
    position: dict[tuple, int] = {}
    for k, (part, _) in enumerate(applications):
        if part is not None:
            paths.append([(p.name, p.kind) for p in part.path()[1:]])
        else:
            key = (find(k), layer[k])
            position[key] = position.get(key, 0) + 1
            paths.append([(f"layer {layer[k]}", "layer"), (f"neuron {position[key]}", "neuron")])
    batch = len(samples) > 1
    model_name = _model_name(applications)
    if not nested:
        _application_groups(builder, applications, paths, model_name, find if batch else None)
        return
    parent_top = builder.new("batch", "batch", None) if batch else builder.new(model_name, "model", None)
    made: dict[tuple, str] = {}
    for number, apps in enumerate(sorted(samples.values(), key=lambda a: a[0]), start=1):
        sample_gid = builder.new(f"sample {number}", "sample", parent_top) if batch else parent_top
        suffix = f" in sample {number}" if batch else ""
        uses: dict[tuple, int] = {}
        for k in apps:
            key = tuple(n for n, _ in paths[k])
            uses[key] = uses.get(key, 0) + 1
        used: dict[tuple, int] = {}
        for k in apps:
            names = [n for n, _ in paths[k]]
            gid = sample_gid
            for depth in range(len(paths[k])):
                key = (sample_gid, tuple(names[: depth + 1]))
                if key not in made:
                    name = _full_name(names[: depth + 1])
                    made[key] = builder.new(name + suffix, paths[k][depth][1], gid)
                gid = made[key]
            # (the model's own parameters, a part at the root: its nodes are the sample's, or the model's)
            if uses[tuple(names)] > 1:  # a part used several times in a sample: each use, apart
                used[tuple(names)] = count = used.get(tuple(names), 0) + 1
                whole = _full_name(names) or model_name
                gid = builder.new(f"output {count} of {whole}{suffix}", "neuron", gid)
            owner = builder.owner
            for v in applications[k][1]:
                owner[v] = gid
    if not param_parts:
        return
    # the parameters: in each neuron (one sample), or apart in their own tree (a batch)
    if not batch:
        by_path = {key[1]: gid for key, gid in made.items()}
        for node, part in param_parts.items():
            names = tuple(p.name for p in part.path()[1:])
            builder.owner[node] = by_path.get(names, parent_top)
        return
    top = builder.new("parameters", "parameters", None)
    param_groups: dict[tuple, str] = {}
    for node, part in sorted(param_parts.items()):
        names = [p.name for p in part.path()[1:]]
        gid = top
        for depth in range(len(names)):
            key = tuple(names[: depth + 1])
            if key not in param_groups:
                param_groups[key] = builder.new("parameters of " + _full_name(names[: depth + 1]), "parameters", gid)
            gid = param_groups[key]
        builder.owner[node] = gid


def _application_groups(builder: _Builder, applications: list[tuple], paths: list, model_name: str, sample_of):
    """Each application its own group at the top, with no layer or sample around it: for a
    model whose parts feed back into themselves (one layer applied at every step), where
    nested groups would not be convex. A part used several times: "output k of neuron 1 of cell"."""
    names = [_full_name([n for n, _ in path]) or model_name for path in paths]
    if sample_of is not None:
        numbers = {root: k for k, root in enumerate(sorted({sample_of(k) for k in range(len(paths))}), start=1)}
        names = [f"{name} in sample {numbers[sample_of(k)]}" for k, name in enumerate(names)]
    uses: dict[str, int] = {}
    for name in names:
        uses[name] = uses.get(name, 0) + 1
    used: dict[str, int] = {}
    for (_, nodes), name in zip(applications, names):
        if uses[name] > 1:
            used[name] = count = used.get(name, 0) + 1
            name = f"output {count} of {name}"
        gid = builder.new(name, "neuron", None)
        for v in nodes:
            builder.owner[v] = gid


def _shared_inputs(builder: _Builder):
    """Inferred, in a batch: an input that the same neuron uses in several samples is one of
    that neuron's parameters; they are gathered as ``parameters → of layer → of neuron``."""
    graph, owner, groups, consumers = builder.graph, builder.owner, builder.groups, builder.consumers
    if not any(g.kind == "batch" for g in groups.values()):
        return
    made: dict[str, str] = {}
    for v in range(len(graph)):
        if graph.parents[v] or owner[v] is not None:
            continue
        names = set()
        for c in consumers[v]:
            gid = owner[c]
            if gid is None or groups[gid].kind != "neuron":
                continue
            name = groups[gid].name
            names.add(name[: name.rindex(" in sample ")] if " in sample " in name else name)
        if len(names) != 1 or len({owner[c] for c in consumers[v]}) < 2:
            continue
        neuron = names.pop()
        layer = neuron.split(" of ", 1)[1] if " of " in neuron else ""
        if "" not in made:
            made[""] = builder.new("parameters", "parameters", None)
        parent = made[""]
        if layer:
            if layer not in made:
                made[layer] = builder.new(f"parameters of {layer}", "parameters", parent)
            parent = made[layer]
        if neuron not in made:
            made[neuron] = builder.new(f"parameters of {neuron}", "parameters", parent)
        owner[v] = made[neuron]


def _model_name(applications) -> str:
    part = next((p for p, _ in applications if p is not None), None)
    return part.path()[0].name if part is not None else "network"


def _sum_chains(builder: _Builder):
    """A chain of additions each used only by the next one, with MIN_SUM_TERMS terms or more."""
    graph, owner, consumers = builder.graph, builder.owner, builder.consumers
    ops, parents, data = graph.ops, graph.parents, graph.data
    next_of: dict[int, int] = {}
    for v in range(len(graph)):
        if ops[v] != "+" or owner[v] is not None:
            continue
        left = parents[v][0]
        if ops[left] == "+" and owner[left] is None and len(consumers[left]) == 1:
            next_of[left] = v
    starts = [v for v in next_of if v not in next_of.values()]
    for start in sorted(starts):
        chain = [start]
        while chain[-1] in next_of:
            chain.append(next_of[chain[-1]])
        if len(chain) + 1 < MIN_SUM_TERMS:
            continue
        # its terms: the first addition's operands, then each next one's other operand; the
        # number sum() starts from (a 0 used only here) is not one
        operands = [*parents[chain[0]], *(p for v in chain[1:] for p in parents[v] if p not in chain)]
        terms = sum(1 for p in operands if not (not parents[p] and data[p] == 0 and len(consumers[p]) == 1))
        gid = builder.new(f"sum of {terms} terms", "sum", None)
        for v in chain:
            owner[v] = gid


def _sample_terms(builder: _Builder):
    """A node made from one sample's nodes (and inputs, and loose nodes made from them) alone
    joins that sample."""
    graph, owner, groups = builder.graph, builder.owner, builder.groups
    sample_of: dict[str, str | None] = {}
    for gid in groups:
        found = gid
        while found is not None and groups[found].kind != "sample":
            found = groups[found].parent
        sample_of[gid] = found
    if not any(sample_of.values()):
        return
    loose: dict[int, frozenset] = {}  # a loose node: the samples it is made from
    empty = frozenset()
    for v, parents in enumerate(graph.parents):
        if not parents or owner[v] is not None:
            continue
        samples = set()
        for p in parents:
            if owner[p] is not None:
                samples.add(sample_of[owner[p]])
            else:
                samples.update(loose.get(p, empty))
        if len(samples) == 1 and None not in samples:
            owner[v] = samples.pop()
        else:
            loose[v] = frozenset(samples)


def _single_use(builder: _Builder):
    """A loose node used only by a node of a group, and made only from inputs and that
    group's nodes, joins it (a sum's terms ``p * p``)."""
    graph, owner, consumers = builder.graph, builder.owner, builder.consumers
    for v in range(len(graph) - 1, -1, -1):
        if owner[v] is not None or not graph.parents[v] or len(set(consumers[v])) != 1:
            continue
        gid = owner[consumers[v][0]]
        if gid is not None and all(not graph.parents[p] or owner[p] == gid for p in graph.parents[v]):
            owner[v] = gid


def _inputs(builder: _Builder):
    """A loose input joins the innermost group that holds every node using it."""
    graph, owner, groups, consumers = builder.graph, builder.owner, builder.groups, builder.consumers
    for v in range(len(graph)):
        if graph.parents[v] or owner[v] is not None or not consumers[v]:
            continue
        common = None
        for c in consumers[v]:
            path = []
            gid = owner[c]
            while gid is not None:
                path.append(gid)
                gid = groups[gid].parent
            path.reverse()
            if common is None:
                common = path
            else:
                n = 0
                while n < len(common) and n < len(path) and common[n] == path[n]:
                    n += 1
                common = common[:n]
            if not common:
                break
        if common:
            owner[v] = common[-1]


def _program_groups(builder: _Builder, parts: list[tuple[str, list[int]]], kinds: dict[str, str]):
    """A program's ``with group(...)`` blocks, outermost first: each the nodes it made (of
    kind "part", or as ``kinds`` names it: "tensor" for a tensor's line)."""
    made: list[tuple[str, set[int]]] = []
    for name, nodes in parts:
        inside = set(nodes)
        parent = None
        for gid, outer in reversed(made):  # the innermost block made so far that holds it
            if inside <= outer:
                parent = gid
                break
        gid = builder.new(name, kinds.get(name, "part"), parent)
        made.append((gid, inside))
        for v in nodes:
            builder.owner[v] = gid


def _drop_empty(groups: dict[str, Group], owner: list[str | None]):
    """Groups left with no node at all (a part whose parameters the graph doesn't use)."""
    holding = set()
    for gid in owner:
        while gid is not None and gid not in holding:
            holding.add(gid)
            gid = groups[gid].parent
    for gid in [g for g in groups if g not in holding]:
        group = groups.pop(gid)
        if group.parent is not None and group.parent in groups:
            groups[group.parent].children.remove(gid)


__all__ = ["Group", "Groups", "GroupError", "NotConvex", "Part", "find_groups", "model_parts"]
