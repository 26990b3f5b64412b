// The stage's tabs: what the stage is for. "Step the passes" shows the narration, the
// question and the step's details beside the graph; "Visit order" the visit-order
// experiment; "Why reverse mode" its experiments. The graph and the step controls
// stay where they are: only the side column changes.
//
// The chosen tab is part of the widget's state (state.tab); actions/stage.js writes it
// and render.js draws it with show().

import { TABS } from "../actions/stage.js";

export class StageTabs {
  constructor(root, { choose }) {
    this.stage = root.getElementById("stage");
    this.tabs = TABS.map((id) => root.getElementById(`stage-tab-${id}`));
    this.panels = TABS.map((id) => root.getElementById(`stage-${id}`));
    this.tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => choose(TABS[i]));
      tab.addEventListener("keydown", (e) => {
        const shown = this.tabs.filter((t) => t.offsetParent !== null); // a hidden part (?hide=order) is skipped
        const at = shown.indexOf(tab);
        const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: shown.length - 1 };
        if (!(e.key in moves) || at < 0) return;
        e.preventDefault(); // the widget's arrow keys step the passes; here they move between tabs
        const next = shown[(moves[e.key] + shown.length) % shown.length];
        choose(TABS[this.tabs.indexOf(next)]);
        next.focus();
      });
    });
  }

  show(tab) {
    if (this.stage.dataset.tab === tab) return; // render calls this at every step
    this.stage.dataset.tab = tab;
    TABS.forEach((id, i) => {
      const on = id === tab;
      this.tabs[i].setAttribute("aria-selected", String(on));
      this.tabs[i].tabIndex = on ? 0 : -1;
      this.panels[i].hidden = !on;
    });
  }
}
