// Every request a widget makes of the engine goes through ask(): the one place that
// calls it. Requests come in kinds, and in each kind only the newest counts (lib/dom.js's
// newestOnly): an answer that a newer request of its kind has overtaken resolves to
// null, and its sender drops it.
//
//   "load"   every request that brings a new graph or a visit-order run: a preset, a
//            program, new input values, a link; each supersedes the one before
//   "why"    a "Why reverse mode" experiment (a new graph also supersedes it)
//   "nudge"  the nudge check (a new graph also supersedes it)
//   "side"   what never goes stale: the list of presets, a preset's text, a plot's numbers

import { newestOnly } from "../lib/dom.js";

const KINDS = ["load", "why", "nudge"];

// The widget's request kinds (widget.js makes them with the widget).
export function requestKinds() {
  return Object.fromEntries(KINDS.map((kind) => [kind, newestOnly()]));
}

// Ask the engine. Resolves with its answer, or null if a newer request of the same kind
// was made meanwhile; rejects if the engine itself failed (and the request is still the newest).
/**
 * @param {{
 *   engine: {call: (request: object) => Promise<any>},
 *   requests: Object<string, ReturnType<typeof newestOnly>>,
 * }} w
 * @param {string} kind
 * @param {object} request
 */
export async function ask(w, kind, request) {
  const isLatest = kind === "side" ? () => true : w.requests[kind].begin();
  let answer;
  try {
    answer = await w.engine.call(request);
  } catch (error) {
    if (!isLatest()) return null; // a failure nobody waits for any more
    throw error;
  }
  return isLatest() ? answer : null;
}

// Every answer on its way is dropped (the widget is taken down).
export function dropAll(w) {
  for (const kind of KINDS) w.requests[kind].drop();
}

// The request fields for the graph on screen: {preset, values?}, {program}, or a
// kernel's graph's {values?}.
export function requestSource(state) {
  const src = state.source ?? {};
  if (src.preset) return src.values ? { preset: src.preset, values: { ...src.values } } : { preset: src.preset };
  if (src.program !== undefined) return { program: src.program };
  return src.values ? { values: { ...src.values } } : {}; // the engine's own graph (a notebook kernel's)
}
