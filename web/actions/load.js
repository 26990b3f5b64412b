// Loading: the engine's boot, the presets, and every request that brings a new graph
// (a preset, a program, new input values, a link) or the build's prerendered one
// before the engine is ready. Each asks the engine through requests.js and gives what
// comes back to update(); an answer overtaken by a newer load is dropped.

import { busyUntil } from "../boot/busy.js";
import { prerendered } from "../boot/first-paint.js";
import { parametersOf } from "../url.js";
import { update } from "../update.js";
import { engineFailed, narrate, notReady } from "./say.js";
import { ask } from "./requests.js";
import { orderRule } from "../view.js";
import { defaultExpanded, levelOf } from "../grouped.js";

// Draw the prerendered graph only when the widget's query asks for nothing but that
// preset (or nothing at all): a permalink or an embed with values, a program, a
// place or a teaching mode waits for the engine rather than show something else.
const FIRST_PAINT_PARAMS = new Set(["preset", ...parametersOf("boot")]);

export async function boot(w) {
  update(w, { type: "engine", engine: "loading" }, false);
  const status = w.engine.status;
  const progress = status.state === "loading" ? status : { stage: "downloading", fraction: 0 };
  update(w, { type: "progress", ...progress }, false);
  try {
    // A retry restarts a failed engine (every widget on the page shares it), and
    // gives the boot four times as long each time (a slow line deserves more time).
    if (w.retries++ && w.engine.status.state === "error") {
      w.engine.restart({ bootTimeoutMs: Math.min(w.engine.bootTimeoutMs * 4, Math.max(w.BOOT_TIMEOUT_MS, 60000)) });
    }
    await w.engine.ready;
    const answer = await ask(w, "side", { cmd: "presets" });
    if (!answer.ok) throw new Error(answer.error?.message ?? "The engine did not list its presets.");
    if (w.unmounted) return;
    update(w, { type: "presets", presets: answer.presets }, false);
    const pending = w.state.pendingPreset;
    const wanted = pending ?? w.state.source?.preset ?? initialPreset(w);
    update(w, { type: "pendingPreset", id: null });
    // The state the query asks for (url.js); else a prerendered graph
    // of the same preset stays, with the learner's place in it.
    if (w.options.graph) {
      // The engine's own graph (a notebook kernel's): a load that names no preset or program.
      const first = await loadSource(w, {}, { kind: "graph" });
      if (first && !first.ok) throw new Error(first.error.message);
    } else {
      const restored = await w.learn.restore(pending);
      if (!restored && w.state.source?.preset !== wanted) await loadPreset(w, wanted);
    }
    if (w.unmounted) return;
    update(w, { type: "engine", engine: "ready" }, false);
    for (const hook of w.hooks.engineReady) hook(w);
    if (w.options.report) w.report.open();
  } catch (error) {
    if (w.unmounted) return;
    update(w, { type: "engine", engine: "error", error: error?.message ?? String(error) },
      "The engine could not start, so nothing can be computed yet. Press Retry to try again.");
  }
}

// The engine's progress while it starts (its status, shared by every widget on the page).
export function onProgress(w, { stage, fraction }) {
  update(w, { type: "progress", stage, fraction }, false);
}

// The learner picks a preset (before the engine is ready, it is loaded once it is).
export function choosePreset(w, id) {
  if (!id) return;
  if (!w.state.ready) {
    update(w, { type: "pendingPreset", id });
    notReady(w, "Loading a preset");
    return;
  }
  loadPreset(w, id).catch((error) => engineFailed(w, error));
}

function initialPreset(w) {
  const asked = w.params.get("preset");
  return w.state.presets.some((p) => p.id === asked) ? asked : w.state.presets[0].id;
}

async function presetDetail(w, id) {
  if (w.state.presetDetails.has(id)) return w.state.presetDetails.get(id);
  const answer = await ask(w, "side", { cmd: "preset", id });
  if (answer.ok) update(w, { type: "presetDetail", id, detail: answer.preset });
  return answer.ok ? answer.preset : null;
}

export async function loadPreset(w, id) {
  update(w, { type: "busy", on: true }, false);
  let answer;
  try {
    [answer] = await Promise.all([askGraph(w, { cmd: "load", preset: id }), presetDetail(w, id)]);
  } catch (error) {
    update(w, { type: "busy", on: false }, false);
    throw error;
  }
  if (answer) update(w, { type: "busy", on: false }, false); // an overtaken load leaves it to the newer
  if (!answer) return;
  if (!answer.ok) {
    narrate(w, `The preset could not be loaded: ${answer.error.message}`);
    return;
  }
  showGraph(w, answer, { source: { preset: id }, confirms: true });
}

// Load a preset or a program, {preset, values?} or {program, values?}, with an
// optional visit order and the groups to draw open (ids; a link's). keepPlace keeps the
// learner's place in the trace (new input values, an edited program); place puts them at
// {pass, index}. Resolves with the engine's answer (an error answer leaves the screen as
// it was), or null if a newer load overtook this one.
export async function loadSource(
  w,
  source,
  { keepPlace = false, place = null, order = null, expanded = null, message = null, kind = "load" } = {},
) {
  // The same graph with other values keeps the groups open that were (a grouped graph); an
  // edited program may have other groups, so it opens as a new one does.
  const same = kind === "values" || kind === "reset";
  const request = { cmd: "load", ...source, ...(same ? levelOf(w.state) : {}) };
  // A big graph's answer in two parts (askForRest, below), from the page's own engine (a notebook's
  // kernel keeps its answers by request, and a saved notebook's were asked for whole).
  if (!source.preset && w.engine.answersInParts) request.rest_later = true;
  if (order) Object.assign(request, { order, rule: orderRule(w) });
  if (expanded) request.expanded = expanded;
  const [answer] = await Promise.all([
    askGraph(w, request),
    source.preset ? presetDetail(w, source.preset) : null,
  ]);
  if (!answer?.ok) return answer;
  const plain = !order && !place && !keepPlace && !message && Object.keys(source).join() === "preset";
  showGraph(w, answer, {
    source: sourceOf(source, answer),
    place: keepPlace ? w.state.stepper?.pos : place,
    message: typeof message === "function" ? message(answer) : message,
    kind,
    confirms: plain,
  });
  return w.state.answer; // the answer, or the prerendered one it confirmed
}

// Ask for a graph. A program with groups (with group(...) blocks) that comes whole is
// asked for again at its first level: its outer groups open, its innermost ones closed
// (grouped.js's defaultExpanded; a visit order then names what that level draws, so it
// is left out). A link's visit order names the boxes of that level: refused by the whole
// graph, it is asked for there.
async function askGraph(w, request) {
  const answer = await ask(w, "load", request);
  const atLevel = (whole, extra) => ask(w, "load", { ...withoutOrder(request), ...extra,
    expanded: defaultExpanded(whole.groups) });
  if (answer?.ok === false && answer.error.kind === "order" && request.order && !("expanded" in request)) {
    const whole = await ask(w, "load", withoutOrder(request));
    if (!whole?.ok || !whole.groups || whole.grouped) return answer;
    return atLevel(whole, { order: request.order, rule: "push" });
  }
  if (!answer?.ok || !answer.groups || answer.grouped || "expanded" in request) return answer;
  return atLevel(answer, {});
}

function withoutOrder(request) {
  const rest = { ...request };
  delete rest.order;
  delete rest.rule;
  return rest;
}

// What an answer was made from, for the next request: {preset, values?}, {program}
// (with any new values already written into it), or, for the engine's own graph
// (a notebook kernel's, which has no program), {values?} alone.
function sourceOf(source, answer) {
  if (source.preset) return source;
  if (answer.program === null) return source.values ? { values: source.values } : {};
  return { program: answer.program };
}

// A graph answer on screen, then what depends on it: the link's experiment waiting for
// it, and the nudge check redone with its numbers. `confirms`: the engine's answer to a
// plain preset load, which leaves the prerendered one on screen if it is the same.
function showGraph(w, answer, { source, place = null, message = null, kind = "load", confirms = false }) {
  const before = w.state.answer;
  update(w, { type: "graph", answer, source, place, kind, confirms }, (s) => message ?? firstWords(s));
  if (w.state.answer === before) return; // the prerendered graph was the same: nothing moved
  askForRest(w, answer);
  for (const hook of w.hooks.afterGraph) hook(w);
}

// A big graph's answer comes in two parts (docs/api.md, "An answer in two parts"): the
// graph is drawn from the first; its backward visits' sentences and its questions are asked
// for once that drawing is painted, so that Python writes them while the page is idle. A
// visit on screen meanwhile says its sentence when it comes.
function askForRest(w, answer) {
  if (typeof answer.rest !== "string") return;
  const shown = () => !w.unmounted && w.state.answer === answer;
  busyUntil(afterPaint() // the page is not settled until the rest is in (boot/busy.js)
    .then(() => (shown() ? ask(w, "side", { cmd: "rest", rest: answer.rest }) : null))
    .then((part) => {
      if (!part || !shown()) return;
      if (!part.ok) throw new Error(part.error.message);
      // The narration says the visit's sentence now if it was waiting for it (not if it says
      // something else, such as what a new value changed).
      update(w, { type: "rest", answer, rest: part }, w.state.narration.waiting ? null : false);
    })
    .catch((error) => shown() && engineFailed(w, error)));
}

// Resolves once the next frame has been painted (or after 100 ms, where no frame comes: a
// page out of sight).
function afterPaint() {
  return new Promise((resolve) => {
    setTimeout(resolve, 100);
    requestAnimationFrame(() => setTimeout(resolve));
  });
}

function firstWords(s) {
  return s.stepper.atStart() ? "Press Step forward to compute the first node." : null;
}

// Show prerendered answers before the engine is ready (the build's first-paint
// files): {presets, preset, load}, each the engine's answer object for
// {"cmd":"presets"}, {"cmd":"preset","id"} and {"cmd":"load","preset"}.
function loadPrerendered(w, { presets, preset, load }) {
  if (presets?.ok) update(w, { type: "presets", presets: presets.presets }, false);
  const id = load.preset;
  if (preset?.ok) update(w, { type: "presetDetail", id, detail: preset.preset });
  update(w, { type: "graph", answer: load, source: { preset: id }, prerendered: true }, firstWords);
}

function firstPaintFits(w, first) {
  if ([...w.params.keys()].some((k) => !FIRST_PAINT_PARAMS.has(k))) return false;
  const asked = w.params.get("preset");
  return asked === null || asked === first.id;
}

// The build's prerendered answers for the preset asked for, drawn while Python starts
// (unless a load has been asked for, or a graph is on screen, by then).
export function firstPaint(w) {
  if (w.options.firstPaint === false) return;
  prerendered(w.params.get("preset")).then((p) => {
    if (!p?.load?.ok || w.unmounted || w.requests.load.begun() || w.state.answer || !firstPaintFits(w, p)) return;
    loadPrerendered(w, p);
  });
}
