// Frame state: where the learner stands in the trace, and what every node shows there.
//
// The engine's answer holds the whole trace as plain data (docs/api.md): forward
// frames (one per node, in topological order) and backward frames (the seed, then
// one visit per node). A visit-order experiment brings its own backward frames, and
// a teaching mode (path sums, naive recursion, forward mode, ...) its own frames.
//
// Every frame lists the values it changes, {node, field, before, after} with field
// data, grad or one a mode declares (tangent, pathsum: modes/registry.js), so one generic
// rule walks any of them: the state after frame j is the state before the pass with
// frames 0..j's changes applied.
//
// A position is {pass, index}:
//   {pass: "start", index: -1}          nothing revealed
//   {pass: "forward", index: i}         forward frames 0..i applied
//   {pass: "backward", index: j}        all data, backward frames 0..j applied
//   {pass: "experiment", index: j}      all data, the experiment's frames 0..j applied
//   {pass: "mode", index: j}            the mode's start state, its frames 0..j applied
//
// Every state is made from the frames the answer brought (class States), so stepping
// back returns exactly the previous state and no step ever calls Python.

import { MODES } from "./modes/registry.js";
import { isGrouped, readLevel } from "./grouped.js";

// The per-node fields a mode's frames change besides data and grad, as the modes declare them.
const MODE_FIELDS = [...new Set(MODES.flatMap((mode) => mode.fields))];
export const FIELDS = ["data", "grad", ...MODE_FIELDS];

// The trace of a decoded answer (decodeAnswer, below).
export function buildTrace(answer) {
  const n = answer.nodes.length;
  const forwardStates = new States(answer.forward, { data: new Array(n).fill(null) }, n);
  return {
    n,
    forward: answer.forward,
    forwardStates,
    fullData: answer.forward.length ? forwardStates.at(answer.forward.length - 1).data : new Array(n).fill(null),
    // a tensor box's data rows (grouped.js): after the forward pass, every one
    fullValues: answer.forward.length ? forwardStates.at(answer.forward.length - 1).values ?? null : null,
    backward: answer.backward,
    backwardStates: gradStates(answer.backward, n, gradStart(answer)),
    gradStart: gradStart(answer),
    edges: answer.edges,
    experiment: null,
    experimentStates: null,
    mode: null, // {name, frames, start: {field: values}, ...} while a teaching mode is on
    modeStates: null,
  };
}

// A graph answer sends each push's numbers once (docs/api.md): a push visit's pushes
// leave out what their edge says (parent, local, rule) and what the frame says
// (upstream). decodeAnswer writes them back in, once, in place, in the backward pass
// and in a visit-order run, so that every panel reads whole pushes. It is the one
// decoder of that format: changes.js calls it on every answer update() is given (and the
// build on the answers it draws); it returns the answer, and a second call does nothing.
const decoded = new WeakSet();

export function decodeAnswer(answer) {
  if (!answer?.ok || decoded.has(answer)) return answer;
  decoded.add(answer);
  if (isGrouped(answer)) readLevel(answer); // a grouped graph at the level on screen: its units as nodes
  completePushes(answer.backward, answer.edges);
  completePushes(answer.experiment?.frames, answer.edges);
  return answer;
}

function completePushes(frames, edges) {
  for (const frame of frames ?? []) {
    if (frame.kind !== "visit") continue;
    for (const push of frame.pushes) {
      const edge = edges[push.edge];
      push.parent ??= edge.parent;
      push.local ??= edge.local;
      push.upstream ??= frame.upstream;
      push.rule ??= edge.rule;
    }
  }
}

// The second part of an answer that came in two parts (docs/api.md, "An answer in two
// parts"): each backward visit's sentence, and the questions, written into the answer in
// place. The answer is then as if it had come whole.
export function addRest(answer, rest) {
  answer.backward.forEach((frame, i) => {
    if (rest.texts[i] !== null) frame.text = rest.texts[i];
  });
  answer.questions = rest.questions;
  delete answer.rest;
  return answer;
}

// The changes a frame makes. A mode's frames list them; a graph answer's forward
// steps, seed and push visits leave them out (docs/api.md), and are read for what
// they change: the node's data, the seed's grad, each push's parent's grad.
function changesOf(frame) {
  if (Array.isArray(frame.changes)) return frame.changes;
  if ("data" in frame && !("kind" in frame)) {
    return [{ node: frame.node, field: "data", before: null, after: frame.data }];
  }
  if (frame.kind === "seed") return [{ node: frame.node, field: "grad", before: frame.before, after: frame.after }];
  return (frame.pushes ?? []).map((p) => ({ node: p.parent, field: "grad", before: p.before, after: p.after }));
}

// Every state of a pass: states.at(j) = {field: values} after frames 0..j, starting
// from `start`; a field no frame has touched yet keeps its start array (or is missing).
// One state in every KEPT is kept whole, and the one asked for is made from the kept
// one before it (at most KEPT - 1 frames to apply): a thousand-frame pass holds 32
// arrays per field, not a thousand, and a step still never calls Python.
const KEPT = 32;

class States {
  constructor(frames, start, n) {
    this.frames = frames;
    this.n = n;
    this.length = frames.length;
    this.kept = []; // kept[k]: the state before frame k × KEPT
    let state = { ...start };
    frames.forEach((frame, j) => {
      if (j % KEPT === 0) {
        this.kept.push(state);
        state = copied(state);
      }
      apply(state, frame, n);
    });
    this.last = { index: null, state: null }; // a render asks for the same state more than once
  }

  at(index) {
    if (this.last.index === index) return this.last.state;
    const k = Math.floor(index / KEPT);
    const state = copied(this.kept[k]);
    for (let j = k * KEPT; j <= index; j++) apply(state, this.frames[j], this.n);
    this.last = { index, state };
    return state;
  }
}

function copied(state) {
  return Object.fromEntries(Object.entries(state).map(([field, values]) => [field, values.slice()]));
}

function apply(state, frame, n) {
  for (const change of changesOf(frame)) {
    state[change.field] ??= new Array(n).fill(null);
    state[change.field][change.node] = change.after;
  }
}

// Where a backward pass starts: every grad 0, but a closed group's box with several outputs
// has no one grad of its own (grouped.js): null, never 0.
function gradStart(answer) {
  return answer.nodes.map((node) => (node.box && node.grad === null ? null : 0));
}

// The states of a backward pass (every grad starts at 0, or at `start`).
function gradStates(frames, n, start = null) {
  return new States(frames, { grad: start ? start.slice() : new Array(n).fill(0) }, n);
}

export class Stepper {
  constructor(trace) {
    this.trace = trace;
    this.pos = { pass: "start", index: -1 };
  }

  // The pass after the forward pass: a teaching mode's, the experiment's, or the correct backward pass.
  get backPass() {
    if (this.trace.mode) return "mode";
    return this.trace.experiment ? "experiment" : "backward";
  }

  frames(pass) {
    if (pass === "forward") return this.trace.forward;
    if (pass === "backward") return this.trace.backward;
    if (pass === "experiment") return this.trace.experiment?.frames ?? [];
    if (pass === "mode") return this.trace.mode?.frames ?? [];
    return [];
  }

  // Turn a teaching mode on (or off with null): mode = {name, frames, start}, where
  // start maps fields to every node's value before the mode's first frame (data
  // defaults to all of it, grad to none). Off again, the stepper leaves the mode's pass.
  setMode(mode) {
    const t = this.trace;
    t.mode = mode;
    t.modeStates = mode
      ? new States(mode.frames, { data: t.fullData, grad: new Array(t.n).fill(null), ...mode.start }, t.n)
      : null;
    if (!mode && this.pos.pass === "mode") this.pos = { pass: "start", index: -1 };
  }

  // A visit-order run (decoded: decodeAnswer), or null to go back to the correct pass.
  setExperiment(experiment) {
    this.trace.experiment = experiment;
    this.trace.experimentStates = experiment ? gradStates(experiment.frames, this.trace.n, this.trace.gradStart) : null;
    if (this.pos.pass === "backward" || this.pos.pass === "experiment") {
      this.pos = { pass: "start", index: -1 };
    }
  }

  atStart() {
    return this.pos.pass === "start";
  }

  atEnd() {
    return this.pos.pass === this.backPass && this.pos.index === this.frames(this.backPass).length - 1;
  }

  // Whether next() would move (the end of a pass is the end of the walk).
  hasNext() {
    const { pass, index } = this.pos;
    return pass === "start" || pass === "forward" || index + 1 < this.frames(pass).length;
  }

  // One step along: the forward frames, then the backward frames.
  next() {
    const { pass, index } = this.pos;
    if (pass === "start") {
      this.pos = this.trace.forward.length ? { pass: "forward", index: 0 } : { pass: this.backPass, index: 0 };
    } else if (pass === "forward") {
      this.pos = index + 1 < this.trace.forward.length
        ? { pass, index: index + 1 }
        : { pass: this.backPass, index: 0 };
    } else if (index + 1 < this.frames(pass).length) {
      this.pos = { pass, index: index + 1 };
    } else {
      return false;
    }
    return true;
  }

  prev() {
    const { pass, index } = this.pos;
    if (pass === "start") return false;
    if (index > 0) this.pos = { pass, index: index - 1 };
    else if (pass === "forward") this.pos = { pass: "start", index: -1 };
    else if (this.trace.forward.length) this.pos = { pass: "forward", index: this.trace.forward.length - 1 };
    else this.pos = { pass: "start", index: -1 };
    return true;
  }

  reset() {
    this.pos = { pass: "start", index: -1 };
  }

  // Reveal all data (if not yet) and seed the output: backward frame 0.
  startBackward() {
    this.pos = { pass: this.backPass, index: 0 };
  }

  toEnd(pass = this.backPass) {
    this.pos = { pass, index: this.frames(pass).length - 1 };
  }

  // The walk as one line of steps (the scrubber's): 0 is the start, 1..F the forward
  // frames, then the frames of the pass after them, in the order next() visits them.
  get steps() {
    return this.trace.forward.length + this.frames(this.backPass).length;
  }

  get offset() {
    const { pass, index } = this.pos;
    if (pass === "start") return 0;
    if (pass === "forward") return index + 1;
    return this.trace.forward.length + 1 + index;
  }

  // Move to a step of that line (clamped to it).
  goTo(offset) {
    const k = Math.max(0, Math.min(this.steps, Math.round(offset)));
    const forward = this.trace.forward.length;
    if (k === 0) this.pos = { pass: "start", index: -1 };
    else if (k <= forward) this.pos = { pass: "forward", index: k - 1 };
    else this.pos = { pass: this.backPass, index: k - forward - 1 };
  }

  // Everything the page draws at the current position.
  /** @returns {import("./state.js").View} */
  view() {
    const { pass, index } = this.pos;
    const t = this.trace;
    let data, grad;
    let more = {}; // a mode's own fields (MODE_FIELDS)
    // a closed tensor box's matrices (grouped.js): its data rows, its grad rows (null: none yet)
    let values = null;
    let grads = null;
    if (pass === "start") {
      data = new Array(t.n).fill(null);
      grad = new Array(t.n).fill(null);
    } else if (pass === "forward") {
      ({ data, values = null } = t.forwardStates.at(index));
      grad = new Array(t.n).fill(null);
    } else if (pass === "mode") {
      ({ data, grad, ...more } = t.modeStates.at(index));
    } else {
      data = t.fullData;
      values = t.fullValues;
      ({ grad, grads = null } = (pass === "experiment" ? t.experimentStates : t.backwardStates).at(index));
    }
    const frames = this.frames(pass);
    return /** @type {import("./state.js").View} */ ({
      pass,
      index,
      total: frames.length,
      frame: index >= 0 ? frames[index] : null,
      data,
      grad,
      values,
      grads,
      ...Object.fromEntries(MODE_FIELDS.map((field) => [field, more[field] ?? null])),
      mode: pass === "mode" ? t.mode : null,
      experiment: pass === "experiment" ? t.experiment : null,
      final: pass === "experiment" && index === frames.length - 1,
    });
  }
}
