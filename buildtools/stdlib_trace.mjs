// Which standard library modules the page's Python imports: boot the pinned
// Pyodide under Node exactly as the engine's worker does on its fast path
// (web/worker/fast-boot.js: the full precompiled stdlib, the precompiled engine
// wheel unpacked into site-packages), answer every request of
// buildtools/stdlib_trim.py's corpus, and list the stdlib zip's files behind
// sys.modules.
//
//   node buildtools/stdlib_trace.mjs <spec.json>
//
// spec.json: {"stdlib": "<full precompiled stdlib zip>", "wheel": "<engine .pyc wheel>",
//             "site_packages": "/lib/python3.x/site-packages", "prefix": "/lib/python3xx.zip/",
//             "fallback": "<folder holding the fallback finder's modules, imported too>",
//             "requests": "<JSON array of request strings>"}
//
// stdout, one JSON line: {"boot": [zip members loaded by the end of loadPyodide],
//                         "all": [... by the end of the run], "failed": [requests whose
//                         answer was an internal error]}

import { readFile } from "node:fs/promises";
import path from "node:path";
import { bootPyodide } from "./pyodide_node.mjs";

const [specPath] = process.argv.slice(2);
if (!specPath) {
  console.error("usage: node buildtools/stdlib_trace.mjs <spec.json>");
  process.exit(2);
}
const spec = JSON.parse(await readFile(specPath, "utf8"));
const pyodide = await bootPyodide({ stdlib: spec.stdlib });

// The recorder imports only sys; defining it with runPython may load a few of
// Pyodide's own modules more than the worker needs (kept: too many is safe).
const loaded = pyodide.runPython(`
import sys
def loaded(prefix):
    found = set()
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None) or getattr(module, "__file__", None)
        if isinstance(origin, str) and origin.startswith(prefix):
            found.add(origin[len(prefix):])
    return sorted(found)
loaded
`);
const members = () => loaded(spec.prefix).toJs();
const boot = members();

// What the worker does next: the engine wheel, unpacked (Python code in Pyodide does it).
const wheel = new Uint8Array(await readFile(spec.wheel));
pyodide.unpackArchive(wheel, "wheel", { extractDir: spec.site_packages });
const api = pyodide.pyimport("engine.api");

// The fallback finder ships in the trimmed zip; what it imports must be there too.
for (const name of ["_stdlib_fallback.py", "_stdlib_full_names.py"]) {
  pyodide.FS.writeFile(`/tmp/${name}`, await readFile(path.join(spec.fallback, name)));
}
pyodide.runPython("import sys; sys.path.append('/tmp'); import _stdlib_fallback; sys.path.remove('/tmp')");

const failed = [];
for (const request of JSON.parse(await readFile(spec.requests, "utf8"))) {
  const answer = api.handle(request);
  if (answer.includes('"kind": "internal"') || answer.includes('"kind":"internal"')) failed.push(request.slice(0, 200));
}
// A Python exception crossing into JavaScript is formatted by Python (the
// worker turns it into the sentence the page shows).
try {
  pyodide.globals.get("int")("not a number");
} catch (error) {
  String(error.message);
}

process.stdout.write(JSON.stringify({ boot, all: members(), failed }) + "\n");
process.exit(0);
