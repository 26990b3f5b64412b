// What a frame means on screen, as pure functions of the trace's view (stepper.js's
// view(): pass, index, frame, data, grad, ...) and the engine's answer: which nodes and
// edges are highlighted, the position line, the narration. render.js draws them.

import { exact } from "./lib/format.js";
import { pullMarks } from "./modes/why-reverse.js";
import { pushLines } from "./modes/shared.js";

// The highlights of one view. A "Why reverse mode" frame is marked by its mode (`why`).
export function marksFor(view, answer, why) {
  const marks = {
    current: null, visiting: null, visitTag: null,
    receiving: new Map(), pushes: new Map(), feeding: new Set(),
    late: new Set(), lost: new Set(), wrong: new Set(), shouldBe: null,
  };
  const f = view.frame;
  if (view.pass === "mode") return why.marks(view, marks);
  if (view.pass === "forward") {
    marks.current = f.node;
    for (const e of answer.nodes[f.node].parents) marks.feeding.add(e);
  } else if (f?.kind === "pull") {
    pullMarks(f, marks);
  } else if (f) {
    marks.visiting = f.node;
    if (f.kind === "seed") {
      marks.visitTag = "seed: grad 1";
    } else {
      for (const p of f.pushes) {
        marks.receiving.set(p.parent, "+=");
        marks.pushes.set(p.edge, { lines: pushLines(p), late: p.late });
      }
    }
  }
  const exp = view.experiment;
  if (exp) {
    // In the visit-order experiment: the late contributions and the paths they cut,
    // once the replay has reached them; at the end, the grads that came out wrong.
    const lateFrame = new Map();
    for (const l of exp.late) {
      if (l.frame <= view.index) marks.late.add(l.edge);
      lateFrame.set(l.edge, l.frame);
    }
    for (const path of exp.lost_paths) {
      if ((lateFrame.get(path.late_edge) ?? Infinity) > view.index) continue;
      for (const e of pathEdges(answer, path.nodes)) marks.lost.add(e);
    }
    if (view.final) {
      exp.grads.forEach((g, i) => {
        if (exact(g) !== exact(exp.correct_grads[i])) marks.wrong.add(i);
      });
      marks.shouldBe = exp.correct_grads;
    }
  }
  return marks;
}

// The edges along a path of node ids (every parallel edge between two neighbours).
function pathEdges(answer, nodeIds) {
  const out = [];
  for (let k = 0; k + 1 < nodeIds.length; k++) {
    for (const e of answer.edges) {
      if (e.parent === nodeIds[k] && e.child === nodeIds[k + 1]) out.push(e.id);
    }
  }
  return out;
}

export function positionText(view, why) {
  const order = view.pass === "experiment" ? " (your order)" : "";
  if (view.pass === "start") return "Not started: nothing computed yet";
  if (view.pass === "mode") return why.position(view);
  if (view.pass === "forward") return `Forward pass · node ${view.index + 1} of ${view.total}`;
  if (view.index === 0) return `Backward pass${order} · seed`;
  return `Backward pass${order} · visit ${view.index} of ${view.total - 1}`;
}

export function narrationFor(view) {
  if (view.pass === "start") return "Back at the start: nothing is computed yet.";
  let text = view.frame.text;
  if (view.pass === "forward" && !/[.!?]$/.test(text)) text += "."; // "d = b * c = 18." then more
  if (view.pass === "forward" && view.index === view.total - 1) {
    text += " The forward pass is done; Start backward seeds the output's grad.";
  }
  if (view.final) text += " That was the last visit in your order.";
  else if (view.pass === "backward" && view.index === view.total - 1) text += " The backward pass is done.";
  return text;
}

// "1 grad is" / "2 grads are": how many of the experiment's grads came out wrong.
export function wrongCount(exp) {
  return exp.grads.filter((g, i) => exact(g) !== exact(exp.correct_grads[i])).length;
}

