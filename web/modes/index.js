// The teaching modes. Every graph has two: the forward and backward passes
// (passes.js) and the visit-order experiment (visit-order.js). The "Why reverse mode"
// experiments below, in the order of their tabs, add one each. Every mode is one module
// with the same small interface (the passes need only marks, position and narration;
// the type is state.js's Mode; see docs/architecture.md). A mode never writes the
// widget's state and never asks the engine itself: it says what to ask and reads the
// answer, and the actions (actions/why.js) do the rest.
//
//   id, tab                      its name in links (?why=, ?run=) and its tab's label
//   panel(ctx)                   builds its panel: the explanation, its controls, a result box
//   graphLoaded(ctx, answer)     a new graph is on screen (refill selects, clear results)
//   request(ctx, params)         what to ask the engine: {request, what, set?} (set: the
//                                choices it was asked with), {refused: text}, or null
//   result(ctx, reply, asked)    reads the engine's answer (and draws its result box):
//                                {mode, message, atEnd?} for the stepper, memo (what it
//                                keeps for its next run on this graph), set, or said (a
//                                sentence, when nothing goes on the stepper)
//   marks(view, marks, answer)   what the current frame highlights on the graph
//   position(view)               the position line ("Forward mode for x1 · node 3 of 7")
//   details(view, answer)        the step details (nodes), or null for the ordinary ones
//   narration(view)              what the narration says (default: the frame's own text)
//   params(ctx) / fromParams(ctx, get) / replay(ctx, get)   what it keeps in a link, the
//                                choices a link brings back, and running it again from
//                                one (default: run with no params)
//
// ctx (actions/why.js's modeContext) holds what a mode may read (state: the section's
// choices, memo, answer()) and the actions it may ask for (set(choices), start(mode,
// params), leave(), ...).
//
// Adding an experiment: write modes/<name>.js and add it to this list.

import paths from "./paths.js";
import naive from "./naive.js";
import pushpull from "./pushpull.js";
import forward from "./forward.js";
import again from "./again.js";
import descent from "./descent.js";

/** @type {import("../state.js").Mode[]} */
export const MODES = [paths, naive, pushpull, forward, again, descent];
