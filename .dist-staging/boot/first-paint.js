// The first paint, without waiting for Python: build.py had the engine (in
// CPython) answer the page's opening requests for every preset and wrote them
// to prerender/all.json (buildtools/prerender.py). A test proves that the
// engine in Pyodide gives the very same bytes, so drawing these is drawing what
// the engine would have computed.
//
//   import { prerendered } from "./first-paint.js";
//   const first = await prerendered(presetId);   // null if the file is missing
//   // first.id       the preset shown: presetId, or the default (the chooser's
//   //                first) when presetId is null or not a preset
//   // first.presets  the answer to {cmd: "presets"}            ({ok, presets: [...]})
//   // first.preset   the answer to {cmd: "preset", id}         ({ok, preset: {...}})
//   // first.load     the answer to {cmd: "load", preset: id}   (a graph answer)
//
// It is one small fetch of this site that never waits for the worker; start
// it at module load, alongside the engine. Later calls (another preset picked
// before the engine is ready) are answered from the same download.

import { siteURL } from "../site.js";

let download = null;

export async function prerendered(presetId = null) {
  download ??= fetchAll();
  const all = await download;
  if (!all) return null;
  const ids = all.presets.presets.map((p) => p.id);
  const id = ids.includes(presetId) ? presetId : ids[0];
  const entry = all.answers[id];
  return entry ? { id, presets: all.presets, preset: entry.preset, load: entry.load } : null;
}


async function fetchAll() {
  try {
    // Resolved here, not at module load: bundled into a notebook's module (a blob:
    // URL, no site around it), this throws, and there is simply no first paint.
    const response = await fetch(siteURL("prerender/all.json"));
    if (!response.ok) return null;
    const all = await response.json();
    globalThis.performance?.mark?.("gw:prerender-loaded");
    return all?.presets?.ok && all.answers ? all : null;
  } catch {
    return null;
  }
}
