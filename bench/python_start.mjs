// Python's own start, without a browser: loadPyodide under Node with the
// precompiled standard library the page's fast path loads (trimmed to the
// modules it imports), with the full precompiled one it had before, and with
// the source one (stock), side by side, each in a fresh process. It is the floor
// under the page's "engine ready": no downloads, no page, no other threads competing.
//
//   node bench/python_start.mjs [--rounds 5] [--dist DIR]    (after `python build.py`)
//
// Prints the median of each, and the ratios to stock. A dist/ built before the
// stdlib was trimmed (no "stdlib_pyc_full" in build.json) has no "trimmed" variant.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { bootPyodide, builtSite } from "../buildtools/pyodide_node.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const dist = path.resolve(option("--dist", path.join(here, "..", "dist")));
const site = await builtSite(dist);
const { build } = site;
// (Before the stdlib was trimmed, build.stdlib_pyc was the full one.)
const STDLIB = build.stdlib_pyc_full
  ? { trimmed: build.stdlib_pyc, full: build.stdlib_pyc_full, stock: build.stdlib }
  : { full: build.stdlib_pyc, stock: build.stdlib };

if (process.argv[2] === "--child") {
  const which = process.argv[3];
  const started = performance.now();
  await bootPyodide({ runtime: site.runtime, stdlib: site.file(STDLIB[which]) }, { stdout: () => {} });
  console.log(JSON.stringify({ ms: performance.now() - started }));
  process.exit(0);
}

const rounds = Number(option("--rounds", 5)) || 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const variants = Object.keys(STDLIB).filter((which) => STDLIB[which]);
const runs = Object.fromEntries(variants.map((which) => [which, []]));
for (let i = 0; i < rounds; i++) {
  const order = [...variants.slice(i % variants.length), ...variants.slice(0, i % variants.length)];
  for (const which of order) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", which, "--dist", dist],
      { encoding: "utf8" });
    runs[which].push(JSON.parse(out.trim().split("\n").pop()).ms);
  }
}
const LABEL = {
  trimmed: "precompiled stdlib, trimmed (fast)",
  full: "precompiled stdlib, full",
  stock: "source stdlib (stock)",
};
const stock = median(runs.stock);
console.log(`loadPyodide under Node, median of ${rounds} fresh processes (ms; ${dist})`);
for (const which of variants) {
  const ms = median(runs[which]);
  console.log(`  ${LABEL[which].padEnd(36)} ${String(Math.round(ms)).padStart(5)}  ${(ms / stock).toFixed(2)}× stock`);
}
