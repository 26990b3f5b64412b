// Loading: the engine's boot, the presets, and every request that brings a new graph
// (a preset, a program, new input values, a visit order) or the build's prerendered
// one before the engine is ready. These are the widget's only writers of its state's
// graph, and (with modes/visit-order.js and the requests of learn.js and the modes)
// its only callers of the engine; an answer overtaken by a newer request is dropped.

import { Stepper, buildTrace, completePushes } from "../stepper.js";
import { prerendered } from "../boot/first-paint.js";
import { showExperiment } from "../panels/experiment.js";
import { parametersOf } from "../url.js";

// Draw the prerendered graph only when the widget's query asks for nothing but that
// preset (or nothing at all): a permalink or an embed with values, a program, a
// place or a teaching mode waits for the engine rather than show something else.
const FIRST_PAINT_PARAMS = new Set(["preset", ...parametersOf("boot")]);

export function onProgress(w, { stage, fraction }) {
  w.state.stage = stage;
  w.ui.stage.textContent = stage;
  const pct = Math.max(0, Math.min(100, Math.round((fraction ?? 0) * 100)));
  w.ui.progress.value = pct;
  w.ui.progress.textContent = `${pct}%`;
  w.ui.percent.textContent = `${pct}%`;
}

export function setEngineState(w, state) {
  w.host.dataset.engine = state;
  w.options.onEngine?.(state);
}

export async function boot(w) {
  w.setEngineState("loading");
  w.state.ready = false;
  w.ui.error.hidden = true;
  w.ui.loading.hidden = false;
  w.onProgress(w.engine.status.state === "loading" ? w.engine.status : { stage: "downloading", fraction: 0 });
  try {
    // A retry restarts a failed engine (every widget on the page shares it), and
    // gives the boot four times as long each time (a slow line deserves more time).
    if (w.retries++ && w.engine.status.state === "error") {
      w.engine.restart({ bootTimeoutMs: Math.min(w.engine.bootTimeoutMs * 4, Math.max(w.BOOT_TIMEOUT_MS, 60000)) });
    }
    await w.engine.ready;
    const answer = await w.engine.call({ cmd: "presets" });
    if (!answer.ok) throw new Error(answer.error?.message ?? "The engine did not list its presets.");
    if (w.unmounted) return;
    w.setPresets(answer.presets);
    const pending = w.state.pendingPreset;
    const wanted = w.state.pendingPreset ?? w.state.source?.preset ?? w.initialPreset();
    w.state.pendingPreset = null;
    w.ui.preset.value = wanted;
    // The state the query asks for (url.js); else a prerendered graph
    // of the same preset stays, with the learner's place in it.
    if (w.options.graph) {
      // The engine's own graph (a notebook kernel's): a load that names no preset or program.
      const first = await w.loadSource({}, { kind: "graph" });
      if (first && !first.ok) throw new Error(first.error.message);
    } else {
      const restored = await w.learn.restore(pending);
      if (!restored && w.state.source?.preset !== wanted) await w.loadPreset(wanted);
    }
    if (w.unmounted) return;
    w.state.unverified = null;
    w.state.ready = true;
    w.ui.loading.hidden = true;
    w.setEngineState("ready");
    w.why.engineReady();
    if (w.options.report) w.report.open();
  } catch (error) {
    if (w.unmounted) return;
    w.state.ready = false;
    w.setEngineState("error");
    w.ui.loading.hidden = true;
    w.ui.error.hidden = false;
    w.ui.errorText.textContent = error?.message ?? String(error);
    w.narrate("The engine could not start, so nothing can be computed yet. Press Retry to try again.");
  }
}

// The learner picks a preset (before the engine is ready, it is loaded once it is).
export function choosePreset(w, id) {
  if (!id) return;
  if (!w.state.ready) {
    w.state.pendingPreset = id;
    w.notReady("Loading a preset");
    return;
  }
  w.loadPreset(id).catch((error) => w.engineFailed(error));
}

export function initialPreset(w) {
  const asked = w.params.get("preset");
  return w.state.presets.some((p) => p.id === asked) ? asked : w.state.presets[0].id;
}

export function notReady(w, what) {
  const reason = w.host.dataset.engine === "error"
    ? "the engine failed to start (press Retry at the top)"
    : `the engine is still starting (${w.state.stage})`;
  w.narrate(`${what} needs the engine, and ${reason}. It will work once the engine is ready.`);
}

export function setPresets(w, presets) {
  w.state.presets = presets;
  w.ui.preset.replaceChildren(
    ...presets.map((p) => {
      const option = document.createElement("option");
      option.value = p.id;
      option.textContent = p.title;
      return option;
    }),
  );
}

export async function presetDetail(w, id) {
  if (w.state.presetDetails.has(id)) return w.state.presetDetails.get(id);
  const answer = await w.engine.call({ cmd: "preset", id });
  if (answer.ok) w.state.presetDetails.set(id, answer.preset);
  return answer.ok ? answer.preset : null;
}

export async function loadPreset(w, id) {
  const seq = ++w.state.seq;
  w.host.setAttribute("aria-busy", "true");
  try {
    const [answer, detail] = await Promise.all([
      w.engine.call({ cmd: "load", preset: id }),
      w.presetDetail(id),
    ]);
    if (seq !== w.state.seq) return;
    if (!answer.ok) {
      w.narrate(`The preset could not be loaded: ${answer.error.message}`);
      return;
    }
    w.state.source = { preset: id };
    w.showPresetText(id, detail);
    w.loadGraph(answer);
  } finally {
    if (seq === w.state.seq) w.host.removeAttribute("aria-busy");
  }
}

export function showPresetText(w, id, detail) {
  const listed = w.state.presets.find((p) => p.id === id);
  w.ui.title.textContent = detail?.title ?? listed?.title ?? id;
  w.ui.summary.textContent = detail?.summary ?? listed?.summary ?? "";
  w.ui.lesson.textContent = (detail?.lesson ?? "").trim();
  w.$("lesson-more").hidden = w.ui.lesson.textContent === "";
  // index.html's texts for its default preset (buildtools/graph_svg.py) are now these.
  for (const el of [w.ui.title, w.ui.summary, w.$("lesson-more")]) el.removeAttribute("data-prerendered");
}

// Load a preset or a program, {preset, values?} or {program, values?}, with an
// optional visit order. keepPlace keeps the learner's place in the trace (new input
// values, an edited program); place puts them at {pass, index}. Resolves with the
// engine's answer (an error answer leaves the screen as it was), or null if a newer
// load overtook this one.
export async function loadSource(w, source, { keepPlace = false, place = null, order = null, message = null, kind = "load" } = {}) {
  const seq = ++w.state.seq;
  const request = { cmd: "load", ...source };
  if (order) Object.assign(request, { order, rule: w.why.orderRule() });
  const [answer, detail] = await Promise.all([
    w.engine.call(request),
    source.preset ? w.presetDetail(source.preset) : null,
  ]);
  if (seq !== w.state.seq) return null;
  if (!answer.ok) return answer;
  if (w.confirmsPrerendered(source, answer, { order, place, keepPlace, message })) return w.state.answer;
  w.state.source = sourceOf(source, answer);
  if (source.preset) {
    w.ui.preset.value = source.preset;
    w.showPresetText(source.preset, detail);
  } else if (answer.program === null) {
    w.ui.preset.selectedIndex = -1;
    w.showPresetText(null, w.options.report
      ? { title: "Your graph, checked", summary: "The graph your code built, with what check found in your engine.", lesson: "" }
      : { title: "Your graph", summary: "The graph your code built, read from the kernel without changing it.", lesson: "" });
  } else {
    w.ui.preset.selectedIndex = -1;
    w.showPresetText(null, { title: "Your program", summary: "Your own program: change it in the Program panel, or pick a preset to go back.", lesson: "" });
  }
  w.loadGraph(answer, {
    place: keepPlace ? w.state.stepper?.pos : place,
    message: typeof message === "function" ? message(answer) : message,
    kind,
  });
  return answer;
}

// What an answer was made from, for the next request: {preset, values?}, {program}
// (with any new values already written into it), or, for the engine's own graph
// (a notebook kernel's, which has no program), {values?} alone.
function sourceOf(source, answer) {
  if (source.preset) return source;
  if (answer.program === null) return source.values ? { values: source.values } : {};
  return { program: answer.program };
}

// The place in a new trace that matches `pos` in the old one: the same pass, the
// index clamped to the new pass's length.
function placeIn(s, pos) {
  const pass = pos.pass === "experiment" && !s.trace.experiment ? "backward" : pos.pass;
  if (!["forward", "backward", "experiment"].includes(pass)) return { pass: "start", index: -1 };
  const n = s.frames(pass).length;
  return n ? { pass, index: Math.max(0, Math.min(n - 1, pos.index)) } : { pass: "start", index: -1 };
}

// Show an engine graph answer (from the engine, or prerendered JSON).
export function loadGraph(w, answer, { place = null, message = null, kind = "load" } = {}) {
  w.state.answer = answer;
  w.state.unverified = null;
  w.state.stepper = new Stepper(buildTrace(answer));
  w.ui.placeholder.hidden = true;
  w.ui.placeholder.removeAttribute("data-prerendered"); // index.html's inlined graph is this view's now
  w.ui.svg.dataset.graph = answer.preset ?? "program";
  w.graph.build(answer);
  w.table.build(answer.nodes);
  w.code.show(answer.program);
  // The correct order to start from is the one the default backward pass walks (a
  // preset may name its lesson's order; otherwise reverse topological order).
  w.visitOrder.setNodes(answer.nodes, answer.backward.slice(1).map((f) => answer.nodes[f.node].label));
  w.ui.orderStatus.textContent = "";
  showExperiment(w.ui.experimentBody, null, answer);
  if (answer.experiment) {
    w.state.stepper.setExperiment(answer.experiment);
    showExperiment(w.ui.experimentBody, answer.experiment, answer);
    w.visitOrder.arrange(answer.experiment.order.map((id) => answer.nodes[id].label));
  }
  w.why.graphLoaded(answer);
  if (place) w.state.stepper.pos = placeIn(w.state.stepper, place);
  w.learn.graphLoaded(answer, { kind });
  w.render(message ?? (w.state.stepper.atStart() ? "Press Step forward to compute the first node." : null));
}

// Show prerendered answers before the engine is ready (the build's first-paint
// files): {presets, preset, load}, each the engine's answer object for
// {"cmd":"presets"}, {"cmd":"preset","id"} and {"cmd":"load","preset"}.
// Returns false (and changes nothing) if a graph is already on screen.
export function loadPrerendered(w, { presets, preset, load }) {
  if (w.state.answer || !load?.ok) return false;
  if (presets?.ok) w.setPresets(presets.presets);
  const id = load.preset;
  if (preset?.ok) w.state.presetDetails.set(id, preset.preset);
  w.ui.preset.value = id;
  w.state.source = { preset: id };
  w.showPresetText(id, preset?.ok ? preset.preset : null);
  w.loadGraph(load);
  w.state.unverified = load;
  return true;
}

// The engine's answer to a plain {preset} load is the prerendered one on screen
// (the build proves the bytes equal; this checks): keep the screen as it is, with
// the learner's place, instead of drawing the same graph again.
export function confirmsPrerendered(w, source, answer, { order, place, keepPlace, message }) {
  const shown = w.state.unverified;
  if (!shown || order || place || keepPlace || message) return false;
  if (Object.keys(source).join() !== "preset" || source.preset !== shown.preset) return false;
  completePushes(answer.backward, answer.edges); // as the answer on screen was
  if (JSON.stringify(answer) !== JSON.stringify(shown)) return false;
  w.state.unverified = null;
  return true;
}

export function firstPaintFits(w, first) {
  if ([...w.params.keys()].some((k) => !FIRST_PAINT_PARAMS.has(k))) return false;
  const asked = w.params.get("preset");
  return asked === null || asked === first.id;
}

export function engineFailed(w, error) {
  w.narrate(`The engine could not answer: ${error?.message ?? error}`);
}

// The build's prerendered answers for the preset asked for, drawn while Python starts.
export function firstPaint(w) {
  if (w.options.firstPaint === false) return;
  prerendered(w.params.get("preset"))
    .then((p) => p && !w.unmounted && w.state.seq === 0 && !w.state.answer && w.firstPaintFits(p) && w.loadPrerendered(p));
}
