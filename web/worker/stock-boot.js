// The stock boot (`?boot=stock`): Pyodide as shipped, with the source-only
// standard library, then micropip installs the source engine wheel. Kept so that
// bench/page_load.py can measure the fast boot against it side by side.

import { siteURL } from "../site.js";
import { importRuntime } from "./downloads.js";
import { mark } from "./timings.js";

export async function bootStock(build, indexURL, progress, orFail) {
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
  await orFail(micropip.install(siteURL(build.engine_wheel).href));
  mark("install engine");
  const api = pyodide.pyimport("engine.api");
  mark("import engine");
  progress.done();
  return { pyodide, api, how: "stock", snapshot: "unused" };
}
