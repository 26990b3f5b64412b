// Small inline SVG line plots, no libraries: the growth plot (log scale) and the
// descent plot. Every plot carries an aria-label that states its data in words,
// and every series is told apart by its marker shape and line pattern, not only
// by its colour.
//
//   linePlot({
//     title: "…", xLabel: "n", yLabel: "multiplications", log: true,
//     series: [{name: "paths", points: [[x, y], ...], kind: "a"}, ...],
//     summary: "what the aria-label says",
//   })  → an <svg> element

import { fmt } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 360;
const H = 200;
const PAD = { left: 60, right: 14, top: 12, bottom: 38 };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function r(x) {
  return Math.round(x * 10) / 10;
}

export function linePlot({ series, xLabel, yLabel, log = false, summary, className = "" }) {
  const svg = el("svg", {
    viewBox: `0 0 ${W} ${H}`, class: `plot ${className}`.trim(), role: "img", "aria-label": summary,
  });
  const points = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y) && (!log || y > 0));
  if (!points.length) return svg;
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => (log ? Math.log10(y) : y));
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  if (x0 === x1) [x0, x1] = [x0 - 1, x1 + 1];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (log) [y0, y1] = [Math.floor(y0), Math.max(Math.ceil(y1), Math.floor(y0) + 1)];
  else {
    if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
    const step = niceStep((y1 - y0) / 4);
    [y0, y1] = [Math.floor(y0 / step) * step, Math.ceil(y1 / step) * step];
  }
  const px = (x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const py = (y) => H - PAD.bottom - (((log ? Math.log10(y) : y) - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);

  const axes = el("g", { class: "plot-axes", "aria-hidden": "true" }, svg);
  el("line", { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom }, axes);
  el("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom }, axes);
  // y ticks: powers of ten on a log scale, else five even steps.
  const yTicks = [];
  if (log) {
    const every = Math.max(1, Math.ceil((y1 - y0) / 5));
    for (let e = y0; e <= y1; e += every) yTicks.push(10 ** e);
  } else {
    const step = niceStep((y1 - y0) / 4);
    for (let t = y0; t <= y1 + step / 2; t += step) yTicks.push(Math.abs(t) < step / 1e6 ? 0 : t);
  }
  for (const t of yTicks) {
    const y = r(py(t));
    el("line", { class: "plot-grid", x1: PAD.left, y1: y, x2: W - PAD.right, y2: y }, axes);
    const text = el("text", { x: PAD.left - 5, y, "text-anchor": "end", dy: "0.32em" }, axes);
    text.textContent = log ? compact(t) : fmt(Number(t.toPrecision(6)), 3);
  }
  // x ticks: at most eight of the x values.
  const uniqueX = [...new Set(xs)].sort((a, b) => a - b);
  const step = Math.ceil(uniqueX.length / 8);
  uniqueX.filter((_, i) => i % step === 0 || i === uniqueX.length - 1).forEach((x) => {
    const text = el("text", { x: r(px(x)), y: H - PAD.bottom + 14, "text-anchor": "middle" }, axes);
    text.textContent = String(x);
  });
  const xl = el("text", {
    class: "plot-label", x: (PAD.left + W - PAD.right) / 2, y: H - 6, "text-anchor": "middle",
  }, axes);
  xl.textContent = xLabel;
  const yl = el("text", {
    class: "plot-label", x: 11, y: (PAD.top + H - PAD.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 11 ${(PAD.top + H - PAD.bottom) / 2})`,
  }, axes);
  yl.textContent = yLabel;

  series.forEach((s, k) => {
    const kind = s.kind ?? (k === 0 ? "a" : "b");
    const g = el("g", { class: `plot-series series-${kind}`, "data-series": s.name, "aria-hidden": "true" }, svg);
    const ok = s.points.filter(([, y]) => Number.isFinite(y) && (!log || y > 0));
    el("polyline", { points: ok.map(([x, y]) => `${r(px(x))},${r(py(y))}`).join(" ") }, g);
    for (const [x, y] of ok) {
      const cx = r(px(x));
      const cy = r(py(y));
      if (kind === "b") {
        el("rect", { class: "plot-point", x: cx - 3.5, y: cy - 3.5, width: 7, height: 7, "data-x": x, "data-y": y }, g);
      } else el("circle", { class: "plot-point", cx, cy, r: 3.8, "data-x": x, "data-y": y }, g);
    }
  });
  return svg;
}

// 1, 2 or 5 times a power of ten, at least `raw`: even steps between ticks.
function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

// 1000 → "1k", 1e6 → "1M": tick labels that fit.
function compact(x) {
  if (x >= 1e9) return `${x / 1e9}G`;
  if (x >= 1e6) return `${x / 1e6}M`;
  if (x >= 1e3) return `${x / 1e3}k`;
  return String(x);
}

// A plain table of the same numbers, for anyone who would rather read than look.
export function dataTable(caption, headers, rows) {
  const table = document.createElement("table");
  table.className = "plot-table";
  const cap = document.createElement("caption");
  cap.textContent = caption;
  table.append(cap);
  const head = table.createTHead().insertRow();
  for (const h of headers) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = h;
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    row.forEach((cell) => {
      const td = tr.insertCell();
      td.textContent = typeof cell === "number" ? fmt(cell) : cell;
    });
  }
  return table;
}
