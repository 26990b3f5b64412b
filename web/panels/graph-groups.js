// The open groups of a grouped graph (grouped.js), as frames around their units. The
// engine lays out only the units (a collapsed group is one box like a node); here each
// open group gets a tinted area under its units with room for its name at the top, an
// outer group's around its inner ones, and the layout is moved and grown so that every
// frame stays inside it. A layout with no open group is returned as it is.

const SIDE = 8; // px between a frame and the units inside it, per side
const NESTED = 10; // more per open group nested inside
const HEAD = 22; // the band at a frame's top that holds its name
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
  const w = L.node_width / 2;
  const h = L.node_height / 2;
  // A group's units need not sit together in the engine's layered layout, so a frame is
  // the union of its units' boxes, each grown by the frame's padding (a tint, not an
  // outline around other units); its name's tab sits above its first unit at the top.
  let frames = open.filter((g) => members.get(g.id).length).map((g) => {
    const k = depth.get(g.id) ?? 0;
    const side = SIDE + NESTED * k;
    const at = members.get(g.id).map((i) => L.nodes[i]);
    const anchor = L.nodes[anchorOf(L, members.get(g.id))];
    const rects = at.map((p) => {
      const top = p === anchor ? HEAD * (k + 1) + SIDE : side;
      return { x: p.x - w - side, y: p.y - h - top, width: 2 * (w + side), height: 2 * h + top + side };
    });
    const tab = rects[at.indexOf(anchor)];
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
