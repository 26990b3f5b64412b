// The teaching modes. Every graph has two: the forward and backward passes
// (passes.js) and the visit-order experiment (visit-order.js). The "Why reverse mode"
// experiments below, in the order of their tabs, add one each. Every mode is one module
// with the same small interface (the passes need only the last four; see
// docs/architecture.md):
//
//   id, tab                      its name in links (?why=, ?run=) and its tab's label
//   panel(ctx)                   builds its panel: the explanation, its controls, a result box
//   graphLoaded(ctx, answer)     a new graph is on screen (refill selects, clear results)
//   run(ctx, params)             asks the engine; returns {mode, message} for the stepper, or null
//   marks(view, marks, answer)   what the current frame highlights on the graph
//   position(view)               the position line ("Forward mode for x1 · node 3 of 7")
//   details(view, answer)        the step details (nodes), or null for the ordinary ones
//   narration(view)              what the narration says (default: the frame's own text)
//   params(ctx) / fromParams(ctx, get) / replay(ctx, get)   what it keeps in a link, and
//                                running it again from one (default: run with no params)
//
// Adding an experiment: write modes/<name>.js and add it to this list.

import paths from "./paths.js";
import naive from "./naive.js";
import pushpull from "./pushpull.js";
import forward from "./forward.js";
import again from "./again.js";
import descent from "./descent.js";

export const MODES = [paths, naive, pushpull, forward, again, descent];
