// The fast boot (the default): the standard library and the engine precompiled to
// .pyc at build time (buildtools/precompile.py). loadPyodide gets the compiled
// stdlib, trimmed to the modules the page imports, as `stdLibURL` (the full one
// comes only if an import needs it: installStdlibFallback), and the engine
// wheel, fetched while Python starts, is unpacked with pyodide.unpackArchive. No
// micropip, no compiling Python source in the browser.
//
// Right after the engine is imported, before it answers anything, a memory
// snapshot of Python is taken and, once the worker is idle, kept in the build's
// Cache Storage; the next visit restores it instead of starting Python (boot:
// "snapshot"; web/boot/snapshot.js), and boots the fast way if the snapshot is
// missing, damaged or fails.
//
// The build's cache is the site's and the build's ("gradwalk-<site key>-<build id>",
// worker/caches.js), and the boot deletes the caches of the site's earlier builds in
// this origin as it starts, so that one build of each site is kept there. A cache
// or a snapshot the browser refuses to keep (its quota) only means the files come
// from the network again next time.

import { siteURL } from "../site.js";
import { cacheName, forgetEarlierBuilds } from "./caches.js";
import { importRuntime } from "./downloads.js";
import { explained, sentence } from "./errors.js";
import { whenIdle } from "./idle.js";
import { mark } from "./timings.js";

// The snapshot code, loaded beside the boot, not before it (a failure to load it
// only means no snapshot). Called as the worker starts.
export function loadSnapshotCode() {
  return import(siteURL("boot/snapshot.js").href).catch(() => null);
}

// `makeSnapshot: false` (the code worker) restores a kept snapshot but never makes
// one: only the engine's worker keeps the snapshot for the next visit.
export async function bootFast(build, indexURL, progress, orFail, downloads, snapshotCode,
  { makeSnapshot = true } = {}) {
  const stdLibURL = siteURL(build.stdlib_pyc).href;
  // This build's cache (the same name as sw.js's on the site's own origin), and the
  // site's earlier builds' caches in this origin deleted, beside the boot.
  const cache = cacheName(siteURL("./").href, build.build_id);
  forgetEarlierBuilds(siteURL("./").href, build.build_id);
  // Start every download now, side by side, before the runtime's script has
  // even arrived: the .wasm and the stdlib are handed to Pyodide when it asks
  // for them, the runtime's big script is already in the module map when
  // loadPyodide imports it, and the engine arrives while Python starts.
  downloads.prefetch(new URL("pyodide.asm.wasm", indexURL).href, cache);
  downloads.prefetch(stdLibURL);
  const wheel = self.fetch(siteURL(build.engine_wheel_pyc).href).then((r) => r.arrayBuffer());
  wheel.catch(() => {}); // reported through downloads.failed
  import(new URL("pyodide.asm.mjs", indexURL).href).catch(() => {}); // loadPyodide reports it
  // A snapshot kept by an earlier visit is read (and checked) meanwhile.
  const kept = keptSnapshot(build, stdLibURL, snapshotCode, cache);

  const { loadPyodide } = await orFail(importRuntime(build, indexURL));
  mark("pyodide.mjs");
  const options = {
    indexURL,
    packageBaseUrl: indexURL, // never a CDN
    stdLibURL,
    // No package is ever loaded here: a lock file with none, from build.json, instead of a download.
    ...(build.pyodide_lock_fast ? { lockFileContents: build.pyodide_lock_fast } : {}),
    stdout: () => {},
  };
  const { code, store, snapshot } = await kept;
  if (snapshot) {
    const restored = await bootFromSnapshot(code, store, loadPyodide, options, snapshot, build, wheel, orFail);
    if (restored) {
      progress.done();
      const { pyodide, api } = restored;
      return { pyodide, api, how: "snapshot", snapshot: "restored" };
    }
  }

  const pyodide = await orFail(
    explained(loadPyodide({ ...options, ...(code && makeSnapshot ? code.makeOptions() : {}) }),
      "Python could not start; "
        + "a runtime file (pyodide.asm.mjs or the standard library) may be damaged"),
  );
  mark("loadPyodide");
  installStdlibFallback(pyodide, siteURL(build.stdlib_pyc_full).href);
  installEngineLater(pyodide, build);

  progress.stage("installing the engine");
  try {
    pyodide.unpackArchive(await orFail(wheel), "wheel", { extractDir: build.site_packages });
  } catch (error) {
    const name = build.engine_wheel_pyc.split("/").pop();
    throw new Error(`The engine package ${name} is damaged (${sentence(error)}); try again.`, { cause: error });
  }
  mark("unpack engine");
  const api = pyodide.pyimport("engine.api");
  mark("import engine");
  progress.done();
  return {
    pyodide,
    api,
    how: "fast",
    snapshot: store ? store.dropped ?? "none kept" : "unavailable",
    afterReady: store && makeSnapshot ? () => keepSnapshot(code, store, pyodide) : null,
  };
}

// The fast path's standard library holds only the modules the engine and
// Pyodide were seen to import at build time (buildtools/stdlib_trim.py). An
// import of any other stdlib module fetches the full library once, synchronously
// (allowed in a worker), and finds the module there; a failed download becomes
// an ImportError that says so (buildtools/stdlib_fallback.py).
function installStdlibFallback(pyodide, fullURL) {
  const fallback = pyodide.pyimport("_stdlib_fallback");
  fallback.install(fullURL).destroy();
  fallback.destroy();
}

// The same for the engine (buildtools/engine_split.py): this worker unpacks only the engine
// modules the page imports; an import of one of the others (build.engine_later) fetches the
// full engine wheel once and finds the module there. Before the snapshot, like the above.
function installEngineLater(pyodide, build) {
  if (!build.engine_wheel_pyc_full || !build.engine_later?.length) return;
  const fallback = pyodide.pyimport("_stdlib_fallback");
  const names = pyodide.toPy(build.engine_later);
  fallback.install_later(siteURL(build.engine_wheel_pyc_full).href, names, build.site_packages).destroy();
  names.destroy();
  fallback.destroy();
}

// ---- The memory snapshot (web/boot/snapshot.js) -------------------------------

// The snapshot module, this build's store and the snapshot it keeps (its bytes
// still being read and checked); the store is null where there is no Cache
// Storage, the snapshot when none is kept.
async function keptSnapshot(build, stdLibURL, snapshotCode, cache) {
  const code = await snapshotCode;
  const store = code?.snapshotStore(build, stdLibURL, cache, siteURL("./")) ?? null;
  const snapshot = store ? await store.open().catch(() => null) : null;
  return { code, store, snapshot };
}

// Python restored from the kept snapshot with the engine's API, {pyodide, api}, or null when that
// fails in any way: the snapshot is then dropped and the caller boots the fast way
// (which makes a new one).
async function bootFromSnapshot(code, store, loadPyodide, options, snapshot, build, wheel, orFail) {
  try {
    const siteWheel = { bytes: await orFail(wheel), extractDir: build.site_packages };
    const pyodide = await orFail(code.restorePython(loadPyodide, options, snapshot, { siteWheel }));
    mark("restore snapshot");
    const api = pyodide.pyimport("engine.api");
    mark("import engine");
    return { pyodide, api };
  } catch (error) {
    // Pyodide's own errors say what is wrong on their first line (a build id
    // mismatch lists both ids below it); Python's tracebacks on their last.
    const text = String(error?.message ?? error).trim();
    await store.drop(error?.damaged ? text
      : `the snapshot did not restore: ${text.startsWith("Traceback") ? sentence(text) : text.split("\n")[0]}`);
    mark("snapshot failed");
    return null;
  }
}

// Called once the first visit's engine is ready and before it answers anything:
// takes the snapshot now (a copy of the heap, while it still holds nothing but
// the imported engine) and stores it once the worker is idle, so that neither
// the boot nor the first answers wait for the ~30 MB to be hashed and written.
function keepSnapshot(code, store, pyodide) {
  const started = performance.now();
  const { bytes, why } = code.takeSnapshot(pyodide);
  const ms = Math.round(performance.now() - started);
  if (!bytes) {
    self.postMessage({ type: "snapshot", state: "not made", ms, why });
    return;
  }
  whenIdle()
    .then(() => store.save(bytes))
    .then(
      () => self.postMessage({ type: "snapshot", state: "stored", ms, bytes: bytes.byteLength }),
      (error) => self.postMessage({ type: "snapshot", state: "not stored", ms, why: sentence(error) }),
    );
}
