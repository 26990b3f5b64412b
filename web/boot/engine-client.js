// The page's handle on the engine worker (web/worker.js): one Pyodide for the
// whole page, shared by every widget on it.
//
//   import { sharedEngine } from "./engine-client.js";
//   const client = sharedEngine().client();     // one per widget
//   const stop = client.subscribe(({ state, stage, fraction, message }) => ...);
//   const answer = await client.call({ cmd: "load", preset: "diamond" });
//   client.close();                              // the widget is gone
//
// call() takes a request object and resolves with the engine's answer object
// (which may be {ok: false, error} — that is an answer, not a failure). It
// rejects with an EngineError only when the engine itself could not answer.
//
// Python answers one request at a time, so requests wait in one queue and go to
// the worker one by one; each call's time limit starts when the worker gets it,
// so a slow request in one widget delays another by at most that limit and never
// makes it fail. A call that gets no answer in time is rejected and the worker is
// replaced; the requests other widgets had queued go to the new worker. The same
// happens after a crash: the request being answered fails, the rest are re-sent.
// When the last client closes, the worker is stopped after a short grace period.
//
// createEngine(options) makes an engine of one's own (tests and benchmarks), with
// the same call()/ready/restart()/terminate() as the shared one.
//
// web/boot-early.js (a classic script at the top of the page) starts the worker
// before the page's modules have loaded; the first engine with the same worker
// URL takes it over. The worker boots the fast way (precompiled Python) unless
// asked otherwise: createEngine({boot: "stock"}), or `?boot=stock` in the page's
// URL. `engine.bootInfo` says how the current worker booted ({boot, ms, timings, snapshot}):
// boot "fast", "snapshot" (restored from the memory snapshot a previous visit kept) or "stock".

import { siteURL } from "../site.js";
import { markBusy } from "./busy.js";
import { scriptName, startWorker } from "./start-worker.js";

export class EngineError extends Error {
  constructor(message) {
    super(message);
    this.name = "EngineError";
  }
}

export function createEngine(options = {}) {
  return new Engine(options);
}

// The page's one engine, made by the first widget that asks (its time limits win).
let shared = null;
export function sharedEngine(options = {}) {
  if (!shared || shared.terminated) shared = new Engine({ ...options, stopWhenUnused: true });
  return shared;
}

const IDLE_STOP_MS = 3000; // how long a shared worker outlives its last widget

export class Engine {
  constructor({
    onProgress = (/** @type {{stage: string, fraction: number}} */ _progress) => {},
    bootTimeoutMs = 30000,
    callTimeoutMs = 10000,
    boot = pageBootMode(),
    workerURL = workerURLFor(boot),
    stopWhenUnused = false,
  } = {}) {
    this.onProgress = onProgress;
    this.bootTimeoutMs = bootTimeoutMs;
    this.callTimeoutMs = callTimeoutMs;
    this.workerURL = workerURL;
    this.stopWhenUnused = stopWhenUnused;
    this.bootInfo = null;
    this.nextId = 0;
    this.readyWorker = null; // the worker that has said it is ready
    this.queue = []; // calls waiting for the worker: {id, request, resolve, reject, owner}
    this.inflight = null; // the call the worker is answering, with its timer
    this.clients = new Set();
    this.listeners = new Set();
    this.status = { state: "loading", stage: "downloading", fraction: 0, message: null };
    this.terminated = false;
    this.idleTimer = null;
    this.start();
  }

  // A promise that resolves once the engine can answer; replaced by restart().
  get ready() {
    return this.readyPromise;
  }

  // A widget's own handle: its calls, its status updates, and close() when it goes.
  client() {
    clearTimeout(this.idleTimer);
    if (this.terminated) throw new EngineError("The engine has been shut down.");
    if (!this.worker) this.start();
    const engine = this;
    const owner = {
      closed: false,
      listeners: new Set(),
      call: (request) => engine.call(request, owner),
      subscribe(fn) {
        owner.listeners.add(fn);
        engine.listeners.add(fn);
        fn(engine.status);
        return () => {
          owner.listeners.delete(fn);
          engine.listeners.delete(fn);
        };
      },
      restart: (options) => engine.restart(options),
      // A big graph's load may be asked for in two parts (docs/api.md, "An answer in two parts").
      answersInParts: true,
      get bootTimeoutMs() {
        return engine.bootTimeoutMs;
      },
      get ready() {
        return engine.ready;
      },
      get status() {
        return engine.status;
      },
      close() {
        if (owner.closed) return;
        owner.closed = true;
        for (const fn of owner.listeners) engine.listeners.delete(fn);
        engine.dropCalls(owner);
        engine.clients.delete(owner);
        if (engine.stopWhenUnused && !engine.clients.size) {
          clearTimeout(engine.idleTimer);
          engine.idleTimer = setTimeout(() => engine.clients.size || engine.stopIdle(), IDLE_STOP_MS);
        }
      },
    };
    this.clients.add(owner);
    return owner;
  }

  async call(request, owner = null) {
    markBusy(1); // <html data-busy> while an answer is awaited (boot/busy.js)
    try {
      return await new Promise((resolve, reject) => {
        if (this.terminated) {
          reject(new EngineError("The engine has been shut down."));
          return;
        }
        if (!this.worker) this.start(); // stopped while idle: boot again
        this.queue.push({ id: ++this.nextId, request, resolve, reject, owner });
        this.pump();
      });
    } finally {
      markBusy(-1);
    }
  }

  // Hand the next queued call to the worker, if it is up and free. Called in the
  // same task as call(): a ready worker gets the request at once, not after
  // whatever the caller does next (a focus, a layout).
  pump() {
    if (this.inflight || !this.queue.length || !this.worker || this.readyWorker !== this.worker) return;
    const call = this.queue.shift();
    if (call.owner?.closed) {
      call.reject(new EngineError("The widget that asked was removed."));
      this.pump();
      return;
    }
    call.timer = setTimeout(() => {
      if (this.inflight !== call) return;
      this.inflight = null;
      call.reject(
        new EngineError(`The engine did not answer within ${seconds(this.callTimeoutMs)}, so it was restarted.`),
      );
      this.restart(); // the worker may be stuck in a long computation: start afresh
    }, this.callTimeoutMs);
    this.inflight = call;
    this.worker.postMessage({ id: call.id, request: JSON.stringify(call.request) });
  }

  // Throw the worker away and boot a new one (with a new boot time limit, if given).
  // The call it was answering fails; the queued calls wait for the new worker.
  restart({ bootTimeoutMs = this.bootTimeoutMs } = {}) {
    this.bootTimeoutMs = bootTimeoutMs;
    this.stop("The engine was restarted before it answered.", { keepQueue: true });
    this.start();
    return this.readyPromise;
  }

  // Stop for good; later calls reject.
  terminate() {
    this.terminated = true;
    clearTimeout(this.idleTimer);
    this.stop("The engine was shut down before it answered.");
    this.readyPromise = Promise.reject(new EngineError("The engine has been shut down."));
    this.readyPromise.catch(() => {});
  }

  // No widget uses the shared engine any more: stop its worker (a new client boots it again).
  stopIdle() {
    if (this.clients.size || this.terminated) return;
    this.stop("The engine was stopped because no widget uses it.");
    this.setStatus({ state: "loading", stage: "downloading", fraction: 0, message: null });
  }

  start() {
    const early = adoptPrestarted(this.workerURL);
    if (!early) globalThis.performance?.mark?.("gw:worker-start");
    // From a lesson page of another origin too (start-worker.js); a worker that cannot be
    // made says so through onerror below, like one whose script did not load.
    const worker = early?.worker ?? startWorker(this.workerURL);
    this.worker = worker;
    let settle;
    this.readyPromise = new Promise((resolve, reject) => (settle = { resolve, reject }));
    // Nobody may be awaiting `ready` yet; a failure still reaches call() and
    // anyone who awaits it, but is not reported as an unhandled rejection.
    this.readyPromise.catch(() => {});
    this.setStatus({ state: "loading", stage: "downloading", fraction: 0, message: null });
    let booted = false;

    const failBoot = (message) => {
      clearTimeout(bootTimer);
      if (this.worker !== worker) return; // a replaced worker: its boot no longer matters
      this.stop(message);
      this.setStatus({ ...this.status, state: "error", message });
      settle.reject(new EngineError(message));
    };
    const bootTimer = setTimeout(
      () => failBoot(`The engine did not start within ${seconds(this.bootTimeoutMs)}.`),
      this.bootTimeoutMs,
    );
    this.bootTimer = bootTimer; // stop() clears it: a replaced worker's timer must not fire

    worker.onmessage = ({ data }) => {
      if (this.worker !== worker) return; // a late message from a replaced worker
      if (data?.type === "progress") {
        this.onProgress({ stage: data.stage, fraction: data.fraction });
        this.setStatus({ state: "loading", stage: data.stage, fraction: data.fraction, message: null });
      } else if (data?.type === "ready") {
        booted = true;
        this.bootInfo = {
          boot: data.boot ?? null,
          ms: data.ms ?? null,
          timings: data.timings ?? {},
          snapshot: data.snapshot ?? null,
        };
        globalThis.performance?.mark?.("gw:worker-ready", {
          detail: { boot: data.boot ?? null, snapshot: data.snapshot ?? null, timings: data.timings ?? {} },
        });
        clearTimeout(bootTimer);
        this.readyWorker = worker;
        this.setStatus({ state: "ready", stage: "ready", fraction: 1, message: null });
        settle.resolve();
        this.pump();
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
      const why = event.message || `${scriptName(this.workerURL)} could not be loaded`;
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
    const call = this.inflight;
    if (!call || call.id !== id) return; // already timed out
    this.inflight = null;
    clearTimeout(call.timer);
    if (error !== undefined) {
      // Python itself failed (a fatal Pyodide error leaves the worker unable to answer
      // again): this call fails, and the requests behind it go to a fresh worker.
      call.reject(new EngineError(`The engine failed: ${error}`));
      this.restart();
      return;
    }
    try {
      call.resolve(JSON.parse(response));
    } catch {
      call.reject(new EngineError("The engine's answer was not valid JSON."));
    }
    this.pump();
  }

  // A closed widget's calls: the queued ones are dropped (the one in flight runs
  // out, and its answer goes nowhere).
  dropCalls(owner) {
    const mine = this.queue.filter((call) => call.owner === owner);
    this.queue = this.queue.filter((call) => call.owner !== owner);
    for (const call of mine) call.reject(new EngineError("The widget that asked was removed."));
  }

  stop(message, { keepQueue = false } = {}) {
    clearTimeout(this.bootTimer);
    this.worker?.terminate();
    this.worker = null;
    this.readyWorker = null;
    const failed = this.inflight ? [this.inflight] : [];
    this.inflight = null;
    if (!keepQueue) {
      failed.push(...this.queue);
      this.queue = [];
    }
    for (const call of failed) {
      clearTimeout(call.timer);
      call.reject(new EngineError(message));
    }
  }

  setStatus(status) {
    this.status = status;
    for (const fn of [...this.listeners]) fn(status);
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
  const url = siteURL("worker.js");
  if (boot) url.searchParams.set("boot", boot);
  return url;
}

function seconds(ms) {
  return `${Math.round(ms / 100) / 10} s`;
}
