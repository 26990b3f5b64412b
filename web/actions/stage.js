// Which tab the stage shows (state.tab). The learner picks one; an experiment that
// starts on the stepper (a visit-order run, a "Why reverse mode" experiment, or a link
// to either) brings its own tab forward once, when it starts.

export const TABS = ["passes", "order", "why"];

// The learner picks a tab. "Step the passes" is about the ordinary passes, so it leaves
// any experiment on the stepper; "Visit order" leaves a "Why reverse mode" experiment
// (as its Run order would). "Why reverse mode" keeps a visit-order run on the graph:
// its push-and-pull experiment is about that very order.
export function chooseTab(w, tab) {
  if (!TABS.includes(tab)) return;
  w.state.tab = tab;
  const s = w.state.stepper;
  if (tab !== "why" && s?.trace.mode) {
    w.why.leave(); // renders
    return;
  }
  if (tab === "passes" && s?.pos.pass === "experiment") {
    s.toEnd("backward");
    w.render("Back to the ordinary backward pass. The visit-order run is kept: the Visit order tab shows it again.");
    return;
  }
  if (s) w.render();
  else w.stageTabs.show(tab);
}

// Called by render: the tab an experiment on the stepper belongs to, brought forward
// when that experiment starts (not on every step, so the learner can look elsewhere).
export function followExperiment(w, view) {
  const owner = view.pass === "experiment" ? "order" : view.pass === "mode" ? "why" : null;
  if (owner && owner !== w.state.tabOwner) w.state.tab = owner;
  w.state.tabOwner = owner;
  w.stageTabs.show(w.state.tab);
}
