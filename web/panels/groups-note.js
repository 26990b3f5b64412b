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
    this.openAll = h("button", { type: "button", class: "button small groups-open-all", onclick: () => onOpenAll() },
      "Open every group");
    this.el = h("p", { class: "groups-note", role: "note" }, this.text, " ", this.openAll);
    this.el.hidden = true;
  }

  /** @param {number} inTheWay grouped.js's groupsInTheWay: closed groups, or Infinity */
  show(inTheWay) {
    this.el.hidden = inTheWay === 0;
    this.openAll.hidden = inTheWay === Infinity;
    if (inTheWay === Infinity) {
      this.text.textContent = `${this.what} work on a graph drawn node by node, and a network shown in `
        + "groups from a notebook answers at the level on screen only: show a smaller part of it, such as one "
        + "sample's loss, to use them.";
    } else if (inTheWay) {
      this.text.textContent = `${this.what} work with every group open, node by node, and ${inTheWay === 1
        ? "a group is" : `${inTheWay} groups are`} closed on the graph.`;
    }
  }
}
