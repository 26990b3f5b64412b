// The nudge check: move one input by a small h and compare.
//
//   the output's real change            next to   grad × h (what the grad predicts)
//   the central difference (f(x+h) − f(x−h)) / 2h   next to   the autodiff grad
//
// "a.grad = 15" reads as "if a goes up by a little, d goes up 15 times as much";
// the engine's `nudge` command (docs/api.md) does the arithmetic in Python.
// "Check every input" does it for each input at once, like a gradient check.
//
// The panel asks for a nudge (onNudge, onCheckAll: actions/nudge.js asks the engine)
// and draws what the widget's state holds (state.nudge: what was asked, what came back).

import { exact, factor, fmt } from "../lib/format.js";
import { h, say } from "../lib/dom.js";
import { groupsInTheWay } from "../grouped.js";
import { GroupsNote } from "./groups-note.js";

const STEPS = ["0.1", "0.01", "0.001", "0.0001", "0.000001"];
const AGREE = 1e-6;

export class NudgePanel {
  /**
   * @param {HTMLElement} box
   * @param {{onNudge: (wrt: string, h: string) => void, onCheckAll: (names: string[], h: string) => void,
   *          onOpenAll: () => void}} callbacks
   */
  constructor(box, { onNudge, onCheckAll, onOpenAll }) {
    this.box = box;
    this.shown = null; // the state.nudge drawn last
    box.classList.add("nudge-box");
    this.select = h("select", { id: "nudge-input", class: "nudge-select" });
    this.hSelect = h("select", { id: "nudge-h", class: "nudge-select" },
      ...STEPS.map((s) => h("option", { value: s, selected: s === "0.001" }, s)));
    this.run = h("button", { type: "button", class: "button primary small", id: "nudge-run",
      onclick: () => this.select.value && onNudge(this.select.value, this.hSelect.value) }, "Nudge");
    this.all = h("button", { type: "button", class: "button small", id: "nudge-all",
      onclick: () => this.names && onCheckAll(this.names.split(","), this.hSelect.value) }, "Check every input");
    this.result = h("div", { class: "nudge-result", id: "nudge-result", "aria-live": "polite" });
    this.groupsNote = new GroupsNote("The nudge check and its inputs", onOpenAll);
    this.controls = h("div", { class: "nudge-controls" },
      h("span", { class: "nudge-control" }, h("label", { for: "nudge-input" }, "Input"), this.select),
      h("span", { class: "nudge-control" }, h("label", { for: "nudge-h" }, "h"), this.hSelect),
      this.run, this.all);
    this.details = h("details",
      { class: "nudge-details", id: "nudge-details", open: !window.matchMedia("(max-width: 640px)").matches },
      h("summary", {}, "Nudge check: does the grad predict the change?"),
      h("p", { class: "nudge-intro" },
        "Move one input by a small h and watch the output. "
          + "Its change should be close to grad × h, and the slope measured both ways, ",
        h("span", { class: "nowrap" }, "(f(x+h) − f(x−h)) / 2h"), ", should match the grad."),
      this.groupsNote.el, this.controls, this.result);
    box.append(this.details);
    box.hidden = true;
  }

  setGraph(answer, inputs) {
    const names = inputs.map((i) => i.name);
    const current = this.select.value;
    if (names.join(",") !== this.names) {
      this.names = names.join(",");
      this.select.replaceChildren(...inputs.map((i) => h("option", { value: i.name }, i.name)));
      if (names.includes(current)) this.select.value = current;
    }
    this.box.hidden = inputs.length === 0;
    // On a grouped view with a group closed (or a notebook's network, answered in groups only),
    // the check, which nudges any input of the whole graph, gives way to a note.
    const inTheWay = groupsInTheWay(answer);
    this.groupsNote.show(inTheWay);
    this.controls.hidden = inTheWay > 0;
    this.result.hidden = inTheWay > 0;
  }

  // Draw state.nudge: {asked: {kind: "one" | "all", wrt?, h}, shown} where shown is
  // {say: text} (asking, or why not), {one: answer, wrt, output} or {all: [[wrt, answer]], h};
  // stale: the numbers shown are not the graph's any more (being redone).
  draw(nudge) {
    if (nudge === this.shown) return;
    this.shown = nudge;
    if (!nudge?.shown) {
      this.result.replaceChildren();
      this.forget();
      return;
    }
    const shown = nudge.shown;
    if (nudge.stale || shown.say !== undefined) this.forget();
    if (nudge.stale) return;
    if (shown.say !== undefined) say(this.result, shown.say);
    else if (shown.one) this.showOne(shown.wrt, shown.one, shown.output);
    else this.showAll(shown.all, shown.h);
  }

  // The numbers on the result (data-*) are only there while they are current.
  forget() {
    for (const key of Object.keys(this.result.dataset)) delete this.result.dataset[key];
  }

  showOne(wrt, a, out) {
    const hh = fmt(a.h);
    const scale = Math.max(1, Math.abs(a.grad));
    const agree = Math.abs(a.difference) <= AGREE * scale;
    // The central difference is off by about h² × (a third derivative) on its own.
    const close = !agree && Math.abs(a.difference) <= 10 * a.h * a.h * scale;
    const dir = a.grad > 0 ? "increases" : a.grad < 0 ? "decreases" : "does not change";
    const reading = a.grad === 0
      ? `${wrt}.grad = 0: a small change in ${wrt} leaves ${out} (almost) unchanged.`
      : `${wrt}.grad = ${fmt(a.grad)}: if ${wrt} increases by 1, ${out} ${dir} by about ${fmt(Math.abs(a.grad))} `
        + `(a rate, exact only for small steps). Here ${wrt} moves by h = ${hh}, `
        + `so ${out} should move by about ${factor(a.grad)} × ${hh} = ${fmt(a.predicted, 6)}.`;
    const table = h("table", { class: "nudge-table" },
      h("caption", { class: "visually-hidden" }, `Nudging ${wrt} by ${hh}`),
      h("tbody", {},
        row(`${wrt}`, `${fmt(a.x)} → ${fmt(a.x + a.h, 8)}`, `nudged by h = ${hh}`),
        row(`${out}`, `${fmt(a.output, 8)} → ${fmt(a.plus, 8)}`, "", "nudge-output"),
        row(`change of ${out}`, fmt(a.change, 8), "measured", "nudge-change"),
        row(`${wrt}.grad × h`, fmt(a.predicted, 8), `predicted: ${factor(a.grad)} × ${hh}`, "nudge-predicted"),
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

  showAll(rows, hText) {
    const worst = Math.max(...rows.map(([, a]) => Math.abs(a.difference) / Math.max(1, Math.abs(a.grad))));
    const table = h("table", { class: "nudge-table nudge-all" },
      h("caption", { class: "visually-hidden" }, `Every input nudged by ${hText}`),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "input"),
        h("th", { scope: "col", class: "num" }, "autodiff grad"),
        h("th", { scope: "col", class: "num" }, "central difference"),
        h("th", { scope: "col", class: "num" }, "difference"))),
      h("tbody", {}, ...rows.map(([wrt, a]) => h("tr",
        { data: { wrt, central: exact(a.central), grad: exact(a.grad) } },
        h("th", { scope: "row" }, wrt),
        h("td", { class: "num" }, fmt(a.grad, 8)),
        h("td", { class: "num" }, fmt(a.central, 8)),
        h("td", { class: "num" }, fmt(a.difference, 2))))));
    this.result.dataset.wrt = "*";
    this.result.replaceChildren(
      h("p", { class: "nudge-reading" }, worst <= AGREE
        ? `✓ Every grad agrees with its central difference (h = ${hText}): the backward pass got them all right.`
        : `Some grads differ from the central difference by more than ${AGREE} (h = ${hText}). `
          + "The central difference has an error of its own, about h²: try a smaller h."),
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
