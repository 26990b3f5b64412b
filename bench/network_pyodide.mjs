// The network path in the pinned Pyodide under Node (no browser): what
// bench/network_show.py times in CPython, on micrograd's demo loss (MLP(2, [16, 16, 1])
// over 100 points, 65,818 nodes), beside micrograd's own loss.backward() on the same
// graph, in the same Python, in turn.
//
//   node bench/network_pyodide.mjs [--rounds 7] [--samples 100] [--dist DIR] [--micrograd DIR]
//                                                          (after `python build.py`)
//
// Python boots as the page's engine worker boots it (the fast path): the built site's
// runtime and trimmed precompiled stdlib, the precompiled engine wheel unpacked into
// site-packages, and the fallback finder that fetches the full stdlib (here: reads it
// from dist/) if an import needs it (its use is printed: in the page it would be a
// download). Then the same source files as in CPython go into Pyodide's file system:
// micrograd 0.1.0 (the installed package: --micrograd, or where `python3` imports it
// from), tests/support/demo_mlp.py, gradwalk/kernel.py and bench/network_rounds.py,
// which times each round: micrograd's backward, the kernel's target + collapsed load
// answer, one expand (wall time, and the process's CPU time beside it: the machine may be
// shared). In the browser the engine runs in its worker's Pyodide, so this is the Python
// work a page's worker would do for a graph of this size. (The page itself never reads a
// learner's Python objects: its trimmed stdlib leaves out `numbers`, which engine.foreign
// imports, so the fallback reads it here.)
//
// Budgets, as network_show.py prints them: kernel ≤ 0.5 × baseline + 1 s (median, and
// p95 against the baseline's p95), the collapsed answer ≤ 5 MB. Each round's figures are
// printed too: a fresh Pyodide's first rounds are slower (V8 still optimising).
//
//   node bench/network_pyodide.mjs --answer <requests.json> <answers.json> [--samples 100]
//
// answers instead a JSON array of requests (objects) with kernel.handle for the demo
// loss's Network, and writes {answers, nodes, fallback_used, seconds}:
// tests/runtime/test_network_pyodide.py checks them against CPython.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bootPyodide, builtSite } from "../buildtools/pyodide_node.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1];
};
const answerAt = args.indexOf("--answer");
const rounds = Number(option("--rounds", 7)) || 7;
const samples = Number(option("--samples", 100)) || 100;
const dist = path.resolve(option("--dist", path.join(ROOT, "dist")));
const WHERE_MICROGRAD = "import micrograd, os; print(os.path.dirname(micrograd.__file__))";
const micrograd =
  option("--micrograd") ??
  execFileSync(process.env.PYTHON ?? "python3", ["-c", WHERE_MICROGRAD], { encoding: "utf8" }).trim();

const site = await builtSite(dist);
const { build } = site;
const py = await bootPyodide({ runtime: site.runtime, stdlib: site.file(build.stdlib_pyc) });
const fetchBytes = (file) => new Uint8Array(readFileSync(file));
const fallback = py.pyimport("_stdlib_fallback").install(site.file(build.stdlib_pyc_full), fetchBytes);
// The full engine (the page's wheel lacks engine.network, which a notebook's kernel imports).
py.unpackArchive(new Uint8Array(await readFile(site.file(build.engine_wheel_pyc_full))), "wheel", {
  extractDir: build.site_packages,
});

// The learner's side and the timed work, from the same files CPython runs.
py.FS.mkdirTree("/demo/micrograd");
for (const name of (await readdir(micrograd)).filter((n) => n.endsWith(".py"))) {
  py.FS.writeFile(`/demo/micrograd/${name}`, await readFile(path.join(micrograd, name)));
}
const copies = {
  "demo_mlp.py": "tests/support/demo_mlp.py",
  "kernel.py": "gradwalk/kernel.py",
  "network_rounds.py": "bench/network_rounds.py",
};
for (const [name, from] of Object.entries(copies)) {
  py.FS.writeFile(`/demo/${name}`, await readFile(path.join(ROOT, from)));
}
py.runPython(`
import sys
sys.path.append("/demo")  # after site-packages: the engine is the wheel's
sys.setrecursionlimit(100_000)  # micrograd's recursive build_topo
import engine, micrograd
assert engine.__file__.startswith("${build.site_packages}/"), engine.__file__
assert micrograd.__file__.startswith("/demo/"), micrograd.__file__
`);
py.globals.set("SAMPLES", samples);
const started = performance.now();
py.runPython("from demo_mlp import demo_loss\nloss, model, _, _ = demo_loss(SAMPLES)");
const buildMs = performance.now() - started;

if (answerAt >= 0) {
  const [requestsPath, answersPath] = args.slice(answerAt + 1, answerAt + 3);
  py.globals.set("REQUESTS", await readFile(requestsPath, "utf8"));
  const t0 = performance.now();
  const answers = JSON.parse(
    py.runPython(`
import json, kernel
shown = kernel.target(loss, model)
json.dumps([kernel.handle(request, shown) for request in json.loads(REQUESTS)])
`),
  );
  const seconds = (performance.now() - t0) / 1000;
  const nodes = py.runPython("len(shown.flat)");
  await writeFile(answersPath, JSON.stringify({ answers, nodes, fallback_used: fallback.used.toJs(), seconds }));
  process.exit(0);
}

py.globals.set("ROUNDS", rounds);
// The process's CPU time (Pyodide runs on Node's main thread): what a busy machine inflates least.
py.globals.set("cpu_clock", () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
});
const figures = JSON.parse(
  py.runPython(
    "import json, kernel, network_rounds\njson.dumps(network_rounds.measure(loss, model, kernel, ROUNDS, cpu_clock))",
  ),
);
const version = py.runPython("import sys; sys.version.split()[0]");

// As bench/common.py computes them: statistics.median, the nearest-rank percentile.
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const p95 = (xs) => sorted(xs)[Math.max(1, Math.ceil(0.95 * xs.length)) - 1];
const ms = (s) => Math.round(s * 1000).toLocaleString("en");
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const verdict = (value, limit) => (value <= limit ? "ok" : "MISSED");
const table = (headers, rows) => {
  const widths = headers.map((_, i) => Math.max(...[headers, ...rows].map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i])));
  const lines = [line(headers), widths.map((w) => "-".repeat(w)), ...rows.map(line)];
  return lines.map((cells) => cells.join("  ")).join("\n");
};

const { baseline, kernel, expand, bytes, size } = figures;
const [baseMed, baseP95, kernMed, kernP95] = [median(baseline), p95(baseline), median(kernel), p95(kernel)];
const budget = 0.5 * baseMed + 1.0;
const MAX_ANSWER_BYTES = 5_000_000;
const most = Math.max(...bytes);
const n = (x) => x.toLocaleString("en");
console.log(`micrograd demo loss in Pyodide ${py.version} (Python ${version}) under Node ${process.version}: ` +
  `${n(size.nodes)} nodes, ${n(size.edges)} edges, ${n(size.groups)} groups (built in ${ms(buildMs / 1000)} ms)`);
console.log(`${rounds} rounds, alternating; load average ${os.loadavg().map((x) => x.toFixed(2)).join(", ")}\n`);
console.log(
  table(
    ["what", "median ms", "p95 ms", "vs baseline", "CPU median ms"],
    [
      ["micrograd loss.backward() (baseline)", ms(baseMed), ms(baseP95), "1.00×", ms(median(figures.baseline_cpu))],
      [
        "gradwalk.show(loss, model=...): kernel",
        ms(kernMed),
        ms(kernP95),
        ratio(kernMed, baseMed),
        ms(median(figures.kernel_cpu)),
      ],
      ["expand one neuron (kernel's answer)", ms(median(expand)), ms(p95(expand)), ratio(median(expand), baseMed), ""],
    ],
  ),
);
console.log();
// V8 compiles Python's interpreter (WebAssembly) quickly first and optimises its hot code in the
// background: the first rounds of a fresh Pyodide are slower, as a page's first big request is.
console.log(`each round, ms: kernel ${kernel.map(ms).join(", ")}; expand ${expand.map(ms).join(", ")}`);
console.log(`collapsed answer: ${n(most)} bytes (budget ${n(MAX_ANSWER_BYTES)})`);
const used = fallback.used.toJs();
console.log(`modules read from the full stdlib (a download in the page): ${used.length ? used.join(", ") : "none"}`);
console.log(
  `kernel time: median ${kernMed.toFixed(3)} s, p95 ${kernP95.toFixed(3)} s; ` +
    `budget 0.5 × ${baseMed.toFixed(3)} s + 1 s = ${budget.toFixed(3)} s`,
);
console.log(`${verdict(kernMed, budget)}: kernel median within 0.5 × baseline + 1 s`);
console.log(`${verdict(kernP95, 0.5 * baseP95 + 1.0)}: kernel p95 within 0.5 × baseline p95 + 1 s`);
console.log(`${verdict(most, MAX_ANSWER_BYTES)}: the answer sent to the browser within 5 MB`);
process.exit(0);
