// The page's handle on the code worker (web/code-worker.js), where a learner's own
// Python runs: a worker with a Pyodide of its own, apart from the engine's, in the
// code sandbox (boot/code-sandbox.js: an opaque origin with no network).
//
//   import { sharedCodeRunner } from "./code-runner.js";
//   const runner = sharedCodeRunner();   // made on first use, one per page
//   runner.start();                      // boots in the background (the mode opening)
//   const result = await runner.run({ ... });   // the entry's answer, an object
//
// run() resolves with what the worker's entry function answered (engine.yourcode.run:
// JSON in, JSON out; its own errors are data in that answer). It rejects with a
// CodeRunError, whose `kind` says why and whose message a learner can read, when the
// run could not be answered:
//
//   "time"      the run took longer than the time limit (an endless loop?)
//   "memory"    Python's heap hit the memory limit
//   "changed"   the run changed Python itself (deleted a built-in, patched sys.modules, ...):
//               the error's `details` lists what it changed
//   "crashed"   the worker's Python or the worker itself failed
//   "protocol"  the worker sent a message that is not what the protocol allows here
//   "boot"      the worker could not start; "stopped": terminate() was called
//
// After every one of these but "boot" and "stopped" the worker is thrown away and a
// fresh one starts at once, so the next run gets a Python no earlier run touched;
// the engine's worker and the other widgets never notice. Every message from the
// worker is checked against the protocol (the shapes below) before anything in it is
// used: during a run only that run's answer, carrying its id and the one-off nonce
// sent with the request, is accepted. The learner's code can post messages from the
// worker (through a JavaScript proxy it finds), but never sees the nonce.
//
// Time and memory are limited because a learner's code may loop or allocate without
// end. The time limit is the page's: a worker that has not answered in time is
// terminated, whatever it is doing. The memory limit is the worker's (Python's heap
// cannot grow past it, worker/heap-limit.js), and the page replaces a worker that hit it.

import { markBusy } from "./busy.js";
import { startSandboxedWorker } from "./code-sandbox.js";

export class CodeRunError extends Error {
  constructor(kind, message, details = []) {
    super(message);
    this.name = "CodeRunError";
    this.kind = kind;
    this.details = details; // "changed": everything the run changed in Python
  }
}

const DEFAULT_TIME_LIMIT_MS = 5000;
const DEFAULT_MEMORY_LIMIT_MB = 256;
const BOOT_TIMEOUT_MS = 60000;
const MAX_RESULT_CHARS = 8 * 1024 * 1024;
const FRESH = "a fresh Python is starting for your next run";

export function createCodeRunner(options = {}) {
  return new CodeRunner(options);
}

let shared = null;
export function sharedCodeRunner(options = {}) {
  if (!shared || shared.terminated) shared = new CodeRunner(options);
  return shared;
}

class CodeRunner {
  constructor({
    timeLimitMs = DEFAULT_TIME_LIMIT_MS,
    memoryLimitMB = DEFAULT_MEMORY_LIMIT_MB,
    bootTimeoutMs = BOOT_TIMEOUT_MS,
    entry = null, // tests and benchmarks: another function to answer runs, and a module
    module = null, // of the site to import it from (see code-worker.js)
    onStatus = (/** @type {{state: string, message: string|null}} */ _status) => {},
  } = {}) {
    // The worker takes a whole number of MB in this range (code-worker.js).
    if (!(Number.isInteger(memoryLimitMB) && memoryLimitMB >= 64 && memoryLimitMB <= 2048)) {
      throw new RangeError(`The memory limit must be a whole number of MB from 64 to 2048, not ${memoryLimitMB}.`);
    }
    this.timeLimitMs = timeLimitMs;
    this.memoryLimitMB = memoryLimitMB;
    this.bootTimeoutMs = bootTimeoutMs;
    this.onStatus = onStatus;
    this.workerOptions = { memoryMB: memoryLimitMB, entry, module };
    this.worker = null;
    this.booted = false;
    this.bootInfo = null; // {boot, ms, timings} of the current worker
    this.readyPromise = null;
    this.inflight = null; // {id, nonce, resolve, reject, timer}
    this.tail = Promise.resolve(); // runs go one at a time
    this.nextId = 0;
    this.replaced = 0; // workers thrown away after a run went wrong
    this.heapBytes = 0; // the size of Python's heap after the last run answered
    this.refusals = []; // why each refused message was refused (the latest few)
    this.terminated = false;
    this.status = { state: "idle", message: null };
  }

  // Boot the worker now, in the background, if none is up or booting; resolves once
  // it can run code, rejects with a CodeRunError("boot") if it cannot start.
  start() {
    if (this.terminated) return Promise.reject(new CodeRunError("stopped", "The code runner was shut down."));
    if (!this.worker) this.startWorker();
    return this.readyPromise;
  }

  // start()'s promise: a worker is booted if none is up.
  get ready() {
    return this.start();
  }

  run(request) {
    const turn = this.tail.then(() => this.runNow(request));
    this.tail = turn.catch(() => {});
    markBusy(1);
    return turn.finally(() => markBusy(-1));
  }

  terminate() {
    this.terminated = true;
    this.stopWorker(new CodeRunError("stopped", "The code runner was shut down before your code finished."));
    this.setStatus("stopped", null);
  }

  async runNow(request) {
    let text;
    try {
      text = JSON.stringify(request);
    } catch {
      text = undefined;
    }
    if (typeof text !== "string") throw new CodeRunError("protocol", "The request to run is not JSON.");
    // A worker replaced while this one was awaited has a boot of its own to finish first.
    while (!this.booted) await this.start();
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const call = { id: ++this.nextId, nonce: oneOff(), resolve, reject, timer: 0 };
      call.timer = setTimeout(() => {
        if (this.inflight !== call) return;
        const s = Math.round(this.timeLimitMs / 100) / 10;
        this.replace(new CodeRunError("time", `Your code ran for more than ${s} s (an endless loop?), so it was `
          + `stopped; ${FRESH}.`));
      }, this.timeLimitMs);
      this.inflight = call;
      this.setStatus("running", null);
      worker.postMessage({ id: call.id, nonce: call.nonce, request: text });
    });
  }

  startWorker() {
    const worker = startSandboxedWorker(this.workerOptions); // on a lesson page of another origin too
    this.worker = worker;
    this.booted = false;
    this.bootInfo = null;
    let settle;
    this.readyPromise = new Promise((resolve, reject) => (settle = { resolve, reject }));
    this.readyPromise.catch(() => {}); // reported to whoever awaits it
    this.setStatus("starting", null);
    const failBoot = (message) => {
      if (this.worker !== worker) return;
      const error = new CodeRunError("boot", `The code runner could not start: ${message}`);
      this.stopWorker(error);
      this.setStatus("error", error.message);
      settle.reject(error);
    };
    const bootTimer = setTimeout(
      () => failBoot(`it did not start within ${Math.round(this.bootTimeoutMs / 1000)} s.`),
      this.bootTimeoutMs,
    );
    this.bootTimer = bootTimer;

    worker.onmessage = ({ data }) => {
      if (this.worker !== worker) return; // a thrown-away worker's last words
      if (!this.booted) {
        const problem = bootMessageProblem(data);
        if (problem) {
          this.refused(problem);
          failBoot(`it sent a message the page does not accept (${problem}).`);
        } else if (data.type === "ready") {
          clearTimeout(bootTimer);
          this.booted = true;
          this.bootInfo = { boot: data.boot, ms: data.ms, timings: data.timings };
          this.setStatus("ready", null);
          settle.resolve();
        } else if (data.type === "failed") {
          failBoot(data.message);
        }
        return;
      }
      const call = this.inflight;
      const problem = call ? answerProblem(data, call) : "a message while no code was running";
      if (problem) {
        this.refused(problem);
        this.replace(new CodeRunError("protocol", "The code runner sent a message the page does not accept "
          + `(${problem}), so it was stopped; ${FRESH}.`));
        return;
      }
      this.answered(call, data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker !== worker) return;
      const why = event.message || (this.booted ? "it stopped" : "code-worker.js could not be loaded");
      if (!this.booted) failBoot(why);
      else this.replace(new CodeRunError("crashed", `The code runner stopped (${why}); ${FRESH}.`));
    };
  }

  // A checked answer to the run in flight: its result, or why it must be set aside.
  answered(call, data) {
    this.heapBytes = data.heap;
    const mb = this.memoryLimitMB;
    if (data.refused || data.heap > mb * 1024 * 1024) {
      this.replace(new CodeRunError("memory", `Your code used more than ${mb} MB of memory (a list that grows `
        + `without end?), so it was stopped; ${FRESH}.`));
    } else if (data.changed.length) {
      const more = data.changed.length > 1 ? `, and ${data.changed.length - 1} more` : "";
      this.replace(new CodeRunError("changed", `Your code changed Python itself (${data.changed[0]}${more}), `
        + `so its run was set aside; ${FRESH}.`, data.changed));
    } else if ("error" in data) {
      this.replace(new CodeRunError("crashed", `Your code stopped the code runner's Python (${data.error}); `
        + `${FRESH}.`));
    } else {
      let result;
      try {
        result = JSON.parse(data.result);
      } catch {
        result = undefined;
      }
      if (!isPlainObject(result)) {
        this.refused("a result that is not a JSON object");
        this.replace(new CodeRunError("protocol", "The code runner's answer was not a JSON object, so it was "
          + `stopped; ${FRESH}.`));
        return;
      }
      this.finish(call);
      this.setStatus("ready", null);
      call.resolve(result);
    }
  }

  finish(call) {
    clearTimeout(call.timer);
    if (this.inflight === call) this.inflight = null;
  }

  // Throw the worker away (failing the run in flight with `error`) and start a fresh one.
  replace(error) {
    this.replaced += 1;
    this.stopWorker(error);
    this.setStatus("error", error.message);
    if (!this.terminated) this.startWorker();
  }

  stopWorker(error) {
    clearTimeout(this.bootTimer);
    this.worker?.terminate();
    this.worker = null;
    this.booted = false;
    const call = this.inflight;
    if (call) {
      this.finish(call);
      call.reject(error);
    }
  }

  refused(problem) {
    this.refusals = [...this.refusals.slice(-9), problem];
  }

  setStatus(state, message) {
    this.status = { state, message };
    this.onStatus(this.status);
  }
}

// ---------------------------------------------------------------- the protocol's shapes
// Each returns null for a message of that shape, else what is wrong with it. A
// message is a plain object with exactly the keys its shape names.

const text = (max) => (v) => typeof v === "string" && v.length <= max;
const number = (v) => typeof v === "number" && Number.isFinite(v) && v >= 0;
const boolean = (v) => typeof v === "boolean";
const oneOf = (...values) => (v) => values.includes(v);
const timings = (v) => isPlainObject(v) && Object.keys(v).length <= 20 && Object.values(v).every(number);
const changes = (v) => Array.isArray(v) && v.length <= 20 && v.every(text(300));

const BOOT_SHAPES = {
  progress: { type: oneOf("progress"), stage: text(40), fraction: (v) => number(v) && v <= 1 },
  ready: { type: oneOf("ready"), boot: oneOf("fast", "snapshot"), ms: number, timings },
  failed: { type: oneOf("failed"), message: text(1000) },
};

function bootMessageProblem(data) {
  const shape = isPlainObject(data) && Object.hasOwn(BOOT_SHAPES, data.type) ? BOOT_SHAPES[data.type] : null;
  return shape ? shapeProblem(data, shape) : "not a boot message";
}

function answerProblem(data, call) {
  const id = (v) => v === call.id;
  const nonce = (v) => v === call.nonce;
  const common = { id, nonce, heap: number, refused: boolean, changed: changes };
  const shape = isPlainObject(data) && Object.hasOwn(data, "error")
    ? { ...common, error: text(1000) }
    : { ...common, result: text(MAX_RESULT_CHARS) };
  return shapeProblem(data, shape);
}

function shapeProblem(data, shape) {
  if (!isPlainObject(data)) return "not an object";
  const keys = Object.keys(data);
  const extra = keys.find((key) => !Object.hasOwn(shape, key));
  if (extra !== undefined) return `an unexpected field ${JSON.stringify(extra.slice(0, 40))}`;
  for (const [key, fits] of Object.entries(shape)) {
    if (!Object.hasOwn(data, key)) return `no ${key}`;
    if (!fits(data[key])) return key === "nonce" || key === "id" ? `not this run's ${key}` : `a wrong ${key}`;
  }
  return null;
}

function isPlainObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// 128 random bits, as hex: what makes an answer this run's.
function oneOff() {
  return Array.from(crypto.getRandomValues(new Uint32Array(4)), (n) => n.toString(16).padStart(8, "0")).join("");
}
