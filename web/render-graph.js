// The computation graph as SVG, drawn from the engine's layout.
//
//   const graph = new GraphView(svgElement);
//   graph.build(answer);      // once per graph: nodes, edges, arrowheads, label slots
//   graph.update(view, marks) // every step: numbers, highlights, edge labels
//
// Each node is <g data-node data-data data-grad role="img" aria-label> (the DOM
// contract in DESIGN.md); data-* hold exact values (format.exact), the text on
// screen is compact (format.fmt).
//
// A big graph (a typed program of hundreds of nodes) is far wider than the screen,
// and laying out thousands of SVG texts at once would freeze the page for a second.
// So every node's group (with its data-* and aria-label) and every edge's group
// are made at once, but what is drawn inside them (boxes, texts, paths) is made
// only for the part of the graph in view, with a margin, and for more as the
// learner scrolls (or the graph's box grows). What is never seen is never drawn,
// so a big graph replaced by the next edit has little to take down. Up to
// BIG_GRAPH nodes (slices.js), everything is drawn at once.

import { exact, fmt, opSymbol } from "./format.js";
import { BIG_GRAPH, keepInPlace } from "./slices.js";

const SVG = "http://www.w3.org/2000/svg";
const MARKERS = ["plain", "active", "late"];
const MIN_GAP = 100; // px between layers, so that an edge label fits between two nodes
const MIN_SCALE = 0.7; // below this the graph scrolls instead of shrinking
const MAX_SCALE = 1.3;
const LINE_HEIGHT = 14;
const WINDOW_MARGIN = 200; // layout px either side of the visible part, drawn with it

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  setAttrs(node, attrs);
  if (parent) parent.appendChild(node);
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
}

// Make `parent`'s children exactly `children`, keeping those already in place
// (reused groups, in the same order) where they are.
function showExactly(parent, children) {
  parent.append(...children.slice(keepInPlace(parent, children)));
}

// A smooth path through the points: leaves and enters horizontally (edges run
// from a parent's right side to a child's left side) and passes through every
// bend point with Catmull-Rom tangents.
export function smoothPath(points) {
  const p = points.map(([x, y]) => ({ x, y }));
  if (p.length < 2) return "";
  const tangent = (i) => {
    if (i === 0 || i === p.length - 1) {
      const span = p.length === 2 ? p[1].x - p[0].x : i === 0 ? p[1].x - p[0].x : p[i].x - p[i - 1].x;
      return { x: Math.max(Math.abs(span), 24), y: 0 };
    }
    return { x: (p[i + 1].x - p[i - 1].x) / 2, y: (p[i + 1].y - p[i - 1].y) / 2 };
  };
  let d = `M${r(p[0].x)},${r(p[0].y)}`;
  for (let i = 0; i < p.length - 1; i++) {
    const t0 = tangent(i);
    const t1 = tangent(i + 1);
    d += ` C${r(p[i].x + t0.x / 3)},${r(p[i].y + t0.y / 3)} ${r(p[i + 1].x - t1.x / 3)},${r(p[i + 1].y - t1.y / 3)} ${r(p[i + 1].x)},${r(p[i + 1].y)}`;
  }
  return d;
}

function r(x) {
  return Math.round(x * 10) / 10;
}

export function nodeAriaLabel(node, data, grad) {
  const value = (x) => (x === null || x === undefined ? "not computed yet" : fmt(x));
  const how = node.is_input ? "an input" : `computed as ${node.expr}`;
  return `${node.label}: data ${value(data)}, grad ${value(grad)} (${how})`;
}

export class GraphView {
  constructor(svg) {
    this.svg = svg;
    this.scroller = svg.parentElement;
    // What is not drawn yet: {nodes: [index...], edges: [index...], frame: the
    // pending animation frame that draws what came into view}, or null.
    this.pending = null;
    this.inputTip = ""; // added to every input's tooltip (the page says how to change it)
    this.scroller?.addEventListener("scroll", () => this.drawInViewSoon(), { passive: true });
    if (this.scroller && typeof ResizeObserver === "function") {
      this.observer = new ResizeObserver(() => this.drawInViewSoon());
      this.observer.observe(this.scroller);
    }
  }

  // The widget is going away: stop watching its size and drop any pending drawing.
  destroy() {
    this.observer?.disconnect();
    if (this.pending?.frame) cancelAnimationFrame(this.pending.frame);
    this.pending = null;
    const m = metricsOf.get(this.scroller);
    m?.observer?.disconnect();
    if (m?.frame) cancelAnimationFrame(m.frame);
  }

  build(answer) {
    const svg = this.svg;
    const L = widenGaps(answer.layout, MIN_GAP);
    // Where the scroller stands (for a big graph), read before anything changes, so
    // that reading it forces no layout.
    const view = answer.nodes.length > BIG_GRAPH ? this.visibleRange(L) : null;
    this.layout = L;
    this.answer = answer;
    this.stopDrawing();
    svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
    svg.setAttribute("width", L.width);
    svg.setAttribute("height", L.height);
    // Scale with the container, but not below a legible size: past that, scroll.
    svg.style.minWidth = `${Math.round(L.width * MIN_SCALE)}px`;
    svg.style.maxWidth = `${Math.round(L.width * MAX_SCALE)}px`;
    this.makeLayers();

    // The groups (and what is drawn in them) of the graph before are reused, the
    // i-th node's for the i-th node: a new graph of about the same size then
    // changes attributes and texts instead of taking thousands of elements down
    // and making thousands more. Everything a group showed is reset here or by
    // the first update(). A reused group drawn for the old graph but far from
    // view in the new one is emptied (edit after edit, drawings would pile up).
    const far = (item) => view && (item.hi < view.lo || item.lo > view.hi);
    this.edges = answer.edges.map((edge, i) => {
      const e = (this.edgePool[i] ??= { g: el("g"), line: null, halo: null });
      setAttrs(e.g, {
        class: "edge", "data-edge": edge.id,
        "data-from": answer.nodes[edge.parent].label, "data-to": answer.nodes[edge.child].label,
      });
      const points = L.edges[i].points;
      const xs = points.map(([x]) => x);
      // The label on the edge (a push's numbers, "⚠ late") is made the first
      // time it is shown: most edges of a big graph never need one.
      Object.assign(e, { edge, points, lo: Math.min(...xs), hi: Math.max(...xs), marker: "plain", label: null, last: {} });
      if (e.line && far(e)) undrawEdge(e);
      if (e.line) shapeEdge(e);
      return e;
    });

    const w = L.node_width;
    const h = L.node_height;
    this.nodes = answer.nodes.map((node, i) => {
      const { x, y } = L.nodes[i];
      const n = (this.nodePool[i] ??= { g: el("g"), parts: null, tag: null, note: null });
      setAttrs(n.g, {
        class: `node${node.is_input ? " is-input" : ""}${node.is_output ? " is-output" : ""}`,
        "data-node": node.label, "data-data": "", "data-grad": "", role: "img",
        transform: `translate(${r(x - w / 2)},${r(y - h / 2)})`,
      });
      n.g.removeAttribute("aria-label"); // update() writes the new one
      const resized = n.width !== w || n.height !== h;
      Object.assign(n, { node, lo: x - w / 2, hi: x + w / 2, width: w, height: h, last: {},
        tipEnd: node.is_input ? this.inputTip : "" });
      if (n.parts && (resized || far(n))) undrawNode(n);
      if (n.parts) labelNode(n);
      return n;
    });
    showExactly(this.edgeLayer, this.edges.map((e) => e.g));
    showExactly(this.nodeLayer, this.nodes.map((n) => n.g));
    this.labelLayer.replaceChildren(); // the few labels the old graph showed

    if (this.nodes.length <= BIG_GRAPH || !view) {
      this.nodes.forEach((n) => drawNode(n));
      this.edges.forEach((e) => drawEdge(e));
      return;
    }
    // What is in view now; the rest when it comes into view.
    const undrawn = (items, drawn) => items.flatMap((item, i) => (drawn(item) ? [] : [i]));
    this.pending = { nodes: undrawn(this.nodes, (n) => n.parts), edges: undrawn(this.edges, (e) => e.line), frame: null };
    this.drawRange(view.lo, view.hi);
  }

  // The arrowheads and the layers for edges, nodes and edge labels, made once.
  makeLayers() {
    if (this.nodeLayer) return;
    const svg = this.svg;
    svg.replaceChildren();
    const defs = el("defs", {}, svg);
    for (const kind of MARKERS) {
      const m = el("marker", {
        id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9.5, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse", markerUnits: "userSpaceOnUse",
      }, defs);
      el("path", { d: "M0,0.5 L10,5 L0,9.5 z", class: `arrowhead arrowhead-${kind}` }, m);
    }
    this.edgeLayer = el("g", { class: "edges", "aria-hidden": "true" }, svg);
    this.nodeLayer = el("g", { class: "nodes" }, svg);
    this.labelLayer = el("g", { class: "edge-labels", "aria-hidden": "true" }, svg);
    this.nodePool = [];
    this.edgePool = [];
  }

  // The part of the graph (layout x, with a margin) the scroller shows, from what
  // scrollMetrics last measured or, before that, from the scroller itself.
  visibleRange(L) {
    if (!this.scroller) return null;
    const m = metricsOf.get(this.scroller);
    const width = m?.clientWidth || this.scroller.clientWidth;
    const left = m ? m.left : this.scroller.scrollLeft;
    if (!width) return null;
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, width / L.width));
    return { lo: left / scale - WINDOW_MARGIN, hi: (left + width) / scale + WINDOW_MARGIN };
  }

  // Draw every node and edge still waiting that overlaps [lo, hi] (layout x).
  drawRange(lo, hi) {
    const p = this.pending;
    if (!p) return;
    const near = (item) => item.hi >= lo && item.lo <= hi;
    const drawNear = (indices, items, draw) => indices.filter((i) => {
      if (!near(items[i])) return true; // still waiting
      draw(items[i]);
      return false;
    });
    p.nodes = drawNear(p.nodes, this.nodes, drawNode);
    p.edges = drawNear(p.edges, this.edges, drawEdge);
    this.finishIfDone();
  }

  drawInViewSoon() {
    if (!this.pending || this.pending.frame) return;
    this.pending.frame = requestAnimationFrame(() => {
      if (!this.pending) return;
      this.pending.frame = null;
      const view = this.visibleRange(this.layout);
      if (view) this.drawRange(view.lo, view.hi);
    });
  }

  finishIfDone() {
    const p = this.pending;
    if (p && !p.nodes.length && !p.edges.length) this.pending = null;
  }

  // A new graph replaces the old one: drop what was still to be drawn of it.
  stopDrawing() {
    if (this.pending?.frame) cancelAnimationFrame(this.pending.frame);
    this.pending = null;
  }

  // view: from Stepper.view(). marks: {current, visiting, receiving: Map(nodeId -> text),
  // pushes: Map(edgeId -> {lines, late}), feeding: Set(edgeIds), late: Set(edgeIds),
  // lost: Set(edgeIds), wrong: Set(nodeIds)}; optional for teaching modes: notes:
  // Map(nodeId -> text under the node), path: Set(edgeIds) highlighted as a path,
  // resent: Set(edgeIds) that carried a re-sent total; a push may bring its own
  // tag (instead of "⚠ late") and kind (an extra class, is-<kind>).
  update(view, marks) {
    this.nodes.forEach((n, i) => {
      const data = view.data[i];
      const grad = view.grad[i];
      const note = marks.notes?.get(i) ?? null;
      const last = n.last;
      // A step changes a few nodes: the rest keep their elements untouched.
      if (!("data" in last) || !Object.is(last.data, data) || !Object.is(last.grad, grad) || last.note !== note) {
        n.g.setAttribute("data-data", exact(data));
        n.g.setAttribute("data-grad", exact(grad));
        n.g.setAttribute("aria-label", nodeAriaLabel(n.node, data, grad) + (note ? `; ${note}` : ""));
        n.g.classList.toggle("has-data", data !== null);
        n.g.classList.toggle("has-grad", grad !== null);
        const noteChanged = last.note !== note;
        Object.assign(last, { data, grad, note });
        if (n.parts) {
          showValues(n);
          if (noteChanged) setNote(n, note);
        }
      }
      let tag = null;
      let kind = null;
      if (marks.current === i) [tag, kind] = ["new", "current"];
      if (marks.visiting === i) [tag, kind] = [marks.visitTag ?? "visiting", "visiting"];
      if (marks.receiving.has(i)) [tag, kind] = [marks.receiving.get(i), "receiving"];
      if (marks.wrong.has(i) && !tag) [tag, kind] = ["✗ wrong", "wrong"];
      const wrong = marks.wrong.has(i);
      if (last.tag === tag && last.kind === kind && last.wrong === wrong) return;
      Object.assign(last, { tag, kind, wrong });
      n.g.classList.toggle("is-current", kind === "current");
      n.g.classList.toggle("is-visiting", kind === "visiting");
      n.g.classList.toggle("is-receiving", kind === "receiving");
      n.g.classList.toggle("is-wrong", marks.wrong.has(i));
      if (n.parts) setTag(n, tag, kind);
    });

    this.edges.forEach((e) => {
      const id = e.edge.id;
      const push = marks.pushes.get(id);
      const late = marks.late.has(id) || (push && push.late);
      const key = [Boolean(push), marks.feeding.has(id), Boolean(late), marks.lost.has(id),
        Boolean(marks.path?.has(id)), Boolean(marks.resent?.has(id)), push?.kind, push?.tag, push?.lines?.join("\n")].join("|");
      if (e.last.key === key) return; // nothing about this edge changed
      e.last.key = key;
      e.g.classList.toggle("is-pushing", Boolean(push));
      e.g.classList.toggle("is-feeding", marks.feeding.has(id));
      e.g.classList.toggle("is-late", Boolean(late));
      e.g.classList.toggle("is-lost", marks.lost.has(id));
      const onPath = Boolean(marks.path?.has(id));
      const resent = Boolean(marks.resent?.has(id) || push?.kind === "resent");
      e.g.classList.toggle("is-path", onPath);
      e.g.classList.toggle("is-resent", resent);
      e.marker = late || resent ? "late" : push || onPath || marks.feeding.has(id) ? "active" : "plain";
      e.line?.setAttribute("marker-end", `url(#arrow-${e.marker})`);
      const flag = push ? (push.tag ? [push.tag] : push.late ? ["⚠ late"] : [])
        : late ? ["⚠ late"] : resent ? ["↻ re-sent"] : [];
      const lines = push ? [...flag, ...push.lines] : flag;
      if (!lines.length && !e.label) return;
      const label = (e.label ??= edgeLabel(this.labelLayer, e.points));
      label.g.style.display = lines.length ? "" : "none";
      label.g.classList.toggle("is-late", Boolean(late));
      label.g.classList.toggle("is-resent", resent && !late);
      if (lines.length) setLines(label.text, label.box, lines);
      else label.text.replaceChildren();
    });
  }
}

// What is drawn inside a node's group: title, box, head, label, op, data and grad
// lines, then whatever update() has already said about it.
function drawNode(n) {
  if (n.parts) return;
  const { g, width: w, height: h } = n;
  const tip = el("title", {}, g);
  el("rect", { class: "node-box", width: w, height: h, rx: 9 }, g);
  el("rect", { class: "node-head", width: w, height: 26, rx: 9 }, g);
  el("rect", { class: "node-head-fill", y: 17, width: w, height: 9 }, g);
  const title = el("text", { class: "node-label", x: 9, y: 18 }, g);
  const op = el("text", { class: "node-op", x: w - 9, y: 18, "text-anchor": "end" }, g);
  const line = (cls, y, key) => {
    const text = el("text", { class: cls, x: 9, y }, g);
    el("tspan", { class: "node-key" }, text).textContent = key;
    return el("tspan", { class: "node-value", x: w - 9, "text-anchor": "end" }, text);
  };
  n.parts = { tip, title, op, dataValue: line("node-data", 45, "data"), gradValue: line("node-grad", 63, "grad") };
  labelNode(n);
  showState(n);
}

// A drawn node's name, operation and tooltip (also when its group is reused).
function labelNode(n) {
  const { node, parts } = n;
  parts.tip.textContent = (node.is_input ? `${node.label} = ${node.expr} (an input)` : `${node.label} = ${node.expr}`) + n.tipEnd;
  parts.title.textContent = node.label;
  parts.title.removeAttribute("textLength");
  parts.title.removeAttribute("lengthAdjust");
  parts.op.textContent = node.is_input ? "input" : opSymbol(node.op);
  fitText(parts.title, n.width - 18 - (parts.op.textContent.length * 7 + 8));
  parts.dataValue.textContent = "";
  parts.gradValue.textContent = "";
  if (n.tag) showPill(n.tag, null);
  if (n.note) showPill(n.note, null);
}

function undrawNode(n) {
  n.g.replaceChildren();
  n.parts = n.tag = n.note = null;
}

// Whatever update() has already said about a node that is drawn only now.
function showState(n) {
  const last = n.last;
  if ("data" in last) {
    showValues(n);
    setNote(n, last.note);
  }
  if (last.tag) setTag(n, last.tag, last.kind);
}

function showValues(n) {
  n.parts.dataValue.textContent = n.last.data === null ? "·" : fmt(n.last.data);
  n.parts.gradValue.textContent = n.last.grad === null ? "·" : fmt(n.last.grad);
}

// An edge's halo and line (with the arrowhead update() chose).
function drawEdge(e) {
  if (e.line) return;
  e.halo = el("path", { class: "edge-halo" }, e.g);
  e.line = el("path", { class: "edge-line" }, e.g);
  shapeEdge(e);
}

function undrawEdge(e) {
  e.g.replaceChildren();
  e.line = e.halo = null;
}

function shapeEdge(e) {
  const d = smoothPath(e.points);
  e.halo.setAttribute("d", d);
  e.line.setAttribute("d", d);
  e.line.setAttribute("marker-end", `url(#arrow-${e.marker})`);
}

// An edge's label group, at the middle of its path: {g, box, text}.
function edgeLabel(layer, points) {
  const mid = midpoint(points);
  const g = el("g", { class: "edge-label", transform: `translate(${r(mid.x)},${r(mid.y)})` }, layer);
  const box = el("rect", { class: "edge-label-box", rx: 4 }, g);
  const text = el("text", { class: "edge-label-text", "text-anchor": "middle" }, g);
  return { g, box, text };
}

// A small label on a white pill, centred at (x, y) of a node's group: {g, box, text}.
function pill(parent, kind, x, y, height) {
  const g = el("g", { class: `node-${kind}`, transform: `translate(${x},${y})` }, parent);
  const box = el("rect", { class: `node-${kind}-box`, rx: 7, height, y: -8 }, g);
  const text = el("text", { class: `node-${kind}-text`, "text-anchor": "middle", dy: "0.33em" }, g);
  return { g, box, text };
}

// A label of one or more centred lines on a white box.
function setLines(textEl, box, lines) {
  const top = -((lines.length - 1) * LINE_HEIGHT) / 2;
  textEl.replaceChildren(
    ...lines.map((line, i) => {
      const span = el("tspan", { x: 0, y: r(top + i * LINE_HEIGHT), dy: "0.35em" });
      span.textContent = line;
      return span;
    }),
  );
  let width = 0;
  for (const span of textEl.children) width = Math.max(width, textWidth(span, span.textContent));
  width += 10;
  const height = lines.length * LINE_HEIGHT + 5;
  box.setAttribute("width", r(width));
  box.setAttribute("x", r(-width / 2));
  box.setAttribute("height", r(height));
  box.setAttribute("y", r(-height / 2));
}

// The engine's layout with the space between layers widened to at least `gap`
// (nodes keep their size; every x coordinate is mapped piecewise-linearly).
export function widenGaps(layout, gap) {
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

// Scroll the graph's container (never the page) so that the given nodes (the one
// being computed or visited, and the parents receiving from it) are in view.
//
// The sizes come from a ResizeObserver and a scroll listener, not from reading the
// layout on every step (which would force one after each DOM update); they are
// read directly only once after a new graph, before the observer has reported.
const metricsOf = new WeakMap();

function scrollMetrics(scroller, svg, layout) {
  let m = metricsOf.get(scroller);
  if (!m) {
    m = { layout: null, fresh: false, svgWidth: 0, clientWidth: 0, scrollWidth: 0, left: 0 };
    metricsOf.set(scroller, m);
    const measure = () => {
      m.svgWidth = svg.getBoundingClientRect().width;
      m.clientWidth = scroller.clientWidth;
      m.scrollWidth = scroller.scrollWidth;
      m.left = scroller.scrollLeft;
    };
    m.measure = measure;
    if (typeof ResizeObserver === "function") {
      m.observer = new ResizeObserver(() => measure());
      m.observer.observe(scroller);
      m.observer.observe(svg);
    }
    scroller.addEventListener("scroll", () => { m.left = scroller.scrollLeft; }, { passive: true });
  }
  if (m.layout !== layout) {
    m.layout = layout;
    m.measure();
  }
  return m;
}

export function keepInView(scroller, svg, nodeIds, layout) {
  const ids = nodeIds.filter((i) => i !== null && i !== undefined);
  if (!ids.length) return;
  let m = metricsOf.get(scroller);
  if (!m || m.layout !== layout) {
    // A new graph: its size is known only after a layout. Measure at the next
    // frame, where that layout is due anyway, rather than forcing one now in the
    // middle of drawing (with a big graph, a second whole layout of the page).
    cancelAnimationFrame(m?.frame);
    const frame = requestAnimationFrame(() => {
      scrollMetrics(scroller, svg, layout);
      keepInView(scroller, svg, ids, layout);
    });
    if (m) m.frame = frame;
    return;
  }
  m = scrollMetrics(scroller, svg, layout);
  if (m.scrollWidth <= m.clientWidth + 1) return;
  const scale = m.svgWidth / layout.width;
  const half = (layout.node_width / 2 + 12) * scale;
  const xs = ids.map((i) => layout.nodes[i].x * scale);
  let lo = Math.min(...xs) - half;
  let hi = Math.max(...xs) + half;
  const width = m.clientWidth;
  const left = m.left;
  if (lo >= left && hi <= left + width) return;
  // If everything cannot fit, keep the first node (the focus) in view.
  if (hi - lo > width) {
    const x = xs[0];
    lo = Math.max(lo, x - width + half);
    hi = lo + width;
  }
  const target = lo < left ? lo : hi - width;
  const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  scroller.scrollTo({ left: Math.max(0, target), behavior: reduce ? "auto" : "smooth" });
}

// A teaching mode's note under the node (a tangent, a path sum), or none.
function setNote(n, text) {
  if (!text && !n.note) return;
  n.note ??= pill(n.g, "note", r(n.width / 2), r(n.height), 16);
  showPill(n.note, text);
}

// The tag above the node ("new", "visiting", "+= 3"), or none.
function setTag(n, text, kind) {
  if (!text && !n.tag) return;
  n.tag ??= pill(n.g, "tag", r(n.width / 2), -9, 15);
  n.tag.g.setAttribute("class", `node-tag${kind ? ` tag-${kind}` : ""}`);
  showPill(n.tag, text);
}

function showPill(p, text) {
  p.g.style.display = text ? "" : "none";
  if (!text) return;
  p.text.textContent = text;
  const width = textWidth(p.text, text) + 12;
  p.box.setAttribute("width", r(width));
  p.box.setAttribute("x", r(-width / 2));
}

// A text's width without asking the layout (getComputedTextLength forces one per
// call): one canvas measureText per (font, text), cached. The font is read from
// the element's computed style once per class (the stylesheet never changes).
const fontOfClass = new Map();
const widthCache = new Map();
let measurer;

function fontOf(textEl) {
  const key = textEl.getAttribute("class") ?? "";
  let font = fontOfClass.get(key);
  if (font === undefined) {
    font = null;
    try {
      const cs = getComputedStyle(textEl);
      if (cs.fontSize) {
        font = {
          css: `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`,
          spacing: parseFloat(cs.letterSpacing) || 0,
        };
      }
    } catch {
      // no style (detached)
    }
    if (font && textEl.isConnected) fontOfClass.set(key, font);
  }
  return font;
}

function textWidth(textEl, text) {
  const font = fontOf(textEl);
  if (!font) return text.length * 6.2;
  const key = `${font.css}\u0000${text}`;
  let w = widthCache.get(key);
  if (w === undefined) {
    measurer ??= document.createElement("canvas").getContext("2d");
    if (!measurer) return text.length * 6.2;
    measurer.font = font.css;
    w = measurer.measureText(text).width + font.spacing * [...text].length;
    if (widthCache.size > 5000) widthCache.clear();
    widthCache.set(key, w);
  }
  return w;
}

function fitText(textEl, maxWidth) {
  const w = textWidth(textEl, textEl.textContent);
  if (w > maxWidth && maxWidth > 20) {
    textEl.setAttribute("textLength", r(maxWidth));
    textEl.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
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
        return { x: points[i][0] + t * (points[i + 1][0] - points[i][0]), y: points[i][1] + t * (points[i + 1][1] - points[i][1]) };
      }
      left -= lengths[i];
    }
  }
  const a = points[Math.floor((points.length - 1) / 2)];
  const b = points[Math.ceil((points.length - 1) / 2)];
  return { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 };
}
