// The code worker (a module worker): the one place where a learner's own Python
// runs, in a Pyodide of its own, never in the engine's worker (worker.js) and never
// on the page's thread.
//
// It runs inside the code sandbox (code-sandbox.html, started by boot/code-sandbox.js):
// a frame with an opaque origin and a Content-Security-Policy that allows no network
// at all. So it fetches nothing: the page hands it every file it needs in its first
// message, and it boots Python from those bytes (worker/given-boot.js), restoring
// the memory snapshot the engine's worker kept when the page found one.
//
//   page -> worker   first: {type: "boot", files, snapshot, options} (given-boot.js)
//                    then:  {id, nonce, request: "<json string>"}
//   worker -> page   {id, nonce, result: "<json string>", heap, refused, changed}
//                    or {id, nonce, error: "...", heap, refused, changed}
//                    heap: Python's heap in bytes after the run; refused: whether the
//                    memory limit refused a growth; changed: what the run changed in
//                    Python itself (worker/python-intact.js), [] when nothing
//   end of boot      {type: "ready", boot: "fast"|"snapshot", ms, timings}
//                    or {type: "failed", message}
//
// options: {memoryMB (the memory limit: Python's heap may not grow past it,
// worker/heap-limit.js), entry ("a.b.fn", the function that answers a run; default
// engine.yourcode.run: JSON in, JSON out), module (tests and benchmarks: {name, text},
// a .py module importable before the entry)}.
//
// The learner's code can reach this worker's JavaScript (through any JavaScript
// proxy it finds in Python's memory, even with `js` unimportable: worker/lockdown.js
// is a second line only). What it can reach there is nothing: no network, no
// storage, no cookies, no site's authority (the sandbox's opaque origin and its
// policy are the wall). Nothing here trusts what it may have touched either:
// messages go out through postMessage as it was before any run, each answer carries
// the page's one-off nonce (which the learner's code never sees), the heap is read
// through built-ins kept at start, and the page checks every message and throws the
// worker away when in doubt.

import { bootGiven } from "./worker/given-boot.js";
import { sentence } from "./worker/errors.js";
import { limitHeap } from "./worker/heap-limit.js";
import { lockDown } from "./worker/lockdown.js";
import { watchPython } from "./worker/python-intact.js";
import { mark, STARTED, timings } from "./worker/timings.js";

const post = self.postMessage.bind(self);
const DEFAULT_MEMORY_MB = 256;
const DEFAULT_ENTRY = "engine.yourcode.run";
const TEST_MODULES = "/gradwalk-test-modules";

let boot = null; // the boot's promise: {run, changes}, or null when it failed

self.onmessage = async (event) => {
  const data = event.data ?? {};
  if (boot === null) {
    boot = start(data);
    return;
  }
  const { id, nonce, request } = data;
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
  post({ ...answer, ...python.heapUse(), changed });
};

async function start(message) {
  try {
    if (message.type !== "boot") throw new Error("the page did not send the files to boot from.");
    const options = message.options ?? {};
    const memoryMB = wholeNumber(options.memoryMB, 64, 2048) ?? DEFAULT_MEMORY_MB;
    // Before Pyodide is loaded: its WebAssembly is instantiated under the limit.
    const heapUse = limitHeap(memoryMB * 1024 * 1024);
    const { pyodide, how } = await bootGiven(message.files, message.snapshot);
    heapUse.seal();
    if (options.module) installModule(pyodide, options.module);
    const run = entryFunction(pyodide, options.entry ?? DEFAULT_ENTRY);
    mark("import entry");
    lockDown(pyodide);
    const changes = watchPython(pyodide); // the last thing before any learner code
    mark("watch Python");
    post({ type: "ready", boot: how, ms: performance.now() - STARTED, timings });
    return { run, changes, heapUse };
  } catch (error) {
    post({ type: "failed", message: sentence(error) });
    return null;
  }
}

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

// A module the page handed over (tests and benchmarks: a stand-in entry), put where
// Python imports from.
function installModule(pyodide, { name, text }) {
  if (typeof name !== "string" || !/^[A-Za-z_]\w*\.py$/.test(name) || typeof text !== "string") {
    throw new Error("The test module is not a Python module.");
  }
  pyodide.FS.mkdirTree(TEST_MODULES);
  pyodide.FS.writeFile(`${TEST_MODULES}/${name}`, text);
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(TEST_MODULES)})`);
}

function wholeNumber(value, min, max) {
  return Number.isInteger(value) && value >= min && value <= max ? value : null;
}
