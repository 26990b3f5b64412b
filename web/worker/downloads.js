// Every file the boot fetches or imports from the site: fetch is watched so that
// the progress bar counts the bytes and the first failed download ends the boot
// at once, and the runtime's files can be asked for before Pyodide wants them.

import { siteURL } from "../site.js";
import { throughCache } from "./streaming-cache.js";

// Wrap fetch so that every download (ours, Pyodide's, micropip's) is counted
// for the progress bar and a failed one is noticed. The wrapper only watches:
// callers get exactly what fetch gave them. `failed` rejects with a readable
// error on the first failure; `prefetch(url, cacheName)` starts a download now
// and hands its response to the first later fetch of that same URL (through
// the Cache Storage if a cache name is given: see streaming-cache.js).
export function watchDownloads(progress) {
  let reject;
  const failed = new Promise((_, r) => (reject = r));
  failed.catch(() => {}); // a failure after boot is reported to the caller, not as unhandled
  // What the page's Content-Security-Policy refuses (a lesson page of another origin,
  // whose policy is this worker's, lacking something docs/page.md lists) can leave
  // Pyodide waiting for ever, as a failed download can: it ends the boot as well.
  self.addEventListener("securitypolicyviolation", (e) =>
    reject(new Error(`This page's Content-Security-Policy does not allow ${refused(e)}.`)));
  const realFetch = self.fetch.bind(self);
  const watched = async (input, init, cacheName = null) => {
    const url = siteURL(input instanceof Request ? input.url : String(input));
    const name = url.pathname.split("/").pop();
    let response;
    try {
      const expected = { size: progress.expectedSize(url), sha: progress.expectedSha(url) };
      response = cacheName && self.caches
        ? await throughCache(url.href, cacheName, realFetch, expected.size, reject, expected.sha).catch(() =>
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
    const href = siteURL(input instanceof Request ? input.url : String(input)).href;
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

// What a policy refused, in its own words: WebAssembly needs 'wasm-unsafe-eval'.
function refused({ blockedURI, effectiveDirective }) {
  if (blockedURI === "wasm-eval") return `WebAssembly (${effectiveDirective} 'wasm-unsafe-eval')`;
  return `${blockedURI || "an inline script"} (${effectiveDirective})`;
}

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

// build.json (written by build.py): the runtime folder and the wheels, so that no
// hash is hard-coded here.
export async function fetchBuildInfo() {
  // build.json changes with every build, so always revalidate it.
  const response = await fetch(siteURL("build.json"), { cache: "no-cache" }).catch(() => {
    throw new Error("Could not download build.json (network error).");
  });
  if (!response.ok) throw new Error(`Could not download build.json (${response.status}).`);
  try {
    return await response.json();
  } catch {
    throw new Error("build.json is not valid JSON; rebuild the site with build.py.");
  }
}

// Pyodide's loader module, pyodide.mjs, from the build's runtime folder.
export function importRuntime(build, indexURL) {
  return import(new URL("pyodide.mjs", indexURL).href).catch(() => {
    throw new Error(`Could not load ${build.pyodide_index}pyodide.mjs.`);
  });
}
