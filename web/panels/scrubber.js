// The scrubber: one slider over every step of the walk (the forward pass, then the
// backward pass, or the visit-order run or "Why reverse mode" experiment on the
// stepper), so a learner can sweep back and forth. It is a native <input type=range>,
// so assistive technology knows it as a slider, and the keys are the platform's:
// ← → ↑ ↓ one step, Page Up / Page Down several, Home / End the start and the end.
// (The widget's own ← → handler leaves inputs alone, so a key never steps twice.)
//
//   const scrubber = new Scrubber(box, {onMove: (offset) => ...});
//   scrubber.follow(stepper, view, answer, where)   in every render (render.js), whatever
//                                                   moved the stepper; where = the position line
//
// Moving it calls onMove (the widget's stepTo action); it never writes the stepper itself.

import { gradName } from "../grouped.js";
import { h } from "../lib/dom.js";

export class Scrubber {
  constructor(box, { onMove }) {
    this.input = h("input", {
      type: "range", id: "scrubber", class: "scrubber", min: "0", max: "0", step: "1", value: "0",
      disabled: true, "aria-valuetext": "No graph yet",
    });
    box.replaceChildren(h("label", { for: "scrubber", class: "scrubber-label" }, "Steps"), this.input);
    // "input" fires at every step a drag passes, so the graph sweeps along live.
    this.input.addEventListener("input", () => onMove(Number(this.input.value)));
  }

  follow(stepper, view, answer, where) {
    this.input.disabled = false;
    this.input.max = String(stepper.steps);
    this.input.value = String(stepper.offset);
    this.input.setAttribute("aria-valuetext", valueText(view, answer, where));
  }
}

// The position in words: the position line's wording, then what the step does,
// e.g. "Backward pass, visit 3 of 4: visiting a".
function valueText(view, answer, position) {
  const where = position.replace(" · ", ", ");
  const node = view.frame && Number.isInteger(view.frame.node) ? answer.nodes[view.frame.node]?.label : null;
  if (!node || view.pass === "mode") return where;
  if (view.pass === "forward") return `${where}: computing ${node}`;
  if (view.frame.kind === "seed") return `${where}: ${gradName(answer.nodes[view.frame.node])}.grad = 1`;
  return `${where}: visiting ${node}`;
}
