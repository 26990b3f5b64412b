// A link's state restored (links.js reads the link, its notice and the address bar): the
// graph it asks for, loaded with what can be used of it (a part the engine refuses is left
// out, and said among the link's problems), then its place in the trace and its questions
// switch. An entry of the page's history without a link loads the first preset.

import { update } from "../update.js";
import { loadSource } from "./load.js";

// Load the link's graph: `wanted` is {source, values, order, open} as the link asks, and
// `fallback` the preset to load when its graph cannot be. Each part the engine refuses is
// dropped in turn and added to `problems`. Returns {answer, source, order}, with the answer
// that came (not ok when nothing of the link could be used), or null when the learner has
// already picked something else.
export async function loadLinked(w, { source, values, order, open }, fallback, problems) {
  let answer = null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const request = values ? { ...source, values } : source;
    try {
      answer = await loadSource(w, request, { order, expanded: open, kind: "link" });
    } catch (error) {
      answer = { ok: false, error: { message: error?.message ?? String(error), kind: "internal" } };
    }
    if (answer === null) return null;
    if (answer.ok) break;
    const err = answer.error;
    if (err.kind === "order" && order) {
      problems.push(`the visit order could not be used (${lower(err.message)})`);
      order = null;
    } else if (err.kind === "graph" && open) {
      problems.push(`the open groups could not be used (${lower(err.message)})`);
      open = null;
    } else if (values) {
      problems.push(`the input values could not be used (${lower(err.message)})`);
      values = null;
    } else if (source.program !== undefined) {
      problems.push(`the program in the link does not run (line ${err.line ?? 1}: ${lower(err.message)})`);
      source = { preset: fallback };
      order = null;
      open = null;
    } else {
      problems.push(lower(err.message));
      source = { preset: fallback };
      order = null;
      open = null;
    }
  }
  return { answer, source, order };
}

// Where in the trace the link puts the learner (its pass and step, an embed's start, or a
// visit-order run's end), and its questions switch. `st` is the link's state (url.js),
// `order` the visit order that could be used; what cannot be used is added to `problems`.
export function goToLinkedPlace(w, st, order, problems) {
  const s = w.state.stepper;
  let place = null;
  if (st.pass) {
    const frames = s.frames(st.pass).length;
    const index = st.pass === "start" ? -1 : st.step ?? 0;
    if (st.pass === "experiment" && !s.trace.experiment) {
      // (an order the link named but that could not be used is reported already)
      if (!(order === null && st.order)) {
        problems.push("pass=experiment needs a visit order, so the page starts at the beginning");
      }
    } else if (st.pass !== "start" && !(index >= 0 && index < frames)) {
      problems.push(`the ${st.pass} pass has no step ${index} (it has steps 0 to ${frames - 1})`);
    } else {
      place = { pass: st.pass, index };
    }
  } else if (st.embed && st.start) {
    place = startPlace(s, st.start);
  } else if (s.trace.experiment) {
    place = { pass: "experiment", index: s.frames("experiment").length - 1 };
  }
  if (place) update(w, { type: "step", pos: place });
  if (st.cp !== null) update(w, { type: "questionsEnabled", on: st.cp }, false);
}

// An entry of the page's history without a link (the address the page was opened at).
export function loadFirstPreset(w) {
  return loadSource(w, { preset: w.state.presets[0].id }, { kind: "link" });
}

function startPlace(s, start) {
  const back = s.backPass;
  if (start === "backward") return { pass: back, index: 0 };
  if (start === "end") return { pass: back, index: s.frames(back).length - 1 };
  if (start === "order") {
    const n = s.trace.forward.length;
    return n ? { pass: "forward", index: n - 1 } : null;
  }
  return null;
}

function lower(text) {
  const t = String(text ?? "").replace(/\.$/, "");
  return t.charAt(0).toLowerCase() + t.slice(1);
}
