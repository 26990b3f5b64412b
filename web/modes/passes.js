// The forward and backward passes, which every graph starts with. Their frames come
// with every graph the engine loads ({cmd: "load"}): one forward frame per node, then
// the seed and one backward visit per node. Like the visit-order run and every mode, it
// says what a frame marks on the graph, how the position line and the narration read.

import { markVisit } from "./shared.js";

export default {
  id: "passes",

  marks(view, marks, answer) {
    const f = view.frame;
    if (view.pass === "forward") {
      marks.current = f.node;
      for (const e of answer.nodes[f.node].parents) marks.feeding.add(e);
    } else if (f) {
      markVisit(f, marks);
    }
    return marks;
  },

  position(view, suffix = "") {
    if (view.pass === "start") return "Not started: nothing computed yet";
    if (view.pass === "forward") return `Forward pass · node ${view.index + 1} of ${view.total}`;
    if (view.index === 0) return `Backward pass${suffix} · seed`;
    return `Backward pass${suffix} · visit ${view.index} of ${view.total - 1}`;
  },

  narration(view) {
    if (view.pass === "start") return "Back at the start: nothing is computed yet.";
    let text = view.frame.text;
    if (text === undefined) return null; // a big graph's visit, its sentence on its way (actions/load.js)
    if (view.pass === "forward" && !/[.!?]$/.test(text)) text += "."; // "d = b * c = 18." then more
    if (view.pass === "forward" && view.index === view.total - 1) {
      text += " The forward pass is done; Start backward seeds the output's grad.";
    }
    if (view.final) text += " That was the last visit in your order.";
    else if (view.pass === "backward" && view.index === view.total - 1) text += " The backward pass is done.";
    return text;
  },
};
