// Learn by doing: the parts of the widget where the learner acts, not only watches.
//
//   panels/question-cards.js  questions asked before the step that reveals the answer
//   panels/inputs.js       edit or scrub the input values; the engine recomputes
//   panels/nudge.js        nudge an input by h: the change next to grad × h, and the
//                          central difference next to the grad
//   panels/editor.js       type a program; the graph rebuilds as you type
//   links.js, url.js       the state in the URL (restored, kept up to date); Copy link
//   panels/embed.js        ?embed=1 and <grad-walk> for lesson pages, the Embed dialog
//
// Learn builds those panels inside the widget `w` (widget.js), hands what the learner
// does in them to the actions that change the state and load (actions/questions.js,
// values.js, program.js, nudge.js, order.js, groups.js; a link's: actions/link.js), and
// draws them: graphLoaded(state, answer) for every new graph and draw(state, view) at
// every render (render.js).

import { INPUT_TIP, markEditable } from "./panels/graph-inputs.js";
import { QuestionCards } from "./panels/question-cards.js";
import { questionSummary } from "./questions.js";
import { h, debounce } from "./lib/dom.js";
import { Editor } from "./panels/editor.js";
import { EmbedDialog, applyEmbed } from "./panels/embed.js";
import { InputsPanel } from "./panels/inputs.js";
import { inputsOf } from "./lib/inputs.js";
import { NudgePanel } from "./panels/nudge.js";
import { parseLink } from "./url.js";
import { LearnLinks } from "./links.js";
import { arrangeAndRun } from "./actions/order.js";
import { questionAnswered, switchQuestions } from "./actions/questions.js";
import { resetValues, typeValue } from "./actions/values.js";
import { backToPreset, buildProgram } from "./actions/program.js";
import { checkAll, nudge } from "./actions/nudge.js";
import { openAllGroups } from "./actions/groups.js";

export class Learn extends LearnLinks {
  /** @param {any} w the widget's context (widget.js) */
  constructor(w) {
    super();
    this.w = w;
    const $ = (id) => w.shadow.getElementById(id);
    this.$ = $;
    this.link = parseLink(w.options.query ?? "");
    this.ownsAddressBar = Boolean(w.options.ownsAddressBar);
    this.stopEmbed = applyEmbed(this.link.state, { element: w.host, shadow: w.shadow, ownPage: this.ownsAddressBar });
    // Every input's tooltip, however late the graph draws it.
    w.graph.inputTip = INPUT_TIP;

    this.questions = new QuestionCards($("checkpoints"), {
      onTryOrder: (labels) => arrangeAndRun(w, labels),
      markAsked: (label) => {
        const svg = $("graph");
        const node = label === null ? null : svg.querySelector(`[data-node="${CSS.escape(label)}"]`);
        for (const g of svg.querySelectorAll(".is-asked")) if (g !== node) g.classList.remove("is-asked");
        if (!node) return;
        node.classList.add("is-asked");
        // The node a question is about stays in view (a big graph, panned elsewhere), with
        // the step's own nodes as far as they fit.
        const index = w.graph.nodes?.findIndex((n) => n.g === node) ?? -1;
        if (index >= 0) w.graph.keepInView([index, ...w.graph.kept]);
      },
      markNamed: (labels) => {
        const svg = $("graph");
        const named = new Set(labels);
        for (const g of svg.querySelectorAll("[data-node]")) {
          g.classList.toggle("is-mentioned", named.has(g.dataset.node));
        }
      },
      onToggle: (on) => {
        switchQuestions(w, on);
        this.saveURL();
      },
      onAnswer: (key, status) => questionAnswered(w, key, status),
    });

    this.inputs = new InputsPanel($("inputs"), {
      onChange: (name, value) => typeValue(w, name, value), // values typed in a burst load together
      onReset: () => resetValues(w),
    });
    this.nudge = new NudgePanel($("nudge"), {
      onNudge: (wrt, hText) => nudge(w, wrt, hText),
      onCheckAll: (names, hText) => checkAll(w, names, hText),
      onOpenAll: () => openAllGroups(w),
    });
    this.editor = new Editor($("editor-box"), {
      pre: $("program"),
      build: (text) => buildProgram(w, text),
      backToPreset: () => backToPreset(w),
    });
    $("code-tools")?.append(this.editor.button);

    this.saveURL = debounce(() => this.writeURL(), 200);
    this.watchHistory(); // Back and Forward restore the state (links.js)
    this.buildBar();

    // A leaf in the graph: click to type its value, drag sideways to scrub it.
    const svg = $("graph");
    svg.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "touch") return; // touch scrolls the graph; a tap focuses (click)
      const id = this.leafAt(e.target);
      if (id !== null) this.inputs.fromGraph(e, id);
    });
    this.linkHover(svg, $("program"));
    svg.addEventListener("click", (e) => {
      const id = this.leafAt(e.target);
      if (id !== null && e.pointerType === "touch") this.inputs.focusLeaf(id);
    });
  }

  get state() {
    return this.w.state;
  }

  // The widget is going away: no URL write or value edit may run after it.
  destroy() {
    this.live = false;
    this.saveURL.cancel?.();
    this.stopEmbed?.();
    this.stopHistory?.();
    this.embedDialog?.close();
  }

  // Hovering a line of the program outlines the nodes it made, and hovering a node
  // outlines its line (a pointer aid; the step itself marks both for everyone).
  linkHover(svg, code) {
    const show = (line) => {
      if (line === this.linked) return;
      this.linked = line;
      for (const g of svg.querySelectorAll("[data-node]")) {
        g.classList.toggle("is-linked", line !== null && this.lineOf?.get(g.dataset.node) === line);
      }
      for (const row of code.querySelectorAll(".code-line")) {
        row.classList.toggle("is-linked", line !== null && Number(row.dataset.line) === line);
      }
    };
    code.addEventListener("mouseover", (e) => {
      const row = e.target.closest?.(".code-line");
      show(row ? Number(row.dataset.line) : null);
    });
    code.addEventListener("mouseleave", () => show(null));
    svg.addEventListener("mouseover", (e) => {
      const g = e.target.closest?.("[data-node]");
      show(g ? this.lineOf?.get(g.dataset.node) ?? null : null);
    });
    svg.addEventListener("mouseleave", () => show(null));
  }

  leafAt(target) {
    const g = target.closest?.("[data-node]");
    const answer = this.state.answer;
    if (!g || !answer || this.w.host.classList.contains("hide-values")) return null;
    const id = answer.nodes.findIndex((n) => n.label === g.dataset.node);
    return id >= 0 && answer.nodes[id].is_input ? id : null;
  }

  // ---------------------------------------------------------------- the bar

  buildBar() {
    const bar = this.$("learn-bar");
    if (!bar) return;
    const on = this.link.state.cp !== false; // the widget starts with the link's switch (widget.js)
    this.linkStatus = h("p", { class: "share-status", role: "status" });
    this.linkField = /** @type {HTMLInputElement} */ (h("input", {
      type: "text", id: "share-link", class: "share-link", readonly: true, hidden: true,
      "aria-label": "Link to this state",
    }));
    this.embedDialog = new EmbedDialog({ state: () => this.dialogState(), container: this.w.shadow });
    const share = h("div", { class: "share" });
    if (this.link.state.embed) {
      if (this.pageAddress() === null) return bar.append(this.questions.makeSwitch(on)); // a notebook: no site to open
      this.openFull = /** @type {HTMLAnchorElement} */ (h("a", {
        class: "button small open-full", target: "_blank", rel: "noopener", href: this.pageAddress(),
      }, "Open in Gradwalk ↗"));
      share.append(this.openFull);
    } else {
      share.append(
        h("button", {
          type: "button", class: "button small", id: "copy-link", onclick: () => this.copyLink(),
        }, "Copy link"),
        h("button", {
          type: "button", class: "button small", id: "embed-button", "aria-haspopup": "dialog",
          onclick: () => this.embedDialog.open(),
        }, "Embed"));
    }
    bar.append(this.questions.makeSwitch(on), share, this.linkField, this.linkStatus);
  }

  // ---------------------------------------------------------------- drawing

  // A new graph on screen: the panels here draw it (render.js).
  graphLoaded(state, answer) {
    const source = state.source ?? {};
    this.markCustom(!source.preset);
    this.inputs.build(answer, state.values.edited);
    this.nudge.setGraph(answer, inputsOf(answer));
    this.editor.graphLoaded(answer, state.kind === "editor", Boolean(source.preset));
    this.lineOf = new Map(answer.nodes.map((n) => [n.label, n.line]));
    this.linked = null;
    // Leaves say they can be changed (their tooltips too: see the constructor).
    markEditable(answer, (label) => this.$("graph").querySelector(`[data-node="${cssEscape(label)}"]`));
  }

  // The preset chooser says "Your program" while one is on screen (the option goes
  // away again when a preset is picked, so the list stays the list of presets).
  markCustom(on) {
    const select = this.$("preset");
    let option = /** @type {HTMLOptionElement | null} */ (select.querySelector("option[data-custom]"));
    if (on && !option) {
      option = /** @type {HTMLOptionElement} */ (
        h("option", { value: "", disabled: true, data: { custom: "1" } }, "Your program"));
      select.prepend(option);
    }
    if (on) option.selected = true;
    else option?.remove();
  }

  // At every render: the questions, the nudge check, and the URL kept up to date.
  draw(state, view) {
    this.questions.draw(state, view, state.tab === "passes");
    this.w.host.dataset.questions = String(questionSummary(state.questions).total);
    this.nudge.draw(state.nudge);
    if (this.live) this.saveURL();
  }
}

function cssEscape(text) {
  return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(text) : text.replace(/["\\]/g, "\\$&");
}
