// The engine's answer to a 1,000-node program, two builds side by side in one
// Pyodide under Node (no browser, no page):
//
//   node bench/big_answer.mjs <dist> <other dist> [rounds]
//
// Both builds' precompiled engine wheels are unpacked into the same Python (the
// other one renamed engine_base), and each round asks both, in turn (the order
// turning every round), for {"cmd": "load", "program": ...} of the program
// step_edit_latency.py submits, with one edge moved each round (a new shape: the
// engine's kept layouts do not help). Prints, per build, the first answer (the
// first build's comes first, and pays for Python's code for big inputs not yet
// optimised by V8) and the min and median of the others: wall ms and the process's
// CPU ms (user + system, which a busy machine inflates far less than wall time),
// and the answer's size. Then the program with another edge moved, asked for as the page
// asks for it, with "rest_later": true: a build that answers it in two parts (docs/api.md, "An answer in two
// parts") gives the first part, and its rest is asked for right after; the CPU median of
// each part and the first part's size are printed (a build without it answers whole).

import { readFile } from "node:fs/promises";
import path from "node:path";
import { bootPyodide, builtSite } from "../buildtools/pyodide_node.mjs";

const [dist, otherDist, rounds = "12"] = process.argv.slice(2);
if (!otherDist) {
  console.error("usage: node bench/big_answer.mjs <dist> <other dist> [rounds]");
  process.exit(2);
}
const site = await builtSite(dist);
const other = await builtSite(otherDist);
const { build } = site;
const py = await bootPyodide({ runtime: site.runtime, stdlib: site.file(build.stdlib_pyc) });
const wheel = async (s) => new Uint8Array(await readFile(s.file(s.build.engine_wheel_pyc)));
py.unpackArchive(await wheel(other), "wheel", { extractDir: "/tmp/other" });
py.runPython(`import shutil; shutil.move("/tmp/other/engine", "${build.site_packages}/engine_base")`);
py.unpackArchive(await wheel(site), "wheel", { extractDir: build.site_packages });

// step_edit_latency.py's thousand_node_program(): 20 inputs, 16 layers of relu(x[i] * x[i+1] + 0.1), a sum.
function program() {
  const width = 20;
  const lines = [];
  for (let i = 0; i < width; i++) lines.push(`x${i} = ${Math.round((0.5 + 0.01 * i) * 100) / 100}`);
  let prev = [...Array(width).keys()].map((i) => `x${i}`);
  for (let layer = 0; layer < 16; layer++) {
    const names = prev.map((_, i) => `h${layer}_${i}`);
    names.forEach((name, i) => lines.push(`${name} = relu(${prev[i]} * ${prev[(i + 1) % width]} + 0.1)`));
    prev = names;
  }
  lines.push(`y = ${prev.join(" + ")}`);
  return lines.join("\n");
}

const apis = {
  [path.basename(path.resolve(dist))]: py.pyimport("engine.api"),
  [`${path.basename(path.resolve(otherDist))} (other)`]: py.pyimport("engine_base.api"),
};
const names = Object.keys(apis);
for (const api of Object.values(apis)) {
  for (const id of ["diamond", "neuron"]) api.handle(JSON.stringify({ cmd: "load", preset: id }));
}
const first = Object.fromEntries(names.map((n) => [n, []]));
const rest = Object.fromEntries(names.map((n) => [n, []]));
const firstBytes = {};
const cpuOf = (fn) => {
  const c0 = process.cpuUsage();
  const result = fn();
  const c = process.cpuUsage(c0);
  return [result, (c.user + c.system) / 1000];
};
const wall = Object.fromEntries(names.map((n) => [n, []]));
const cpu = Object.fromEntries(names.map((n) => [n, []]));
const bytes = {};
const source = program();
for (let i = 0; i < Number(rounds); i++) {
  const request = JSON.stringify({
    cmd: "load",
    program: source.replace("relu(x0 * x1 + 0.1)", `relu(x0 * x${(i % 18) + 2} + 0.1)`),
  });
  for (const name of i % 2 ? [...names].reverse() : names) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const answer = apis[name].handle(request);
    wall[name].push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu[name].push((c.user + c.system) / 1000);
    bytes[name] = answer.length;
    const inParts = JSON.stringify({ // a shape of its own too (another edge moved): no layout kept
      cmd: "load",
      program: JSON.parse(request).program.replace("relu(x1 * x2 + 0.1)", `relu(x1 * x${(i % 17) + 3} + 0.1)`),
      rest_later: true,
    });
    const [part, partCPU] = cpuOf(() => apis[name].handle(inParts));
    first[name].push(partCPU);
    firstBytes[name] = part.length;
    const key = JSON.parse(part).rest;
    const [, restCPU] = cpuOf(() => (key ? apis[name].handle(JSON.stringify({ cmd: "rest", rest: key })) : null));
    rest[name].push(key ? restCPU : 0);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const ms = (x) => Math.round(x).toLocaleString("en");
console.log(
  `A 1,000-node program's load answer in Pyodide under Node, ${rounds} rounds, ` +
    "the builds in turn (ms; CPU = process user + system)\n",
);
console.log(
  "build".padEnd(28), "first wall", "first CPU", "wall min", "wall median", "CPU min", "CPU median", "answer bytes",
);
for (const n of names) {
  const rest = (v) => v.slice(1);
  console.log(
    n.padEnd(28),
    ms(wall[n][0]).padStart(10),
    ms(cpu[n][0]).padStart(9),
    ms(Math.min(...rest(wall[n]))).padStart(8),
    ms(median(rest(wall[n]))).padStart(11),
    ms(Math.min(...rest(cpu[n]))).padStart(7),
    ms(median(rest(cpu[n]))).padStart(10),
    bytes[n].toLocaleString("en").padStart(12),
  );
}
console.log("\nasked for in two parts (\"rest_later\": true):");
console.log("build".padEnd(28), "first part CPU median", "rest CPU median", "first part bytes");
for (const n of names) {
  console.log(
    n.padEnd(28),
    ms(median(first[n].slice(1))).padStart(21),
    ms(median(rest[n].slice(1))).padStart(15),
    firstBytes[n].toLocaleString("en").padStart(16),
  );
}
const [a, b] = names;
console.log(`\nCPU median ${a} / ${b}: ${(median(cpu[a].slice(1)) / median(cpu[b].slice(1))).toFixed(2)}×`);
const ratio = median(first[a].slice(1)) / median(first[b].slice(1));
console.log(`CPU median, asked for in two parts, first part ${a} / ${b}: ${ratio.toFixed(2)}×`);
process.exit(0);
