// The nudge check's actions: nudge one input by h, or every input, and redo what is
// shown with a new graph's numbers (panels/nudge.js draws state.nudge).

import { update } from "../update.js";
import { ask, requestSource } from "./requests.js";
import { inputsOf } from "../lib/inputs.js";

function showNudge(w, asked, shown, stale = false) {
  update(w, { type: "nudge", nudge: { asked, shown, stale } }, false);
}

// Nudge one input by h (quiet: redo it, keeping what is shown until the answer comes).
export async function nudge(w, wrt, hText, quiet = false) {
  const asked = { kind: "one", wrt, h: hText };
  const s = w.state;
  showNudge(w, asked, quiet ? s.nudge?.shown ?? null : { say: `Nudging ${wrt} by ${hText}…` }, quiet);
  let answer;
  try {
    answer = await ask(w, "nudge", { cmd: "nudge", ...requestSource(s), wrt, h: Number(hText) });
  } catch (error) {
    showNudge(w, asked, { say: `The engine could not answer: ${error?.message ?? error}` });
    return;
  }
  if (answer === null) return; // a newer nudge (or graph) came first
  if (!answer.ok) {
    showNudge(w, asked, { say: `The engine could not nudge ${wrt}: ${answer.error.message}` });
    return;
  }
  const a = s.answer;
  showNudge(w, asked, { one: answer, wrt, output: a ? a.nodes[a.output].label : "the output" });
}

// Nudge every input by h, one after the other, and show them together.
export async function checkAll(w, names, hText, quiet = false) {
  if (!names.length) return;
  const asked = { kind: "all", h: hText };
  const s = w.state;
  showNudge(w, asked, quiet ? s.nudge?.shown ?? null : { say: `Nudging every input by ${hText}…` }, quiet);
  const isLatest = w.requests.nudge.begin(); // one check, many requests: each asked "aside" below
  const rows = [];
  for (const wrt of names) {
    let a;
    try {
      a = await ask(w, "side", { cmd: "nudge", ...requestSource(s), wrt, h: Number(hText) });
    } catch (error) {
      if (isLatest()) showNudge(w, asked, { say: `The engine could not answer: ${error?.message ?? error}` });
      return;
    }
    if (!isLatest()) return;
    if (!a.ok) {
      showNudge(w, asked, { say: `The engine could not nudge ${wrt}: ${a.error.message}` });
      return;
    }
    rows.push([wrt, a]);
  }
  showNudge(w, asked, { all: rows, h: hText });
}

// A new graph: keep a shown result honest, redone with the new numbers.
export function redoNudge(w) {
  const last = w.state.nudge?.asked;
  if (!last) return;
  const names = inputsOf(w.state.answer).map((i) => i.name);
  if (last.kind === "one" && names.includes(last.wrt)) nudge(w, last.wrt, last.h, true);
  else if (last.kind === "all") checkAll(w, names, last.h, true);
  else {
    w.requests.nudge.drop();
    update(w, { type: "nudge", nudge: null }, false);
  }
}
