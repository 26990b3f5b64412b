// Stepping: moving the position in the trace the engine computed once. No step calls
// Python; each is the Stepper's move (stepper.js) and a render.

export function stepper(w) {
  if (w.state.stepper) return w.state.stepper;
  w.notReady("Stepping");
  return null;
}

export function stepForward(w) {
  const s = w.stepper();
  if (!s) return;
  if (!s.next()) {
    const view = s.view();
    w.narrate(view.pass === "mode" ? w.why.endText(view) : view.pass === "experiment"
      ? "That was the last visit in your order. Step back to replay it, or Reset."
      : "The backward pass is finished. Step back to replay it, or Reset to start over.");
    return;
  }
  w.render();
}

export function stepBack(w) {
  const s = w.stepper();
  if (!s) return;
  if (!s.prev()) {
    w.narrate("Already at the start: nothing to undo.");
    return;
  }
  w.render();
}

// Jump to a step of the whole walk (the scrubber: 0 is the start, stepper.steps the end).
export function stepTo(w, offset) {
  const s = w.stepper();
  if (!s || s.offset === offset) return;
  s.goTo(offset);
  w.render();
}

export function startBackward(w) {
  const s = w.stepper();
  if (!s) return;
  const wasForward = s.pos.pass === "start" || s.pos.pass === "forward";
  const finished = s.pos.pass === "forward" && s.pos.index === w.state.answer.forward.length - 1;
  s.startBackward();
  const view = s.view();
  const lead = wasForward && !finished ? "Every node's data is filled in first. " : "";
  w.render(lead + view.frame.text);
}

export function reset(w) {
  const s = w.stepper();
  if (!s) return;
  s.reset();
  w.render(s.trace.experiment
    ? "Back at the start. The backward pass will follow your visit order; Restore correct order to go back to the right one."
    : "Back at the start: nothing is computed yet.");
}

// Put the graph where a problem of the learner's engine can be seen.
export function showProblem(w, problem) {
  const answer = w.state.answer;
  const s = w.state.stepper;
  if (!answer || !s) return;
  if (problem.kind === "order" && w.options.report?.order) {
    // The learner's own visit order, run on their graph: the late and lost marks show what it cost.
    w.visitOrder.arrange(w.options.report.order);
    w.runOrder().catch((error) => w.engineFailed(error));
    return;
  }
  const id = answer.nodes.findIndex((n) => n.label === problem.node);
  const visit = s.frames("backward").findIndex((f) => f.node === id && f.kind !== "seed");
  if (s.trace.experiment) s.setExperiment(null);
  if (problem.kind === "grad" || visit < 0) s.toEnd("backward");
  else s.pos = { pass: "backward", index: visit };
  w.render(problem.text);
}
