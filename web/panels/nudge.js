// The nudge check: move one input by a small h and compare.
//
//   the output's real change            next to   grad × h (what the grad predicts)
//   the central difference (f(x+h) − f(x−h)) / 2h   next to   the autodiff grad
//
// "a.grad = 15" reads as "if a goes up by a little, d goes up 15 times as much";
// the engine's `nudge` command (docs/api.md) does the arithmetic in Python.
// "Check every input" does it for each input at once, like a gradient check.

import { exact, fmt } from "../lib/format.js";
import { h, say } from "../lib/dom.js";

const STEPS = ["0.1", "0.01", "0.001", "0.0001", "0.000001"];
const AGREE = 1e-6;

export class NudgePanel {
  // call(request) asks the engine; source() is the current {preset|program, values}.
  constructor(box, { call, source, outputLabel }) {
    this.box = box;
    this.call = call;
    this.source = source;
    this.outputLabel = outputLabel;
    this.seq = 0;
    this.last = null; // {kind: "one"|"all", wrt, h}
    box.classList.add("nudge-box");
    this.select = h("select", { id: "nudge-input", class: "nudge-select" });
    this.hSelect = h("select", { id: "nudge-h", class: "nudge-select" },
      ...STEPS.map((s) => h("option", { value: s, selected: s === "0.001" }, s)));
    this.run = h("button", { type: "button", class: "button primary small", id: "nudge-run", onclick: () => this.nudge() }, "Nudge");
    this.all = h("button", { type: "button", class: "button small", id: "nudge-all", onclick: () => this.checkAll() }, "Check every input");
    this.result = h("div", { class: "nudge-result", id: "nudge-result", "aria-live": "polite" });
    this.details = h("details", { class: "nudge-details", id: "nudge-details", open: !window.matchMedia("(max-width: 640px)").matches },
      h("summary", {}, "Nudge check: does the grad predict the change?"),
      h("p", { class: "nudge-intro" },
        "Move one input by a small h and watch the output. Its change should be close to grad × h, and the slope measured both ways, ",
        h("span", { class: "nowrap" }, "(f(x+h) − f(x−h)) / 2h"), ", should match the grad."),
      h("div", { class: "nudge-controls" },
        h("span", { class: "nudge-control" }, h("label", { for: "nudge-input" }, "Input"), this.select),
        h("span", { class: "nudge-control" }, h("label", { for: "nudge-h" }, "h"), this.hSelect),
        this.run, this.all),
      this.result);
    box.append(this.details);
    box.hidden = true;
  }

  setGraph(answer, inputs) {
    this.answer = answer;
    const names = inputs.map((i) => i.name);
    const current = this.select.value;
    if (names.join(",") !== this.names) {
      this.names = names.join(",");
      this.select.replaceChildren(...inputs.map((i) => h("option", { value: i.name }, i.name)));
      if (names.includes(current)) this.select.value = current;
    }
    this.box.hidden = inputs.length === 0;
    // Keep a shown result honest: redo it with the new numbers.
    const last = this.last;
    if (!last) return;
    if (last.kind === "one" && names.includes(last.wrt)) this.nudge(last.wrt, last.h, true);
    else if (last.kind === "all") this.checkAll(last.h, true);
    else this.clear();
  }

  clear() {
    this.last = null;
    this.seq += 1;
    this.result.replaceChildren();
    this.forget();
  }

  // The numbers on the result (data-*) are only there while they are current.
  forget() {
    for (const key of Object.keys(this.result.dataset)) delete this.result.dataset[key];
  }

  async nudge(wrt = this.select.value, hText = this.hSelect.value, quiet = false) {
    if (!wrt) return;
    const seq = ++this.seq;
    this.last = { kind: "one", wrt, h: hText };
    this.forget();
    if (!quiet) say(this.result, `Nudging ${wrt} by ${hText}…`);
    let answer;
    try {
      answer = await this.call({ cmd: "nudge", ...this.source(), wrt, h: Number(hText) });
    } catch (error) {
      if (seq === this.seq) say(this.result, `The engine could not answer: ${error?.message ?? error}`);
      return;
    }
    if (seq !== this.seq) return; // a newer nudge (or graph) came first
    if (!answer.ok) {
      say(this.result, `The engine could not nudge ${wrt}: ${answer.error.message}`);
      return;
    }
    this.showOne(wrt, answer);
  }

  showOne(wrt, a) {
    const out = this.outputLabel();
    const hh = fmt(a.h);
    const scale = Math.max(1, Math.abs(a.grad));
    const agree = Math.abs(a.difference) <= AGREE * scale;
    // The central difference is off by about h² × (a third derivative) on its own.
    const close = !agree && Math.abs(a.difference) <= 10 * a.h * a.h * scale;
    const dir = a.grad > 0 ? "increases" : a.grad < 0 ? "decreases" : "does not change";
    const reading = a.grad === 0
      ? `${wrt}.grad = 0: a small change in ${wrt} leaves ${out} (almost) unchanged.`
      : `${wrt}.grad = ${fmt(a.grad)}: if ${wrt} increases by 1, ${out} ${dir} by about ${fmt(Math.abs(a.grad))} (a rate, exact only for small steps). Here ${wrt} moves by h = ${hh}, so ${out} should move by about ${fmt(a.grad)} × ${hh} = ${fmt(a.predicted, 6)}.`;
    const table = h("table", { class: "nudge-table" },
      h("caption", { class: "visually-hidden" }, `Nudging ${wrt} by ${hh}`),
      h("tbody", {},
        row(`${wrt}`, `${fmt(a.x)} → ${fmt(a.x + a.h, 8)}`, `nudged by h = ${hh}`),
        row(`${out}`, `${fmt(a.output, 8)} → ${fmt(a.plus, 8)}`, "", "nudge-output"),
        row(`change of ${out}`, fmt(a.change, 8), "measured", "nudge-change"),
        row(`${wrt}.grad × h`, fmt(a.predicted, 8), `predicted: ${fmt(a.grad)} × ${hh}`, "nudge-predicted"),
        row("central difference", fmt(a.central, 10), `(${out}(${wrt}+h) − ${out}(${wrt}−h)) / 2h`, "nudge-central"),
        row(`autodiff ${wrt}.grad`, fmt(a.grad, 10), "from the backward pass", "nudge-grad"),
        row("difference", fmt(a.difference, 3),
          agree ? "✓ they agree (to 1e-6)"
            : close ? "✓ close: what is left is the central difference's own error, about h²; try a smaller h"
              : "✗ they differ: h may be too large for this function",
          agree || close ? "nudge-diff is-ok" : "nudge-diff is-off")));
    this.result.dataset.wrt = wrt;
    this.result.dataset.h = exact(a.h);
    this.result.dataset.central = exact(a.central);
    this.result.dataset.grad = exact(a.grad);
    this.result.dataset.change = exact(a.change);
    this.result.dataset.predicted = exact(a.predicted);
    this.result.dataset.difference = exact(a.difference);
    this.result.replaceChildren(
      h("p", { class: "nudge-reading" }, reading),
      table,
      h("p", { class: "nudge-text muted" }, a.text));
  }

  async checkAll(hText = this.hSelect.value, quiet = false) {
    const names = this.names ? this.names.split(",") : [];
    if (!names.length) return;
    const seq = ++this.seq;
    this.last = { kind: "all", h: hText };
    this.forget();
    if (!quiet) say(this.result, `Nudging every input by ${hText}…`);
    const rows = [];
    for (const wrt of names) {
      let a;
      try {
        a = await this.call({ cmd: "nudge", ...this.source(), wrt, h: Number(hText) });
      } catch (error) {
        if (seq === this.seq) say(this.result, `The engine could not answer: ${error?.message ?? error}`);
        return;
      }
      if (seq !== this.seq) return;
      if (!a.ok) {
        say(this.result, `The engine could not nudge ${wrt}: ${a.error.message}`);
        return;
      }
      rows.push([wrt, a]);
    }
    const worst = Math.max(...rows.map(([, a]) => Math.abs(a.difference) / Math.max(1, Math.abs(a.grad))));
    const table = h("table", { class: "nudge-table nudge-all" },
      h("caption", { class: "visually-hidden" }, `Every input nudged by ${hText}`),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "input"),
        h("th", { scope: "col", class: "num" }, "autodiff grad"),
        h("th", { scope: "col", class: "num" }, "central difference"),
        h("th", { scope: "col", class: "num" }, "difference"))),
      h("tbody", {}, ...rows.map(([wrt, a]) => h("tr", { data: { wrt, central: exact(a.central), grad: exact(a.grad) } },
        h("th", { scope: "row" }, wrt),
        h("td", { class: "num" }, fmt(a.grad, 8)),
        h("td", { class: "num" }, fmt(a.central, 8)),
        h("td", { class: "num" }, fmt(a.difference, 2))))));
    this.result.dataset.wrt = "*";
    this.result.replaceChildren(
      h("p", { class: "nudge-reading" }, worst <= AGREE
        ? `✓ Every grad agrees with its central difference (h = ${hText}): the backward pass got them all right.`
        : `Some grads differ from the central difference by more than ${AGREE} (h = ${hText}). The central difference has an error of its own, about h²: try a smaller h.`),
      table);
  }
}

// One line of the result: the quantity, its value, and (under it) what it is.
function row(name, value, note, className = "") {
  return h("tr", { class: className },
    h("th", { scope: "row" }, name),
    h("td", {},
      h("span", { class: "nudge-value" }, value),
      note ? h("span", { class: "nudge-note" }, note) : null));
}
