// The code worker (a module worker): the one place where a learner's own Python
// runs, in a Pyodide of its own, never in the engine's worker (worker.js) and never
// on the page's thread. It boots the way the engine's worker does (worker/boot.js:
// the fast boot, restoring the memory snapshot the engine's worker kept when there
// is one, or the stock boot with `?boot=stock`), imports the entry function, and
// answers each run by calling it with the request's JSON. The page's side, with
// the time limit and the checks of every message, is boot/code-runner.js.
//
//   page -> worker   {id, nonce, request: "<json string>"}
//   worker -> page   {id, nonce, result: "<json string>", heap, refused, changed}
//                    or {id, nonce, error: "...", heap, refused, changed}
//                    heap: Python's heap in bytes after the run; refused: whether the
//                    memory limit refused a growth; changed: what the run changed in
//                    Python itself (worker/python-intact.js), [] when nothing
//   during boot      {type: "progress", stage, fraction}
//   end of boot      {type: "ready", boot: "fast"|"snapshot"|"stock", ms, timings}
//                    or {type: "failed", message}
//
// The worker's URL says how it runs:
//   boot=stock     the stock boot (as the engine's worker)
//   memory=MB      the memory limit: Python's heap may not grow past it (worker/heap-limit.js)
//   entry=a.b.fn   the function that answers a run (default engine.yourcode.run: JSON in, JSON out)
//   module=PATH    for tests and benchmarks: a .py file of this site, importable before the entry
//
// The learner's code can reach this worker's JavaScript (`import js`), so nothing
// here trusts what it may have touched: messages go out through postMessage as
// it was before any run, each answer carries the page's one-off nonce (which the
// learner's code never sees), the heap is read through built-ins kept at start,
// and the page checks every message and throws the worker away when in doubt.

import { siteURL } from "./site.js";
import { bootPython } from "./worker/boot.js";
import { sentence } from "./worker/errors.js";
import { loadSnapshotCode } from "./worker/fast-boot.js";
import { limitHeap } from "./worker/heap-limit.js";
import { watchPython } from "./worker/python-intact.js";
import { mark, STARTED, timings } from "./worker/timings.js";

const post = self.postMessage.bind(self);
// This script's own URL, not the worker's (a blob: URL on a page of another origin:
// boot/start-worker.js).
const params = new URL(import.meta.url).searchParams;
const MODE = params.get("boot") === "stock" ? "stock" : "fast";
const DEFAULT_MEMORY_MB = 256;
const MEMORY_MB = wholeNumber(params.get("memory"), 64, 2048) ?? DEFAULT_MEMORY_MB;
const ENTRY = params.get("entry") ?? "engine.yourcode.run";
const MODULE = params.get("module");
const TEST_MODULES = "/gradwalk-test-modules";

// Before Pyodide is loaded: its WebAssembly is instantiated under the limit.
const heapUse = limitHeap(MEMORY_MB * 1024 * 1024);

self.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} in ${e.sourceFile}`));

const snapshotCode = MODE === "fast" ? loadSnapshotCode() : null;

const boot = bootPython(MODE, snapshotCode, { makeSnapshot: false })
  .then(async ({ pyodide, how }) => {
    if (MODULE) await installModule(pyodide, MODULE);
    const run = entryFunction(pyodide, ENTRY);
    mark("import entry");
    const changes = watchPython(pyodide); // the last thing before any learner code
    mark("watch Python");
    post({ type: "ready", boot: how, ms: performance.now() - STARTED, timings });
    return { run, changes };
  })
  .catch((error) => {
    post({ type: "failed", message: sentence(error) });
    return null;
  });

// Runs are answered one at a time, in the order they came.
self.onmessage = async (event) => {
  const { id, nonce, request } = event.data ?? {};
  const python = await boot;
  if (python === null) {
    post({ id, nonce, error: "Python did not start.", heap: 0, refused: false, changed: [] });
    return;
  }
  let answer;
  try {
    answer = { id, nonce, result: String(python.run(request)) };
  } catch (error) {
    answer = { id, nonce, error: sentence(error) };
  }
  let changed;
  try {
    changed = python.changes();
  } catch (error) {
    changed = [`Python could not check itself (${sentence(error)})`];
  }
  post({ ...answer, ...heapUse(), changed });
};

// The entry function ("engine.yourcode.run"), imported now so that the first run
// waits for nothing.
function entryFunction(pyodide, dotted) {
  const at = dotted.lastIndexOf(".");
  if (!/^[A-Za-z_][\w.]*\.[A-Za-z_]\w*$/.test(dotted)) throw new Error(`${dotted} is not a module's function.`);
  const module = pyodide.pyimport(dotted.slice(0, at)); // kept: the function is borrowed from it
  const fn = module[dotted.slice(at + 1)];
  if (typeof fn !== "function") throw new Error(`${dotted} is not a function.`);
  return fn;
}

// A module of this site's (tests and benchmarks: a stand-in entry), put where
// Python imports from.
async function installModule(pyodide, path) {
  const url = siteURL(path);
  const name = url.pathname.split("/").pop() ?? "";
  if (url.origin !== siteURL("./").origin || !/^[A-Za-z_]\w*\.py$/.test(name)) {
    throw new Error(`${path} is not a Python module of this site.`);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not download ${name} (${response.status}).`);
  pyodide.FS.mkdirTree(TEST_MODULES);
  pyodide.FS.writeFile(`${TEST_MODULES}/${name}`, await response.text());
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(TEST_MODULES)})`);
}

function wholeNumber(text, min, max) {
  const n = Number(text);
  return text !== null && Number.isInteger(n) && n >= min && n <= max ? n : null;
}
