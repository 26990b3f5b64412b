// The table of every node at the current step: label, expression, data, grad.
//
//   const table = new NodeTable(tbodyElement, { onDigits });
//   table.build(answer.nodes);
//   table.update(view, marks)   // marks as for GraphView.update, plus marks.shouldBe
//
// Next to the table's heading, "More digits" (a toggle, aria-pressed) switches every
// number the widget writes, the graph's and the table's, from 4 significant digits to
// five decimals: onDigits() asks for it (state.digits), and the widget's render writes
// the numbers so (lib/format.js's withDigits).
//
// In a finished wrong-order run, a wrong grad reads "9 (should be 15)". A teaching
// mode may add one more column: marks.column = {title, values} (e.g. tangents).

import { exact, fmt, showsMoreDigits, withDigits } from "../lib/format.js";
import { h } from "../lib/dom.js";
import { appendInSlices } from "../lib/slices.js";
import { isMatrix } from "../grouped.js";
import { matrixText } from "./graph-matrix.js";

export class NodeTable {
  /** @param {HTMLElement} tbody @param {{onDigits?: (on: boolean) => void}} [callbacks] */
  constructor(tbody, { onDigits = () => {} } = {}) {
    this.tbody = tbody;
    this.pool = []; // rows made so far, reused by the next graph (build)
    this.onDigits = onDigits;
    this.digits = showsMoreDigits(); // how the rows on screen were written
    this.digitsButton = h("button", {
      type: "button", class: "button quiet small digits-toggle", id: "more-digits",
      "aria-pressed": String(this.digits),
      title: "Show numbers with five decimals instead of four significant digits",
      onclick: () => this.onDigits(!this.digits),
    }, "More digits");
    const heading = tbody.closest("section")?.querySelector(".panel-heading");
    heading?.after(h("div", { class: "table-tools" }, this.digitsButton));
  }

  build(nodes) {
    // Rows are reused from the graph before: a new graph of about the same size
    // changes two texts per row instead of taking a thousand rows down and making
    // a thousand more. The first update() writes the rest of every row.
    this.rows = nodes.map((node, i) => {
      const row = (this.pool[i] ??= makeRow());
      row.last = null; // a new node: update() writes all of the row
      row.shape = isMatrix(node.box) ? node.box.shape : null; // a tensor's box: its matrices
      if (row.tr.dataset.row !== node.label) row.tr.dataset.row = node.label;
      setText(row.label, node.label);
      setText(row.expr, node.is_input ? `${node.expr} (input)` : node.expr);
      return row;
    });
    // A big program's rows arrive over a few frames (lib/slices.js); update() writes
    // the ones on the page, and each of the others is written when it arrives.
    this.shown = null; // what update() last showed: {view, marks}
    this.filling?.cancel();
    this.filling = appendInSlices(this.tbody, this.rows.map((row) => row.tr), {
      // Rows arriving after the render wrote the others are written as it wrote them.
      arrived: (from, to) => withDigits(this.digits, () => {
        if (this.shown) for (let i = from; i < to; i++) this.write(i, this.shown.view, this.shown.marks);
      }),
    });
    const head = /** @type {HTMLTableElement | null} */ (this.tbody.parentElement)?.tHead?.rows[0];
    if (head && !this.extraHead) {
      this.extraHead = document.createElement("th");
      this.extraHead.scope = "col";
      this.extraHead.className = "num col-extra";
      this.extraHead.hidden = true;
      head.append(this.extraHead);
    }
  }

  // The mode's extra column, or none.
  showColumn(column) {
    this.tbody.parentElement?.classList.toggle("has-extra", Boolean(column));
    if (this.extraHead) {
      this.extraHead.hidden = !column;
      this.extraHead.textContent = column?.title ?? "";
    }
    this.rows.forEach((row, i) => {
      row.extra.hidden = !column;
      const value = column?.values?.[i] ?? null;
      row.extra.textContent = column ? (value === null ? "—" : fmt(value)) : "";
      row.extra.dataset.value = column ? exact(value) : "";
    });
  }

  update(view, marks) {
    if (this.digits !== showsMoreDigits()) {
      // The numbers' format changed: write every row again.
      this.digits = showsMoreDigits();
      this.digitsButton.setAttribute("aria-pressed", String(this.digits));
      for (const row of this.rows ?? []) row.last = null;
    }
    this.showColumn(marks.column ?? null);
    this.shown = { view, marks };
    this.rows.forEach((row, i) => {
      if (row.tr.parentNode === this.tbody) this.write(i, view, marks);
      else row.last = null; // written when it arrives
    });
  }

  // Row i as it is at this view.
  write(i, view, marks) {
    const row = this.rows[i];
    let badge = "";
    if (marks.current === i) badge = "new";
    if (marks.visiting === i) badge = marks.visitTag ?? "visiting";
    if (marks.receiving.has(i)) badge = "+=";
    const cls = [
      marks.current === i ? "is-current" : "",
      marks.visiting === i ? "is-visiting" : "",
      marks.receiving.has(i) ? "is-receiving" : "",
      marks.wrong.has(i) ? "is-wrong" : "",
    ].filter(Boolean).join(" ");
    if (row.shape) {
      writeMatrices(row, i, view, badge, cls);
      return;
    }
    const data = view.data[i];
    const grad = view.grad[i];
    const shouldBe = grad !== null && marks.shouldBe && marks.wrong.has(i) ? marks.shouldBe[i] : null;
    // A step changes a few rows: the rest (hundreds, in a big program) keep theirs.
    const last = row.last;
    if (last && Object.is(last.data, data) && Object.is(last.grad, grad) && Object.is(last.shouldBe, shouldBe)
        && last.badge === badge && last.cls === cls) return;
    row.last = { data, grad, shouldBe, badge, cls };
    // (a row reused from the graph before often shows the same already: only what differs is written)
    setText(row.data, data === null ? "—" : fmt(data));
    setValue(row.data, exact(data));
    setValue(row.grad, exact(grad));
    if (grad === null || shouldBe === null) {
      setText(row.grad, grad === null ? "—" : fmt(grad)); // (a wrong grad's two spans go)
    } else {
      const wrong = document.createElement("span");
      wrong.className = "wrong-value";
      wrong.textContent = `✗ ${fmt(grad)} `;
      const right = document.createElement("span");
      right.className = "should-be";
      right.textContent = `(should be ${fmt(shouldBe)})`;
      row.grad.replaceChildren(wrong, right);
    }
    setText(row.badge, badge);
    if (row.tr.className !== cls) row.tr.className = cls;
  }
}

// A tensor's box's row: its shape for each matrix there is (the box draws it; the whole of
// it is the cell's tooltip), "—" until its line has run and until a push reaches it.
function writeMatrices(row, i, view, badge, cls) {
  const values = view.values?.[i] ?? null;
  const grads = view.grads?.[i] ?? null;
  const last = row.last;
  if (last && last.values === values && last.grads === grads && last.badge === badge && last.cls === cls) return;
  row.last = { values, grads, badge, cls };
  const [rows, columns] = row.shape;
  for (const [cell, matrix] of [[row.data, values], [row.grad, grads]]) {
    setText(cell, matrix ? `${rows}×${columns}` : "—");
    cell.title = matrix ? matrixText(matrix) : "";
    setValue(cell, matrix ? JSON.stringify(matrix) : "");
  }
  setText(row.badge, badge);
  if (row.tr.className !== cls) row.tr.className = cls;
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

function setValue(element, value) {
  if (element.dataset.value !== value) element.dataset.value = value;
}

// A row is a copy of one made once: a thousand-node program's first table makes a
// thousand of them, and copying is several times quicker than building each.
let blankRow = null;

function makeRow() {
  blankRow ??= h("tr", {},
    h("th", { scope: "row" }, h("span", { class: "row-label" }), h("span", { class: "row-badge" })),
    h("td", { class: "row-expr col-expr" }), h("td", { class: "num row-data" }), h("td", { class: "num row-grad" }),
    h("td", { class: "num row-extra", hidden: true }));
  const tr = blankRow.cloneNode(true);
  const [th, expr, data, grad, extra] = tr.children;
  const [label, badge] = th.children;
  return { tr, label, badge, expr, data, grad, extra };
}

// A box that scrolls must be reachable by keyboard; one that does not need not be a tab stop.
// Checked when the box or its table changes size (a ResizeObserver), not on every
// render: reading scrollWidth right after a DOM update forces a layout.
export function watchScrollable(box) {
  if (typeof ResizeObserver !== "function") return () => {};
  const observer = new ResizeObserver(() => keyboardScrollable(box));
  observer.observe(box);
  if (box.firstElementChild) observer.observe(box.firstElementChild);
  return () => observer.disconnect();
}

function keyboardScrollable(box) {
  if (box.scrollWidth > box.clientWidth + 1) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "Nodes table (scrolls sideways)");
  } else {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
}
