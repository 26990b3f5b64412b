// What a frame means on screen, as pure functions of the trace's view (stepper.js's
// view(): pass, index, frame, data, grad, ...) and the engine's answer: which nodes and
// edges are highlighted, the position line, the narration. Each comes from the mode the
// frame belongs to: the passes, the visit-order experiment, or a "Why reverse mode"
// experiment (modes/). render.js draws them.

import passes from "./modes/passes.js";
import visitOrder from "./modes/visit-order.js";
import { MODES } from "./modes/index.js";
import yourCode from "./modes/your-code.js";
import { wrongGrads } from "./modes/shared.js";

/**
 * @typedef {import("./state.js").View} View
 * @typedef {import("./state.js").Answer} Answer
 * @typedef {import("./state.js").Mode} Mode
 */

// The modes whose frames go on the stepper as its "mode" pass: the "Why reverse mode"
// experiments, and a run of the learner's own code ("Your code").
/** @type {Map<string, Mode>} */
const WHY = new Map(MODES.map((mode) => [mode.id, mode]));
WHY.set(yourCode.id, yourCode);

/** @param {View} view @returns {Mode} */
function modeOf(view) {
  if (view.pass === "mode") return WHY.get(view.mode.name);
  return view.pass === "experiment" ? visitOrder : passes;
}

function emptyMarks() {
  return /** @type {any} */ ({
    current: null, visiting: null, visitTag: null,
    receiving: new Map(), pushes: new Map(), feeding: new Set(),
    late: new Set(), lost: new Set(), wrong: new Set(), named: new Map(), shouldBe: null,
  });
}

// The highlights of one view. A "Why reverse mode" experiment may add a column to the
// table, and at its end marks the grads it got wrong.
/** @param {View} view @param {Answer} answer */
export function marksFor(view, answer) {
  const marks = emptyMarks();
  const mode = view.mode;
  if (mode?.column) {
    marks.column = {
      title: mode.column.title, values: mode.column.field ? view[mode.column.field] : mode.column.values,
    };
  }
  modeOf(view).marks(view, marks, answer);
  if (mode && view.index === view.total - 1 && mode.correct) {
    for (const i of wrongGrads(view.grad, mode.correct)) marks.wrong.add(i);
    if (marks.wrong.size) marks.shouldBe = mode.correct;
  }
  return marks;
}

/** @param {View} view */
export function positionText(view) {
  return modeOf(view).position(view);
}

// The step details a mode writes itself, or null for the ordinary ones (panels/details.js).
/** @param {View} view @param {Answer} answer */
export function detailsFor(view, answer) {
  return modeOf(view).details?.(view, answer) ?? null;
}

/** @param {View} view */
export function narrationFor(view) {
  return modeOf(view).narration?.(view) ?? view.frame.text;
}

// The rule a visit-order run uses: the learner's choice, or push on a grouped view,
// whose boxes are visited by push only (docs/api.md).
export function orderRule(w) {
  return w.state.answer?.level ? "push" : w.state.why.rule;
}
