// The visit-order experiment: the backward pass run in the learner's own order
// ({cmd: "load", order, rule: "push" | "pull"}). The engine replays it frame by frame
// and says which contributions arrived late and which input → output paths they cut;
// the graph marks them as the replay reaches them, and at the end the grads that came
// out wrong and the node the verdict's mistake names as visited too early. Running it
// is an action (actions/order.js); its list is panels/visit-order.js, its result
// panels/experiment.js.

import passes from "./passes.js";
import { h, list, wrongGrads } from "./shared.js";
import { factor, fmt } from "../lib/format.js";

export default {
  id: "order",

  marks(view, marks, answer) {
    if (view.frame?.kind === "pull") pullMarks(view.frame, marks);
    else passes.marks(view, marks, answer);
    // The late contributions and the paths they cut, once the replay has reached them;
    // at the end, the grads that came out wrong.
    const exp = view.experiment;
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
      for (const i of wrongGrads(exp.grads, exp.correct_grads)) marks.wrong.add(i);
      marks.shouldBe = exp.correct_grads;
      // The node the verdict's mistake names as visited too early (the other end of its
      // late edge is already marked).
      const early = answer.nodes.findIndex((n) => n.label === exp.mistake?.nodes[0]);
      if (early >= 0) marks.named.set(early, "⚠ too early");
    }
    return marks;
  },

  position(view) {
    // The rule it ran with, so the line never names a switch that has moved on since.
    return passes.position(view, ` (your order, ${view.experiment.rule ?? "push"})`);
  },

  narration: (view) => passes.narration(view),

  // A push visit reads like the ordinary backward pass's; a pull visit has its own lines.
  details(view, answer) {
    return view.frame?.kind === "pull" ? pullDetails(view.frame, answer) : null;
  },
};

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

// A pull visit: the node reads its consumers' grads (an early one is not final yet).
function pullMarks(f, marks) {
  marks.visiting = f.node;
  marks.visitTag = "pulls";
  for (const p of f.pushes) {
    marks.pushes.set(p.edge, {
      lines: [`${factor(p.upstream)} × ${factor(p.local)}`, `= ${fmt(p.contribution)}`],
      late: p.late,
      tag: p.late ? "⚠ not final" : undefined,
    });
  }
}

// A pull visit in the visit-order experiment: the node sets its grad from its consumers.
function pullDetails(f, answer) {
  const label = (i) => answer.nodes[i].label;
  const parts = [h("p", { class: "detail-head" }, `Visit ${label(f.node)}: pull from the nodes that use it`)];
  if (!f.pushes.length) parts.push(h("p", { class: "muted" }, "Nothing to pull: the output keeps its seed."));
  parts.push(list(f.pushes.map((p) => h("li", { class: `push${p.late ? " is-late" : ""}` },
    h("code", { class: "push-rule" }, p.rule),
    h("div", { class: "push-math" },
      `${label(p.child)}.grad ${fmt(p.upstream)} × local ${factor(p.local)} = ${fmt(p.contribution)}`),
    h("div", { class: "push-change" }, `running sum ${fmt(p.before)} → ${fmt(p.after)}`),
    p.late
      ? h("div", { class: "push-late" }, `⚠ Too early: ${label(p.child)} has not been visited yet, `
        + "so its grad is not final and the paths through it are lost.")
      : null,
  )), "pushes"));
  return parts;
}
