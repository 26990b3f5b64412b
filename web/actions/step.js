// Stepping: moving the position in the trace the engine computed once. No step calls
// Python; each is a change of the Stepper's position (update.js) and a render.

import { update } from "../update.js";
import { narrate, notReady } from "./say.js";
import { arrangeAndRun } from "./order.js";

function stepperOf(w) {
  if (w.state.stepper) return w.state.stepper;
  notReady(w, "Stepping");
  return null;
}

export function stepForward(w) {
  const s = stepperOf(w);
  if (!s) return;
  if (!s.hasNext()) {
    const view = s.view();
    narrate(w, view.pass === "mode" ? endText(view) : view.pass === "experiment"
      ? "That was the last visit in your order. Step back to replay it, or Reset."
      : "The backward pass is finished. Step back to replay it, or Reset to start over.");
    return;
  }
  update(w, { type: "step", to: "next" });
}

// The last step of a "Why reverse mode" experiment.
function endText(view) {
  return `That was the last step of ${view.mode.title.toLowerCase()}. ` +
    "Step back to replay it, or press Leave this experiment.";
}

export function stepBack(w) {
  const s = stepperOf(w);
  if (!s) return;
  if (s.atStart()) {
    narrate(w, "Already at the start: nothing to undo.");
    return;
  }
  update(w, { type: "step", to: "prev" });
}

// Jump to a step of the whole walk (the scrubber: 0 is the start, stepper.steps the end).
export function stepTo(w, offset) {
  const s = stepperOf(w);
  if (!s || s.offset === offset) return;
  update(w, { type: "step", offset });
}

export function startBackward(w) {
  const s = stepperOf(w);
  if (!s) return;
  const wasForward = s.pos.pass === "start" || s.pos.pass === "forward";
  const finished = s.pos.pass === "forward" && s.pos.index === w.state.answer.forward.length - 1;
  const lead = wasForward && !finished ? "Every node's data is filled in first. " : "";
  update(w, { type: "step", to: "backward" }, (state) => lead + state.stepper.view().frame.text);
}

export function reset(w) {
  const s = stepperOf(w);
  if (!s) return;
  update(w, { type: "step", to: "start" }, s.trace.experiment
    ? "Back at the start. The backward pass will follow your visit order; " +
      "Restore correct order to go back to the right one."
    : "Back at the start: nothing is computed yet.");
}

// Put the graph where a problem of the learner's engine can be seen.
export function showProblem(w, problem) {
  const answer = w.state.answer;
  const s = w.state.stepper;
  if (!answer || !s) return;
  if (problem.kind === "order" && w.options.report?.order) {
    // The learner's own visit order, run on their graph: the late and lost marks show what it cost.
    arrangeAndRun(w, w.options.report.order);
    return;
  }
  const id = answer.nodes.findIndex((n) => n.label === problem.node);
  const visit = s.frames("backward").findIndex((f) => f.node === id && f.kind !== "seed");
  const leaveExperiment = Boolean(s.trace.experiment);
  if (problem.kind === "grad" || visit < 0) {
    update(w, { type: "step", to: "end", pass: "backward", leaveExperiment }, problem.text);
  } else {
    update(w, { type: "step", pos: { pass: "backward", index: visit }, leaveExperiment }, problem.text);
  }
}
