// Python's own start, without a browser: loadPyodide under Node with the
// precompiled standard library (the page's fast path) and with the source one
// (stock), side by side, each in a fresh process. It is the floor under the
// page's "engine ready": no downloads, no page, no other threads competing.
//
//   node bench/python_start.mjs [--rounds 5]      (after `python build.py`)
//
// Prints the median of each, and the ratio.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "..", "dist");

if (process.argv[2] === "--child") {
  const [, , , which] = process.argv;
  const build = JSON.parse(readFileSync(path.join(dist, "build.json"), "utf8"));
  const indexURL = path.join(dist, build.pyodide_index) + "/";
  const { loadPyodide } = await import(path.join(indexURL, "pyodide.mjs"));
  const stdLibURL = path.join(dist, which === "fast" ? build.stdlib_pyc : build.stdlib);
  const started = performance.now();
  await loadPyodide({ indexURL, stdLibURL, stdout: () => {} });
  console.log(JSON.stringify({ ms: performance.now() - started }));
  process.exit(0);
}

const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { fast: [], stock: [] };
for (let i = 0; i < rounds; i++) {
  for (const which of i % 2 ? ["stock", "fast"] : ["fast", "stock"]) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", which], { encoding: "utf8" });
    runs[which].push(JSON.parse(out.trim().split("\n").pop()).ms);
  }
}
const fast = median(runs.fast);
const stock = median(runs.stock);
console.log(`loadPyodide under Node, median of ${rounds} fresh processes (ms)`);
console.log(`  precompiled stdlib (fast)  ${Math.round(fast)}`);
console.log(`  source stdlib (stock)      ${Math.round(stock)}`);
console.log(`  ratio fast / stock         ${(fast / stock).toFixed(2)}×`);
