// "Why reverse mode": the section that shows the modes on the graph on screen, one tab
// each (modes/index.js, which the build writes from engine/modes/, imports each mode's
// module by its id). This is its panel: it builds the tabs and each mode's
// own panel, and draws them from the widget's state (state.why: the choices a link
// keeps; which experiment is on the stepper is the Stepper's). Running an experiment,
// leaving it and restoring one from a link are actions (actions/why.js); the modes
// hand them requests and read the answers.
//
//   const why = new WhyReverse(root, ctx, { select, leave });
//                                            ctx: what a mode may read and ask for (actions/why.js);
//                                            select(id): a tab was picked; leave(): the exit button
//   why.graphLoaded(state, answer)           a new graph is on screen (render.js)
//   why.draw(state, view)                    at every render
//   why.refuse(mode, text)                   the engine could not run a mode: say so in its panel

import { groupsInTheWay } from "../grouped.js";
import { GroupsNote } from "../panels/groups-note.js";
import { MODES } from "../modes/index.js"; // written by the build (types/build-outputs.d.ts)
import { h } from "./shared.js";

export class WhyReverse {
  constructor(root, ctx, { select, leave, openAll }) {
    this.root = root;
    this.ctx = ctx;
    this.$ = (id) => root.getElementById(id);
    this.section = this.$("why-reverse");
    this.select = select;
    this.buildTabs();
    this.groupsNote = new GroupsNote("These experiments", openAll);
    this.$("why-tabs").after(this.groupsNote.el);
    this.$("why-exit").addEventListener("click", () => leave());
  }

  buildTabs() {
    const tablist = this.$("why-tabs");
    this.tabs = MODES.map((mode, i) => {
      const tab = h("button", {
        type: "button", role: "tab", id: `why-tab-${mode.id}`, "aria-controls": `why-${mode.id}`,
      }, mode.tab);
      tab.addEventListener("click", () => this.select(mode.id));
      tab.addEventListener("keydown", (e) => {
        const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: MODES.length - 1 };
        if (!(e.key in moves)) return;
        e.preventDefault(); // the page's arrow keys step the trace; here they move between tabs
        const next = (moves[e.key] + MODES.length) % MODES.length;
        this.select(MODES[next].id);
        this.tabs[next].focus();
      });
      return tab;
    });
    tablist.replaceChildren(...this.tabs);
    this.panels = MODES.map((mode) => {
      const panel = h("div", {
        class: "why-panel", role: "tabpanel", id: `why-${mode.id}`, "aria-labelledby": `why-tab-${mode.id}`,
        tabindex: "0",
      });
      panel.append(...mode.panel(this.ctx));
      return panel;
    });
    tablist.after(...this.panels);
  }

  // A new graph: each mode refills its controls and clears its result.
  graphLoaded(state, answer) {
    for (const mode of MODES) mode.graphLoaded?.(this.ctx, answer);
  }

  draw(state, view) {
    const why = state.why;
    // On a grouped view with a group closed (or a notebook's network, answered in groups
    // only) the experiments, which answer node by node, give way to a note.
    const inTheWay = groupsInTheWay(state.answer);
    if (this.tab !== why.tab || this.inTheWay !== inTheWay) {
      this.tab = why.tab;
      this.inTheWay = inTheWay;
      this.groupsNote.show(inTheWay);
      MODES.forEach((mode, i) => {
        const on = mode.id === why.tab;
        this.tabs[i].setAttribute("aria-selected", on ? "true" : "false");
        this.tabs[i].tabIndex = on ? 0 : -1;
        this.panels[i].hidden = !on || inTheWay > 0;
      });
    }
    if (why.busy) this.section.setAttribute("aria-busy", "true");
    else this.section.removeAttribute("aria-busy");
    // The stepper's mode is ours while it is on (a run of "Your code" is not); a new graph
    // or a visit-order run turns it off.
    const mode = state.stepper?.trace.mode ?? null;
    const on = mode && mode.name !== "code" ? mode : null;
    this.section.dataset.active = on?.name ?? "";
    this.$("why-active").hidden = !on;
    if (on) {
      const where = view?.pass === "mode" ? "" : " (the forward pass comes first)";
      this.$("why-active-text").textContent = `Stepping: ${on.title}${where}. `
        + "Step forward and Step back walk it; the graph, the table and the narration follow.";
      this.$("why-now").textContent = view?.pass === "mode" ? `Now: ${view.frame.text}` : "";
    }
  }

  // The engine could not run this mode: its result box says why.
  refuse(mode, text) {
    this.$(`${mode.id}-result`)?.replaceChildren(h("p", { class: "why-bad" }, text));
  }
}
