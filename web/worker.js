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
//                    snapshot: what became of the kept memory snapshot, see below)
//   after ready      {type: "snapshot", state: "stored"|"not made"|"not stored", ms, bytes, why}
//                    (fast boot only: the snapshot made for the next visit)
//
// Two ways to boot, chosen by the worker URL's `boot` parameter (engine-client.js
// copies it from the page's URL, so `index.html?boot=stock` selects the stock path):
//
//   fast (default)  the standard library and the engine precompiled to .pyc at
//                   build time (buildtools/precompile.py); loadPyodide gets the
//                   compiled stdlib, trimmed to the modules the page imports, as
//                   `stdLibURL` (the full one comes only if an import needs it:
//                   installStdlibFallback), and the engine wheel, fetched
//                   while Python starts, is unpacked with pyodide.unpackArchive.
//                   No micropip, no compiling Python source in the browser.
//                   Right after the engine is imported, before it answers
//                   anything, a memory snapshot of Python is taken and, once
//                   the worker is idle, kept in the build's Cache Storage; the
//                   next visit restores it instead of starting Python
//                   (boot: "snapshot"; web/boot/snapshot.js), and boots the fast
//                   way if the snapshot is missing, damaged or fails.
//   stock           Pyodide as shipped: the source-only standard library, then
//                   micropip installs the source engine wheel. Kept so that
//                   bench/page_load.py can measure the difference side by side.
//
// Nothing is fetched from anywhere but this site: build.json (written by
// build.py) names the runtime folder and the wheels, so no hash is hard-coded here.

// This file sits at the site root, next to build.json.
const SITE = new URL("./", import.meta.url);
const MODE = new URL(import.meta.url).searchParams.get("boot") === "stock" ? "stock" : "fast";
const STARTED = performance.now();
const timings = {}; // stage -> ms since the worker started (reported with "ready")
const mark = (name) => (timings[name] = Math.round(performance.now() - STARTED));

// The Cache Storage cache of a build (the same name as in sw.js).
const CACHE_PREFIX = "gradwalk-";

// How the overall progress fraction is split between the boot stages.
const DOWNLOAD_SHARE = 0.8;
const STAGE_START = { "starting Python": 0.85, "installing the engine": 0.9 };

// A Content-Security-Policy violation in here (the worker's policy is its own
// response header's) is said out loud, as it would be in the page.
self.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} in ${e.sourceFile}`));

// The snapshot code (fast path only) is loaded beside the boot, not before it (a
// failure to load it only means no snapshot).
const snapshotCode = MODE === "fast"
  ? import(new URL("boot/snapshot.js", SITE).href).catch(() => null)
  : Promise.resolve(null);
let lastMessageAt = 0; // performance.now() of the last request handled (see whenIdle)

const boot = bootEngine().then(
  ({ handle, how, snapshot, afterReady }) => {
    self.postMessage({ type: "ready", boot: how, ms: performance.now() - STARTED, timings, snapshot });
    // Still before any request is answered (they wait for `boot`, which settles after this).
    afterReady?.();
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
  lastMessageAt = performance.now();
};

async function bootEngine() {
  const build = await fetchJSON(new URL("build.json", SITE));
  mark("build.json");
  const progress = new Progress(build, MODE);
  // Pyodide swallows some failures (a 404 for the .wasm only logs a warning and
  // then waits forever), so every download is watched and the first failure
  // ends the boot at once, whatever Pyodide does with it.
  const downloads = watchDownloads(progress);
  const orFail = (promise) => Promise.race([promise, downloads.failed]);

  progress.stage("downloading");
  const indexURL = new URL(build.pyodide_index, SITE).href;
  return MODE === "stock"
    ? bootStock(build, indexURL, progress, orFail)
    : bootFast(build, indexURL, progress, orFail, downloads);
}

async function bootFast(build, indexURL, progress, orFail, downloads) {
  const stdLibURL = new URL(build.stdlib_pyc, SITE).href;
  // Start every download now, side by side, before the runtime's script has
  // even arrived: the .wasm and the stdlib are handed to Pyodide when it asks
  // for them, the runtime's big script is already in the module map when
  // loadPyodide imports it, and the engine arrives while Python starts.
  downloads.prefetch(new URL("pyodide.asm.wasm", indexURL).href, CACHE_PREFIX + build.build_id);
  downloads.prefetch(stdLibURL);
  const wheel = self.fetch(new URL(build.engine_wheel_pyc, SITE).href).then((r) => r.arrayBuffer());
  wheel.catch(() => {}); // reported through downloads.failed
  import(new URL("pyodide.asm.mjs", indexURL).href).catch(() => {}); // loadPyodide reports it
  // A snapshot kept by an earlier visit is read (and checked) meanwhile.
  const kept = keptSnapshot(build, stdLibURL);

  const { loadPyodide } = await orFail(importRuntime(build, indexURL));
  mark("pyodide.mjs");
  const options = {
    indexURL,
    packageBaseUrl: indexURL, // never a CDN
    stdLibURL,
    stdout: () => {},
  };
  const { code, store, snapshot } = await kept;
  if (snapshot) {
    const api = await bootFromSnapshot(code, store, loadPyodide, options, snapshot, build, wheel, orFail);
    if (api) {
      progress.done();
      return { handle: (request) => api.handle(request), how: "snapshot", snapshot: "restored" };
    }
  }

  const pyodide = await orFail(
    explained(loadPyodide({ ...options, ...(code ? code.makeOptions() : {}) }),
      "Python could not start; a runtime file (pyodide.asm.mjs, pyodide-lock.json or the standard library) may be damaged"),
  );
  mark("loadPyodide");
  installStdlibFallback(pyodide, new URL(build.stdlib_pyc_full, SITE).href);

  progress.stage("installing the engine");
  try {
    pyodide.unpackArchive(await orFail(wheel), "wheel", { extractDir: build.site_packages });
  } catch (error) {
    throw new Error(`The engine package ${build.engine_wheel_pyc.split("/").pop()} is damaged (${sentence(error)}); try again.`, { cause: error });
  }
  mark("unpack engine");
  const api = pyodide.pyimport("engine.api");
  mark("import engine");
  progress.done();
  return {
    handle: (request) => api.handle(request),
    how: "fast",
    snapshot: store ? store.dropped ?? "none kept" : "unavailable",
    afterReady: store ? () => keepSnapshot(code, store, pyodide) : null,
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

// ---- The memory snapshot (web/boot/snapshot.js) -------------------------------

// The snapshot module, this build's store and the snapshot it keeps (its bytes
// still being read and checked); the store is null where there is no Cache
// Storage, the snapshot when none is kept.
async function keptSnapshot(build, stdLibURL) {
  const code = await snapshotCode;
  const store = code?.snapshotStore(build, stdLibURL, CACHE_PREFIX + build.build_id, SITE) ?? null;
  const snapshot = store ? await store.open().catch(() => null) : null;
  return { code, store, snapshot };
}

// The engine's API in Python restored from the kept snapshot, or null when that
// fails in any way: the snapshot is then dropped and the caller boots the fast way
// (which makes a new one).
async function bootFromSnapshot(code, store, loadPyodide, options, snapshot, build, wheel, orFail) {
  try {
    const siteWheel = { bytes: await orFail(wheel), extractDir: build.site_packages };
    const pyodide = await orFail(code.restorePython(loadPyodide, options, snapshot, { siteWheel }));
    mark("restore snapshot");
    const api = pyodide.pyimport("engine.api");
    mark("import engine");
    return api;
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

// Resolves once no request has been handled for `quietMs` (the page's first
// requests after ready come within a few hundred ms of each other).
function whenIdle(quietMs = 1000) {
  return new Promise((resolve) => {
    const check = () => {
      const quiet = performance.now() - lastMessageAt;
      if (quiet >= quietMs) resolve();
      else setTimeout(check, quietMs - quiet);
    };
    setTimeout(check, quietMs);
  });
}

// ---------------------------------------------------------------------------------

// A failure deep inside Pyodide, prefixed with what it means for the learner.
function explained(promise, what) {
  return promise.catch((error) => {
    throw new Error(`${what}: ${sentence(error)}`);
  });
}

async function bootStock(build, indexURL, progress, orFail) {
  const { loadPyodide } = await orFail(importRuntime(build, indexURL));
  mark("pyodide.mjs");
  const pyodide = await orFail(
    loadPyodide({
      indexURL,
      // Packages (micropip) come from the same folder; never from a CDN.
      packageBaseUrl: indexURL,
      stdout: () => {},
    }),
  );

  mark("loadPyodide");
  progress.stage("installing the engine");
  // The lock file in dist/ lists micropip's file name and sha256, so this
  // load is integrity-checked by the browser.
  const loadErrors = [];
  await orFail(
    pyodide.loadPackage("micropip", {
      messageCallback: () => {},
      errorCallback: (message) => loadErrors.push(message),
    }),
  );
  if (!pyodide.loadedPackages.micropip) {
    throw new Error(`Could not load micropip (${loadErrors.join(" ") || "unknown error"}).`);
  }
  const micropip = pyodide.pyimport("micropip");
  mark("micropip");
  await orFail(micropip.install(new URL(build.engine_wheel, SITE).href));
  mark("install engine");
  const api = pyodide.pyimport("engine.api");
  mark("import engine");
  progress.done();
  return { handle: (request) => api.handle(request), how: "stock", snapshot: "unused" };
}

function importRuntime(build, indexURL) {
  return import(new URL("pyodide.mjs", indexURL).href).catch(() => {
    throw new Error(`Could not load ${build.pyodide_index}pyodide.mjs.`);
  });
}

async function fetchJSON(url) {
  // build.json changes with every build, so always revalidate it.
  const name = url.pathname.split("/").pop();
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new Error(`Could not download ${name} (${response.status}).`);
  try {
    return await response.json();
  } catch {
    throw new Error(`${name} is not valid JSON; rebuild the site with build.py.`);
  }
}

// Wrap fetch so that every download (ours, Pyodide's, micropip's) is counted
// for the progress bar and a failed one is noticed. The wrapper only watches:
// callers get exactly what fetch gave them. `failed` rejects with a readable
// error on the first failure; `prefetch(url, cacheName)` starts a download now
// and hands its response to the first later fetch of that same URL (through
// the Cache Storage if a cache name is given: see throughCache).
function watchDownloads(progress) {
  let reject;
  const failed = new Promise((_, r) => (reject = r));
  failed.catch(() => {}); // a failure after boot is reported to the caller, not as unhandled
  const realFetch = self.fetch.bind(self);
  const watched = async (input, init, cacheName = null) => {
    const url = new URL(input instanceof Request ? input.url : String(input), SITE);
    const name = url.pathname.split("/").pop();
    let response;
    try {
      response = cacheName && self.caches
        ? await throughCache(url.href, cacheName, realFetch, progress.expectedSize(url), reject).catch(() =>
          realFetch(input, init)) // no Cache Storage here (private mode, quota): plain fetch
        : await realFetch(input, init);
    } catch (error) {
      const why = init?.integrity ? "network error or failed integrity check" : "network error";
      reject(new Error(`Could not download ${name} (${why}).`));
      throw error;
    }
    if (!response.ok) {
      reject(new Error(`Could not download ${name} (${response.status}).`));
      return response;
    }
    const fixed = asWasm(url, response);
    progress.count(url, fixed);
    return fixed;
  };
  const early = new Map(); // absolute URL -> the prefetched response (a promise)
  self.fetch = (input, init) => {
    const href = new URL(input instanceof Request ? input.url : String(input), SITE).href;
    const response = early.get(href);
    if (response && !init?.integrity) {
      early.delete(href);
      return response;
    }
    return watched(input, init);
  };
  const prefetch = (href, cacheName = null) => {
    const response = watched(href, undefined, cacheName);
    response.catch(() => {}); // reported through `failed`
    early.set(href, response);
  };
  return { failed, prefetch };
}

// The response for href from the Cache Storage (the build's own cache, the one
// sw.js fills), put there first if it is not there yet, so that a second visit
// reads the .wasm from disk. (V8's compiled-code cache is not reused this way:
// a second visit's trace still compiles ~2,600 functions lazily. A plain fetch
// served by the service worker's route gets it from the third visit on, but
// loses the size check below.)
//
// The caller gets the bytes as they arrive, so that the .wasm is compiled while
// it downloads (WebAssembly.instantiateStreaming; reading it whole first cost a
// slow link the whole compile after the last byte). Only a file of the size the
// build recorded goes into the cache: a truncated download kept there would fail
// every later boot, Retry included. A truncated one is said at once through
// `onDamaged` (the boot's `failed`), before its stream ends in an error, so the
// learner reads "arrived damaged" rather than whatever the compiler makes of it.
async function throughCache(href, cacheName, realFetch, expectedSize, onDamaged) {
  const cache = await caches.open(cacheName);
  const hit = await cache.match(href);
  if (hit) return hit;
  const response = await realFetch(href);
  if (!response.ok || !response.body) return response;
  const name = new URL(href).pathname.split("/").pop();
  let seen = 0;
  const checked = response.body.pipeThrough(new TransformStream({
    transform(chunk, stream) {
      seen += chunk.byteLength;
      stream.enqueue(chunk);
    },
    flush(stream) {
      if (expectedSize == null || seen === expectedSize) return;
      const error = new DamagedFile(`${name} arrived damaged (${seen} of ${expectedSize} bytes); try again.`);
      onDamaged(error);
      stream.error(error);
    },
  }));
  const [toCaller, toCache] = checked.tee();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  new Response(toCache, init).arrayBuffer()
    .then((body) => cache.put(href, new Response(body, init)))
    .catch(() => {}); // damaged (said above), or no room: the next visit downloads it again
  return new Response(toCaller, init);
}

class DamagedFile extends Error {}

// WebAssembly.instantiateStreaming refuses a .wasm that is not labelled
// application/wasm, and Pyodide then waits forever. Some static hosts send
// .wasm as application/octet-stream; the bytes are fine, so fix the label.
function asWasm(url, response) {
  if (!url.pathname.endsWith(".wasm") || response.headers.get("content-type") === "application/wasm") {
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/wasm");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

// Turns downloaded bytes of the runtime files into an overall boot fraction
// and posts progress messages (at most one per percent).
class Progress {
  constructor(build, mode) {
    // Only what goes through fetch can be counted: the .wasm, the stdlib zip and
    // the lock file (the bulk of the bytes). The .mjs files come through
    // import(), and the wheels are small and belong to the install stage.
    const index = build.pyodide_index ?? "";
    const counted = [`${index}pyodide.asm.wasm`, `${index}pyodide-lock.json`,
      mode === "stock" ? build.stdlib ?? `${index}python_stdlib.zip` : build.stdlib_pyc];
    this.sizes = new Map();
    for (const rel of counted) {
      const size = build.downloads?.[rel];
      if (size) this.sizes.set(new URL(rel, SITE).pathname, size);
    }
    this.total = [...this.sizes.values()].reduce((a, b) => a + b, 0);
    this.loaded = new Map();
    this.current = null;
    this.lastPosted = -1;
  }

  // The size build.json recorded for a runtime file, or undefined.
  expectedSize(url) {
    return this.sizes.get(url.pathname);
  }

  stage(name, fraction = STAGE_START[name] ?? 0) {
    // Python has started by the time the engine is installed, even when the byte
    // counter has not seen the last download finish yet (a body read from memory,
    // or one Pyodide consumed another way): the stages are always said in order.
    if (name === "installing the engine" && this.current === "downloading") this.stage("starting Python");
    this.current = name;
    this.post(fraction, true);
  }

  post(fraction, force = false) {
    if (!force && fraction - this.lastPosted < 0.01) return;
    this.lastPosted = fraction;
    self.postMessage({ type: "progress", stage: this.current, fraction });
  }

  done() {
    this.post(1, true);
  }

  // Counts the bytes of a download as they arrive, on a clone: the caller gets
  // the response itself, untouched (a Response made up here would have no URL,
  // and V8 caches compiled WebAssembly only for a response that has one).
  count(url, response) {
    if (!this.sizes.has(url.pathname) || !response.body) return;
    const reader = response.clone().body.getReader();
    const pump = ({ done, value }) => {
      if (done) return;
      this.loaded.set(url.pathname, (this.loaded.get(url.pathname) ?? 0) + value.byteLength);
      this.onBytes();
      return reader.read().then(pump);
    };
    reader.read().then(pump).catch(() => {});
  }

  onBytes() {
    if (this.current !== "downloading") return;
    let loaded = 0;
    for (const [path, size] of this.sizes) loaded += Math.min(this.loaded.get(path) ?? 0, size);
    if (loaded >= this.total) this.stage("starting Python");
    else this.post((DOWNLOAD_SHARE * loaded) / this.total);
  }
}

// One readable sentence for the page. Python errors arrive as full tracebacks,
// whose last line ("ValueError: ...") is what a person needs.
function sentence(error) {
  const text = String(error?.message ?? error ?? "Unknown error").trim();
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 1 ? lines[lines.length - 1].trim() : text;
}
