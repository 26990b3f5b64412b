// The open groups of a grouped graph (grouped.js), as frames around their units. The
// engine lays out only the units (a collapsed group is one box like a node); here each
// open group gets a tinted area under its units with room for its name at the top, an
// outer group's around its inner ones, and the layout is moved and grown so that every
// frame stays inside it. A layout with no open group is returned as it is.

const SIDE = 8; // px between a frame and the units inside it, per side
const NESTED = 10; // more per open group nested inside
const HEAD = 40; // the band at a frame's top that holds its name, and under it a tag over the unit below
const MARGIN = 4; // px between the outermost frame and the layout's edge

/**
 * @param {any} L a layout (docs/api.md), its nodes one per unit
 * @param {any} answer a grouped answer read by grouped.js (answer.boxes, answer.nodes[i].box/.group)
 */
export function withFrames(L, answer) {
  const open = [...(answer.boxes?.values() ?? [])].filter((g) => g.open);
  if (!open.length) return L;
  const boxes = answer.boxes;
  const around = (i) => { // the open groups around unit i, innermost first
    const n = answer.nodes[i];
    const out = [];
    for (let id = n.box ? n.box.parent : n.group; id; id = boxes.get(id)?.parent ?? null) out.push(id);
    return out;
  };
  const depth = new Map(); // group id → how many open groups nest inside it
  const members = new Map(open.map((g) => [g.id, []]));
  answer.nodes.forEach((_, i) => {
    around(i).forEach((id, k) => {
      members.get(id)?.push(i);
      depth.set(id, Math.max(depth.get(id) ?? 0, k));
    });
  });
  L = withBands(L, answer, open.map((g) => members.get(g.id)).filter((m) => m.length), (g) => depth.get(g) ?? 0, open);
  const across = L.direction !== "down";
  const along = (p) => (across ? p.x : p.y);
  const within = (p) => (across ? p.y : p.x);
  const halfAlong = (across ? L.node_width : L.node_height) / 2;
  const halfWithin = (across ? L.node_height : L.node_width) / 2;
  const layerAt = [...new Set(L.nodes.map(along))].sort((a, b) => a - b); // each layer's place
  // The engine keeps an open group's units next to each other within every layer, so a frame
  // is one slice per layer the group has units in, from its first unit to its last, each slice
  // reaching halfway across the gap towards the group's slice in the layer beside it: one
  // tinted area (the rects are drawn as one) that covers no unit outside the group. Its name's
  // tab sits above its first unit at the top.
  let frames = open.filter((g) => members.get(g.id).length).map((g) => {
    const k = depth.get(g.id) ?? 0;
    const side = SIDE + NESTED * k;
    const units = members.get(g.id);
    const anchor = L.nodes[anchorOf(L, units)];
    const slices = new Map(); // layer index → [first, last] within the layer
    for (const i of units) {
      const p = L.nodes[i];
      const layer = layerAt.indexOf(along(p));
      const [lo, hi] = slices.get(layer) ?? [Infinity, -Infinity];
      slices.set(layer, [Math.min(lo, within(p)), Math.max(hi, within(p))]);
    }
    const rects = [...slices].map(([layer, [lo, hi]]) => {
      const at = layerAt[layer];
      const reach = (next) => (slices.has(next) ? Math.abs(layerAt[next] - at) / 2 + 1 : halfAlong + side);
      const start = at - reach(layer - 1);
      const end = at + reach(layer + 1);
      let low = lo - halfWithin - side;
      let high = hi + halfWithin + side;
      let first = start;
      const head = HEAD * (k + 1) + SIDE - side; // more room above the unit the name sits on
      if (at === along(anchor)) {
        if (across) low = Math.min(low, anchor.y - halfWithin - side - head);
        else first = Math.min(first, anchor.y - halfAlong - side - head);
      }
      return across
        ? { x: start, y: low, width: end - start, height: high - low }
        : { x: low, y: first, width: high - low, height: end - first };
    });
    const tab = across
      ? { x: anchor.x - halfAlong - side, y: anchor.y - halfWithin - side - HEAD * (k + 1) - SIDE + side }
      : { x: anchor.x - halfWithin - side, y: anchor.y - halfAlong - side - HEAD * (k + 1) - SIDE + side };
    return { group: g.id, name: g.name, depth: k, rects, x: tab.x, y: tab.y };
  });
  const all = frames.flatMap((f) => f.rects);
  const dx = Math.max(0, MARGIN - Math.min(...all.map((f) => f.x)));
  const dy = Math.max(0, MARGIN - Math.min(...all.map((f) => f.y)));
  const moved = (f) => ({ ...f, x: f.x + dx, y: f.y + dy });
  frames = frames.map((f) => ({ ...moved(f), rects: f.rects.map(moved) }));
  const width = Math.max(L.width + dx, ...all.map((f) => f.x + dx + f.width + MARGIN));
  const height = Math.max(L.height + dy, ...all.map((f) => f.y + dy + f.height + MARGIN));
  return {
    ...L, width, height, frames,
    nodes: L.nodes.map((p) => ({ ...p, x: p.x + dx, y: p.y + dy })),
    edges: L.edges.map((e) => ({ ...e, points: e.points.map(([x, y]) => [x + dx, y + dy]) })),
  };
}

// The topmost (then leftmost) of some units: where a frame's name goes.
function anchorOf(L, units) {
  return units.reduce((a, i) => {
    const p = L.nodes[i];
    const q = L.nodes[a];
    return p.y < q.y || (p.y === q.y && p.x < q.x) ? i : a;
  });
}

// Room for the frames' names: every unit at or below a frame's first unit moves down by
// the band its name takes (the engine's layout leaves no room for it), and each edge's
// points with its ends (its bends in between, in proportion).
function withBands(L, answer, memberLists, depthOf, open) {
  const bands = new Map(); // a first unit's y → the band it needs above it
  memberLists.forEach((units, k) => {
    const y = L.nodes[anchorOf(L, units)].y;
    bands.set(y, Math.max(bands.get(y) ?? 0, HEAD * (depthOf(open[k].id) + 1)));
  });
  const shift = (y) => [...bands].reduce((sum, [at, band]) => sum + (y >= at ? band : 0), 0);
  const moves = L.nodes.map((p) => shift(p.y));
  const total = Math.max(0, ...moves);
  return {
    ...L, height: L.height + total,
    nodes: L.nodes.map((p, i) => ({ ...p, y: p.y + moves[i] })),
    edges: L.edges.map((e, k) => {
      const from = moves[answer.edges[k].parent];
      const to = moves[answer.edges[k].child];
      const last = Math.max(1, e.points.length - 1);
      return { ...e, points: e.points.map(([x, y], j) => [x, y + from + ((to - from) * j) / last]) };
    }),
  };
}
