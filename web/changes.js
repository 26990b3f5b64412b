// How a change alters a widget's state: applyChanges(state, change, message) applies
// one change or several (plain objects {type, ...}) to the state and says what must be
// drawn again. update.js is its one caller; the Node tests (tests/web/changes.test.mjs)
// call it on a state from createState() and the engine's own answers, without a page.

import { Stepper, addRest, buildTrace, decodeAnswer } from "./stepper.js";
import { narrationFor } from "./view.js";
import { runOf } from "./modes/your-code.js";
import { questionsFor, questionsOnScreen } from "./questions.js";
import { inputsOf } from "./lib/inputs.js";

/**
 * @typedef {import("./state.js").State} State
 * @typedef {{type: string, [key: string]: any}} StateChange
 */

// Changes that alter nothing on screen: the state keeps them, and no render follows.
const UNSEEN = new Set(["presetDetail", "pendingPreset", "edit", "editsSent", "whyPending"]);
// Changes that only the engine's status line and the host's marks show (render.js's drawEngine).
const STATUS = new Set(["progress", "busy"]);
// A playing visit-order run (actions/play.js) goes on through its own steps ({play: true})
// and through the changes above and the rest of a big answer, which leave the learner's place
// alone; any other change ends it.
const endsPlay = (c) => !c.play && !UNSEEN.has(c.type) && !STATUS.has(c.type) && c.type !== "rest";

/**
 * Apply a change, or several in turn, to the state.
 * @param {State} s the widget's state
 * @param {StateChange | StateChange[]} change
 * @param {string | null | false | ((state: State) => string | null)} [message] what the
 *   narration says (null: the frame's own text; false: leave it as it is; a function: made
 *   from the state the change made)
 * @returns {"none" | "status" | "all"} what must be drawn again: nothing (a change that
 *   leaves the screen as it was), the engine's status line alone, or the whole widget
 */
export function applyChanges(s, change, message = null) {
  const changes = Array.isArray(change) ? change : [change];
  let draw = false;
  for (const c of changes) {
    const changed = apply(s, c) !== false;
    if (changed && endsPlay(c)) s.playing = null;
    draw = (changed && !UNSEEN.has(c.type)) || draw;
  }
  if (!draw) return "none";
  if (changes.every((c) => STATUS.has(c.type))) return "status";
  follow(s);
  if (message !== false) {
    const text = typeof message === "function" ? message(s) : message;
    const view = s.stepper?.view();
    // (a backward visit whose sentence is still on its way says nothing until it comes)
    const said = text ?? (view ? narrationFor(view) : null);
    if (text !== null || view) say(s, said ?? "", said === null || said === undefined);
  }
  return "all";
}

// What the narration says now (render announces it, even when it is the same words).
/** @param {State} s @param {string} text @param {boolean} [waiting] */
function say(s, text, waiting = false) {
  s.narration = { text, said: s.narration.said + 1, waiting };
}

// False when the change leaves everything on screen as it was.
/** @param {State} s @param {StateChange} c @returns {boolean | void} */
function apply(s, c) {
  const stepper = s.stepper;
  switch (c.type) {
    case "progress": // the engine's boot: {stage, fraction}
      s.stage = c.stage;
      s.progress = Math.max(0, Math.min(100, Math.round((c.fraction ?? 0) * 100)));
      break;
    case "engine": // "loading" | "ready" | "error", with the error's text
      s.engine = c.engine;
      s.ready = c.engine === "ready";
      s.error = c.error ?? null;
      if (c.engine === "ready") s.unverified = null;
      break;
    case "presets":
      s.presets = c.presets;
      break;
    case "presetDetail":
      s.presetDetails.set(c.id, c.detail);
      break;
    case "pendingPreset":
      s.pendingPreset = c.id;
      break;
    case "busy": // a load is on its way
      s.busy = c.on;
      break;
    case "graph": // a new graph answer on screen: {answer, source, kind, place?, prerendered?, confirms?}
      return graphLoaded(s, c);
    case "rest": // the second part of an answer in two parts: {answer, rest}
      if (s.answer !== c.answer) return false; // another graph is on screen now
      addRest(c.answer, c.rest);
      Object.assign(s.questions, questionsOf(s, c.answer, s.source));
      break;
    case "step": // the learner moves along the trace, or a playing run goes on ({play: true})
      move(stepper, c);
      if (c.play && stepper.atEnd()) s.playing = null; // the run has played to its end
      break;
    case "orderRun": // a visit-order run: {answer} with its experiment, {play} to play it from its seed
      decodeAnswer(c.answer);
      stepper.setMode(null); // a "Why reverse mode" experiment gives way to the run
      stepper.setExperiment(c.answer.experiment);
      if (c.play) stepper.startBackward();
      else stepper.toEnd("experiment");
      s.runs += 1;
      s.playing = c.play ? s.runs : null;
      break;
    case "orderRestored": { // back to the correct order, at the same visit if replaying one
      const place = stepper.pos.pass === "experiment"
        ? { pass: "backward", index: Math.min(stepper.pos.index, stepper.frames("backward").length - 1) } : null;
      stepper.setExperiment(null);
      if (place) stepper.pos = place;
      break;
    }
    case "mode": // a "Why reverse mode" experiment on the stepper: {run, atEnd}
      stepper.setMode(c.run);
      if (c.atEnd) stepper.toEnd("mode");
      else stepper.startBackward();
      break;
    case "modeLeft":
      stepper.setMode(null);
      stepper.toEnd();
      break;
    case "tab":
      s.tab = c.tab;
      break;
    case "code": // "Your code"'s state: {set: {opened, exercises, exercise, status, error, picked}}
      // An error clears the stage of the run before it: the graph on screen before that run,
      // not stepped yet (nothing of their last run's grads, visits or findings stays).
      if (c.set.status === "error" && s.kind === "code" && s.code.base) clearRun(s);
      Object.assign(s.code, c.set);
      // The finding picked is marked on the graph by the run's frames (modes/your-code.js).
      if ("picked" in c.set && stepper?.trace.mode?.name === "code") stepper.trace.mode.picked = c.set.picked;
      break;
    case "codeRun": { // a run of the learner's code answered: {result}, their run on the stepper, at its end
      // with its first finding picked (its line marked in the editor, its nodes on the graph).
      // Its frames are made on their graph, the answer the "graph" change before it decoded.
      const picked = c.result.findings.length ? 0 : null;
      const run = runOf(c.result, s.answer);
      run.picked = picked;
      stepper.setMode(run);
      stepper.toEnd("mode");
      Object.assign(s.code, { status: "done", result: c.result, error: null, picked, runs: s.code.runs + 1 });
      break;
    }
    case "order": // the visit order list, arranged: {labels}
      s.order = c.labels;
      break;
    case "say": // a sentence for the narration and nothing else (update() says it)
      break;
    case "orderStatus": // the visit order's status line: {text, say}
      s.orderStatus = { text: c.text, say: c.say, said: s.orderStatus.said + 1 };
      break;
    case "digits":
      s.digits = c.on;
      break;
    case "questionsEnabled":
      s.questions.enabled = c.on;
      break;
    case "question": // what the learner did with a question: {key, status}
      s.questions.status.set(c.key, c.status);
      break;
    case "why": // the "Why reverse mode" section's choices: {set: {wrt, family, ...}}
      Object.assign(s.why, c.set);
      break;
    case "whyMemo": // what a mode keeps between runs: {id, memo}
      s.why.memo[c.id] = c.memo;
      break;
    case "whyPending": // a link's experiment, to run once the engine can
      s.why.pending = c.pending;
      break;
    case "edit": // a typed input value, not sent yet
      s.values.edits.set(c.name, c.value);
      break;
    case "editsSent":
      s.values.edits.clear();
      if (c.programOrigin !== undefined) s.values.programOrigin = c.programOrigin;
      break;
    case "valuesNoted": // {programOrigin?}
      if ("programOrigin" in c) s.values.programOrigin = c.programOrigin;
      break;
    case "nudge": // the nudge check: what was asked, what came back (actions/nudge.js)
      s.nudge = c.nudge;
      break;
    default:
      throw new Error(`update: no change called ${c.type}`);
  }
}

// A new graph answer: decoded (the one decoder, stepper.js), its trace on a new Stepper.
// The engine's answer to the prerendered graph on screen, the same to the byte, only
// confirms it: the screen and the learner's place stay.
/** @param {State} s @param {any} change */
function graphLoaded(s, { answer, source, kind = "load", place = null, prerendered = false, confirms = false }) {
  decodeAnswer(answer);
  if (confirms && s.unverified && JSON.stringify(answer) === JSON.stringify(s.unverified)) {
    s.unverified = null;
    return false;
  }
  // The graph a learner's run replaces, kept for an error to go back to (clearRun).
  if (kind === "code" && s.kind !== "code" && s.answer) {
    s.code.base = { answer: s.answer, source: s.source, kind: s.kind, programOrigin: s.values.programOrigin };
  }
  const stepper = new Stepper(buildTrace(answer));
  if (answer.experiment) stepper.setExperiment(answer.experiment);
  // The correct order to start from is the one the default backward pass walks (a
  // preset may name its lesson's order; otherwise reverse topological order); an
  // answer with a visit-order run shows the order that ran.
  const label = (id) => answer.nodes[id].label;
  const walked = answer.backward.slice(1).map((f) => label(f.node));
  s.correctOrder = walked.length === answer.nodes.length ? walked : answer.nodes.map((n) => n.label).reverse();
  s.order = answer.experiment ? answer.experiment.order.map(label) : s.correctOrder;
  if (place) stepper.pos = placeIn(stepper, place);
  s.answer = answer;
  s.source = source;
  s.kind = kind;
  s.stepper = stepper;
  s.unverified = prerendered ? answer : null;
  s.graphs += 1;
  s.why.memo = {}; // a mode's runs belong to the graph they ran on
  const v = s.values;
  // "Reset values" went back to it (a group opened or closed is the same graph, values and all)
  if (kind !== "values" && kind !== "group") v.programOrigin = null;
  v.edited = Boolean(source.preset || source.program === undefined
    ? source.values && Object.keys(source.values).length : v.programOrigin);
  // A program gets questions made from its trace; a preset has its own (maybe none). The
  // graph a learner's own class built gets none: a preset's questions may not fit it.
  if (kind === "code") {
    Object.assign(s.questions, { key: "code", list: [], waiting: 0 });
    return;
  }
  s.code.base = null;
  // Any other graph: the learner's last run (or its error) was about the one before.
  if (s.code.status !== "running") Object.assign(s.code, { status: null, result: null, error: null, picked: null });
  Object.assign(s.questions, questionsOf(s, answer, source));
  if (source.preset) {
    v.lastPreset = source.preset;
    // A preset's own input values, from a load without edits ("Reset values" goes back to them).
    if (!source.values) {
      const values = Object.fromEntries(inputsOf(answer).map((i) => [i.name, i.value]));
      v.originals = { preset: source.preset, values };
    }
  }
}

// Their run's graph off the stage: the graph on screen before their first run back, at its
// start, with what it came with.
/** @param {State} s */
function clearRun(s) {
  const { answer, source, kind, programOrigin } = s.code.base;
  graphLoaded(s, { answer, source, kind });
  s.values.programOrigin = programOrigin;
}

// The questions of a graph's answer, and when they are asked (questions.js).
/** @param {State} s @param {any} answer @param {any} source */
function questionsOf(s, answer, source) {
  const detail = source.preset ? s.presetDetails.get(source.preset) ?? { checkpoints: [] } : null;
  const key = `${source.preset ?? "program"}:${JSON.stringify(source.values ?? {})}:`
    + `${source.preset ? "" : answer.program}`;
  return questionsFor(s.questions, answer, detail, key, s.values.edited);
}

// The place in a new trace that matches `pos` in the old one: the same pass, the
// index clamped to the new pass's length.
function placeIn(s, pos) {
  const pass = pos.pass === "experiment" && !s.trace.experiment ? "backward" : pos.pass;
  if (pass === "start") return { pass: "start", index: -1 };
  if (!["forward", "backward", "experiment"].includes(pass)) return { pass: "start", index: -1 };
  const n = s.frames(pass).length;
  return n ? { pass, index: Math.max(0, Math.min(n - 1, pos.index)) } : { pass: "start", index: -1 };
}

// {to: "next" | "prev" | "start" | "backward" | "end", pass?} or {offset} or {pos};
// leaveExperiment: the visit-order run goes first (back to the correct pass).
/** @param {any} stepper @param {any} change */
function move(stepper, { to, pass, offset, pos, leaveExperiment = false }) {
  if (leaveExperiment) stepper.setExperiment(null);
  if (pos) stepper.pos = pos;
  else if (offset !== undefined) stepper.goTo(offset);
  else if (to === "next") stepper.next();
  else if (to === "prev") stepper.prev();
  else if (to === "start") stepper.reset();
  else if (to === "backward") stepper.startBackward();
  else if (to === "end") stepper.toEnd(pass);
}

// What follows from any change: an experiment that starts on the stepper brings its
// tab forward once (not on every step, so the learner can look elsewhere), and a
// question drawn where the learner can see it counts as seen.
function follow(s) {
  const view = s.stepper?.view();
  const owner = view?.pass === "experiment" ? "order"
    : view?.pass === "mode" ? (view.mode.name === "code" ? "code" : "why") : null;
  if (owner && owner !== s.tabOwner) s.tab = owner;
  s.tabOwner = owner;
  if (view && s.tab === "passes") for (const key of questionsOnScreen(s, view)) s.questions.seen.add(key);
}
