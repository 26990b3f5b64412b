// Run engine requests in the pinned Pyodide under Node, booted the way the
// page's worker boots it:
//
//   stock  the source-only stdlib; micropip installs the source engine wheel
//   fast   the precompiled stdlib as stdLibURL; the precompiled engine wheel
//          unpacked into site-packages with pyodide.unpackArchive
//
//   node tests/pyodide_parity.mjs <dist dir> <requests.json> <answers.json> [stock|fast]
//        [--stdlib <zip>] [--no-fallback] [--full-stdlib <zip>] [--then-import a,b.c]
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
// reports where each came from.

import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

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
if (!answersPath || !["stock", "fast"].includes(mode)) {
  console.error("usage: node tests/pyodide_parity.mjs <dist dir> <requests.json> <answers.json> [stock|fast]");
  process.exit(2);
}

const build = JSON.parse(await readFile(path.join(distDir, "build.json"), "utf8"));
const indexDir = path.resolve(distDir, build.pyodide_index) + path.sep;
const { loadPyodide } = await import(pathToFileURL(path.join(indexDir, "pyodide.mjs")).href);

// packageBaseUrl keeps package loads in dist/pyodide/ (never a CDN); Python's
// own output goes to stderr so it cannot mix with anything we print.
const pyodide = await loadPyodide({
  indexURL: indexDir,
  packageBaseUrl: indexDir,
  ...(mode === "fast" ? { stdLibURL: stdlibOverride ?? path.resolve(distDir, build.stdlib_pyc) } : {}),
  stdout: (line) => console.error(line),
  stderr: (line) => console.error(line),
});
let fallback = null;
if (mode === "fast" && !noFallback) {
  const full = fullStdlibOverride ?? path.resolve(distDir, build.stdlib_pyc_full);
  const fetchBytes = (url) => new Uint8Array(readFileSync(url)); // throws when it is not there, like a failed download
  fallback = pyodide.pyimport("_stdlib_fallback").install(full, fetchBytes);
}
if (mode === "fast") {
  const wheel = new Uint8Array(await readFile(path.join(distDir, build.engine_wheel_pyc)));
  pyodide.unpackArchive(wheel, "wheel", { extractDir: build.site_packages });
} else {
  await pyodide.loadPackage("micropip", { messageCallback: () => {} });
  if (!pyodide.loadedPackages.micropip) throw new Error("micropip did not load");
  const wheelName = path.basename(build.engine_wheel);
  pyodide.FS.writeFile(`/tmp/${wheelName}`, await readFile(path.join(distDir, build.engine_wheel)));
  await pyodide.pyimport("micropip").install(`emfs:/tmp/${wheelName}`);
}

const api = pyodide.pyimport("engine.api");
const where = pyodide.runPython("import engine; engine.__file__");
if (!where.startsWith("/lib/python")) throw new Error(`engine imported from ${where}, not from the wheel`);

// How the engine and the stdlib were loaded, for the test to check: the
// precompiled files must really be what Python runs in the fast path.
const probe = JSON.parse(pyodide.runPython(`
import json, sys, importlib.util, pathlib, engine, engine.api
def stale_pycs():
    """Engine modules whose cached .pyc was not compiled from their source."""
    stale = []
    for source in pathlib.Path(engine.__file__).parent.rglob("*.py"):
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
    "dont_write_bytecode": sys.flags.dont_write_bytecode,
})
`));

const requests = JSON.parse(await readFile(requestsPath, "utf8"));
const answers = requests.map((request) => api.handle(request));
// The stdlib modules no request should have needed from the full library.
probe.fallback_used = fallback ? fallback.used.toJs() : null;
// Then modules the trimmed library surely lacks: {name: where it came from, or the error}.
probe.imported = {};
for (const name of thenImport ? thenImport.split(",") : []) {
  try {
    probe.imported[name] = pyodide.pyimport("importlib").import_module(name).__spec__.origin;
  } catch (error) {
    probe.imported[name] = `error: ${String(error.message).trim().split("\n").pop()}`;
  }
}
await writeFile(answersPath, JSON.stringify({ answers, probe }));
process.exit(0);
