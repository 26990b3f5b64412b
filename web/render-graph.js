// The computation graph as SVG, drawn from the engine's layout.
//
//   const graph = new GraphView(svgElement);
//   graph.build(answer);      // once per graph: nodes, edges, arrowheads, label slots
//   graph.update(view, marks) // every step: numbers, highlights, edge labels
//
// Each node is <g data-node data-data data-grad role="img" aria-label> (the DOM
// contract in DESIGN.md); data-* hold exact values (format.exact), the text on
// screen is compact (format.fmt).

import { exact, fmt, opSymbol } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const MARKERS = ["plain", "active", "late"];
const MIN_GAP = 100; // px between layers, so that an edge label fits between two nodes
const MIN_SCALE = 0.7; // below this the graph scrolls instead of shrinking
const MAX_SCALE = 1.3;
const LINE_HEIGHT = 14;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
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
  }

  build(answer) {
    const svg = this.svg;
    const L = widenGaps(answer.layout, MIN_GAP);
    this.layout = L;
    this.answer = answer;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
    svg.setAttribute("width", L.width);
    svg.setAttribute("height", L.height);
    // Scale with the container, but not below a legible size: past that, scroll.
    svg.style.minWidth = `${Math.round(L.width * MIN_SCALE)}px`;
    svg.style.maxWidth = `${Math.round(L.width * MAX_SCALE)}px`;

    const defs = el("defs", {}, svg);
    for (const kind of MARKERS) {
      const m = el("marker", {
        id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9.5, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse", markerUnits: "userSpaceOnUse",
      }, defs);
      el("path", { d: "M0,0.5 L10,5 L0,9.5 z", class: `arrowhead arrowhead-${kind}` }, m);
    }

    const edgeLayer = el("g", { class: "edges", "aria-hidden": "true" }, svg);
    const nodeLayer = el("g", { class: "nodes" }, svg);
    const labelLayer = el("g", { class: "edge-labels", "aria-hidden": "true" }, svg);

    this.edges = answer.edges.map((edge, i) => {
      const g = el("g", {
        class: "edge", "data-edge": edge.id,
        "data-from": answer.nodes[edge.parent].label, "data-to": answer.nodes[edge.child].label,
      }, edgeLayer);
      const d = smoothPath(L.edges[i].points);
      el("path", { class: "edge-halo", d }, g);
      const line = el("path", { class: "edge-line", d, "marker-end": "url(#arrow-plain)" }, g);
      const mid = midpoint(L.edges[i].points);
      const label = el("g", { class: "edge-label", transform: `translate(${r(mid.x)},${r(mid.y)})` }, labelLayer);
      const box = el("rect", { class: "edge-label-box", rx: 4 }, label);
      const text = el("text", { class: "edge-label-text", "text-anchor": "middle" }, label);
      label.style.display = "none";
      return { edge, g, line, label, box, text, last: {} };
    });

    const w = L.node_width;
    const h = L.node_height;
    this.nodes = answer.nodes.map((node, i) => {
      const { x, y } = L.nodes[i];
      const g = el("g", {
        class: `node${node.is_input ? " is-input" : ""}${node.is_output ? " is-output" : ""}`,
        "data-node": node.label, "data-data": "", "data-grad": "", role: "img",
        transform: `translate(${r(x - w / 2)},${r(y - h / 2)})`,
      }, nodeLayer);
      const tip = el("title", {}, g);
      tip.textContent = node.is_input ? `${node.label} = ${node.expr} (an input)` : `${node.label} = ${node.expr}`;
      el("rect", { class: "node-box", width: w, height: h, rx: 9 }, g);
      el("rect", { class: "node-head", width: w, height: 26, rx: 9 }, g);
      el("rect", { class: "node-head-fill", y: 17, width: w, height: 9 }, g);
      const title = el("text", { class: "node-label", x: 9, y: 18 }, g);
      title.textContent = node.label;
      const op = el("text", { class: "node-op", x: w - 9, y: 18, "text-anchor": "end" }, g);
      op.textContent = node.is_input ? "input" : opSymbol(node.op);
      fitText(title, w - 18 - (op.textContent.length * 7 + 8));
      const dataText = el("text", { class: "node-data", x: 9, y: 45 }, g);
      const dataKey = el("tspan", { class: "node-key" }, dataText);
      dataKey.textContent = "data";
      const dataValue = el("tspan", { class: "node-value", x: w - 9, "text-anchor": "end" }, dataText);
      const gradText = el("text", { class: "node-grad", x: 9, y: 63 }, g);
      const gradKey = el("tspan", { class: "node-key" }, gradText);
      gradKey.textContent = "grad";
      const gradValue = el("tspan", { class: "node-value", x: w - 9, "text-anchor": "end" }, gradText);
      const tag = el("g", { class: "node-tag", transform: `translate(${w / 2},-9)` }, g);
      const tagBox = el("rect", { class: "node-tag-box", rx: 7, height: 15, y: -8 }, tag);
      const tagText = el("text", { class: "node-tag-text", "text-anchor": "middle", dy: "0.33em" }, tag);
      tag.style.display = "none";
      // A note under the node: a teaching mode's value (a tangent, a path sum).
      const note = el("g", { class: "node-note", transform: `translate(${w / 2},${h})` }, g);
      const noteBox = el("rect", { class: "node-note-box", rx: 7, height: 16, y: -8 }, note);
      const noteText = el("text", { class: "node-note-text", "text-anchor": "middle", dy: "0.33em" }, note);
      note.style.display = "none";
      return { node, g, dataValue, gradValue, tag, tagBox, tagText, note, noteBox, noteText, last: {} };
    });
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
        if (last.note !== note) setNote(n, note);
        n.dataValue.textContent = data === null ? "·" : fmt(data);
        n.gradValue.textContent = grad === null ? "·" : fmt(grad);
        n.g.classList.toggle("has-data", data !== null);
        n.g.classList.toggle("has-grad", grad !== null);
        Object.assign(last, { data, grad, note });
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
      setTag(n, tag, kind);
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
      const marker = late || resent ? "late" : push || onPath || marks.feeding.has(id) ? "active" : "plain";
      e.line.setAttribute("marker-end", `url(#arrow-${marker})`);
      const flag = push ? (push.tag ? [push.tag] : push.late ? ["⚠ late"] : [])
        : late ? ["⚠ late"] : resent ? ["↻ re-sent"] : [];
      const lines = push ? [...flag, ...push.lines] : flag;
      e.label.style.display = lines.length ? "" : "none";
      e.label.classList.toggle("is-late", Boolean(late));
      e.label.classList.toggle("is-resent", resent && !late);
      if (lines.length) setLines(e.text, e.box, lines);
      else e.text.replaceChildren();
    });
  }
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
      const observer = new ResizeObserver(() => measure());
      observer.observe(scroller);
      observer.observe(svg);
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
  const m = scrollMetrics(scroller, svg, layout);
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

function setNote(n, text) {
  n.note.style.display = text ? "" : "none";
  if (!text) return;
  n.noteText.textContent = text;
  const width = textWidth(n.noteText, text) + 12;
  n.noteBox.setAttribute("width", r(width));
  n.noteBox.setAttribute("x", r(-width / 2));
}

function setTag(n, text, kind) {
  n.tag.style.display = text ? "" : "none";
  n.tag.setAttribute("class", `node-tag${kind ? ` tag-${kind}` : ""}`);
  if (!text) return;
  n.tagText.textContent = text;
  const width = textWidth(n.tagText, text) + 12;
  n.tagBox.setAttribute("width", r(width));
  n.tagBox.setAttribute("x", r(-width / 2));
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
