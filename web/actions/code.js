// "Your code"'s actions (its panel and frames: modes/your-code.js). Opening the mode
// starts the code worker in the background (boot/code-runner.js), fetches the exercises
// the build wrote (exercises.json, from engine/exercises/: no Python is asked for them)
// and loads the editor (panels/code-editor.js). Run sends the learner's code with the
// graph on screen to the code worker, never to the engine; its answer puts their graph
// and their run on the stepper (update.js's "graph" and "codeRun").
//
// The learner's code is kept per exercise in the browser's storage (a storage that is
// full or refused is tolerated: the code then lives as long as the page), and travels
// in links as `code=` (deflate-raw and base64url, like `prog=`) with `exercise=`.

import { sharedCodeRunner } from "../boot/code-runner.js";
import { loadCodeEditor } from "../panels/code-editor.js";
import { siteURL } from "../site.js";
import { debounce, nextTask, withoutTicks } from "../lib/dom.js";
import { update } from "../update.js";
import { decodeProgram, encodeProgram } from "../url.js";
import { loadPreset } from "./load.js";
import { engineFailed, narrate, notReady } from "./say.js";

export const LEFT_RUN = "Left your run: these are the grads of the ordinary backward pass on your graph.";
const STORAGE_PREFIX = "gradwalk:your-code:";

// The mode's own bookkeeping, per widget (not state: the code is the editor's).
function own(w) {
  w.yourCodeKept ??= { encoded: null, runs: 0, opening: null, linkCode: null, saveSoon: null };
  return w.yourCodeKept;
}

// The exercise a link or the element's attribute asks for, if it reads as an exercise's id
// (the exercises themselves are known once exercises.json is in: openCode checks it there).
function exerciseFromParams(w) {
  const asked = w.params.get("exercise");
  return asked && /^[a-z][a-z0-9_-]{0,40}$/.test(asked) ? asked : null;
}

// Open the mode (its tab chosen, or ?start=code): once per widget.
export function openCode(w) {
  const kept = own(w);
  if (kept.opening) return kept.opening;
  update(w, { type: "code", set: { opened: true, exercise: exerciseFromParams(w) ?? w.state.code.exercise } }, false);
  sharedCodeRunner().start().catch(() => {}); // in the background; a run says if it cannot start
  kept.opening = (async () => {
    const [exercises, { createEditor }, linked] = await Promise.all([
      fetchExercises(), loadCodeEditor(), linkedCode(w),
    ]);
    if (w.unmounted) return;
    // An exercise the site does not have (an old or mistyped link) gives way to the first one.
    const known = exercises.some((e) => e.id === w.state.code.exercise);
    update(w, { type: "code", set: { exercises, ...(known ? {} : { exercise: exercises[0]?.id }) } }, false);
    if (linked !== null) store(w.state.code.exercise, linked);
    // The editor is made in a task of its own, after the one that drew the mode: together
    // they would make one long task on a slow machine.
    await nextTask();
    if (w.unmounted) return;
    const editor = createEditor(w.yourCode.editorBox, {
      doc: codeFor(w, w.state.code.exercise),
      label: "Your code",
      onChange: () => kept.saveSoon(),
      onRun: () => runCode(w),
    });
    w.yourCode.editorBox.querySelector(":scope > p.muted")?.remove();
    w.yourCode.attach(editor);
    w.yourCode.showPart(); // the part to write in view
    kept.saveSoon = debounce(() => keep(w), 300);
    await keep(w);
    update(w, { type: "code", set: {} }, false);
  })().catch((error) => {
    update(w, { type: "code", set: { status: "error", error: { kind: "load", message:
      `The exercises could not be loaded (${error?.message ?? error}).` } } }, false);
  });
  return kept.opening;
}

async function fetchExercises() {
  const response = await fetch(siteURL("exercises.json"));
  if (!response.ok) throw new Error(`exercises.json: ${response.status}`);
  const { exercises } = await response.json();
  return exercises;
}

// `code=` in the link: the learner's code for the link's exercise.
async function linkedCode(w) {
  const encoded = w.params.get("code");
  if (!encoded || !/^[A-Za-z0-9_-]{1,200000}$/.test(encoded)) return null;
  try {
    return await decodeProgram(encoded, "deflate");
  } catch {
    return null;
  }
}

function exerciseOf(w, id) {
  return w.state.code.exercises?.find((e) => e.id === id) ?? null;
}

// What the editor shows for an exercise: the code kept for it, else its scaffold.
function codeFor(w, id) {
  return stored(id) ?? exerciseOf(w, id)?.scaffold ?? "";
}

function stored(id) {
  try {
    return globalThis.localStorage?.getItem(STORAGE_PREFIX + id) ?? null;
  } catch {
    return null;
  }
}

function store(id, text) {
  try {
    globalThis.localStorage?.setItem(STORAGE_PREFIX + id, text);
  } catch {
    // full, or refused (a private window): the code lives as long as the page
  }
}

// The editor's code kept (storage, and its link's form), then the URL rewritten.
async function keep(w) {
  const editor = w.yourCode.editor;
  if (!editor) return;
  const id = w.state.code.exercise;
  const text = editor.getText();
  const scaffold = exerciseOf(w, id)?.scaffold;
  if (text === scaffold) {
    try {
      globalThis.localStorage?.removeItem(STORAGE_PREFIX + id);
    } catch {
      // as store()
    }
  } else {
    store(id, text);
  }
  own(w).encoded = text === scaffold ? null : (await encodeProgram(text)).encoded;
  w.learn.saveURL?.();
}

// The link's part for this mode (links.js): start=code (outside an embed, whose own
// start says it), exercise= and code=, while the mode's tab is open.
export function codeLinkParams(w, other) {
  const rest = other.filter(([key]) => key !== "exercise" && key !== "code");
  if (w.state.tab !== "code" || !w.state.code.opened) return rest;
  const out = [...rest];
  if (!w.learn?.link?.state.embed) out.push(["start", "code"]);
  if (w.state.code.exercise) out.push(["exercise", w.state.code.exercise]);
  const encoded = own(w).encoded;
  if (encoded) out.push(["code", encoded]);
  return out;
}

export function chooseExercise(w, id) {
  if (!exerciseOf(w, id) || id === w.state.code.exercise) return;
  const editor = w.yourCode.editor;
  if (editor) store(w.state.code.exercise, editor.getText());
  update(w, { type: "code", set: { exercise: id, status: null, error: null, result: null, picked: null } },
    `Exercise: ${(exerciseOf(w, id)?.title ?? id).replace(/\.$/, "")}.`); // (a title may end with its own stop)
  editor?.setText(codeFor(w, id));
  w.yourCode.showPart();
  keep(w);
}

export function showSolution(w) {
  const exercise = exerciseOf(w, w.state.code.exercise);
  if (!exercise || !w.yourCode.editor) return;
  w.yourCode.editor.setText(exercise.solution);
  w.yourCode.showPart();
  keep(w);
  narrate(w, "A solution is in the editor: run it to see a right run on this graph.");
}

export function resetCode(w) {
  const exercise = exerciseOf(w, w.state.code.exercise);
  if (!exercise || !w.yourCode.editor) return;
  w.yourCode.editor.setText(exercise.scaffold);
  w.yourCode.showPart();
  keep(w);
  update(w, { type: "code", set: { status: null, error: null, picked: null } }, "The exercise is back as it began.");
}

// A finding picked: its line marked in the editor, its node on the graph.
export function pickFinding(w, index) {
  const text = w.state.code.result?.findings[index]?.text;
  update(w, { type: "code", set: { picked: index } }, text ? withoutTicks(text) : false);
}

// A preset their class can build, picked after a missing operation: load it, then run again.
export async function buildPreset(w, id) {
  await loadPreset(w, id);
  if (w.state.source?.preset === id) await runCode(w);
}

// Run the learner's code on the graph on screen.
export async function runCode(w) {
  const s = w.state;
  const editor = w.yourCode.editor;
  if (!editor || s.code.status === "running") return;
  if (!s.ready || !s.answer) {
    notReady(w, "Running your code");
    return;
  }
  const source = s.source ?? {};
  const graph = source.preset ? { preset: source.preset }
    : typeof source.program === "string" ? { program: source.program } : null;
  if (!graph) {
    update(w, { type: "code", set: { status: "error", error: { kind: "graph", message:
      "This graph came from elsewhere (a notebook's kernel): pick a preset to run your code on." } } }, false);
    return;
  }
  const program = s.answer.program; // the program on screen, which their class builds
  const kept = own(w);
  const run = ++kept.runs;
  const request = { exercise: s.code.exercise, source: editor.getText(), ...graph,
    ...(source.values ? { values: source.values } : {}) };
  update(w, { type: "code", set: { status: "running", error: null, picked: null } }, "Running your code…");
  performance.mark("gw:code-run");
  let result;
  try {
    result = await sharedCodeRunner().run(request);
  } catch (error) {
    if (run !== kept.runs || w.unmounted) return;
    // The sandbox's own errors (time, memory, changed, crashed, ...): their message.
    const message = error?.message ?? String(error);
    update(w, { type: "code", set: { status: "error", error: { kind: error?.kind ?? "crashed", message } } }, message);
    return;
  }
  if (run !== kept.runs || w.unmounted) return;
  if (!result.ok) {
    const error = result.error ?? { kind: "internal", message: "The run gave no answer." };
    update(w, { type: "code", set: { status: "error", error } },
      error.line ? `Line ${error.line} of your code: ${error.message}` : error.message);
    return;
  }
  try {
    // Their graph is a load answer without "ok" and, read from their objects, without its
    // preset and program (docs/yourcode.md): a whole one here, with what it was built from.
    // update() decodes it and makes their run's frames on it (changes.js's "codeRun").
    const answer = {
      ...result.graph, ok: true, preset: result.graph.preset ?? source.preset ?? null,
      program: result.graph.program ?? program,
    };
    update(w, [
      { type: "graph", answer, source, kind: "code" },
      { type: "codeRun", result },
    ]);
  } catch (error) {
    // A run that cannot be drawn ends as an error, not "running" for ever.
    const message = error?.message ?? String(error);
    update(w, { type: "code", set: { status: "error", error: { kind: "internal", message } } }, false);
    engineFailed(w, error);
  }
}
