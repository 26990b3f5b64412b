// Run engine requests in the pinned Pyodide under Node, the way the page's
// worker does (micropip installs the engine wheel from the built site).
//
//   node tests/pyodide_parity.mjs <dist dir> <requests.json> <answers.json>
//
// requests.json holds a JSON array of request strings; answers.json receives a
// JSON array of engine.api.handle's answer strings, in the same order.
// tests/test_pyodide_parity.py compares them byte for byte with CPython's.

import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [distDir, requestsPath, answersPath] = process.argv.slice(2);
if (!answersPath) {
  console.error("usage: node tests/pyodide_parity.mjs <dist dir> <requests.json> <answers.json>");
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
  stdout: (line) => console.error(line),
  stderr: (line) => console.error(line),
});
await pyodide.loadPackage("micropip", { messageCallback: () => {} });
if (!pyodide.loadedPackages.micropip) throw new Error("micropip did not load");

const wheelName = path.basename(build.engine_wheel);
pyodide.FS.writeFile(`/tmp/${wheelName}`, await readFile(path.join(distDir, build.engine_wheel)));
await pyodide.pyimport("micropip").install(`emfs:/tmp/${wheelName}`);

const api = pyodide.pyimport("engine.api");
const where = pyodide.runPython("import engine; engine.__file__");
if (!where.startsWith("/lib/python")) throw new Error(`engine imported from ${where}, not from the wheel`);

const requests = JSON.parse(await readFile(requestsPath, "utf8"));
const answers = requests.map((request) => api.handle(request));
await writeFile(answersPath, JSON.stringify(answers));
process.exit(0);
