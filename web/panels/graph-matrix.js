// A tensor's numbers, drawn small inside its closed box (grouped.js's isMatrix): one cell per
// element, in the tensor's rows and columns, shaded by its value. A box's "data" row holds
// its data matrix and its "grad" row its grad matrix, whose cells fill in one by one as the
// backward pass reaches each element: a learner sees W.grad take shape, and sees b.grad's
// cells each take 4 pushes. The exact numbers are in the box's tooltip, its accessible name
// and its data-* (docs/page.md).

import { fmt } from "../lib/format.js";

const SVG = "http://www.w3.org/2000/svg";
const GAP = 1; // px between cells, when each is big enough to spare it

/**
 * A matrix's cells in `parent`, filling the area {x, y, width, height} (px, the box's own).
 * @param {Element} parent
 * @param {{x: number, y: number, width: number, height: number}} area
 * @param {[number, number]} shape
 * @param {string} kind "data" or "grad" (its class: the colours differ)
 */
export function drawMatrix(parent, area, [rows, columns], kind) {
  const g = document.createElementNS(SVG, "g");
  g.setAttribute("class", `node-matrix node-matrix-${kind}`);
  g.setAttribute("aria-hidden", "true");
  const w = area.width / columns;
  const h = area.height / rows;
  const gapX = w > 4 * GAP ? GAP : 0;
  const gapY = h > 4 * GAP ? GAP : 0;
  const cells = [];
  for (let i = 0; i < rows; i++) {
    const row = [];
    for (let j = 0; j < columns; j++) {
      const cell = document.createElementNS(SVG, "rect");
      cell.setAttribute("x", round(area.x + j * w + gapX / 2));
      cell.setAttribute("y", round(area.y + i * h + gapY / 2));
      cell.setAttribute("width", round(w - gapX));
      cell.setAttribute("height", round(h - gapY));
      cell.setAttribute("class", "cell cell-none");
      g.appendChild(cell);
      row.push(cell);
    }
    cells.push(row);
  }
  parent.appendChild(g);
  return { g, cells, written: "" };
}

/**
 * Shade `matrix`'s cells by `values` (rows; null, or a null element: not computed yet).
 * Each cell's strength is its size against the matrix's largest, its colour its sign.
 */
export function shadeMatrix(matrix, values) {
  const key = JSON.stringify(values);
  if (matrix.written === key) return;
  matrix.written = key;
  const largest = Math.max(0, ...(values ?? []).flat().map((x) => (x === null ? 0 : Math.abs(x))));
  matrix.cells.forEach((row, i) => row.forEach((cell, j) => {
    const x = values?.[i]?.[j] ?? null;
    const sign = x === null ? "none" : x > 0 ? "pos" : x < 0 ? "neg" : "zero";
    cell.setAttribute("class", `cell cell-${sign}`);
    // at least faintly tinted, so that a small number still shows its sign
    const strength = x === null || largest === 0 ? null : 0.18 + 0.82 * (Math.abs(x) / largest);
    if (strength === null) cell.removeAttribute("fill-opacity");
    else cell.setAttribute("fill-opacity", strength.toFixed(2));
  }));
}

/** A matrix as text, row by row: "[[-0.8617, 0.6044], [0.585, —]]" (— not computed yet). */
export function matrixText(values) {
  return `[${values.map((row) => `[${row.map((x) => (x === null ? "—" : fmt(x))).join(", ")}]`).join(", ")}]`;
}

function round(x) {
  return String(Math.round(x * 10) / 10);
}
