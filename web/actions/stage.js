// Which tab the stage shows (state.tab). The learner picks one; an experiment that
// starts on the stepper (a visit-order run, a "Why reverse mode" experiment, or a link
// to either) brings its own tab forward once, when it starts (update.js).

import { update } from "../update.js";
import { LEFT_MODE } from "./why.js";

export const TABS = ["passes", "order", "why"];

// The learner picks a tab. "Step the passes" is about the ordinary passes, so it leaves
// any experiment on the stepper; "Visit order" leaves a "Why reverse mode" experiment
// (as its Run order would). "Why reverse mode" keeps a visit-order run on the graph:
// its push-and-pull experiment is about that very order.
export function chooseTab(w, tab) {
  if (!TABS.includes(tab)) return;
  const s = w.state.stepper;
  const chosen = { type: "tab", tab };
  if (tab !== "why" && s?.trace.mode) {
    update(w, [chosen, { type: "modeLeft" }], LEFT_MODE);
  } else if (tab === "passes" && s?.pos.pass === "experiment") {
    update(w, [chosen, { type: "step", to: "end", pass: "backward" }],
      "Back to the ordinary backward pass. The visit-order run is kept: the Visit order tab shows it again.");
  } else {
    update(w, chosen, s ? null : false);
  }
}
