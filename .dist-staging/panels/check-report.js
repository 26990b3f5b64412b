// What gradwalk.check found in a learner's own engine, shown beside their graph (in a
// notebook; web/notebook.js passes the report as the widget's `report` option).
//
//   const panel = new CheckReport(box, report, { show: (problem) => ... });
//   panel.open();   // list the problems and show the first one on the graph
//
// report = {ok, problems: [{text, node, kind, mistake}], notes: [...], order: [labels] | null}
// (mistake: the id of the catalogue's mistake a problem is, engine/mistakes.py, or null)
// (engine/check.py, Report.as_dict). Each problem has a Show button; `show` puts the
// graph where that problem can be seen: the learner's own visit order run as the
// experiment for an order problem, the node's own backward visit for a wrong rule,
// the end of the backward pass for a wrong final grad.

import { h } from "../lib/dom.js";

export class CheckReport {
  constructor(box, report, { show }) {
    this.box = box;
    this.report = report;
    this.show = show;
  }

  open() {
    const { problems = [], notes = [], ok } = this.report;
    const count = problems.length;
    const verdict = ok
      ? h("p", { class: "check-verdict is-right" }, "✓ check found no problem in your engine on this graph.")
      : h("p", { class: "check-verdict is-wrong" },
        `✗ check found ${count} problem${count === 1 ? "" : "s"} in your engine:`);
    const items = problems.map((problem, i) => h("li",
      { class: "check-problem", data: { kind: problem.kind, node: problem.node },
        "data-mistake": problem.mistake ?? null },
      h("span", { class: "check-text" }, problem.text), " ",
      h("button", { type: "button", class: "button small", "aria-label": `Show problem ${i + 1} on the graph`,
        onclick: () => this.select(i) }, "Show")));
    const parts = [h("h2", { class: "panel-heading", id: "check-heading" }, "What check found"), verdict];
    if (count) parts.push(h("ol", { class: "check-problems" }, ...items));
    if (notes.length) parts.push(h("ul", { class: "check-notes muted" }, ...notes.map((note) => h("li", {}, note))));
    this.box.replaceChildren(...parts);
    this.box.hidden = false;
    if (count) this.select(0);
  }

  select(i) {
    for (const [j, li] of [...this.box.querySelectorAll(".check-problem")].entries()) {
      li.classList.toggle("is-shown", i === j);
    }
    this.show(this.report.problems[i]);
  }
}
