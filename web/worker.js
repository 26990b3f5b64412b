// The engine's Web Worker (a module worker): it boots Pyodide from this site,
// installs the engine, and then answers the page's requests with
// engine.api.handle. Protocol (docs/api.md, "Worker protocol"):
//
//   page -> worker   {id, request: "<json string>"}
//   worker -> page   {id, response: "<json string>"}  or  {id, error: "...", detail}
//   during boot      {type: "progress", stage, fraction}   fraction: overall, 0..1
//   end of boot      {type: "ready", boot: "fast"|"snapshot"|"stock", ms, timings, snapshot}
//                    or  {type: "failed", message}
//                    (timings: ms since the worker started at which each boot stage ended;
//                    snapshot: what became of the kept memory snapshot, see fast-boot.js)
//   after ready      {type: "snapshot", state: "stored"|"not made"|"not stored", ms, bytes, why}
//                    (fast boot only: the snapshot made for the next visit)
//
// Two ways to boot, chosen by the worker URL's `boot` parameter (engine-client.js
// copies it from the page's URL, so `index.html?boot=stock` selects the stock path):
// fast (the default: worker/fast-boot.js) and stock (worker/stock-boot.js).
// This file answers requests; the rest is in worker/, one job a module:
//
//   boot.js             build.json, then the fast or the stock boot (shared with code-worker.js)
//   fast-boot.js        precompiled Python, and the memory snapshot for the next visit
//   stock-boot.js       Pyodide as shipped, micropip installs the engine
//   downloads.js        build.json, the runtime's loader, every fetch watched
//   streaming-cache.js  the .wasm streamed through the build's Cache Storage
//   progress.js         downloaded bytes -> the progress messages
//   timings.js  idle.js  errors.js    stage times, "is the worker idle", readable failures
//
// The build bundles this file and its imports into one (buildtools/bundle.py), so
// the worker starts after one request, as a single file did. Nothing is fetched
// from anywhere but this site.

import { bootPython } from "./worker/boot.js";
import { sentence } from "./worker/errors.js";
import { loadSnapshotCode } from "./worker/fast-boot.js";
import { noteRequest, whenIdle } from "./worker/idle.js";
import { STARTED, timings } from "./worker/timings.js";

// Read from this script's own URL, not the worker's: on a lesson page of another origin
// the worker is a blob: URL that imports this script with the options (boot/start-worker.js).
const MODE = new URL(import.meta.url).searchParams.get("boot") === "stock" ? "stock" : "fast";

// A Content-Security-Policy violation in here (the worker's policy is its own
// response header's) is said out loud, as it would be in the page.
self.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} in ${e.sourceFile}`));

const WARM_UP_AFTER_MS = 1500; // of no request: the page's first requests come within a few hundred ms

// Loaded beside build.json, as the worker starts (fast path only).
const snapshotCode = MODE === "fast" ? loadSnapshotCode() : null;

const boot = bootPython(MODE, snapshotCode).then(
  ({ handle, warmUp, how, snapshot, afterReady }) => {
    self.postMessage({ type: "ready", boot: how, ms: performance.now() - STARTED, timings, snapshot });
    // Still before any request is answered (they wait for `boot`, which settles after this).
    afterReady?.();
    // Once the page's first requests are answered, a big program's answer is made once and
    // dropped, so that a learner's first one does not pay for Python's cold code (engine.api.warm_up).
    whenIdle(WARM_UP_AFTER_MS).then(() => {
      try {
        warmUp();
      } catch {
        // only the first big answer's speed depends on it
      }
    });
    return handle;
  },
  (error) => {
    self.postMessage({ type: "failed", message: sentence(error) });
    return null;
  },
);

// Requests are answered one at a time, in the order they came (the engine is
// synchronous; awaiting the same settled promise keeps the order).
self.onmessage = async (event) => {
  const { id, request } = event.data ?? {};
  const handle = await boot;
  if (handle === null) {
    self.postMessage({ id, error: "The engine is not running because it failed to start." });
    return;
  }
  try {
    self.postMessage({ id, response: handle(request) });
  } catch (error) {
    self.postMessage({ id, error: sentence(error), detail: String(error?.message ?? error) });
  }
  noteRequest();
};
