// Starting Python from files the page handed over, for the code worker, which runs in
// a sandbox with no network (code-worker.js, boot/code-sandbox.js). The same Python as
// the engine's fast boot (fast-boot.js): the pinned runtime, the standard library and
// the engine precompiled to .pyc, or the engine worker's memory snapshot restored.
//
//   const { pyodide, how } = await bootGiven(files, snapshot);
//
// files: {loader, runtime} (pyodide.mjs and pyodide.asm.mjs, as text), {wasm, stdlib,
// stdlibFull, wheel} (ArrayBuffers: pyodide.asm.wasm, the trimmed and the full
// precompiled standard library, the precompiled engine wheel), lock (pyodide-lock.json's
// text) and sitePackages (where the wheel goes). snapshot: the engine worker's memory
// snapshot as stored in the build's cache, its SHA-256 checked by the page
// (SnapshotStore.read in boot/snapshot.js), or null.
//
// Nothing is fetched. The two modules are imported from blob: URLs made here (the
// sandbox's policy allows scripts from blob: only), and the runtime's own fetches of
// the .wasm and the standard library are answered from memory, under a URL that names
// no host: a fetch the policy would refuse never happens.

import { restorePython, unpackPages } from "../boot/snapshot.js";
import { explained, sentence } from "./errors.js";
import { mark } from "./timings.js";

const NOWHERE = "https://gradwalk.invalid/"; // never requested: every file is answered from memory
const INDEX_URL = `${NOWHERE}pyodide/`;
const STDLIB_URL = `${NOWHERE}stdlib/python_stdlib.zip`;
// Where the full standard library waits until an import needs it (buildtools/stdlib_fallback.py).
const FULL_STDLIB_GIVEN = "/lib/python-stdlib-full.given.zip";

export async function bootGiven(files, snapshot) {
  const missing = ["loader", "runtime", "wasm", "lock", "stdlib", "stdlibFull", "wheel", "sitePackages"]
    .filter((name) => files?.[name] == null);
  if (missing.length) throw new Error(`the page did not hand over ${missing.join(", ")}.`);
  // Pyodide asks whether this is a classic worker by importing a data: URL; the sandbox's
  // policy refuses it and logs a violation. Without importScripts the answer is the same
  // (no) and nothing is refused, and the learner's code has one way less to load a script.
  /** @type {any} */ (self).importScripts = undefined;
  answerFromMemory({
    [`${INDEX_URL}pyodide.asm.wasm`]: [files.wasm, "application/wasm"],
    [STDLIB_URL]: [files.stdlib, "application/zip"],
  });
  const { loadPyodide } = await importText(files.loader);
  const createPyodideModule = (await importText(files.runtime)).default;
  mark("pyodide.mjs");
  const options = {
    indexURL: INDEX_URL,
    packageBaseUrl: INDEX_URL,
    stdLibURL: STDLIB_URL,
    lockFileContents: files.lock,
    createPyodideModule,
    stdout: () => {},
  };
  const siteWheel = { bytes: files.wheel, extractDir: files.sitePackages };

  let pyodide = null;
  let how = "fast";
  if (snapshot) {
    try {
      const kept = { bytes: Promise.resolve().then(() => unpackPages(new Uint8Array(snapshot))) };
      pyodide = await restorePython(loadPyodide, options, kept, { siteWheel });
      how = "snapshot";
      mark("restore snapshot");
    } catch {
      mark("snapshot failed"); // booted the normal way below; the engine's worker keeps or drops its snapshot
    }
  }
  if (!pyodide) {
    pyodide = await explained(loadPyodide(options), "Python could not start");
    mark("loadPyodide");
    try {
      pyodide.unpackArchive(files.wheel, "wheel", { extractDir: files.sitePackages });
    } catch (error) {
      throw new Error(`The engine package is damaged (${sentence(error)}); try again.`, { cause: error });
    }
    mark("unpack engine");
  }
  fullStdlibFrom(pyodide, files.stdlibFull);
  return { pyodide, how };
}

// Replaces fetch for the runtime: the given files, each as a fresh Response, and a
// refusal for anything else (the sandbox's policy would refuse it anyway).
function answerFromMemory(table) {
  self.fetch = async (input) => {
    const href = String(input instanceof Request ? input.url : input);
    const file = table[href];
    if (!file) throw new TypeError(`The code runner has no network (${href}).`);
    return new Response(file[0], { status: 200, headers: { "content-type": file[1] } });
  };
}

async function importText(text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
  try {
    return await import(url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

// The standard library's fallback (buildtools/stdlib_fallback.py) finds a module the
// trimmed library lacks in the full one, which it would download; here it reads the
// copy the page handed over instead, once an import needs it.
function fullStdlibFrom(pyodide, bytes) {
  pyodide.FS.writeFile(FULL_STDLIB_GIVEN, new Uint8Array(bytes));
  pyodide.runPython(`
import _stdlib_fallback

def _read_given(url, _path=${JSON.stringify(FULL_STDLIB_GIVEN)}):
    import os
    with open(_path, "rb") as given:
        data = given.read()
    os.remove(_path)
    return data

_stdlib_fallback.install("the full standard library").fetch_bytes = _read_given
del _read_given, _stdlib_fallback
`);
}
