// "More digits" (the node table's switch): how this widget writes numbers (state.digits).

import { update } from "../update.js";

export function showDigits(w, on) {
  update(w, { type: "digits", on });
}
