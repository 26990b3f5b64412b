// The boot's progress bar: turns downloaded bytes of the runtime files into an
// overall fraction and posts {type: "progress", stage, fraction} messages (at
// most one per percent).

import { siteURL } from "../site.js";

// How the overall fraction is split between the boot stages.
const DOWNLOAD_SHARE = 0.8;
const STAGE_START = { "starting Python": 0.85, "installing the engine": 0.9 };

export class Progress {
  constructor(build, mode) {
    // Only what goes through fetch can be counted: the .wasm, the stdlib zip and, on the
    // stock path, the lock file (the fast path's comes in build.json): the bulk of the
    // bytes. The .mjs files come through import(), and the wheels are small and belong
    // to the install stage.
    const index = build.pyodide_index ?? "";
    const counted = mode === "stock"
      ? [`${index}pyodide.asm.wasm`, `${index}pyodide-lock.json`, build.stdlib ?? `${index}python_stdlib.zip`]
      : [`${index}pyodide.asm.wasm`, build.stdlib_pyc];
    this.sizes = new Map();
    for (const rel of counted) {
      const size = build.downloads?.[rel];
      if (size) this.sizes.set(siteURL(rel).pathname, size);
    }
    this.total = [...this.sizes.values()].reduce((a, b) => a + b, 0);
    this.wasmPath = siteURL(`${index}pyodide.asm.wasm`).pathname;
    this.wasmSha = build.wasm_sha256 ?? null;
    this.loaded = new Map();
    this.current = null;
    this.lastPosted = -1;
  }

  // The size build.json recorded for a runtime file, or undefined.
  expectedSize(url) {
    return this.sizes.get(url.pathname);
  }

  // The SHA-256 build.json recorded for the .wasm, or null.
  expectedSha(url) {
    return url.pathname === this.wasmPath ? this.wasmSha : null;
  }

  stage(name, fraction = STAGE_START[name] ?? 0) {
    // Python has started by the time the engine is installed, even when the byte
    // counter has not seen the last download finish yet (a body read from memory,
    // or one Pyodide consumed another way): the stages are always said in order.
    if (name === "installing the engine" && this.current === "downloading") this.stage("starting Python");
    this.current = name;
    this.post(fraction, true);
  }

  post(fraction, force = false) {
    if (!force && fraction - this.lastPosted < 0.01) return;
    this.lastPosted = fraction;
    self.postMessage({ type: "progress", stage: this.current, fraction });
  }

  done() {
    this.post(1, true);
  }

  // Counts the bytes of a download as they arrive, on a clone: the caller gets
  // the response itself, untouched (a Response made up here would have no URL,
  // and V8 caches compiled WebAssembly only for a response that has one).
  count(url, response) {
    if (!this.sizes.has(url.pathname) || !response.body) return;
    const reader = response.clone().body.getReader();
    const pump = ({ done, value }) => {
      if (done) return;
      this.loaded.set(url.pathname, (this.loaded.get(url.pathname) ?? 0) + value.byteLength);
      this.onBytes();
      return reader.read().then(pump);
    };
    reader.read().then(pump).catch(() => {});
  }

  onBytes() {
    if (this.current !== "downloading") return;
    let loaded = 0;
    for (const [path, size] of this.sizes) loaded += Math.min(this.loaded.get(path) ?? 0, size);
    if (loaded >= this.total) this.stage("starting Python");
    else this.post((DOWNLOAD_SHARE * loaded) / this.total);
  }
}
