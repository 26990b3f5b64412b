// Labels placed, not dropped (DESIGN.md, "Nothing covers anything"): after every update the
// graph's tags (over or beside a node) and edge labels are given places where they cover no
// node, no note, no open group's name and no other tag or label.
//
// Tags go first, each to the first of above, below, right or left of its node that is free,
// and never across an edge that carries a label now (so a visited node's tag moves off the
// side its pushes leave by). Then each edge label slides along its own edge, from the middle
// outwards, sitting on the line or just beside it (touching it, or tied to it by a short
// leader line); where none of those is free, it is shortened to its result ("= 6": the
// number the step is about stays) and tried again; as a last resort it takes the place that
// covers least. Everything is in layout units and worked out from the layout, the measured
// widths of the texts and the edges' paths: no layout is asked of the page.

import { pointAlong, r, shared } from "./graph-geometry.js";

const TAG_H = 17;
const TAG_GAP = 1; // px between a tag and its node
// Fractions along the edge, from its middle outwards.
const ALONG = [0.5, 0.44, 0.56, 0.38, 0.62, 0.32, 0.68, 0.26, 0.74, 0.2, 0.8, 0.14, 0.86, 0.08, 0.92];
// × the label's half-size across its edge (0: on the line, 1: touching it, more: a leader line)
const BESIDE = [0, 1, -1, 1.8, -1.8, 2.7, -2.7, 3.6, -3.6, 4.5, -4.5, 5.4, -5.4];
const TAB_H = 20;

/**
 * @param {any} view the GraphView (graph.js): its layout, nodes, edges and labels
 * @param {(text: string) => number} tabWidth an open group's name tab's width
 */
export function placeLabels(view, tabWidth) {
  const L = view.layout;
  const w = L.node_width;
  const h = L.node_height;
  // The graph's box may be wider than the graph (a phone, a narrow graph centred): a label
  // may use that room beside it (the SVG lets what is drawn there show).
  const box = view.viewport?.box;
  const scale = view.viewport?.scale || 1;
  const spare = box?.width ? Math.max(0, Math.min(120, (box.width / scale - L.width) / 2 - 4)) : 0;
  const bounds = { x: -spare, y: 0, w: L.width + 2 * spare, h: L.height };
  const boxOf = (i) => ({ x: L.nodes[i].x - w / 2, y: L.nodes[i].y - h / 2, w, h });
  const labelled = view.edges.filter((e) => e.label?.shown);
  const tagged = view.nodes.flatMap((n, i) => (n.parts && n.tag && n.tag.g.style.display !== "none" ? [i] : []));
  if (!labelled.length && !tagged.length) return;
  // Only what is near them matters (a big graph has thousands of nodes far away).
  const near = around([
    ...labelled.flatMap((e) => e.points.map(([x, y]) => ({ x, y, w: 0, h: 0 }))),
    ...tagged.map(boxOf),
  ], 2 * (w + h));
  const fixed = []; // nodes, notes and open groups' names: they do not move
  view.nodes.forEach((n, i) => {
    const b = boxOf(i);
    if (!n.parts || !shared(b, near)) return;
    fixed.push(b);
    if (n.note && n.note.g.style.display !== "none" && n.note.w) {
      fixed.push({ x: b.x + w / 2 - n.note.w / 2, y: b.y + n.note.y - TAG_H / 2, w: n.note.w, h: TAG_H });
    }
  });
  for (const f of L.frames ?? []) fixed.push({ x: f.x + 2, y: f.y + 2, w: tabWidth(f.name), h: TAB_H });

  // Where the edges with a label run (a tag keeps off them): a few points along each.
  const lines = labelled.flatMap((e) => [0.04, 0.12, 0.5, 0.88, 0.96].map((t) => {
    const p = along(e, t);
    return { x: p.x - 3, y: p.y - 3, w: 6, h: 6 };
  }));
  const placed = [];
  const hits = (b, list) => list.some((o) => shared(b, o) > 0);
  const free = (b) => inside(b, bounds) && !hits(b, fixed) && !hits(b, placed);
  const cost = (b) => fixed.reduce((sum, o) => sum + shared(b, o), 0) + placed.reduce((sum, o) => sum + shared(b, o), 0)
    + outside(b, bounds) * 4;

  for (const i of tagged) {
    const tag = view.nodes[i].tag;
    const b = boxOf(i);
    const tw = tag.w;
    const spots = [
      [b.x + w / 2, b.y - TAG_GAP - TAG_H / 2], // above
      [b.x + w / 2, b.y + h + TAG_GAP + TAG_H / 2], // below
      [b.x + w + TAG_GAP + tw / 2, b.y + TAG_H / 2 + 2], // right, at its head
      [b.x - TAG_GAP - tw / 2, b.y + TAG_H / 2 + 2], // left
    ].map(([cx, cy]) => ({ x: cx - tw / 2, y: cy - TAG_H / 2, w: tw, h: TAG_H }));
    const best = spots.find((s) => free(s) && !hits(s, lines)) ?? spots.find(free)
      ?? spots.reduce((a, s) => (cost(s) < cost(a) ? s : a));
    placed.push(best);
    tag.g.setAttribute("transform", `translate(${r(best.x + tw / 2 - b.x)},${r(best.y + TAG_H / 2 - b.y)})`);
  }

  // Each label in turn, whole if it finds room, else shortened; if one finds none either
  // way, every label is placed again shortened first, and the way that left fewer without
  // room is kept.
  const tags = placed.length;
  const pass = (shortFirst) => {
    placed.length = tags;
    const choices = [];
    let stuck = 0;
    for (const e of labelled) {
      const label = e.label;
      const tries = !label.short ? [label.full] : shortFirst ? [label.short, label.full] : [label.full, label.short];
      let choice = null;
      for (const lines of tries) {
        label.set(lines);
        choice = spot(e, label, free);
        if (choice) break;
      }
      if (!choice) { // no room on or beside the edge: the nearest free room, tied to it by a leader
        let near = null;
        for (const avoided of [fixed, []]) { // a leader that crosses no node, else one that may
          for (const lines of tries) {
            label.set(lines);
            const found = nearby(e, label, free, avoided);
            if (found && (!near || found.d < near.choice.d)) near = { choice: found, lines };
          }
          if (near) break;
        }
        if (near) {
          label.set(near.lines);
          choice = near.choice;
        }
      }
      if (!choice) {
        stuck += 1;
        label.set(label.short ?? label.full);
        choice = spot(e, label, () => true, cost);
      }
      placed.push(choice.box);
      choices.push([label, choice, label.written]);
    }
    return { stuck, choices };
  };
  let done = pass(false);
  if (done.stuck) {
    const again = pass(true);
    if (again.stuck <= done.stuck) done = again;
  }
  for (const [label, choice, written] of done.choices) {
    label.set(written.split("\n"));
    // Where it is: a pulse bringing this push flies there (graph-pulse.js).
    label.at = { t: choice.t, x: choice.box.x + label.w / 2, y: choice.box.y + label.h / 2 };
    label.g.setAttribute("transform", `translate(${r(label.at.x)},${r(label.at.y)})`);
    const leader = choice.leader;
    label.leader.style.display = leader ? "" : "none";
    if (leader) {
      const cx = choice.box.x + label.w / 2;
      const cy = choice.box.y + label.h / 2;
      Object.entries({ x1: r(leader.x - cx), y1: r(leader.y - cy), x2: 0, y2: 0 })
        .forEach(([k, v]) => label.leader.setAttribute(k, String(v)));
    }
  }
}

// The first free place for a label along its edge, or (given a cost) the cheapest: {box, leader}.
function spot(e, label, free, cost = null) {
  let best = null;
  for (const t of ALONG) {
    const p = along(e, t);
    const q = along(e, Math.min(1, t + 0.02));
    const o = along(e, Math.max(0, t - 0.02));
    const len = Math.hypot(q.x - o.x, q.y - o.y) || 1;
    const nx = -(q.y - o.y) / len;
    const ny = (q.x - o.x) / len;
    const half = Math.abs(nx) * (label.w / 2) + Math.abs(ny) * (label.h / 2) + 1; // reach across the edge
    for (const k of BESIDE) {
      const cx = p.x + nx * half * k;
      const cy = p.y + ny * half * k;
      const box = { x: cx - label.w / 2, y: cy - label.h / 2, w: label.w, h: label.h };
      const leader = Math.abs(k) > 1 ? p : null;
      if (!cost) {
        if (free(box)) return { box, leader, t };
        continue;
      }
      const c = cost(box) + Math.abs(k) + Math.abs(t - 0.5);
      if (!best || c < best.c) best = { box, leader, t, c };
    }
  }
  return best;
}

// Off the edge: the free place nearest to its middle third, in rings growing outwards, the
// label's centre tied to the edge's nearest of those points by a leader that crosses no node
// (nor note, nor group name: `fixed`): {box, leader, t, d}.
const RING_STEP = 10; // px between rings
const RINGS = 16;
const RING_POINTS = 16;
function nearby(e, label, free, fixed) {
  const anchors = [0.5, 0.35, 0.65].map((t) => ({ t, ...along(e, t) }));
  for (let ring = 1; ring <= RINGS; ring += 1) {
    const radius = ring * RING_STEP + Math.max(label.w, label.h) / 2;
    let best = null;
    for (const a of anchors) {
      for (let k = 0; k < RING_POINTS; k += 1) {
        const angle = (2 * Math.PI * k) / RING_POINTS;
        const cx = a.x + Math.cos(angle) * radius;
        const cy = a.y + Math.sin(angle) * radius * 0.6; // rather beside than above or below
        const box = { x: cx - label.w / 2, y: cy - label.h / 2, w: label.w, h: label.h };
        if (!free(box) || leaderCrosses(a, { x: cx, y: cy }, box, fixed)) continue;
        const d = Math.hypot(cx - a.x, cy - a.y);
        if (!best || d < best.d) best = { box, leader: { x: a.x, y: a.y }, t: a.t, d };
      }
    }
    if (best) return best;
  }
  return null;
}

// Whether the leader from `a` (on the edge) to the label's centre `c` runs through one of
// `boxes` on its way to the label's own box (points every few px along it).
function leaderCrosses(a, c, label, boxes) {
  const steps = Math.max(2, Math.ceil(Math.hypot(c.x - a.x, c.y - a.y) / 4));
  for (let k = 1; k < steps; k += 1) {
    const p = { x: a.x + ((c.x - a.x) * k) / steps, y: a.y + ((c.y - a.y) * k) / steps, w: 0, h: 0 };
    if (within(p, label)) return false; // the rest is under the label
    if (boxes.some((b) => within(p, b))) return true;
  }
  return false;
}

function within(p, b) {
  return p.x > b.x && p.x < b.x + b.w && p.y > b.y && p.y < b.y + b.h;
}

// A point a fraction t along an edge: on its drawn curve if it is drawn, else on its polyline.
function along(e, t) {
  if (e.line) {
    e.length ??= e.line.getTotalLength();
    if (e.length > 0) {
      const p = e.line.getPointAtLength(e.length * t);
      return { x: p.x, y: p.y };
    }
  }
  return pointAlong(e.points, t);
}

// The box around some boxes, grown by `margin` on every side.
function around(boxes, margin) {
  const x = Math.min(...boxes.map((b) => b.x)) - margin;
  const y = Math.min(...boxes.map((b) => b.y)) - margin;
  const right = Math.max(...boxes.map((b) => b.x + b.w)) + margin;
  const bottom = Math.max(...boxes.map((b) => b.y + b.h)) + margin;
  return { x, y, w: right - x, h: bottom - y };
}

function inside(b, bounds) {
  return b.x >= bounds.x - 0.5 && b.y >= bounds.y - 0.5 && b.x + b.w <= bounds.x + bounds.w + 0.5
    && b.y + b.h <= bounds.y + bounds.h + 0.5;
}

function outside(b, bounds) {
  return b.w * b.h - shared(b, bounds);
}
