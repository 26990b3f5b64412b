// Frame state: where the learner stands in the trace, and what every node shows there.
//
// The engine's answer holds the whole trace as plain data (docs/api.md): forward
// frames (one per node, in topological order) and backward frames (the seed, then
// one visit per node). A visit-order experiment brings its own backward frames.
//
// A position is {pass, index}:
//   {pass: "start", index: -1}          nothing revealed
//   {pass: "forward", index: i}         forward frames 0..i applied
//   {pass: "backward", index: j}        all data, backward frames 0..j applied
//   {pass: "experiment", index: j}      all data, the experiment's frames 0..j applied
//
// Every state is computed once, up front, as arrays, so stepping back returns exactly
// the previous state and no step ever calls Python.

export function buildTrace(answer) {
  const n = answer.nodes.length;
  const forwardData = [];
  let data = new Array(n).fill(null);
  for (const frame of answer.forward) {
    data = data.slice();
    data[frame.node] = frame.data;
    forwardData.push(data);
  }
  return {
    n,
    forward: answer.forward,
    forwardData,
    fullData: forwardData.length ? forwardData[forwardData.length - 1] : data,
    backward: answer.backward,
    backwardGrads: gradStates(answer.backward, n),
    experiment: null,
    experimentGrads: null,
  };
}

// grads[j] = every node's grad after backward frames 0..j.
export function gradStates(frames, n) {
  const out = [];
  let grad = new Array(n).fill(0);
  for (const frame of frames) {
    grad = grad.slice();
    if (frame.kind === "seed") grad[frame.node] = frame.after;
    else for (const push of frame.pushes) grad[push.parent] = push.after;
    out.push(grad);
  }
  return out;
}

export class Stepper {
  constructor(trace) {
    this.trace = trace;
    this.pos = { pass: "start", index: -1 };
  }

  // The backward pass the stepper walks: the correct one, or the experiment's.
  get backPass() {
    return this.trace.experiment ? "experiment" : "backward";
  }

  frames(pass) {
    if (pass === "forward") return this.trace.forward;
    if (pass === "backward") return this.trace.backward;
    if (pass === "experiment") return this.trace.experiment?.frames ?? [];
    return [];
  }

  setExperiment(experiment) {
    this.trace.experiment = experiment;
    this.trace.experimentGrads = experiment ? gradStates(experiment.frames, this.trace.n) : null;
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

  // Everything the page draws at the current position.
  view() {
    const { pass, index } = this.pos;
    const t = this.trace;
    let data, grad;
    if (pass === "start") {
      data = new Array(t.n).fill(null);
      grad = new Array(t.n).fill(null);
    } else if (pass === "forward") {
      data = t.forwardData[index];
      grad = new Array(t.n).fill(null);
    } else {
      data = t.fullData;
      grad = (pass === "experiment" ? t.experimentGrads : t.backwardGrads)[index];
    }
    const frames = this.frames(pass);
    return {
      pass,
      index,
      total: frames.length,
      frame: index >= 0 ? frames[index] : null,
      data,
      grad,
      experiment: pass === "experiment" ? t.experiment : null,
      final: pass === "experiment" && index === frames.length - 1,
    };
  }
}
