// What the memory snapshot costs a first visit and saves a second one, without a
// browser: Python started and the engine imported under Node, each load in a
// fresh process, the variants alternating load by load in one run.
//
//   node bench/snapshot_boot.mjs [--rounds 7]      (after `python build.py`)
//
//   fast        the worker's fast boot as before the snapshot (precompiled stdlib,
//               the engine wheel unpacked, `import engine.api`)
//   fast+make   the same with the snapshot options (`_makeSnapshot`, PYTHONHASHSEED=0),
//               as a first visit now boots; then the heap copy (takeSnapshot), which
//               the worker takes after ready and before the first answer
//   restore     a second visit: the stored (packed) snapshot read from a file,
//               unpacked, and restored with web/boot/snapshot.js, the engine wheel
//               unpacked, the engine imported
//
// It is the floor under the page's figures: no downloads, no page, no service
// worker, no other threads of the page competing.

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { builtSite, pyodideLoader } from "../buildtools/pyodide_node.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "dist");

if (process.argv[2] === "--child") {
  const [, , , which, snapshotFile] = process.argv;
  const started = performance.now();
  const site = await builtSite(dist);
  const { build } = site;
  const loader = await pyodideLoader({ runtime: site.runtime, stdlib: site.file(build.stdlib_pyc) });
  const { loadPyodide } = loader;
  const options = { ...loader.options, stdout: () => {} };
  const snapshot = await import(pathToFileURL(path.join(dist, "boot", "snapshot.js")).href);
  const wheel = new Uint8Array(readFileSync(site.file(build.engine_wheel_pyc)));
  const result = {};
  if (which === "restore") {
    const bytes = snapshot.unpackPages(new Uint8Array(readFileSync(snapshotFile)));
    const pyodide = await snapshot.restorePython(loadPyodide, options, { bytes: Promise.resolve(bytes) },
      { siteWheel: { bytes: wheel, extractDir: build.site_packages } });
    pyodide.pyimport("engine.api");
    result.ms = performance.now() - started;
  } else {
    const pyodide = await loadPyodide({ ...options, ...(which === "fast+make" ? snapshot.makeOptions() : {}) });
    pyodide.unpackArchive(wheel, "wheel", { extractDir: build.site_packages });
    pyodide.pyimport("engine.api");
    result.ms = performance.now() - started;
    if (which === "fast+make") {
      const copying = performance.now();
      const { bytes, why } = snapshot.takeSnapshot(pyodide);
      if (!bytes) throw new Error(`no snapshot: ${why}`);
      result.copyMs = performance.now() - copying;
      if (snapshotFile) {
        const packing = performance.now();
        const packed = snapshot.packPages(bytes);
        result.packMs = performance.now() - packing;
        writeFileSync(snapshotFile, packed);
        result.bytes = bytes.length;
        result.packed = packed.length;
      }
    }
  }
  console.log(JSON.stringify(result));
  process.exit(0);
}

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 7;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const child = (...args) => {
  const script = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [script, "--child", ...args], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
};

const snapshotFile = path.join(mkdtempSync(path.join(tmpdir(), "gw-snapshot-")), "python.bin");
const made = child("fast+make", snapshotFile); // the snapshot the restores use (not counted)
const variants = ["fast", "fast+make", "restore"];
const runs = Object.fromEntries(variants.map((v) => [v, []]));
const copies = [];
for (let i = 0; i < rounds; i++) {
  const shift = i % variants.length;
  for (const which of [...variants.slice(shift), ...variants.slice(0, shift)]) {
    const out = child(which, snapshotFile);
    runs[which].push(out.ms);
    if (out.copyMs != null) copies.push(out.copyMs);
  }
}
const ms = Object.fromEntries(variants.map((v) => [v, median(runs[v])]));
const f = (x) => Math.round(x).toLocaleString("en");
console.log(
  `Python started and the engine imported under Node: median of ${rounds} fresh processes per variant (ms)\n`,
);
for (const v of variants) {
  console.log(`  ${v.padEnd(10)} ${f(ms[v]).padStart(6)}   (${f(Math.min(...runs[v]))}–${f(Math.max(...runs[v]))})`);
}
console.log(`\n  heap copy (takeSnapshot), median  ${median(copies).toFixed(1)} ms`);
console.log(
  `  snapshot ${(made.bytes / 1e6).toFixed(1)} MB, ` +
    `stored without its zero pages ${(made.packed / 1e6).toFixed(1)} MB (packed in ${f(made.packMs)} ms)`,
);
console.log(`  first visit, fast+make / fast     ${(ms["fast+make"] / ms.fast).toFixed(2)}×`);
const ratio = ms.restore / ms.fast;
console.log(`  second visit, restore / fast      ${ratio.toFixed(2)}×`);
console.log(
  `\n  ${ratio <= 0.6 ? "ok     " : "MISSED "} restore <= 0.6 x the fast boot (Node, no browser): ${ratio.toFixed(2)}×`,
);
