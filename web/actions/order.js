// The visit-order experiment's actions: run the order in the list (the engine replays
// the backward pass in it), or go back to a correct one.

import { say } from "../lib/dom.js";
import { showExperiment } from "../panels/experiment.js";
import { wrongCount } from "../view.js";

export function orderChanged(w, order) {
  const exp = w.state.stepper?.trace.experiment;
  const ran = exp ? exp.order.map((id) => w.state.answer.nodes[id].label) : null;
  const hint = ran && ran.join() === order.join() ? "" : " Press Run order to try it.";
  w.ui.orderStatus.textContent = `${w.ui.orderStatus.textContent}${hint}`;
}

export async function runOrder(w) {
  if (!w.state.ready || !w.state.answer) {
    w.notReady("Run order");
    say(w.ui.orderStatus, "Run order needs the engine, which is still starting.");
    return;
  }
  const order = w.visitOrder.order;
  const seq = ++w.state.seq;
  say(w.ui.orderStatus, `Running the order ${order.join(", ")}…`);
  const mode = w.why.orderRule();
  const answer = await w.engine.call({ cmd: "load", ...w.state.source, order, mode });
  if (seq !== w.state.seq) return;
  if (!answer.ok) {
    say(w.ui.orderStatus, `The engine refused this order: ${answer.error.message}`);
    return;
  }
  const exp = answer.experiment;
  w.state.runs = (w.state.runs ?? 0) + 1;
  w.$("experiment-result").dataset.runs = String(w.state.runs); // how many orders have been run
  w.state.stepper.setMode(null); // a "Why reverse mode" experiment gives way to the run
  w.state.stepper.setExperiment(exp);
  w.state.stepper.toEnd("experiment");
  showExperiment(w.ui.experimentBody, exp, w.state.answer);
  const wrong = wrongCount(exp);
  const verdict = wrong === 0
    ? "every grad came out right."
    : `${wrong === 1 ? "1 grad is" : `${wrong} grads are`} wrong (see the table and the result below).`;
  say(w.ui.orderStatus, `Ran ${order.join(", ")}.`);
  w.render(`Ran the backward pass (${mode}) in the order ${order.join(", ")}: ${verdict} Step back to replay it one visit at a time.`);
}

export function restoreOrder(w) {
  w.visitOrder.restore();
  const s = w.state.stepper;
  if (!s) {
    say(w.ui.orderStatus, "The list is in a correct order.");
    return;
  }
  const wasExperiment = s.pos.pass === "experiment";
  s.setExperiment(null);
  if (wasExperiment) s.toEnd("backward");
  showExperiment(w.ui.experimentBody, null, w.state.answer);
  say(w.ui.orderStatus, `Restored a correct order: ${w.visitOrder.order.join(", ")}.`);
  w.render(wasExperiment
    ? "Back to the correct visit order: these are the right grads."
    : null);
}
