// Drawing: everything a widget shows comes from its state (w.state: the engine's answer
// and the Stepper's position) through view.js's pure functions. Actions call
// w.render(message) after they change the state; nothing else draws.

import { renderDetails } from "./panels/details.js";
import { say, setEnabled } from "./lib/dom.js";
import { detailsFor, marksFor, narrationFor, positionText } from "./view.js";

export function render(w, message = null) {
  const s = w.state.stepper;
  if (!s) return;
  const view = s.view();
  const marks = marksFor(view, w.state.answer, w.why);
  w.graph.update(view, marks);
  w.graph.keepInView([marks.current ?? marks.visiting, ...marks.receiving.keys()]);
  w.table.update(view, marks);
  const parts = view.pass === "mode" ? null : detailsFor(view, w.state.answer);
  if (view.pass === "mode") w.why.details(w.ui.details, view);
  else if (parts) w.ui.details.replaceChildren(...parts);
  else renderDetails(w.ui.details, view, w.state.answer);
  w.code.update(view, w.state.answer);
  const where = positionText(view, w.why);
  w.ui.position.textContent = where;
  w.scrubber.follow(s, view, w.state.answer, where);
  setEnabled(w.ui.back, !s.atStart());
  setEnabled(w.ui.forward, !s.atEnd());
  setEnabled(w.ui.startBackward, true);
  setEnabled(w.ui.reset, true);
  w.host.dataset.pass = view.pass;
  w.host.dataset.step = String(view.index);
  if (view.pass === "experiment") {
    const visited = w.state.answer.nodes[view.frame.node].label;
    w.visitOrder.mark(view.index === 0 ? null : visited, "visiting");
  } else {
    w.visitOrder.mark(null);
  }
  w.why.sync(view);
  w.followExperiment(view);
  w.narrate(message ?? narrationFor(view));
  w.learn.rendered(view);
  performance.mark("gw:render");
}

export function narrate(w, text) {
  say(w.ui.narration, text);
}
