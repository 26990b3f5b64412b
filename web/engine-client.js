// The page's handle on the engine worker (web/worker.js).
//
//   import { createEngine } from "./engine-client.js";
//   const engine = createEngine({ onProgress: ({ stage, fraction }) => ... });
//   await engine.ready;                                  // rejects if boot fails or times out
//   const answer = await engine.call({ cmd: "load", preset: "diamond" });
//
// call() takes a request object and resolves with the engine's answer object
// (which may be {ok: false, error} — that is an answer, not a failure). It
// rejects with an EngineError only when the engine itself could not answer.
// Every wait has a time limit: a boot that takes too long rejects `ready`, and
// a call that gets no answer rejects and replaces the worker with a fresh one.
//
// web/boot-early.js (a classic script at the top of the page) starts the worker
// before the page's modules have loaded; the first createEngine() with the same
// worker URL takes it over.
//
// The worker boots the fast way (precompiled Python) unless asked otherwise:
// createEngine({boot: "stock"}), or `?boot=stock` in the page's own URL, selects
// stock Pyodide + micropip (for side-by-side benchmarks). `engine.bootInfo` says
// which way the current worker booted and how long it took ({boot, ms, timings}).

import { markBusy } from "./busy.js";

export class EngineError extends Error {
  constructor(message) {
    super(message);
    this.name = "EngineError";
  }
}

export function createEngine(options = {}) {
  return new Engine(options);
}

export class Engine {
  constructor({
    onProgress = () => {},
    bootTimeoutMs = 30000,
    callTimeoutMs = 10000,
    boot = pageBootMode(),
    workerURL = workerURLFor(boot),
  } = {}) {
    this.onProgress = onProgress;
    this.bootTimeoutMs = bootTimeoutMs;
    this.callTimeoutMs = callTimeoutMs;
    this.workerURL = workerURL;
    this.bootInfo = null;
    this.nextId = 0;
    this.readyWorker = null; // the worker that has said it is ready
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.start();
  }

  // A promise that resolves once the engine can answer; replaced by restart().
  get ready() {
    return this.readyPromise;
  }

  async call(request) {
    markBusy(1); // <html data-busy> while an answer is awaited (web/busy.js)
    try {
      return await this.callNow(request);
    } finally {
      markBusy(-1);
    }
  }

  async callNow(request) {
    // If the worker is replaced while we wait, wait for the new one. A worker that
    // is up gets the request at once, in this task: awaiting even a settled promise
    // would post it only after whatever the caller does next (a focus, a layout).
    if (!this.worker || this.readyWorker !== this.worker) {
      let ready;
      do {
        ready = this.readyPromise;
        await ready;
      } while (ready !== this.readyPromise);
    }

    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new EngineError(`The engine did not answer within ${seconds(this.callTimeoutMs)}, so it was restarted.`));
        this.restart(); // the worker may be stuck in a long computation: start afresh
      }, this.callTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, request: JSON.stringify(request) });
    });
  }

  // Throw the worker away (answering its pending calls with an error) and boot a new one.
  restart() {
    this.stop("The engine was restarted before it answered.");
    this.start();
    return this.readyPromise;
  }

  // Stop for good; later calls reject.
  terminate() {
    this.stop("The engine was shut down before it answered.");
    this.readyPromise = Promise.reject(new EngineError("The engine has been shut down."));
    this.readyPromise.catch(() => {});
  }

  start() {
    const early = adoptPrestarted(this.workerURL);
    if (!early) globalThis.performance?.mark?.("gw:worker-start");
    const worker = early?.worker ?? new Worker(this.workerURL, { type: "module" });
    this.worker = worker;
    let settle;
    this.readyPromise = new Promise((resolve, reject) => (settle = { resolve, reject }));
    // Nobody may be awaiting `ready` yet; a failure still reaches call() and
    // anyone who awaits it, but is not reported as an unhandled rejection.
    this.readyPromise.catch(() => {});
    let booted = false;

    const failBoot = (message) => {
      clearTimeout(bootTimer);
      if (this.worker === worker) this.stop(message);
      settle.reject(new EngineError(message));
    };
    const bootTimer = setTimeout(
      () => failBoot(`The engine did not start within ${seconds(this.bootTimeoutMs)}.`),
      this.bootTimeoutMs,
    );

    worker.onmessage = ({ data }) => {
      if (this.worker !== worker) return; // a late message from a replaced worker
      if (data?.type === "progress") {
        this.onProgress({ stage: data.stage, fraction: data.fraction });
      } else if (data?.type === "ready") {
        booted = true;
        this.bootInfo = { boot: data.boot ?? null, ms: data.ms ?? null, timings: data.timings ?? {} };
        globalThis.performance?.mark?.("gw:worker-ready");
        clearTimeout(bootTimer);
        this.readyWorker = worker;
        settle.resolve();
      } else if (data?.type === "failed") {
        failBoot(data.message);
      } else if (data && "id" in data) {
        this.answer(data);
      }
    };
    worker.onerror = (event) => {
      // The worker script itself failed (did not load, or threw outside a request).
      event.preventDefault();
      if (this.worker !== worker) return;
      const why = event.message || "web/worker.js could not be loaded";
      if (!booted) failBoot(`The engine's worker stopped: ${why}.`);
      else this.restart();
    };
    // What a prestarted worker said before it was adopted, in order.
    for (const [kind, event] of early?.buffered ?? []) {
      if (kind === "message") worker.onmessage(event);
      else worker.onerror(event);
    }
  }

  answer({ id, response, error }) {
    const call = this.pending.get(id);
    if (!call) return; // already timed out
    this.pending.delete(id);
    clearTimeout(call.timer);
    if (error !== undefined) {
      call.reject(new EngineError(`The engine failed: ${error}`));
      return;
    }
    try {
      call.resolve(JSON.parse(response));
    } catch {
      call.reject(new EngineError("The engine's answer was not valid JSON."));
    }
  }

  stop(message) {
    this.worker?.terminate();
    this.worker = null;
    for (const call of this.pending.values()) {
      clearTimeout(call.timer);
      call.reject(new EngineError(message));
    }
    this.pending.clear();
  }
}

// ---------------------------------------------------------------- prestart
// The worker web/boot-early.js started before this module had even arrived
// (globalThis.gradwalkEarly), if it asked for the same URL: the engine takes it
// over, with everything it has said so far, instead of starting another. Any
// engine's start claims the hand-over, so a late boot-early.js starts nothing.
function adoptPrestarted(workerURL) {
  const early = (globalThis.gradwalkEarly ??= { prestarted: null, claimed: false });
  early.claimed = true;
  const prestarted = early.prestarted;
  if (!prestarted || prestarted.href !== String(workerURL)) return null;
  early.prestarted = null;
  clearTimeout(prestarted.timer);
  return prestarted;
}

// `?boot=stock` (or fast) in the page's URL, if any.
function pageBootMode() {
  const asked = new URLSearchParams(globalThis.location?.search ?? "").get("boot");
  return asked === "stock" || asked === "fast" ? asked : null;
}

function workerURLFor(boot) {
  const url = new URL("./worker.js", import.meta.url);
  if (boot) url.searchParams.set("boot", boot);
  return url;
}

function seconds(ms) {
  return `${Math.round(ms / 100) / 10} s`;
}
