// What the widget says in its narration when something could not be done: the one
// place the actions and the page's helpers (learn.js, links.js) word it. Saying is a
// change of the state (update.js writes it), so this is an action like the others.

import { update } from "../update.js";

// Say a sentence in the narration.
export function narrate(w, text) {
  update(w, { type: "say" }, text);
}

// Something asked for the engine before it could answer.
export function notReady(w, what) {
  const reason = w.state.engine === "error"
    ? "the engine failed to start (press Retry at the top)"
    : `the engine is still starting (${w.state.stage})`;
  narrate(w, `${what} needs the engine, and ${reason}. It will work once the engine is ready.`);
}

// The engine could not answer a request.
export function engineFailed(w, error) {
  narrate(w, `The engine could not answer: ${error?.message ?? error}`);
}
