// The graph's geometry: the layout's layers spread so edge labels fit, smooth edge
// paths through the layout's waypoints, and an edge's midpoint for its label.

// A smooth path through the points: leaves and enters along the layers' axis (edges
// run from a parent's right side to a child's left side, or, laid out "down", from its
// bottom to the child's top) and passes through every bend point with Catmull-Rom
// tangents.
export function smoothPath(points, direction = "across") {
  const down = direction === "down";
  // Worked out as if across: a down layout's points are mirrored over the diagonal.
  const p = points.map(([x, y]) => (down ? { x: y, y: x } : { x, y }));
  if (p.length < 2) return "";
  const at = (x, y) => (down ? `${r(y)},${r(x)}` : `${r(x)},${r(y)}`);
  const tangent = (i) => {
    if (i === 0 || i === p.length - 1) {
      const span = p.length === 2 ? p[1].x - p[0].x : i === 0 ? p[1].x - p[0].x : p[i].x - p[i - 1].x;
      return { x: Math.max(Math.abs(span), 24), y: 0 };
    }
    return { x: (p[i + 1].x - p[i - 1].x) / 2, y: (p[i + 1].y - p[i - 1].y) / 2 };
  };
  let d = `M${at(p[0].x, p[0].y)}`;
  for (let i = 0; i < p.length - 1; i++) {
    const t0 = tangent(i);
    const t1 = tangent(i + 1);
    d += ` C${at(p[i].x + t0.x / 3, p[i].y + t0.y / 3)}`
      + ` ${at(p[i + 1].x - t1.x / 3, p[i + 1].y - t1.y / 3)}`
      + ` ${at(p[i + 1].x, p[i + 1].y)}`;
  }
  return d;
}

export function r(x) {
  return Math.round(x * 10) / 10;
}

// The engine's layout with the space between layers widened to at least `gap`
// (nodes keep their size; every x coordinate is mapped piecewise-linearly).
export function widenGaps(layout, gap) {
  if (layout.direction === "down") return layout; // its rows are already far enough apart
  const w = layout.node_width;
  const columns = [...new Set(layout.nodes.map((n) => n.x))].sort((a, b) => a - b);
  if (columns.length < 2) return layout;
  const current = Math.min(...columns.slice(1).map((x, i) => x - columns[i] - w));
  if (!(current < gap)) return layout;
  const extra = gap - current;
  // Breakpoints: each column's left and right side, before and after.
  const from = [];
  const to = [];
  columns.forEach((c, k) => {
    from.push(c - w / 2, c + w / 2);
    to.push(c - w / 2 + k * extra, c + w / 2 + k * extra);
  });
  const map = (x) => {
    if (x <= from[0]) return x;
    for (let i = 1; i < from.length; i++) {
      if (x <= from[i]) {
        const span = from[i] - from[i - 1];
        const t = span > 0 ? (x - from[i - 1]) / span : 0;
        return to[i - 1] + t * (to[i] - to[i - 1]);
      }
    }
    return x + (columns.length - 1) * extra;
  };
  return {
    ...layout,
    width: layout.width + (columns.length - 1) * extra,
    nodes: layout.nodes.map((n) => ({ x: map(n.x), y: n.y })),
    edges: layout.edges.map((e) => ({ points: e.points.map(([x, y]) => [map(x), y]) })),
  };
}

// The point half-way along the polyline through the layout's points (the smooth
// path passes through every one of them, so this lies on or next to the curve).
export function midpoint(points) {
  if (points.length === 0) return { x: 0, y: 0 };
  const lengths = [];
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const len = Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]);
    lengths.push(len);
    total += len;
  }
  if (total > 0) {
    let left = total / 2;
    for (let i = 0; i < lengths.length; i++) {
      if (left <= lengths[i] && lengths[i] > 0) {
        const t = left / lengths[i];
        return {
          x: points[i][0] + t * (points[i + 1][0] - points[i][0]),
          y: points[i][1] + t * (points[i + 1][1] - points[i][1]),
        };
      }
      left -= lengths[i];
    }
  }
  const a = points[Math.floor((points.length - 1) / 2)];
  const b = points[Math.ceil((points.length - 1) / 2)];
  return { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 };
}

// The point a fraction t (0 to 1) of the way along the polyline through the points.
export function pointAlong(points, t) {
  if (points.length < 2) return points.length ? { x: points[0][0], y: points[0][1] } : { x: 0, y: 0 };
  const lengths = points.slice(1).map((p, i) => Math.hypot(p[0] - points[i][0], p[1] - points[i][1]));
  let left = lengths.reduce((a, b) => a + b, 0) * Math.min(1, Math.max(0, t));
  for (let i = 0; i < lengths.length; i++) {
    if (left <= lengths[i] && lengths[i] > 0) {
      const k = left / lengths[i];
      const [a, b] = [points[i], points[i + 1]];
      return { x: a[0] + k * (b[0] - a[0]), y: a[1] + k * (b[1] - a[1]) };
    }
    left -= lengths[i];
  }
  const last = points[points.length - 1];
  return { x: last[0], y: last[1] };
}

// How much two boxes {x, y, w, h} (x, y their top left) cover each other: the area they share.
export function shared(a, b) {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}
