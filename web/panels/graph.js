// The computation graph as SVG, drawn from the engine's layout.
//
//   const graph = new GraphView(svgElement);
//   graph.build(answer);      // once per graph: nodes, edges, arrowheads, label slots
//   graph.update(view, marks) // every step: numbers, highlights, edge labels
//
// Each node is <g data-node data-data data-grad role="img" aria-label> (the DOM
// contract the tests read: docs/architecture.md); data-* hold exact values
// (format.exact), the text on screen is compact (format.fmt).
//
// A big graph (a typed program of hundreds of nodes) is far wider than the screen,
// and laying out thousands of SVG texts at once would freeze the page for a second.
// So every node's group (with its data-* and aria-label) and every edge's group
// are made at once, but what is drawn inside them (boxes, texts, paths) is made
// only for the part of the graph in view, with a margin, and for more as the
// learner scrolls (or the graph's box grows). What is never seen is never drawn,
// so a big graph replaced by the next edit has little to take down. Up to
// BIG_GRAPH nodes (lib/slices.js), everything is drawn at once.
//
// The engine lays a graph out two ways: across (left to right, full-size nodes) and,
// for a small graph, down (top to bottom, compact nodes): build() draws the one that
// shows the whole graph biggest in the box (graph-scroll.js's pickLayout), and draws
// it again the other way if the box changes enough (a phone turned, a column resized).
// A graph too big to be whole with readable text is panned and zoomed
// (graph-scroll.js), and a step's numbers travel along the edges as pulses
// (graph-pulse.js).

import { exact, factor, fmt, opSymbol, showsMoreDigits, withDigits } from "../lib/format.js";
import { BIG_GRAPH, keepInPlace } from "../lib/slices.js";
import { midpoint, r, smoothPath, widenGaps } from "./graph-geometry.js";
import { Pulses } from "./graph-pulse.js";
import { pickLayout, Viewport } from "./graph-scroll.js";
import { fitText, textWidth } from "./graph-text.js";
import { withFrames } from "./graph-groups.js";
import { placeLabels } from "./graph-place.js";
import { drawMatrix, matrixText, shadeMatrix } from "./graph-matrix.js";
import { isMatrix } from "../grouped.js";

const SVG = "http://www.w3.org/2000/svg";
const MARKERS = ["plain", "active", "late"];
const MIN_GAP = 100; // px between layers, so that an edge label fits between two nodes
const LINE_HEIGHT = 15;
const NOT_YET = "—"; // a number not computed yet (the node table shows the same)
const FAST_STEP_MS = 150; // a step this soon after the last one shows at once, without pulses
const WINDOW_MARGIN = 200; // layout px either side of the visible part, drawn with it

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  setAttrs(node, attrs);
  if (parent) parent.appendChild(node);
  return node;
}

function setAttrs(node, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    const text = String(v);
    // A reused group (build) mostly keeps its attributes: an unchanged one is not written again.
    if (node.getAttribute(k) !== text) node.setAttribute(k, text);
  }
}

// Make `parent`'s children exactly `children`, keeping those already in place
// (reused groups, in the same order) where they are.
function showExactly(parent, children) {
  parent.append(...children.slice(keepInPlace(parent, children)));
}

function shownNumber(x) {
  return x === null || x === undefined ? NOT_YET : fmt(x);
}

function nodeAriaLabel(node, data, grad, values = null, grads = null) {
  const value = (x) => (x === null || x === undefined ? "not computed yet" : fmt(x));
  if (isMatrix(node.box)) {
    const [rows, columns] = node.box.shape;
    return `${node.label}, a ${rows}×${columns} tensor, a closed group of ${node.box.size} nodes: `
      + `data ${values ? matrixText(values) : "not computed yet"}, `
      + `grad ${grads ? matrixText(grads) : "not computed yet"}. Press to open it`;
  }
  if (node.box) {
    const outputs = node.box.shown ?? [];
    if (node.box.outputs.length > 1) {
      // several outputs: no one number is the box's own; each output is named (its numbers
      // are in the step's sentences)
      const names = outputs.map((o) => o.label).join(", ") + (node.box.outputs.length > outputs.length ? ", …" : "");
      return `${node.label}, a closed group of ${node.box.size} nodes with ${node.box.outputs.length} outputs `
        + `(${names}): open it, or step, to see each one's numbers. Press to open it`;
    }
    const name = outputs[0]?.label ?? "its output";
    return `${node.label}, a closed group of ${node.box.size} nodes: its output ${name}: data ${value(data)}, `
      + `grad ${value(grad)}. Press to open it`;
  }
  const how = node.is_input ? "an input" : node.is_constant ? "a constant" : `computed as ${node.expr}`;
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
    // The layout to draw whatever the box ("across", "down"), or null to choose by the
    // box (the build's drawing of both ways sets it: buildtools/graph_svg.mjs).
    this.direction = null;
    this.lastUpdate = null; // the last update()'s [view, marks], to draw again after a turn
    this.kept = []; // the nodes keepInView was last asked to show
    this.viewport = new Viewport(this.scroller, svg, svg.getRootNode?.().getElementById?.("graph-tools") ?? null,
      () => this.drawInViewSoon(), () => this.boxResized());
    this.lastStep = null; // {pass, index, time} of the last update of this graph: a step, or a redraw of one?
    this.scroller?.addEventListener("scroll", () => this.drawInViewSoon(), { passive: true });
    // A group's box or an open group's name opens or closes it (Click, Enter, Space):
    // the widget gives onGroup its action (actions/groups.js).
    this.onGroup = null;
    const groupOf = (e) => /** @type {Element} */ (e.target).closest?.("[data-group]")?.getAttribute("data-group");
    svg.addEventListener("click", (e) => {
      const name = groupOf(e);
      if (name && this.onGroup) this.onGroup(name);
    });
    svg.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      const name = groupOf(e);
      if (!name || !this.onGroup) return;
      e.preventDefault();
      this.onGroup(name);
    });
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
    this.pulses?.finish();
    this.viewport.destroy();
  }

  // The layouts this graph can be drawn in, and the one for the box as it is now.
  chooseLayout(answer) {
    const layouts = [widenGaps(answer.layout, MIN_GAP), ...(answer.layout.down ? [answer.layout.down] : [])]
      .map((l) => (answer.level ? withFrames(l, answer) : l)); // a grouped graph's open groups framed
    // The graph index.html carries was laid out for this very box before the first
    // paint (boot/prerendered-gate.js): adopting it keeps that way, so nothing jumps.
    const svg = this.svg;
    const prerendered = svg.getAttribute("data-prerendered") === answer.preset && svg.childElementCount > 0
      && svg.getAttribute("data-direction");
    const wanted = this.direction ?? (prerendered || null);
    if (wanted) return layouts.find((l) => l.direction === wanted) ?? layouts[0];
    return pickLayout(layouts, this.viewport.currentBox(), this.layout?.direction);
  }

  // The box changed size: another way of laying the graph out may now show it bigger.
  boxResized() {
    if (!this.answer || !this.layout) return;
    const next = this.chooseLayout(this.answer);
    if (next.direction === this.layout.direction) {
      this.viewport.refit();
      if (this.kept.length) this.keepInView(this.kept); // the step's nodes, in the box as it is now
      return;
    }
    withDigits(this.digits, () => {
      this.build(this.answer, next);
      if (this.lastUpdate) this.update(...this.lastUpdate);
    });
  }

  build(answer, layout = null) {
    this.digits = showsMoreDigits(); // the widget's setting, while its render draws
    const svg = this.svg;
    const L = layout ?? this.chooseLayout(answer);
    this.pulses?.finish();
    const again = answer === this.answer; // the same graph drawn again (digits, a turned box)
    // A group just opened or closed (actions/groups.js): where it was, to keep it there on screen.
    const old = this.layout;
    const before = !again && answer.toggled && this.answer?.level && old
      ? { point: groupPoint(old, this.answer, answer.toggled), scale: this.viewport.scale, layout: old }
      : null;
    this.layout = L;
    // The learner's focus on the group just opened or closed moves to what stands for it
    // now (its open name, or its box). It is let go of first: taking down or changing a
    // focused element forces a layout in the middle of drawing.
    const focused = before && this.svg.getRootNode().activeElement?.closest?.("[data-group]");
    if (focused && this.svg.contains(focused)) {
      focused.blur();
      queueMicrotask(() => this.groupElement(answer.toggled)?.focus({ preventScroll: true }));
    }
    this.answer = answer;
    this.lastStep = null;
    this.largestPush = largestContribution(answer);
    this.stopDrawing();
    svg.setAttribute("data-direction", L.direction);
    // Its accessible name says the way it is drawn.
    svg.setAttribute("aria-label", L.direction === "down"
      ? "Computation graph: inputs at the top, the output at the bottom"
      : "Computation graph: inputs on the left, the output on the right");
    svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
    svg.setAttribute("width", L.width);
    svg.setAttribute("height", L.height);
    this.viewport.setLayout(L); // fitted to its box, if its text stays readable
    const after = before?.point && groupPoint(L, answer, answer.toggled);
    if (after) this.viewport.keepPoint(before.point, before.scale, before.layout, after);
    // The part in view (for a big graph), from what the viewport last measured.
    const view = answer.nodes.length > BIG_GRAPH ? this.visibleRange() : null;
    this.makeLayers();

    // The groups (and what is drawn in them) of the graph before are reused, the
    // i-th node's for the i-th node: a new graph of about the same size then
    // changes attributes and texts instead of taking thousands of elements down
    // and making thousands more. Everything a group showed is reset here or by
    // the first update(). A reused group drawn for the old graph but far from
    // view in the new one is emptied (edit after edit, drawings would pile up).
    const far = (item) => view && (item.hi < view.lo || item.lo > view.hi);
    this.edgeById = new Map();
    this.edges = answer.edges.map((edge, i) => {
      const e = (this.edgePool[i] ??= { g: el("g"), line: null, halo: null });
      this.edgeById.set(edge.id, e);
      setAttrs(e.g, {
        class: "edge", "data-edge": edge.id,
        "data-from": answer.nodes[edge.parent].label, "data-to": answer.nodes[edge.child].label,
      });
      const points = L.edges[i].points;
      const xs = points.map(([x]) => x);
      // The label on the edge (a push's numbers, "⚠ late") is made the first
      // time it is shown: most edges of a big graph never need one.
      Object.assign(e, {
        edge, points, direction: L.direction, lo: Math.min(...xs), hi: Math.max(...xs),
        marker: "plain", width: null, label: null, last: {}, length: undefined,
      });
      if (e.line && far(e)) undrawEdge(e);
      if (e.line) shapeEdge(e);
      return e;
    });

    const w = L.node_width;
    const h = L.node_height;
    this.nodes = answer.nodes.map((node, i) => {
      const { x, y } = L.nodes[i];
      const n = (this.nodePool[i] ??= { g: el("g"), parts: null, tag: null, note: null });
      // Drawn again, an input keeps the mark learn.js gave it (graph-inputs.js).
      const editable = again && n.g.classList.contains("is-editable") ? " is-editable" : "";
      setAttrs(n.g, {
        class: `node${node.is_input ? " is-input" : ""}${node.is_constant ? " is-constant" : ""}`
          + `${node.is_output ? " is-output" : ""}${editable}`
          + (node.box ? " is-group" : ""),
        "data-node": node.label, "data-data": "", "data-grad": "", role: node.box ? "button" : "img",
        transform: `translate(${r(x - w / 2)},${r(y - h / 2)})`,
      });
      // A closed group's box (grouped.js): named by data-group, opened like a button.
      if (node.box) setAttrs(n.g, { "data-group": node.label, tabindex: 0, "aria-expanded": "false" });
      else for (const name of ["data-group", "tabindex", "aria-expanded"]) n.g.removeAttribute(name);
      // A closed tensor's box: its shape, "rows,columns" (docs/page.md); a 1×1 one is written
      // and drawn as the number it holds.
      if (node.box?.shape) setAttrs(n.g, { "data-shape": node.box.shape.join(",") });
      else n.g.removeAttribute("data-shape");
      if (!isMatrix(node.box)) n.g.removeAttribute("data-value");
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
    // An open group's tint under everything; its name over the edges (an edge passing under
    // it would cut through the name), still under the nodes.
    const frames = (L.frames ?? []).toSorted((a, b) => b.depth - a.depth).map(drawFrame);
    this.frameLayer.replaceChildren(...frames.map(([area]) => area));
    this.tabLayer.replaceChildren(...frames.map(([, tab]) => tab));

    if (this.nodes.length <= BIG_GRAPH || !view) {
      this.nodes.forEach((n) => drawNode(n));
      this.edges.forEach((e) => drawEdge(e));
      return;
    }
    // What is in view now; the rest when it comes into view.
    const undrawn = (items, drawn) => items.flatMap((item, i) => (drawn(item) ? [] : [i]));
    this.pending = {
      nodes: undrawn(this.nodes, (n) => n.parts), edges: undrawn(this.edges, (e) => e.line), frame: null,
    };
    this.drawRange(view.lo, view.hi);
  }

  // The arrowheads and the layers for edges, nodes and edge labels, made once, or
  // adopted from the markup when the page came with this graph already drawn.
  makeLayers() {
    if (this.nodeLayer) return;
    const svg = this.svg;
    const prerendered = svg.getAttribute("data-prerendered");
    svg.removeAttribute("data-prerendered");
    if (prerendered !== null && prerendered === this.answer.preset && this.adoptLayers()) return;
    svg.replaceChildren();
    const defs = el("defs", {}, svg);
    this.frameLayer = el("g", { class: "group-frames" }, svg); // a grouped graph's open groups, under the rest
    for (const kind of MARKERS) {
      const m = el("marker", {
        id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9.5, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse", markerUnits: "userSpaceOnUse",
      }, defs);
      el("path", { d: "M0,0.5 L10,5 L0,9.5 z", class: `arrowhead arrowhead-${kind}` }, m);
    }
    this.edgeLayer = el("g", { class: "edges", "aria-hidden": "true" }, svg);
    this.tabLayer = el("g", { class: "group-tabs" }, svg);
    this.nodeLayer = el("g", { class: "nodes" }, svg);
    this.labelLayer = el("g", { class: "edge-labels", "aria-hidden": "true" }, svg);
    this.pulses = new Pulses(el("g", { class: "pulses", "aria-hidden": "true" }, svg));
    this.nodePool = [];
    this.edgePool = [];
  }

  // index.html carries its default preset's graph as the build drew it with these
  // very modules (buildtools/graph_svg.mjs: the markup of build() and the first
  // update() at the trace's start): its layers and groups become this view's own, as
  // if drawNode() and drawEdge() had made them, so the graph painted with the page
  // is never drawn again. build() then sets what it always sets, to the same values.
  // False (and the markup is dropped) if it is not the shape drawNode() makes.
  adoptLayers() {
    const [defs, frameLayer, edgeLayer, tabLayer, nodeLayer, labelLayer, pulseLayer, ...rest] = this.svg.children;
    const answer = this.answer;
    const fits = !rest.length && pulseLayer?.getAttribute("class") === "pulses" && edgeLayer
      && edgeLayer.children.length === answer.edges.length && nodeLayer.children.length === answer.nodes.length
      && [...nodeLayer.children].every((g) => g.children.length === 8)
      && [...edgeLayer.children].every((g) => g.children.length === 2);
    if (!fits || defs.localName !== "defs" || labelLayer.children.length) return false;
    if (frameLayer?.getAttribute("class") !== "group-frames") return false;
    if (tabLayer?.getAttribute("class") !== "group-tabs") return false;
    Object.assign(this, { edgeLayer, tabLayer, nodeLayer, labelLayer, frameLayer, pulses: new Pulses(pulseLayer) });
    this.edgePool = [...edgeLayer.children].map((g) => ({ g, halo: g.children[0], line: g.children[1], label: null }));
    const { node_width: width, node_height: height } = this.layout;
    this.nodePool = [...nodeLayer.children].map((g) => {
      const [tip, , , , title, op, data, grad] = g.children;
      const parts = { tip, title, op, dataValue: data.children[1], gradValue: grad.children[1] };
      return { g, parts, tag: null, note: null, width, height };
    });
    return true;
  }

  // The element that opens or closes group `name`: its box, or its open name.
  groupElement(name) {
    return [...this.svg.querySelectorAll("[data-group]")].find((e) => e.getAttribute("data-group") === name) ?? null;
  }

  // The part of the graph (layout x, with a margin) the scroller shows, from what
  // the viewport last measured.
  visibleRange() {
    const x = this.viewport.visibleX();
    return x && { lo: x.lo - WINDOW_MARGIN, hi: x.hi + WINDOW_MARGIN };
  }

  // Pan so that these nodes (the focus first) are in view; `kept` says which were asked
  // for last (a question's node is kept in view with them: learn.js).
  keepInView(nodeIds) {
    this.kept = nodeIds.filter((i) => i !== null && i !== undefined);
    // The labels of the pushes shown too: the numbers the step is about (placed by then).
    this.viewport.keepInView(nodeIds, () => this.edges.flatMap((e) => (e.label?.shown && e.label.at
      ? [{ x: e.label.at.x, y: e.label.at.y, w: e.label.w, h: e.label.h }] : [])));
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
      const view = this.visibleRange();
      // Drawn as the widget's render drew the rest (its digits: lib/format.js).
      if (view) withDigits(this.digits, () => this.drawRange(view.lo, view.hi));
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
  // lost: Set(edgeIds), wrong: Set(nodeIds), named: Map(nodeId -> tag) for the nodes a
  // diagnosis names (the visit-order verdict's mistake)}; optional for teaching modes: notes:
  // Map(nodeId -> text under the node), expected: the right grads (each node's data-expected),
  // path: Set(edgeIds) highlighted as a path,
  // resent: Set(edgeIds) that carried a re-sent total; a push may bring its own
  // tag (instead of "⚠ late") and kind (an extra class, is-<kind>).
  update(view, marks) {
    this.lastUpdate = [view, marks];
    const sizes = this.pushSizes(view);
    // A step (not a redraw of the same one) first lands the last step's pulses.
    const now = performance.now();
    const last = this.lastStep;
    const moved = !last || last.pass !== view.pass || last.index !== view.index;
    if (moved) {
      this.pulses.finish();
      this.lastStep = { pass: view.pass, index: view.index, time: now };
    }
    this.nodes.forEach((n, i) => {
      const data = view.data[i];
      const grad = view.grad[i];
      // a closed tensor's box: its matrices (null until its line runs, until a push reaches it)
      const values = view.values?.[i] ?? null;
      const grads = view.grads?.[i] ?? null;
      // A closed group's box says under it how many nodes it holds.
      const modeNote = marks.notes?.get(i) ?? null;
      const size = n.node.box?.size;
      const note = modeNote ?? (n.node.box ? `${size.toLocaleString("en")} ${size === 1 ? "node" : "nodes"}` : null);
      const last = n.last;
      // A step changes a few nodes: the rest keep their elements untouched.
      if (!("data" in last) || !Object.is(last.data, data) || !Object.is(last.grad, grad) || last.note !== note
        || last.values !== values || last.grads !== grads) {
        const matrix = isMatrix(n.node.box);
        // (a tensor's box: its rows as JSON, docs/page.md; a grad once a push has reached it)
        n.g.setAttribute("data-data", matrix ? (values ? JSON.stringify(values) : "") : exact(data));
        n.g.setAttribute("data-grad", matrix ? (grads ? JSON.stringify(grads) : "") : exact(grad));
        if (matrix) n.g.setAttribute("data-value", values ? JSON.stringify(values) : "");
        // (a closed group's label says its size already: a mode's note is added)
        const said = nodeAriaLabel(n.node, data, grad, values, grads);
        n.g.setAttribute("aria-label", said + (modeNote ? `; ${modeNote}` : ""));
        n.g.classList.toggle("has-data", (matrix ? values : data) !== null);
        n.g.classList.toggle("has-grad", (matrix ? grads : grad) !== null);
        const noteChanged = last.note !== note;
        Object.assign(last, { data, grad, note, values, grads });
        if (n.parts) {
          showValues(n);
          if (noteChanged) setNote(n, note);
        }
      }
      // A run of the learner's code ("Your code") says the right grad beside theirs.
      const expected = marks.expected ? exact(marks.expected[i]) : null;
      if (last.expected !== expected) {
        last.expected = expected;
        if (expected === null) n.g.removeAttribute("data-expected");
        else n.g.setAttribute("data-expected", expected);
      }
      let tag = null;
      let kind = null;
      if (marks.current === i) [tag, kind] = ["new", "current"];
      if (marks.visiting === i) [tag, kind] = [marks.visitTag ?? "visiting", "visiting"];
      if (marks.receiving.has(i)) [tag, kind] = [marks.receiving.get(i), "receiving"];
      if (marks.named.has(i) && !tag) [tag, kind] = [marks.named.get(i), "named"];
      if (marks.wrong.has(i) && !tag) [tag, kind] = ["✗ wrong", "wrong"];
      const wrong = marks.wrong.has(i);
      if (last.tag === tag && last.kind === kind && last.wrong === wrong) return;
      Object.assign(last, { tag, kind, wrong });
      n.g.classList.toggle("is-current", kind === "current");
      n.g.classList.toggle("is-visiting", kind === "visiting");
      n.g.classList.toggle("is-receiving", kind === "receiving");
      n.g.classList.toggle("is-wrong", marks.wrong.has(i));
      n.g.classList.toggle("is-named", kind === "named");
      if (n.parts) setTag(n, tag, kind);
    });

    this.edges.forEach((e) => {
      const id = e.edge.id;
      const push = marks.pushes.get(id);
      const late = marks.late.has(id) || (push && push.late);
      const key = [Boolean(push), sizes.get(id), marks.feeding.has(id), Boolean(late), marks.lost.has(id),
        Boolean(marks.path?.has(id)), Boolean(marks.resent?.has(id)), push?.kind, push?.tag, push?.lines?.join("\n"),
      ].join("|");
      if (e.last.key === key) return; // nothing about this edge changed
      e.last.key = key;
      e.g.classList.toggle("is-pushing", Boolean(push));
      // A push's line is as thick as its contribution is big (among the backward pass's).
      e.width = push && sizes.has(id) ? pushWidth(sizes.get(id), this.largestPush) : null;
      if (e.line) e.line.style.strokeWidth = e.width ?? "";
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
      label.shown = lines.length > 0;
      label.g.style.display = label.shown ? "" : "none";
      label.g.classList.toggle("is-late", Boolean(late));
      label.g.classList.toggle("is-resent", resent && !late);
      // Laid out down, a label sits between two rows of nodes: on one line, so it fits there.
      // Where there is no room for it, it may be shortened to its flag and its result (graph-place.js).
      const down = this.layout.direction === "down";
      const oneLine = (ls) => (down ? [ls.join(" ")] : ls);
      label.full = oneLine(lines);
      // (Not a closed group's push of several outputs' shares: each of its lines is a number.)
      label.short = lines.length > flag.length + 1 && !push?.everyLine
        ? oneLine([...flag, lines[lines.length - 1]]) : null;
      if (label.shown) label.set(label.full);
      else label.set([]);
    });
    placeLabels(this, tabWidth);

    // One step on from the last (not a jump, a step back or a fast run of steps):
    // its numbers travel.
    const next = last && last.pass === view.pass && view.index === last.index + 1;
    const fast = last && now - last.time < FAST_STEP_MS;
    if (moved && next && !fast && !reducedMotion()) {
      // A pulse lands in a later frame, outside the render's withDigits: it writes its
      // numbers with the digits the render drew with ("More digits" on stays on).
      const digits = this.digits;
      this.pulses.send(this.flows(view).map((p) => ({ ...p, land: () => withDigits(digits, p.land) })));
    }
  }

  // edge id -> |contribution| of this step's pushes (a backward or experiment visit).
  pushSizes(view) {
    const sizes = new Map();
    if (view.pass !== "backward" && view.pass !== "experiment") return sizes;
    for (const p of view.frame?.pushes ?? []) sizes.set(p.edge, Math.abs(p.contribution));
    return sizes;
  }

  // The pulses of a step: a backward visit's += along each edge to its parent, a
  // forward step's inputs into the node. The number each brings is held back (its
  // text shows what was there before) until the pulse lands.
  flows(view) {
    const f = view.frame;
    if (!f || (view.pass !== "forward" && view.pass !== "backward" && view.pass !== "experiment")) return [];
    const pulses = [];
    if (view.pass === "forward") {
      const n = this.nodes[f.node];
      for (const id of n.node.parents) {
        const e = this.edgeById.get(id);
        if (!e?.line || !n.parts) continue;
        pulses.push({
          path: e.line, backward: false, text: fmt(view.data[e.edge.parent]), land: () => n.parts && showValues(n),
        });
      }
      // (a tensor's box holds its matrix back instead: its number rows are empty)
      if (pulses.length && n.parts && !n.parts.matrices) n.parts.dataValue.textContent = NOT_YET;
      return pulses;
    }
    for (const p of f.pushes ?? []) {
      const e = this.edgeById.get(p.edge);
      const n = this.nodes[p.parent];
      if (!e?.line || !n.parts) continue;
      if (!pulses.some((q) => q.node === n) && !n.parts.matrices) n.parts.gradValue.textContent = shownNumber(p.before);
      // Its edge's label shows when the pulse has landed on its place.
      const label = e.label?.shown && e.label.at ? e.label : null;
      if (label) label.g.style.visibility = "hidden";
      pulses.push({
        path: e.line, backward: true, node: n, to: label?.at ?? null,
        // (a closed group's push has no one local derivative: what it adds, grouped.js)
        text: p.local === null || p.local === undefined
          ? `+= ${fmt(p.contribution)}` : `+= ${factor(p.local)}×${factor(p.upstream)}`,
        land: () => {
          if (label) label.g.style.visibility = "";
          if (n.parts) showValues(n);
        },
      });
    }
    return pulses;
  }
}

// The largest |contribution| of any push in the graph's backward pass (finite ones).
function largestContribution(answer) {
  let largest = 0;
  for (const f of answer.backward ?? []) {
    for (const p of f.pushes ?? []) {
      const size = Math.abs(p.contribution);
      if (Number.isFinite(size)) largest = Math.max(largest, size);
    }
  }
  return largest;
}

// A pushing edge's stroke width: 2 px for nothing, up to 6 px for the largest push.
function pushWidth(size, largest) {
  if (!Number.isFinite(size)) return 6;
  return largest > 0 ? Math.round((2 + 4 * Math.sqrt(Math.min(1, size / largest))) * 10) / 10 : 2;
}

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// What is drawn inside a node's group: title, box, head, label, op, data and grad
// lines, then whatever update() has already said about it.
// A node's box: a head with its name and operation, then its data and grad. A compact
// node (the down layout's) has the same text in less padding, and no "input" word
// (an input's head is tinted either way, and its tooltip says so).
const FULL = { head: 26, pad: 9, baseline: 18, rows: [45, 63] };
const COMPACT = { head: 22, pad: 6, baseline: 16, rows: [35, 48] };
const isCompact = (n) => n.height < 64;

function drawNode(n) {
  if (n.parts) return;
  const { g, width: w, height: h } = n;
  const k = isCompact(n) ? COMPACT : FULL;
  const tip = el("title", {}, g);
  el("rect", { class: "node-box", width: w, height: h, rx: 9 }, g);
  el("rect", { class: "node-head", width: w, height: k.head, rx: 9 }, g);
  el("rect", { class: "node-head-fill", y: k.head - 9, width: w, height: 9 }, g);
  const title = el("text", { class: "node-label", x: k.pad, y: k.baseline }, g);
  const op = el("text", { class: "node-op", x: w - k.pad, y: k.baseline, "text-anchor": "end" }, g);
  const line = (cls, y, key) => {
    const text = el("text", { class: cls, x: k.pad, y }, g);
    el("tspan", { class: "node-key" }, text).textContent = key;
    return el("tspan", { class: "node-value", x: w - k.pad, "text-anchor": "end" }, text);
  };
  const dataValue = line("node-data", k.rows[0], "data");
  n.parts = { tip, title, op, dataValue, gradValue: line("node-grad", k.rows[1], "grad"), matrices: null };
  labelNode(n);
  showState(n);
}

// Where a group is drawn in a layout, in layout units: its closed box's top left corner,
// or its open area's name tab's; null if it is not drawn.
function groupPoint(L, answer, name) {
  const frame = L.frames?.find((f) => f.name === name);
  if (frame) return { x: frame.x, y: frame.y };
  const i = answer.nodes.findIndex((n) => n.box && n.label === name);
  return i >= 0 ? { x: L.nodes[i].x - L.node_width / 2, y: L.nodes[i].y - L.node_height / 2 } : null;
}

// An open group's frame: a tinted area under its units (graph-groups.js), and its name
// above its first unit, which closes it (a button: data-group, aria-expanded="true").
// An open group: [its tint, its name tab] (drawn in two layers: build()).
function drawFrame(f) {
  const g = el("g", { class: `group-frame depth-${Math.min(f.depth, 2)}`, "data-frame": f.name });
  const area = el("g", { class: "group-area" }, g); // faded as a whole: overlapping rects make one area
  for (const b of f.rects) el("rect", { x: r(b.x), y: r(b.y), width: r(b.width), height: r(b.height), rx: 12 }, area);
  const tab = el("g", {
    class: "group-tab", "data-group": f.name, role: "button", tabindex: 0, "aria-expanded": "true",
    "aria-label": `${f.name}, an open group: press to close it`,
  });
  const text = el("text", { class: "group-name", x: r(f.x + 10), y: r(f.y + 16) }, tab);
  text.textContent = `▾ ${f.name}`;
  const width = tabWidth(f.name);
  const box = { class: "group-tab-box", x: r(f.x + 2), y: r(f.y + 2), width: r(width), height: 20, rx: 8 };
  tab.prepend(el("rect", box));
  el("title", {}, tab).textContent = `${f.name}: press to close it into one box`;
  return [g, tab];
}

// A drawn node's name, operation and tooltip (also when its group is reused).
function labelNode(n) {
  const { node, parts } = n;
  parts.tip.textContent = node.box
    ? `${node.label}: a closed group of ${node.box.size} nodes, ` + (node.box.outputs.length > 1
      ? `with ${node.box.outputs.length} outputs (press to open it)`
      : "showing its output (press to open it)")
    : (node.is_input ? `${node.label} = ${node.expr} (an input)`
      : node.is_constant ? `${node.label} (a constant)` : `${node.label} = ${node.expr}`) + n.tipEnd;
  const compact = isCompact(n);
  parts.op.textContent = node.box ? "" : node.is_input ? (compact ? "" : "input")
    : node.is_constant ? (compact ? "" : "const") : opSymbol(node.op);
  // A long name is shortened with an ellipsis; the whole of it is in the tooltip
  // (<title>) and the node's accessible name.
  const pad = compact ? COMPACT.pad : FULL.pad;
  const op = parts.op.textContent ? textWidth(parts.op, parts.op.textContent) + 6 : 0;
  fitText(parts.title, node.box ? node.short : node.label, n.width - 2 * pad - op);
  parts.dataValue.textContent = "";
  parts.gradValue.textContent = "";
  fitMatrices(n);
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
  const matrices = n.parts.matrices;
  if (matrices) {
    shadeMatrix(matrices.data, n.last.values ?? null);
    shadeMatrix(matrices.grad, n.last.grads ?? null);
    const [rows, columns] = n.node.box.shape;
    const text = (values) => (values ? matrixText(values) : NOT_YET);
    n.parts.tip.textContent = `${n.node.label}: a ${rows}×${columns} tensor (press to open it)\n`
      + `data ${text(n.last.values)}\ngrad ${text(n.last.grads)}`;
    return;
  }
  showValue(n, n.parts.dataValue, shownNumber(n.last.data));
  showValue(n, n.parts.gradValue, shownNumber(n.last.grad));
}

// A closed tensor's box draws its data and its grad as matrices, each on its key's row, where
// a node writes its number (the box's elements are reused: the matrices of the node drawn
// there before go).
function fitMatrices(n) {
  const { parts, node } = n;
  parts.matrices?.data.g.remove();
  parts.matrices?.grad.g.remove();
  parts.matrices = null;
  if (!isMatrix(node.box)) return;
  const compact = isCompact(n);
  const k = compact ? COMPACT : FULL;
  const key = compact ? 30 : 36; // the keys' width ("data", "grad") and a space
  // each matrix on its key's row, clear of the other's and (by 4 px) of the box's border,
  // which a visit draws thicker
  const height = k.rows[1] - k.rows[0] - (compact ? 4 : 3);
  const below = compact ? 1 : 3; // how far below the key's baseline it may reach
  const width = n.width - 2 * k.pad - key;
  const area = (baseline) => ({ x: k.pad + key, y: baseline - height + below, width, height });
  parts.matrices = {
    data: drawMatrix(n.g, area(k.rows[0]), node.box.shape, "data"),
    grad: drawMatrix(n.g, area(k.rows[1]), node.box.shape, "grad"),
  };
}

// A compact node's number that would run into its key ("data", "grad") is squeezed to
// the room there is. The width is estimated (the value's font is monospaced, about
// 0.6 em a character), so the build's drawing and the browser's agree.
const VALUE_ROOM = 84 - 2 * COMPACT.pad - 32; // a compact node, less its padding and its key
function showValue(n, tspan, text) {
  tspan.textContent = text;
  const squeeze = isCompact(n) && [...text].length * 7.3 > VALUE_ROOM;
  if (squeeze) setAttrs(tspan, { textLength: VALUE_ROOM, lengthAdjust: "spacingAndGlyphs" });
  else if (tspan.hasAttribute("textLength")) {
    tspan.removeAttribute("textLength");
    tspan.removeAttribute("lengthAdjust");
  }
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
  e.length = undefined; // its length along the curve, measured again when a label needs it
  const d = smoothPath(e.points, e.direction);
  e.halo.setAttribute("d", d);
  e.line.setAttribute("d", d);
  e.line.setAttribute("marker-end", `url(#arrow-${e.marker})`);
  e.line.style.strokeWidth = e.width ?? "";
}

// An edge's label group, at the middle of its path: {g, box, text}.
// Where it finally goes is placeLabels's (graph-place.js): shown, its lines (full, and short
// if it can be shortened), set(lines) to write them (its size then in w and h), and a leader
// line to its edge when it sits away from it.
function edgeLabel(layer, points) {
  const mid = midpoint(points);
  const g = el("g", { class: "edge-label", transform: `translate(${r(mid.x)},${r(mid.y)})` }, layer);
  const leader = el("line", { class: "edge-label-leader" }, g);
  leader.style.display = "none";
  const box = el("rect", { class: "edge-label-box", rx: 4 }, g);
  const text = el("text", { class: "edge-label-text", "text-anchor": "middle" }, g);
  const label = {
    g, box, text, leader, shown: false, full: [], short: null, w: 0, h: 0, written: "",
    set(lines) {
      const key = lines.join("\n");
      if (label.written === key) return;
      label.written = key;
      Object.assign(label, setLines(text, box, lines));
    },
  };
  return label;
}

// An open group's name tab's width: estimated (about 7 px a character of 12 px sans), the same
// in the build's drawing and the browser's.
function tabWidth(name) {
  return [...`▾ ${name}`].length * 7.4 + 16;
}

// A small label on a white pill, centred at (x, y) of a node's group: {g, box, text}.
function pill(parent, kind, x, y, height) {
  const g = el("g", { class: `node-${kind}`, transform: `translate(${x},${y})` }, parent);
  const box = el("rect", { class: `node-${kind}-box`, rx: 7, height, y: r(-height / 2) }, g);
  const text = el("text", { class: `node-${kind}-text`, "text-anchor": "middle", dy: "0.33em" }, g);
  return { g, box, text };
}

// A teaching mode's note under the node (a tangent, a path sum), or none.
function setNote(n, text) {
  if (!text && !n.note) return;
  // (A closed group's size goes just under its box, clear of its grad; a pooled element may
  // have been a box before, or a node.)
  n.note ??= pill(n.g, "note", 0, 0, 17);
  n.note.y = n.height + 9.5; // clear of the box and its grad
  n.note.g.setAttribute("transform", `translate(${r(n.width / 2)},${r(n.note.y)})`);
  // A closed group's size is part of its first paint: its pill's width is estimated, the
  // same in the build's drawing as in the browser's (a mode's note is measured).
  showPill(n.note, text, Boolean(n.node.box));
}

// The tag above the node ("new", "visiting", "+= 3"), or none.
function setTag(n, text, kind) {
  if (!text && !n.tag) return;
  n.tag ??= pill(n.g, "tag", r(n.width / 2), -9, 17);
  n.tag.g.setAttribute("class", `node-tag${kind ? ` tag-${kind}` : ""}`);
  showPill(n.tag, text);
}

function showPill(p, text, estimated = false) {
  p.g.style.display = text ? "" : "none";
  if (!text) return;
  p.text.textContent = text;
  const width = (estimated ? [...text].length * 7.5 : textWidth(p.text, text)) + 12;
  p.w = width;
  p.box.setAttribute("width", r(width));
  p.box.setAttribute("x", r(-width / 2));
}

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
  return { w: width, h: height };
}
