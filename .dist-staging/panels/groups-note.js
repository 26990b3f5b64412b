// A panel whose experiment answers for the whole graph, node by node (the "Why reverse
// mode" experiments, the nudge check), says so on a grouped view with a group closed,
// and offers to open every group, instead of showing numbers the graph on screen lacks.

import { h } from "../lib/dom.js";

export class GroupsNote {
  /**
   * @param {string} what the panel's experiments, as the sentence names them
   * @param {() => void} onOpenAll
   */
  constructor(what, onOpenAll) {
    this.text = h("span", {});
    this.what = what;
    this.el = h("p", { class: "groups-note", role: "note" }, this.text, " ",
      h("button", { type: "button", class: "button small groups-open-all", onclick: () => onOpenAll() },
        "Open every group"));
    this.el.hidden = true;
  }

  /** @param {number} closed how many groups are drawn closed (grouped.js's closedGroups) */
  show(closed) {
    this.el.hidden = closed === 0;
    if (closed) {
      this.text.textContent = `${this.what} work with every group open, node by node, and ${closed === 1
        ? "a group is" : `${closed} groups are`} closed on the graph.`;
    }
  }
}
