// The graph's viewport: how big the graph is drawn, which part of it is in view, and
// how the learner moves around it.
//
// A new graph is drawn whole when it can be with its text still readable: shrunk to
// at most READABLE_SCALE (the graph's smallest text, 12 CSS px, then stays at least 11
// px), or grown up to FIT_MAX. Of the layouts the engine sends (across and, for a small
// graph, down), pickLayout takes the one that shows the whole graph biggest in the box.
// A graph too big for that (a long typed program) starts at scale 1 and is panned and
// zoomed: the box (#graph-scroll) scrolls, and the zoom sets the SVG's size. Fit and the
// zoom buttons may go lower, down to ZOOM_MIN; the zoom readout then says the text is
// small. Panning: drag with a mouse or pen, one finger on touch, the wheel, or the arrow
// keys while the graph has focus. Zooming: ctrl + wheel (a trackpad's pinch), two
// fingers, + and − (0 fits), and the buttons in #graph-tools. The step in progress is
// kept in view (keepInView).
//
// boot/prerendered-gate.js picks the prerendered graph's layout and size by the same
// rule (roomFor, pickLayout, autoScale), before the page is first painted.

import { h } from "../lib/dom.js";

const READABLE_SCALE = 11 / 12; // the graph's text is at least 12 px at scale 1
const ZOOM_MIN = 0.05; // Fit shows a long program whole even on a phone (as an outline)
const FIT_MAX = 1.3; // a small graph is never blown up beyond this
const ZOOM_MAX = 3;
const ZOOM_STEP = 1.25;
const KEY_PAN = 60; // CSS px per arrow key
const DRAG_SLOP = 4; // px a press may move and still be a click

const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

// The scale at which the whole of `layout` fills a box of this size: its width, and
// its CSS max-height where it has one (a box that grows with the graph), else its
// height.
function roomFor(box, layout) {
  const height = Number.isFinite(box.maxHeight) ? box.maxHeight : box.height || Infinity;
  return Math.min(box.width / layout.width, height / layout.height);
}

// Which of a graph's layouts to draw in this box: of those that can be whole with
// readable text, the one that is whole at the biggest scale (up to its own size: bigger
// shows nothing more), the first (across) on a tie. When none can, the way it is drawn
// now (`current`: a box that shrank keeps its graph's way, panned), else the one that
// comes nearest to whole (a phone's small box: down, panned up and down).
export function pickLayout(layouts, box, current = null) {
  const size = (layout) => Math.min(1, roomFor(box, layout));
  const readable = layouts.filter((layout) => roomFor(box, layout) >= READABLE_SCALE);
  const pool = readable.length ? readable : layouts;
  if (!readable.length && layouts.some((layout) => layout.direction === current)) {
    return layouts.find((layout) => layout.direction === current);
  }
  return pool.reduce((best, layout) => (size(layout) > size(best) + 1e-9 ? layout : best));
}

// The scale a graph is first drawn at: whole if that keeps its text readable, else 1.
// A graph laid out down (a narrow box: a phone, where the graph stays on top of the
// screen) is not blown up beyond its size.
export function autoScale(box, layout) {
  const room = roomFor(box, layout);
  return room >= READABLE_SCALE ? Math.min(room, layout.direction === "down" ? 1 : FIT_MAX) : 1;
}

export class Viewport {
  // scroller: the box that scrolls; svg: the graph; tools: where the buttons go (or
  // null); onView: called when the part in view may have changed (zoom, resize);
  // onResize: called when the box changed size while the graph follows it (the graph
  // may want another layout), instead of fitting again here.
  constructor(scroller, svg, tools, onView, onResize = null) {
    this.scroller = scroller;
    this.svg = svg;
    this.onView = onView;
    this.onResize = onResize;
    this.layout = null;
    this.scale = 1;
    this.followFit = true; // until the learner zooms, the graph is fitted to its box
    // The box as last seen (a ResizeObserver and the scroll event keep these, so a
    // step never has to ask the layout).
    this.box = { width: 0, height: 0, maxHeight: Infinity, left: 0, top: 0, known: false };
    this.frame = 0; // the pending keepInView frame
    this.teardown = new AbortController();
    if (!scroller) return;
    const on = (target, type, fn, opts = {}) =>
      target.addEventListener(type, fn, { ...opts, signal: this.teardown.signal });
    on(scroller, "scroll", () => {
      this.box.left = scroller.scrollLeft;
      this.box.top = scroller.scrollTop;
    }, { passive: true });
    if (typeof ResizeObserver === "function") {
      // What the box measured when this observer last looked: not this.box, which a
      // step's keepInView may have measured after the box changed and before this ran.
      let seen = null;
      this.observer = new ResizeObserver(() => {
        const { width, maxHeight, height } = seen ?? this.box;
        this.measure();
        const b = this.box;
        seen = { width: b.width, maxHeight: b.maxHeight, height: b.height };
        // A box that grows with the graph changes height with every zoom: only its
        // width and its limit count; a box of its own size counts whole.
        const grew = Number.isFinite(b.maxHeight)
          ? Math.abs(maxHeight - b.maxHeight) > 1
          : Math.abs(height - b.height) > 1;
        if (!this.layout || !this.followFit || (Math.abs(width - b.width) <= 1 && !grew)) return;
        if (this.onResize) this.onResize();
        else this.refit();
      });
      this.observer.observe(scroller);
    }
    this.listen(on);
    if (tools) this.makeTools(tools);
  }

  destroy() {
    this.teardown.abort();
    this.observer?.disconnect();
    cancelAnimationFrame(this.frame);
  }

  measure() {
    const s = this.scroller;
    const max = parseFloat(getComputedStyle(s).maxHeight);
    Object.assign(this.box, {
      width: s.clientWidth, height: s.clientHeight, maxHeight: Number.isFinite(max) ? max : Infinity,
      left: s.scrollLeft, top: s.scrollTop, known: true,
    });
  }

  // The box as it is now, measured if it can be (for choosing a graph's layout).
  currentBox() {
    if (this.scroller?.isConnected) this.measure();
    return this.box;
  }

  // A new graph (also the next one of an edit): fitted to the box, unless the learner
  // has zoomed; the box keeps its place, as far as the new graph reaches.
  setLayout(layout) {
    this.layout = layout;
    if (!this.box.known && this.scroller?.isConnected) this.measure();
    this.apply(this.followFit ? this.autoScale() : this.scale);
  }

  // A new view of the same graph (a group opened or closed): scroll so that the point `to`
  // of the new layout is where the point `from` of the old one was on screen (layout
  // units, before the new layout was set), as far as the scroll reaches.
  keepPoint(from, fromScale, fromLayout, to) {
    const s = this.scroller;
    if (!s?.isConnected || !this.layout) return;
    const width = this.box.width || s.clientWidth;
    const offsetOf = (L, scale) => Math.max(0, (width - L.width * scale) / 2);
    const screenX = from.x * fromScale + offsetOf(fromLayout, fromScale) - this.box.left;
    const screenY = from.y * fromScale - this.box.top;
    const left = Math.max(0, to.x * this.scale + offsetOf(this.layout, this.scale) - screenX);
    const top = Math.max(0, to.y * this.scale - screenY);
    Object.assign(this.box, { left, top }); // (its scroll event measures it again)
    // Scrolled once the new view is drawn: scrolling now would force a layout of a half-made
    // drawing, and the drawing's own layout would follow.
    queueMicrotask(() => s.scrollTo({ left, top }));
  }

  autoScale() {
    return this.layout && this.box.width ? autoScale(this.box, this.layout) : 1;
  }

  // The box changed size: the graph follows it as a new graph would be fitted.
  refit() {
    this.followFit = true;
    if (this.scroller?.isConnected) this.measure();
    this.zoomTo(this.autoScale(), null);
  }

  // Fit (the button, the 0 key): the whole graph, however small its text gets.
  fit() {
    if (this.scroller?.isConnected) this.measure();
    const L = this.layout;
    if (L && this.box.width) this.zoomTo(clamp(roomFor(this.box, L), ZOOM_MIN, FIT_MAX), null);
    this.followFit = true;
  }

  zoomBy(factor, at = null) {
    this.followFit = false;
    this.zoomTo(this.scale * factor, at);
  }

  // Zoom to `scale`, keeping the graph's point under `at` (client coordinates; the
  // box's centre if null) where it is.
  zoomTo(scale, at) {
    if (!this.layout) return;
    scale = clamp(scale, ZOOM_MIN, ZOOM_MAX);
    const s = this.scroller;
    const rect = s.getBoundingClientRect();
    const px = at ? at.x - rect.left - s.clientLeft : s.clientWidth / 2;
    const py = at ? at.y - rect.top - s.clientTop : s.clientHeight / 2;
    // The graph's point under (px, py), in layout units (a narrower graph is centred).
    const offset = Math.max(0, (s.clientWidth - this.layout.width * this.scale) / 2);
    const gx = (s.scrollLeft + px - offset) / this.scale;
    const gy = (s.scrollTop + py) / this.scale;
    this.apply(scale);
    const newOffset = Math.max(0, (s.clientWidth - this.layout.width * scale) / 2);
    s.scrollTo({ left: gx * scale + newOffset - px, top: gy * scale - py });
    this.measure();
    this.onView?.();
  }

  apply(scale) {
    this.scale = scale;
    const L = this.layout;
    if (this.svg && L) {
      this.svg.style.width = `${Math.round(L.width * scale)}px`;
      this.svg.style.height = `${Math.round(L.height * scale)}px`;
      this.svg.style.minWidth = this.svg.style.maxWidth = "";
    }
    this.showZoom();
  }

  panBy(dx, dy) {
    this.scroller.scrollBy({ left: dx, top: dy });
  }

  // The part of the graph in view, in layout x: {lo, hi}, or null before it is known.
  visibleX() {
    const b = this.box;
    if (!b.width) return null;
    return { lo: b.left / this.scale, hi: (b.left + b.width) / this.scale };
  }

  // Pan so that the given nodes (the focus first, then the parents receiving from it), and
  // the boxes `extra()` gives then (the edge labels shown, placed by then: layout units,
  // centred), are in view, at the next frame (where a layout is due anyway): if they cannot
  // all be, the first node is.
  keepInView(nodeIds, extra = () => []) {
    const ids = nodeIds.filter((i) => i !== null && i !== undefined);
    if (!ids.length || !this.scroller) return;
    cancelAnimationFrame(this.frame);
    const layout = this.layout;
    this.frame = requestAnimationFrame(() => {
      if (!this.scroller.isConnected || this.layout !== layout) return;
      this.measure();
      const s = this.scroller;
      const scale = this.scale;
      const offset = Math.max(0, (this.box.width - layout.width * scale) / 2);
      const nodes = ids.map((i) => ({ x: layout.nodes[i].x, y: layout.nodes[i].y, w: layout.node_width,
        h: layout.node_height }));
      const boxes = [...nodes, ...extra()];
      const along = (coord, size, pad, start, room) => {
        const shift = coord === "x" ? offset : 0;
        const los = boxes.map((b) => (b[coord] - b[size] / 2 - pad) * scale + shift);
        const his = boxes.map((b) => (b[coord] + b[size] / 2 + pad) * scale + shift);
        let lo = Math.min(...los);
        let hi = Math.max(...his);
        if (lo >= start && hi <= start + room) return start;
        if (hi - lo > room) { // keep the focus in view, as much of the rest as fits
          lo = clamp(lo, his[0] - room, los[0]);
          hi = lo + room;
        }
        return Math.max(0, lo < start ? lo : hi - room);
      };
      const left = along("x", "w", 12, this.box.left, this.box.width);
      const top = along("y", "h", 20, this.box.top, this.box.height);
      if (Math.abs(left - this.box.left) < 1 && Math.abs(top - this.box.top) < 1) return;
      const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      s.scrollTo({ left, top, behavior: reduce ? "auto" : "smooth" });
    });
  }

  // ---------------------------------------------------------------- input

  listen(on) {
    const s = this.scroller;
    // Keys while the graph has focus. (The widget's ← → step the passes everywhere
    // else; here they pan, and the region's description says so.)
    on(s, "keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
      const pan = {
        ArrowLeft: [-KEY_PAN, 0], ArrowRight: [KEY_PAN, 0], ArrowUp: [0, -KEY_PAN], ArrowDown: [0, KEY_PAN],
      }[e.key];
      if (pan) this.panBy(...pan);
      else if (e.key === "+" || e.key === "=") this.zoomBy(ZOOM_STEP);
      else if (e.key === "-" || e.key === "_") this.zoomBy(1 / ZOOM_STEP);
      else if (e.key === "0") this.fit();
      else return;
      e.preventDefault();
    });
    // Ctrl + wheel (what a trackpad's pinch sends) zooms; a plain wheel scrolls the box.
    on(s, "wheel", (e) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      this.zoomBy(Math.exp(-e.deltaY * 0.01), { x: e.clientX, y: e.clientY });
    }, { passive: false });
    this.listenDrag(on);
    this.listenPinch(on);
  }

  // Drag with a mouse or pen to pan (touch pans natively). An editable input's box
  // is left alone: dragging it scrubs its value (learn.js).
  listenDrag(on) {
    const s = this.scroller;
    let drag = null;
    let swallowClick = false;
    on(s, "pointerdown", (e) => {
      if (e.pointerType === "touch" || e.button !== 0) return;
      if (e.target.closest?.(".is-editable, button, input, a")) return;
      drag = { id: e.pointerId, x: e.clientX, y: e.clientY, left: s.scrollLeft, top: s.scrollTop, moved: false };
    });
    on(s, "pointermove", (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < DRAG_SLOP) return;
      if (!drag.moved) {
        drag.moved = true;
        s.setPointerCapture?.(e.pointerId);
        s.classList.add("is-dragging");
        window.getSelection()?.removeAllRanges(); // a drag pans; it selects no text
      }
      s.scrollTo({ left: drag.left - dx, top: drag.top - dy });
    });
    const end = (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      swallowClick = drag.moved;
      drag = null;
      s.classList.remove("is-dragging");
    };
    on(s, "pointerup", end);
    on(s, "pointercancel", end);
    // A drag is not a click on what it started on.
    on(s, "click", (e) => {
      if (!swallowClick) return;
      swallowClick = false;
      e.stopPropagation();
      e.preventDefault();
    }, { capture: true });
  }

  // Two fingers zoom around their midpoint (the page itself is not zoomed there:
  // the box's touch-action allows only panning, panels.css).
  listenPinch(on) {
    let pinch = null;
    const spread = (t) => Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY);
    const middle = (t) => ({ x: (t[0].clientX + t[1].clientX) / 2, y: (t[0].clientY + t[1].clientY) / 2 });
    on(this.scroller, "touchstart", (e) => {
      if (e.touches.length === 2) pinch = { spread: spread(e.touches), scale: this.scale };
    }, { passive: true });
    on(this.scroller, "touchmove", (e) => {
      if (!pinch || e.touches.length !== 2) return;
      if (e.cancelable) e.preventDefault();
      this.followFit = false;
      this.zoomTo(pinch.scale * (spread(e.touches) / pinch.spread), middle(e.touches));
    }, { passive: false });
    on(this.scroller, "touchend", (e) => {
      if (e.touches.length < 2) pinch = null;
    }, { passive: true });
  }

  // ---------------------------------------------------------------- tools

  // Zoom out, zoom in, Fit, and a line saying how to move around (also the graph
  // region's description, for those who reach it by keyboard).
  makeTools(tools) {
    const button = (text, label, fn) => {
      const b = h("button", {
        type: "button", class: "button small graph-tool", "aria-label": label, title: label,
      }, text);
      b.addEventListener("click", fn, { signal: this.teardown.signal });
      return b;
    };
    this.zoomOut = button("−", "Zoom out", () => this.zoomBy(1 / ZOOM_STEP));
    this.zoomIn = button("+", "Zoom in", () => this.zoomBy(ZOOM_STEP));
    this.fitButton = button("Fit", "Fit the whole graph", () => this.fit());
    this.zoomText = h("span", { class: "graph-zoom", "aria-hidden": "true" }, "100%");
    const touch = window.matchMedia("(pointer: coarse)").matches;
    const hint = h("p", { id: "graph-keys", class: "graph-keys" },
      `${touch ? "Swipe to pan, pinch to zoom." : "Drag to pan."} `
      + "With the graph focused: arrow keys pan, + and − zoom, 0 fits.");
    const row = h("div", { class: "graph-tool-row" }, this.zoomOut, this.zoomText, this.zoomIn, this.fitButton);
    tools.replaceChildren(row, hint);
    this.scroller.setAttribute("aria-describedby", "graph-keys");
    this.showZoom();
  }

  showZoom() {
    if (!this.zoomText) return;
    const small = this.scale < READABLE_SCALE - 1e-6;
    this.zoomText.textContent = `${Math.round(this.scale * 100)}%${small ? " · small text" : ""}`;
    this.zoomText.classList.toggle("is-small", small);
    this.zoomOut.disabled = this.scale <= ZOOM_MIN + 1e-6;
    this.zoomIn.disabled = this.scale >= ZOOM_MAX - 1e-6;
  }
}
