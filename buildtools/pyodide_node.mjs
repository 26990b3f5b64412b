// Pyodide under Node: the one place that starts it, for the build's scripts
// (precompile.mjs, stdlib_trace.mjs), the runtime tests and the benchmarks.
//
//   import { bootPyodide, pyodideLoader, builtSite } from "../buildtools/pyodide_node.mjs";
//
//   await bootPyodide()                              the pinned runtime in node_modules/pyodide
//   await bootPyodide({ stdlib: "x.zip" })           ... booting that standard library zip
//                                                    (the build's precompiled one) instead
//   const site = await builtSite("dist");            a built site's runtime and files
//   await bootPyodide({ runtime: site.runtime, stdlib: site.file(site.build.stdlib_pyc) })
//
// Packages load from the runtime's own folder (never a CDN), and Python's output
// goes to stderr, so that it never mixes with what a script prints on stdout.
// pyodideLoader() gives loadPyodide and those options apart, for code that starts
// Pyodide in its own way (web/boot/snapshot.js restores a memory snapshot with them).

import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// What `npm ci` installed from package-lock.json (buildtools/npm.py).
export const NODE_MODULES_PYODIDE = path.resolve(fileURLToPath(import.meta.url), "..", "..", "node_modules", "pyodide");

export async function pyodideLoader({ runtime = NODE_MODULES_PYODIDE, stdlib } = {}) {
  const indexURL = path.resolve(runtime) + path.sep;
  const { loadPyodide } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);
  const options = {
    indexURL,
    packageBaseUrl: indexURL,
    ...(stdlib ? { stdLibURL: path.resolve(stdlib) } : {}),
    stdout: (line) => console.error(line),
    stderr: (line) => console.error(line),
  };
  return { loadPyodide, options };
}

// A started Pyodide; `extra` adds to (or overrides) loadPyodide's options.
export async function bootPyodide(where = {}, extra = {}) {
  const { loadPyodide, options } = await pyodideLoader(where);
  return loadPyodide({ ...options, ...extra });
}

// A built site (python build.py's dist/): its build.json, its runtime folder, and
// the absolute path of a file it names.
export async function builtSite(dist) {
  const build = JSON.parse(await readFile(path.join(dist, "build.json"), "utf8"));
  return { build, runtime: path.resolve(dist, build.pyodide_index), file: (rel) => path.resolve(dist, rel) };
}
