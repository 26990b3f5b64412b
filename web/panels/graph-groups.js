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
  const w = L.node_width / 2;
  const h = L.node_height / 2;
  // A group's units need not sit together in the engine's layered layout, so a frame is
  // the union of its units' boxes, each grown by the frame's padding (a tint, not an
  // outline around other units); its name's tab sits above its first unit at the top.
  let frames = open.filter((g) => members.get(g.id).length).map((g) => {
    const k = depth.get(g.id) ?? 0;
    const side = SIDE + NESTED * k;
    const at = members.get(g.id).map((i) => L.nodes[i]);
    const anchor = at.reduce((a, p) => (p.y < a.y || (p.y === a.y && p.x < a.x) ? p : a));
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
