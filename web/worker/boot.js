// Starting Python with the engine installed, for both of the page's workers (the
// engine's, worker.js, and the code worker, code-worker.js): build.json first,
// then the fast boot (fast-boot.js) or the stock one (stock-boot.js), with every
// download watched so that the first failure ends the boot at once.
//
// Resolves with {pyodide, handle, warmUp, how, snapshot, afterReady}: the Python, the
// engine's engine.api.handle and engine.api.warm_up, how it booted ("fast", "snapshot", "stock"), what
// became of the kept memory snapshot, and what to run once ready (the fast
// boot's snapshot for the next visit, when `makeSnapshot`).

import { siteURL } from "../site.js";
import { fetchBuildInfo, watchDownloads } from "./downloads.js";
import { bootFast } from "./fast-boot.js";
import { Progress } from "./progress.js";
import { bootStock } from "./stock-boot.js";
import { mark } from "./timings.js";

export async function bootPython(mode, snapshotCode, { makeSnapshot = true } = {}) {
  const build = await fetchBuildInfo();
  mark("build.json");
  const progress = new Progress(build, mode);
  // Pyodide swallows some failures (a 404 for the .wasm only logs a warning and
  // then waits forever), so every download is watched and the first failure
  // ends the boot at once, whatever Pyodide does with it.
  const downloads = watchDownloads(progress);
  const orFail = (promise) => Promise.race([promise, downloads.failed]);

  progress.stage("downloading");
  const indexURL = siteURL(build.pyodide_index).href;
  const { api, ...booted } = await (mode === "stock"
    ? bootStock(build, indexURL, progress, orFail)
    : bootFast(build, indexURL, progress, orFail, downloads, snapshotCode, { makeSnapshot }));
  return { ...booted, handle: (request) => api.handle(request), warmUp: () => api.warm_up() };
}
