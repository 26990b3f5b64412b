// What a frame means on screen, as pure functions of the trace's view (stepper.js's
// view(): pass, index, frame, data, grad, ...) and the engine's answer: which nodes and
// edges are highlighted, the position line, the narration. Each comes from the mode the
// frame belongs to: the passes, the visit-order experiment, or a "Why reverse mode"
// experiment (modes/). render.js draws them.

import passes from "./modes/passes.js";
import visitOrder from "./modes/visit-order.js";

function modeOf(view) {
  return view.pass === "experiment" ? visitOrder : passes;
}

function emptyMarks() {
  return {
    current: null, visiting: null, visitTag: null,
    receiving: new Map(), pushes: new Map(), feeding: new Set(),
    late: new Set(), lost: new Set(), wrong: new Set(), shouldBe: null,
  };
}

// The highlights of one view. A "Why reverse mode" frame is marked by its mode (`why`).
export function marksFor(view, answer, why) {
  if (view.pass === "mode") return why.marks(view, emptyMarks());
  return modeOf(view).marks(view, emptyMarks(), answer);
}

export function positionText(view, why) {
  if (view.pass === "mode") return why.position(view);
  return modeOf(view).position(view);
}

// The step details a mode writes itself, or null for the ordinary ones (panels/details.js).
export function detailsFor(view, answer) {
  return modeOf(view).details?.(view, answer) ?? null;
}

export function narrationFor(view) {
  return modeOf(view).narration(view);
}
