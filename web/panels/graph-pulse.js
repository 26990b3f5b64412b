// The gradient flowing: a step's numbers travel along the graph's edges as pulses.
//
// A backward visit's every `+=` is a pulse from the visited node along its edge to the
// parent, carrying "+= local×upstream"; a forward step's inputs travel into the node
// the same way, each carrying its value. While a pulse travels, the number it brings
// still shows what was there before, and it lands when the pulse arrives (about
// 450 ms). The data-* attributes and everything else are final at once: only the text
// on screen waits. The next step (or a new graph) finishes every pulse at once.
// While pulses travel the page counts as busy (<html data-busy>, boot/busy.js), so
// that whoever waits for it to settle reads the numbers as they finally show.

import { markBusy } from "../boot/busy.js";
import { r } from "./graph-geometry.js";

const SVG = "http://www.w3.org/2000/svg";
export const PULSE_MS = 450;

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  parent?.appendChild(node);
  return node;
}

const ease = (t) => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);

export class Pulses {
  constructor(layer) {
    this.layer = layer;
    this.running = []; // {g, path, backward, land}
    this.frame = 0;
    this.started = 0;
  }

  // Send pulses: each {path (an edge's SVGPathElement), backward (true: from the
  // path's end, the child, to its start, the parent), text, land(), to}. land() shows
  // the number the pulse brings; it is called when the pulse arrives or is finished.
  // A pulse with `to` ({t, x, y}: where its edge's label is, graph-place.js) flies to the
  // label, a fraction t along the path, its chip drawn onto the label's place, and covers
  // nothing the label does not; a forward pulse stops short of the node it feeds, so the
  // node's numbers are never under it.
  send(pulses) {
    this.finish();
    if (!pulses.length) return;
    for (const p of pulses) {
      const g = el("g", {
        class: p.backward ? "pulse" : "pulse is-forward", "data-pulse": "", "aria-hidden": "true",
      }, this.layer);
      el("circle", { class: "pulse-dot", r: 6 }, g);
      const chip = el("g", {}, g);
      const box = el("rect", { class: "pulse-box", rx: 6, height: 18, y: p.to ? -9 : -27 }, chip);
      const text = el("text", { class: "pulse-text", "text-anchor": "middle", y: p.to ? 4 : -13 }, chip);
      text.textContent = p.text;
      const width = p.text.length * 7.4 + 10; // 12 px mono: about 7.2 px a character
      box.setAttribute("width", r(width));
      box.setAttribute("x", r(-width / 2));
      this.running.push({ ...p, g, chip, length: p.path.getTotalLength() });
    }
    markBusy(1);
    this.started = performance.now();
    this.move(0);
    this.frame = requestAnimationFrame((now) => this.tick(now));
  }

  tick(now) {
    const t = Math.min(1, (now - this.started) / PULSE_MS);
    if (t >= 1) {
      this.finish();
      return;
    }
    this.move(ease(Math.max(0, t)));
    this.frame = requestAnimationFrame((next) => this.tick(next));
  }

  move(t) {
    for (const p of this.running) {
      const stop = p.to ? p.to.t : p.backward ? 0 : 0.7;
      const at = p.path.getPointAtLength(p.length * (p.backward ? 1 - t * (1 - stop) : t * stop));
      p.g.setAttribute("transform", `translate(${r(at.x)},${r(at.y)})`);
      if (p.to) {
        // drawn onto the label's place as it arrives (the label may sit beside the line)
        const end = p.path.getPointAtLength(p.length * stop);
        p.chip.setAttribute("transform", `translate(${r((p.to.x - end.x) * t)},${r((p.to.y - end.y) * t)})`);
      }
    }
  }

  // Every pulse lands now: its number shown, its element gone.
  finish() {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    const done = this.running;
    if (!done.length) return;
    this.running = [];
    for (const p of done) {
      p.g.remove();
      p.land();
    }
    markBusy(-1);
  }

  get active() {
    return this.running.length > 0;
  }
}
