// The visit-order experiment's actions: run the learner's order ({cmd: "load", order,
// rule: "push" | "pull"}) and play it (actions/play.js), restore the correct one, and
// say what a move in the list did. Its frames are the visit-order mode's
// (modes/visit-order.js), its list panels/visit-order.js, its result panels/experiment.js.

import { update } from "../update.js";
import { engineFailed, notReady } from "./say.js";
import { ask } from "./requests.js";
import { playRun, runPlays } from "./play.js";
import { wrongGrads } from "../modes/shared.js";
import { levelOf } from "../grouped.js";
import { orderRule } from "../view.js";

// Push or pull, for the visit-order experiment (the radio buttons next to the list).
// The visit-order status line says `text` (say: announce it even if unchanged).
export function orderStatus(w, text, say = true) {
  update(w, { type: "orderStatus", text, say }, false);
}

// The visit order of the run on the graph, if any (node labels): what a link names, and
// what a new graph of the same shape runs again.
export function ranOrder(state) {
  const exp = state.stepper?.trace.experiment;
  return exp ? exp.order.map((id) => state.answer.nodes[id].label) : null;
}

// The learner moved an item of the list (the panel announced how): the new order, and
// whether Run order would change anything.
export function orderChanged(w, order) {
  update(w, { type: "order", labels: order }, false);
  const s = w.state;
  const ran = ranOrder(s);
  const hint = ran && ran.join() === order.join() ? "" : " Press Run order to try it.";
  orderStatus(w, `${s.orderStatus.text}${hint}`, false);
}

export async function runOrder(w) {
  if (!w.state.ready || !w.state.answer) {
    notReady(w, "Run order");
    orderStatus(w, "Run order needs the engine, which is still starting.");
    return;
  }
  const order = w.state.order;
  orderStatus(w, `Running the order ${order.join(", ")}…`);
  const rule = orderRule(w);
  let answer;
  try {
    answer = await ask(w, "load", { cmd: "load", ...w.state.source, ...levelOf(w.state), order, rule });
  } catch (error) {
    // The status line must not stay at "Running…"; the caller narrates the failure.
    orderStatus(w, `The order could not be run: ${error?.message ?? error}`);
    throw error;
  }
  if (!answer) return;
  if (!answer.ok) {
    orderStatus(w, `The engine refused this order: ${answer.error.message}`);
    return;
  }
  orderStatus(w, `Ran ${order.join(", ")} with ${rule}.`);
  // The answer goes to update() as it came: changes.js decodes it (a grouped graph's run read
  // at its level, grouped.js), and the result is worded from the run it put on the stepper.
  // (Decoding maps the run's frames one to one, so their count is known before.)
  const result = () => resultOf(w.state.stepper.trace.experiment, order, rule);
  // The run plays visit by visit (actions/play.js): the narration, a live region, says
  // only that it plays and then the result, not every visit (the details panel shows each).
  if (!runPlays(answer.experiment.frames.length)) {
    update(w, { type: "orderRun", answer }, result);
    return;
  }
  update(w, { type: "orderRun", answer, play: true },
    `Playing the backward pass (${rule}) in the order ${order.join(", ")}, one visit at a time.`);
  playRun(w, result());
}

// What a run of `order` found, for the narration (the run decoded: update() stored it).
function resultOf(exp, order, rule) {
  const wrong = wrongGrads(exp.grads, exp.correct_grads).length;
  // The mistake is named as the result box names it (panels/experiment.js).
  const mistake = exp.mistake ? ` Mistake: ${exp.mistake.name}.` : "";
  const verdict = wrong === 0
    ? "every grad came out right."
    : `${wrong === 1 ? "1 grad is" : `${wrong} grads are`} wrong ` +
      `(marked ✗ on the graph and in the table; the result says why).${mistake}`;
  return `Ran the backward pass (${rule}) in the order ${order.join(", ")}: ${verdict} ` +
    "Step back to replay it one visit at a time.";
}

// Put the list in this order and run it (a question's "Run this order", a check report's order).
export function arrangeAndRun(w, labels) {
  update(w, { type: "order", labels }, false);
  return runOrder(w).catch((error) => engineFailed(w, error));
}

// Restore correct order undoes the experiment and nothing else: the learner keeps
// their place in the passes (a replayed visit becomes the same visit of the correct
// pass), and with nothing to undo it only says so.
export function restoreOrder(w) {
  const s = w.state.stepper;
  const ran = Boolean(s?.trace.experiment);
  const correct = w.state.correctOrder;
  if (!ran && w.state.order.join("\u0000") === correct.join("\u0000")) {
    orderStatus(w, `The order is already the correct one: ${correct.join(", ")}.`);
    return;
  }
  update(w, { type: "order", labels: correct }, false);
  orderStatus(w, `Restored a correct order: ${correct.join(", ")}.`);
  if (!ran) return; // only the list had changed
  const replaying = s.pos.pass === "experiment";
  update(w, { type: "orderRestored" }, replaying
    ? "Back to the correct visit order, at the same step: these are the right grads."
    : null);
}
