// Which tab the stage shows (state.tab). The learner picks one; an experiment that
// starts on the stepper (a visit-order run, a "Why reverse mode" experiment, a run of
// "Your code", or a link to either) brings its own tab forward once, when it starts
// (update.js). What the widget starts with is one change too (startWith).

import { update } from "../update.js";
import { LEFT_MODE } from "./why.js";
import { LEFT_RUN, openCode } from "./code.js";

export const TABS = ["passes", "order", "why", "code"];

// The learner picks a tab. "Step the passes" is about the ordinary passes, so it leaves
// any experiment on the stepper; "Visit order" leaves a "Why reverse mode" experiment
// (as its Run order would). "Why reverse mode" keeps a visit-order run on the graph:
// its push-and-pull experiment is about that very order.
// "Your code" opens its mode (its worker starts in the background); another tab leaves
// the learner's run on the stepper, as it leaves an experiment.
export function chooseTab(w, tab) {
  if (!TABS.includes(tab)) return;
  const s = w.state.stepper;
  const chosen = { type: "tab", tab };
  const owner = s?.trace.mode ? (s.trace.mode.name === "code" ? "code" : "why") : null;
  if (tab === "code") openCode(w);
  if (owner && tab !== owner) {
    update(w, [chosen, { type: "modeLeft" }], owner === "code" ? LEFT_RUN : LEFT_MODE);
  } else if (tab === "passes" && s?.pos.pass === "experiment") {
    update(w, [chosen, { type: "step", to: "end", pass: "backward" }],
      "Back to the ordinary backward pass. The visit-order run is kept: the Visit order tab shows it again.");
  } else {
    update(w, chosen, s ? null : false);
  }
}

// What the widget starts with, before any graph (widget.js): the link's questions switch
// (off only when it says so) and the tab it opens on (null: the first). Nothing is said.
export function startWith(w, { questions, tab }) {
  update(w, [
    ...(questions === false ? [{ type: "questionsEnabled", on: false }] : []),
    ...(tab ? [{ type: "tab", tab }] : []),
  ], false);
}
