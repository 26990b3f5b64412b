// The one writer of a widget's state. Every change, whatever asked for it (a click, an
// engine's answer, a link being restored), is a plain object {type, ...} given to
// update(w, change): it is applied to w.state here (by changes.js) and nowhere else, and then render.js
// draws the widget from the state. Actions (actions/) decide which changes to make and
// ask the engine for what they need; panels and modes only describe what the learner
// did, or draw what they are given.

import { applyChanges } from "./changes.js";
import { drawEngine, render } from "./render.js";

/**
 * @typedef {import("./state.js").State} State
 * @typedef {import("./changes.js").StateChange} StateChange
 */

/**
 * Apply a change to the widget's state (changes.js), then draw the widget from it.
 * @param {{state: State}} w the widget's context (widget.js)
 * @param {StateChange | StateChange[]} change one change, or several applied in turn before one render
 * @param {string | null | false | ((state: State) => string | null)} [message] what the
 *   narration says (null: the frame's own text; false: leave it as it is; a function: made
 *   from the state the change made)
 */
export function update(w, change, message = null) {
  const drawn = applyChanges(w.state, change, message);
  if (drawn === "status") drawEngine(/** @type {any} */ (w), w.state);
  else if (drawn === "all") render(/** @type {any} */ (w));
}
