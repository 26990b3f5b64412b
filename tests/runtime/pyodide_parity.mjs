// Run engine requests in the pinned Pyodide under Node, booted the way the
// page's worker boots it:
//
//   stock  the source-only stdlib; micropip installs the source engine wheel
//   fast   the precompiled stdlib as stdLibURL; the precompiled engine wheel
//          unpacked into site-packages with pyodide.unpackArchive
//   snapshot the fast boot as the worker does it on a first visit (with the
//          snapshot options), the engine imported, a memory snapshot taken with
//          web/boot/snapshot.js; then a second Pyodide restored from it as a
//          later visit does, and that one answers
//
//   node tests/runtime/pyodide_parity.mjs <dist dir> <requests.json> <answers.json> [stock|fast|snapshot]
//        [--stdlib <zip>] [--no-fallback] [--full-stdlib <zip>] [--then-import a,b.c]
//
// The snapshot mode does not install the stdlib fallback: under Node it needs a
// JavaScript function to read the full zip, and a snapshot cannot hold one (the
// worker's fallback takes only a URL; tests/runtime/test_memory_snapshot.py
// restores the worker's own snapshot in a browser).
//
// requests.json holds a JSON array of request strings; answers.json receives a
// JSON array of engine.api.handle's answer strings, in the same order.
// tests/runtime/test_pyodide_parity.py compares them byte for byte with CPython's.
//
// The fast path's stdlib is trimmed to what the page imports; as in the worker,
// the fallback finder (buildtools/stdlib_fallback.py) fetches the full one (here:
// reads it from dist/) if an import needs it, and the probe lists what it found
// there. --stdlib boots another stdlib zip instead; --no-fallback leaves the
// finder out (a missing module is then an ImportError); --full-stdlib names the
// zip the finder reads; --then-import imports modules after the requests and
// reports where each came from. The engine modules the page's wheel leaves out
// (build.json's engine_later) are found the same way, in the full engine wheel.

import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { builtSite, pyodideLoader } from "../../buildtools/pyodide_node.mjs";

// A failure is said in its own words (Node would print the minified line it came from).
process.on("uncaughtException", (error) => {
  process.stderr.write(`${error?.stack ?? error}\n`, () => process.exit(1));
});

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args.splice(at, name.startsWith("--no-") ? 1 : 2).slice(1)[0] ?? true;
};
const stdlibOverride = option("--stdlib");
const noFallback = option("--no-fallback") !== undefined;
const fullStdlibOverride = option("--full-stdlib");
const thenImport = option("--then-import");
const [distDir, requestsPath, answersPath, mode = "stock"] = args;
if (!answersPath || !["stock", "fast", "snapshot"].includes(mode)) {
  console.error(
    "usage: node tests/runtime/pyodide_parity.mjs <dist dir> <requests.json> <answers.json> [stock|fast|snapshot]",
  );
  process.exit(2);
}

// The runtime the site serves (dist/pyodide/<hash>/), not node_modules': it is what is tested.
const site = await builtSite(distDir);
const { build } = site;
const { loadPyodide, options } = await pyodideLoader({
  runtime: site.runtime,
  stdlib: mode !== "stock" ? (stdlibOverride ?? site.file(build.stdlib_pyc)) : undefined,
});

// The worker's own snapshot code, as built into dist/.
const snapshotCode = await import(pathToFileURL(path.join(distDir, "boot", "snapshot.js")).href);

let pyodide = await loadPyodide({ ...options, ...(mode === "snapshot" ? snapshotCode.makeOptions() : {}) });
const snapshotFacts = {};
let fallback = null;
if (mode === "fast" && !noFallback) {
  const full = fullStdlibOverride ?? site.file(build.stdlib_pyc_full);
  const fetchBytes = (url) => new Uint8Array(readFileSync(url)); // throws when it is not there, like a failed download
  fallback = pyodide.pyimport("_stdlib_fallback").install(full, fetchBytes);
}
// As the worker does: the engine modules the page's wheel leaves out come from the full
// engine wheel (buildtools/engine_split.py), here read from dist/.
let engineLater = null;
if (mode === "fast" && !noFallback && build.engine_later?.length) {
  const fetchBytes = (url) => new Uint8Array(readFileSync(url));
  engineLater = pyodide.pyimport("_stdlib_fallback").install_later(
    site.file(build.engine_wheel_pyc_full), pyodide.toPy(build.engine_later), build.site_packages, fetchBytes,
  );
}
if (mode !== "stock") {
  const wheel = new Uint8Array(await readFile(site.file(build.engine_wheel_pyc)));
  pyodide.unpackArchive(wheel, "wheel", { extractDir: build.site_packages });
  if (mode === "snapshot") pyodide = await madeAndRestored(pyodide, wheel);
} else {
  await pyodide.loadPackage("micropip", { messageCallback: () => {} });
  if (!pyodide.loadedPackages.micropip) throw new Error("micropip did not load");
  const wheelName = path.basename(build.engine_wheel);
  pyodide.FS.writeFile(`/tmp/${wheelName}`, await readFile(site.file(build.engine_wheel)));
  await pyodide.pyimport("micropip").install(`emfs:/tmp/${wheelName}`);
}

const api = pyodide.pyimport("engine.api");
const where = pyodide.runPython("import engine; engine.__file__");
if (!where.startsWith("/lib/python")) throw new Error(`engine imported from ${where}, not from the wheel`);

// The full engine wheel (the code worker's), unpacked aside: its .pyc files are checked
// against their sources' hashes below (the page's wheel has no sources).
const FULL_ENGINE = "/tmp/engine-full";
if (mode !== "stock") {
  pyodide.unpackArchive(new Uint8Array(await readFile(site.file(build.engine_wheel_pyc_full))), "wheel", {
    extractDir: FULL_ENGINE,
  });
}

// How the engine and the stdlib were loaded, for the test to check: the
// precompiled files must really be what Python runs in the fast path.
const probe = JSON.parse(pyodide.runPython(`
import json, sys, importlib.util, pathlib, engine, engine.api
def stale_pycs():
    """Modules of the full engine wheel whose cached .pyc was not compiled from their source."""
    stale = []
    for source in pathlib.Path("${FULL_ENGINE}/engine").rglob("*.py"):
        pyc = pathlib.Path(importlib.util.cache_from_source(str(source)))
        if not pyc.exists() or pyc.read_bytes()[8:16] != importlib.util.source_hash(source.read_bytes()):
            stale.append(source.name)
    return stale
json.dumps({
    "stale_pycs": stale_pycs(),
    "magic": importlib.util.MAGIC_NUMBER.hex(),
    "cache_tag": sys.implementation.cache_tag,
    "json_origin": sys.modules["json"].__spec__.origin,
    "engine_file": engine.__file__,
    "engine_cached": engine.api.__spec__.cached,
    "engine_loader": type(engine.api.__spec__.loader).__name__,
    "engine_sources": sorted(p.name for p in pathlib.Path(engine.__file__).parent.rglob("*.py")),
    "full_engine_sources": len(list(pathlib.Path("${FULL_ENGINE}/engine").rglob("*.py"))),
    "dont_write_bytecode": sys.flags.dont_write_bytecode,
})
`));

const requests = JSON.parse(await readFile(requestsPath, "utf8"));
const answers = requests.map((request) => api.handle(request));
// The stdlib modules no request should have needed from the full library.
probe.fallback_used = fallback ? fallback.used.toJs() : null;
// Nor any engine module the page's wheel left out.
probe.engine_later_used = engineLater ? engineLater.used.toJs() : null;
// Then modules the trimmed library surely lacks: {name: where it came from, or the error}.
probe.imported = {};
for (const name of thenImport ? thenImport.split(",") : []) {
  try {
    probe.imported[name] = pyodide.pyimport("importlib").import_module(name).__spec__.origin;
  } catch (error) {
    probe.imported[name] = `error: ${String(error.message).trim().split("\n").pop()}`;
  }
}
probe.engine_later_used_in_the_end = engineLater ? engineLater.used.toJs() : null;
await writeFile(answersPath, JSON.stringify({ answers, probe: { ...probe, ...snapshotFacts } }));
process.exit(0);

// The engine imported, a snapshot taken exactly as the worker takes it, and a
// new Pyodide restored from it exactly as the worker restores it; what the test
// checks about the two goes into snapshotFacts.
async function madeAndRestored(first, wheel) {
  first.pyimport("engine.api");
  // Compared whole: hashlib is not in the trimmed standard library this Python runs on.
  const randomState = "import random; repr(random.getstate())";
  snapshotFacts.random_before = first.runPython(randomState);
  const { bytes, why } = snapshotCode.takeSnapshot(first);
  if (!bytes) throw new Error(`no snapshot: ${why}`);
  snapshotFacts.first_heap = first._module.HEAP8.length;
  snapshotFacts.snapshot_bytes = bytes.byteLength;
  // A damaged snapshot must fail to restore, not restore into nonsense.
  const damaged = bytes.slice();
  damaged[0] ^= 0xff;
  snapshotFacts.damaged_restore = await snapshotCode.restorePython(loadPyodide, options, { bytes: damaged })
    .then(() => "restored", (error) => String(error?.message ?? error).split("\n")[0]);
  // Restored from what the worker stores (its pages of zeros left out) and reads back.
  const packed = snapshotCode.packPages(bytes);
  snapshotFacts.packed_bytes = packed.byteLength;
  const unpacked = snapshotCode.unpackPages(packed);
  snapshotFacts.unpacked_identical = unpacked.length === bytes.length && unpacked.every((b, i) => b === bytes[i]);
  const restored = await snapshotCode.restorePython(loadPyodide, options, { bytes: Promise.resolve(unpacked) },
    { siteWheel: { bytes: wheel, extractDir: build.site_packages } });
  snapshotFacts.restored_heap = restored._module.HEAP8.length;
  snapshotFacts.initial_heap = snapshotCode.INITIAL_HEAP_BYTES;
  snapshotFacts.random_after = restored.runPython(randomState);
  snapshotFacts.hash_seed = restored.runPython("import sys; sys.flags.hash_randomization");
  snapshotFacts.modules_before_request = restored.runPython("import sys; len(sys.modules)");
  return restored;
}
