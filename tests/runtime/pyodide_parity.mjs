// Run engine requests in the pinned Pyodide under Node, booted the way the
// page's worker boots it:
//
//   stock  the source-only stdlib; micropip installs the source engine wheel
//   fast   the precompiled stdlib as stdLibURL; the precompiled engine wheel
//          unpacked into site-packages with pyodide.unpackArchive
//
//   node tests/pyodide_parity.mjs <dist dir> <requests.json> <answers.json> [stock|fast]
//
// requests.json holds a JSON array of request strings; answers.json receives a
// JSON array of engine.api.handle's answer strings, in the same order.
// tests/runtime/test_pyodide_parity.py compares them byte for byte with CPython's.

import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [distDir, requestsPath, answersPath, mode = "stock"] = process.argv.slice(2);
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
  ...(mode === "fast" ? { stdLibURL: path.resolve(distDir, build.stdlib_pyc) } : {}),
  stdout: (line) => console.error(line),
  stderr: (line) => console.error(line),
});
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
await writeFile(answersPath, JSON.stringify({ answers, probe }));
process.exit(0);
