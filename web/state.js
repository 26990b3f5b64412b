// A widget's state: one plain object. Everything the widget shows is drawn from it
// (render.js); only the actions (actions/) write it, and only they call the engine.
// The Stepper (stepper.js) holds the engine's whole trace and the position in it;
// stepping moves the position and never calls Python.

export function createState() {
  return {
    ready: false, // the engine has started and a graph from it is on screen
    stage: "downloading", // the engine's boot stage, while it starts
    presets: [], // [{id, title, summary, program}], the chooser's list
    presetDetails: new Map(), // id → the whole preset (lesson text, checkpoints)
    answer: null, // the engine's graph answer on screen
    source: null, // what that answer was made from: {preset, values?}, {program}, or {values?} (a kernel's graph)
    stepper: null, // the trace of that answer and the position in it
    seq: 0, // the latest load request; the answer of an older one is dropped
    pendingPreset: null, // a preset picked before the engine was ready
    unverified: null, // the prerendered answer on screen, until the engine has given the same
    runs: 0, // visit orders run (tests wait on the count)
    tab: "passes", // the stage's tab: "passes" | "order" | "why" (actions/stage.js)
    tabOwner: null, // the tab of the experiment on the stepper, if any
    why: {}, // the "Why reverse mode" section's choices: tab, wrt, family, rule, ... (modes/why-reverse.js)
  };
}
