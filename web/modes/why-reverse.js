// "Why reverse mode": the section that runs the modes on the graph on screen. Each mode
// is its own module (modes/index.js, which the build writes from engine/modes/, imports
// each by its id); this one builds their tabs, asks the engine for them, hands the answer
// to the page's Stepper as a *mode* ({name, frames, start}; every frame lists its
// changes), so Step forward / Step back and the arrow keys walk it, and keeps what a link
// needs to bring the section back.
//
//   const why = new WhyReverse({call, ready, source, answer, stepper, render,
//                               notReady, visitOrder, loadProgram, root});
//   why.engineReady()              the engine has started (a link's state can run)
//   why.graphLoaded(answer)        a new graph is on screen
//   why.marks(view, marks)         highlights for a mode frame (fills `marks`)
//   why.position(view)             the position line for a mode frame
//   why.details(container, view)   the step details for a mode frame
//   why.sync(view)                 after every render
//   why.orderRule()                "push" or "pull" for the visit-order experiment

import { renderDetails } from "../panels/details.js";
import { fromLinkText, parametersOf, readModeLink, toLinkText } from "../url.js";
import { MODES } from "./index.js";
import { h, wrongGrads } from "./shared.js";

// The URL parameters this section owns (url.js's table).
const LINK_KEYS = parametersOf("why");
const byId = new Map(MODES.map((mode) => [mode.id, mode]));


export class WhyReverse {
  constructor(deps) {
    this.deps = deps;
    this.$ = (id) => deps.root.getElementById(id);
    this.section = this.$("why-reverse");
    // The section's part of the widget's state (state.js keeps it as state.why): what a
    // permalink needs to bring it back; each mode reads and writes its own keys. Which
    // mode is running is not kept here: it is the Stepper's (active()).
    this.state = deps.state ?? {};
    // Each parameter starts at the default its mode declares (engine/modes/).
    const defaults = MODES.flatMap((mode) => mode.declared.params.map((p) => [p.name, p.default]));
    Object.assign(this.state, { tab: MODES[0].id }, Object.fromEntries(defaults));
    this.seq = 0;
    this.pending = null; // a link's state, waiting for the engine
    this.ctx = {
      $: this.$,
      state: this.state,
      memo: {}, // what a mode keeps between runs on this widget's graph (modes are shared modules)
      active: () => this.active(),
      answer: () => deps.answer(),
      stepper: () => deps.stepper(),
      visitOrder: deps.visitOrder,
      ready: () => deps.ready(),
      render: (message) => deps.render(message),
      notReady: (what) => deps.notReady(what),
      loadProgram: (program) => deps.loadProgram(program),
      ask: (request, box, what) => this.ask(request, box, what), // the section's latest request wins
      call: (request) => deps.call(request), // a side request that supersedes nothing (the growth plot)
      start: (mode, params) => this.start(mode, params),
      select: (id) => this.select(id),
      leave: () => this.leave(),
      failed: (error) => this.failed(error),
      mark: (key) => { this.section.dataset[key] = String(Number(this.section.dataset[key] ?? 0) + 1); },
    };
    this.buildTabs();
    for (const radio of deps.root.querySelectorAll("input[name='order-rule']")) {
      radio.addEventListener("change", () => {
        const rule = radio.value === "pull" ? "pull" : "push";
        this.state.rule = rule;
        // A run on the graph keeps the rule it ran with (the position line names it); say so when they differ.
        const ran = this.deps.stepper()?.trace.experiment?.rule;
        const chosen = `${rule === "pull" ? "Pull" : "Push"} chosen:`;
        this.$("order-status").textContent = ran && ran !== rule
          ? `${chosen} the run on the graph used ${ran}; press Run order to run this order with ${rule}.`
          : `${chosen} press Run order to run the visit order this way.`;
      });
    }
    this.$("why-exit").addEventListener("click", () => this.leave());
    this.select(MODES[0].id);
  }

  // ------------------------------------------------------------ tabs

  buildTabs() {
    const tablist = this.$("why-tabs");
    this.tabs = MODES.map((mode, i) => {
      const tab = h("button", { type: "button", role: "tab", id: `why-tab-${mode.id}`, "aria-controls": `why-${mode.id}` }, mode.tab);
      tab.addEventListener("click", () => this.select(mode.id, true));
      tab.addEventListener("keydown", (e) => {
        const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: MODES.length - 1 };
        if (!(e.key in moves)) return;
        e.preventDefault(); // the page's arrow keys step the trace; here they move between tabs
        const next = (moves[e.key] + MODES.length) % MODES.length;
        this.select(MODES[next].id, true);
        this.tabs[next].focus();
      });
      return tab;
    });
    tablist.replaceChildren(...this.tabs);
    this.panels = MODES.map((mode) => {
      const panel = h("div", { class: "why-panel", role: "tabpanel", id: `why-${mode.id}`, "aria-labelledby": `why-tab-${mode.id}`, tabindex: "0" });
      panel.append(...mode.panel(this.ctx));
      return panel;
    });
    tablist.after(...this.panels);
  }

  select(id, byUser = false) {
    this.state.tab = id;
    MODES.forEach((mode, i) => {
      const on = mode.id === id;
      this.tabs[i].setAttribute("aria-selected", on ? "true" : "false");
      this.tabs[i].tabIndex = on ? 0 : -1;
      this.panels[i].hidden = !on;
    });
    if (byUser) byId.get(id).selected?.(this.ctx);
  }

  // Push or pull, for the visit-order experiment (the radio buttons set it).
  orderRule() {
    return this.state.rule;
  }

  // The experiment on the stepper, if any (its id), read from the Stepper itself.
  active() {
    return this.deps.stepper()?.trace.mode?.name ?? null;
  }

  // ------------------------------------------------------------ the page's hooks

  engineReady() {
    this.applyPending();
    byId.get(this.state.tab).selected?.(this.ctx);
  }

  graphLoaded(answer) {
    for (const mode of MODES) mode.graphLoaded?.(this.ctx, answer);
    this.sync(null);
    this.applyPending();
  }

  // The stepper's mode is ours while it is on; a new graph or a visit-order run turns it off.
  sync(view) {
    const on = this.deps.stepper()?.trace.mode ?? null;
    this.section.dataset.active = on?.name ?? "";
    this.$("why-active").hidden = !on;
    if (on) {
      const where = view?.pass === "mode" ? "" : " (the forward pass comes first)";
      this.$("why-active-text").textContent = `Stepping: ${on.title}${where}. Step forward and Step back walk it; the graph, the table and the narration follow.`;
      this.$("why-now").textContent = view?.pass === "mode" ? `Now: ${view.frame.text}` : "";
    }
  }

  position(view) {
    return byId.get(view.mode.name).position(view);
  }

  endText(view) {
    return `That was the last step of ${view.mode.title.toLowerCase()}. Step back to replay it, or press Leave this experiment.`;
  }

  marks(view, marks) {
    const mode = view.mode;
    if (mode.column) {
      marks.column = { title: mode.column.title, values: mode.column.field ? view[mode.column.field] : mode.column.values };
    }
    byId.get(mode.name).marks(view, marks, this.deps.answer());
    if (view.index === view.total - 1 && mode.correct) {
      for (const i of wrongGrads(view.grad, mode.correct)) marks.wrong.add(i);
      if (marks.wrong.size) marks.shouldBe = mode.correct;
    }
    return marks;
  }

  details(container, view) {
    const answer = this.deps.answer();
    const parts = byId.get(view.mode.name).details(view, answer);
    if (parts) container.replaceChildren(...parts);
    else renderDetails(container, view, answer);
  }

  // ------------------------------------------------------------ running a mode

  // Ask the engine about the graph on screen; null if the answer is stale or refused.
  async ask(request, resultBox, what) {
    if (!this.deps.ready()) {
      this.deps.notReady(what);
      return null;
    }
    const answer = this.deps.answer();
    const seq = ++this.seq;
    this.section.setAttribute("aria-busy", "true");
    try {
      const reply = await this.deps.call({ ...this.deps.source(), ...request });
      if (seq !== this.seq || this.deps.answer() !== answer) return null;
      if (!reply.ok) {
        resultBox.replaceChildren(h("p", { class: "why-bad" }, `The engine could not run this: ${reply.error.message}`));
        this.deps.render(`${what} failed: ${reply.error.message}`);
        return null;
      }
      return reply;
    } finally {
      if (seq === this.seq) this.section.removeAttribute("aria-busy");
    }
  }

  // Run a mode (its button, or a link) and put what it made on the stepper.
  async start(mode, params = {}) {
    const result = await mode.run(this.ctx, params);
    if (!result) return;
    const s = this.deps.stepper();
    s.setMode({ name: mode.id, ...result.mode });
    if (result.atEnd) s.toEnd("mode");
    else s.startBackward();
    this.ctx.mark("runs"); // tests wait on this
    this.deps.render(`${result.message ?? ""} ${s.view().frame.text}`.trim());
  }

  leave() {
    const s = this.deps.stepper();
    if (!s?.trace.mode) return;
    s.setMode(null);
    s.toEnd();
    this.deps.render("Left the experiment: these are the grads of the ordinary backward pass.");
  }

  failed(error) {
    this.deps.render(`The engine could not answer: ${error?.message ?? error}`);
  }

  // ------------------------------------------------------------ permalinks

  // The page's other link parameters with this section's (fresh) ones in place of any old ones.
  linkParams(other) {
    if (this.pending || this.replaying) return other; // not restored yet: keep what the link asked for
    return [...other.filter(([k]) => !LINK_KEYS.includes(k)), ...Object.entries(this.toParams())];
  }

  toParams() {
    const s = this.state;
    const params = {};
    if (s.tab !== MODES[0].id) params.why = s.tab;
    const active = this.active();
    if (active) params.run = active;
    for (const mode of MODES) Object.assign(params, mode.params ? mode.params(this.ctx) : this.declaredParams(mode));
    const pos = this.deps.stepper()?.pos;
    if (active && pos?.pass === "mode") params.wstep = String(pos.index);
    return params;
  }

  // A mode's declared parameters that differ from their defaults, as a link writes them
  // (for a mode whose module does not write its own, params(ctx)).
  declaredParams(mode) {
    const params = {};
    for (const p of mode.declared.params) {
      const value = this.state[p.name];
      if (p.link && value !== null && value !== undefined && value !== p.default) params[p.link] = toLinkText(p, value);
    }
    return params;
  }

  // Bring the state back from URL parameters (a URLSearchParams or a plain object);
  // what needs the engine runs as soon as it is ready and a graph is on screen. Only
  // what the modes' declarations allow is read (url.js reports the rest).
  fromParams(params) {
    const query = params instanceof URLSearchParams ? params
      : new URLSearchParams(Object.entries(params).filter(([, value]) => value !== null && value !== undefined));
    const valid = readModeLink(query).values;
    const get = (k) => valid.get(k) ?? null;
    if (!LINK_KEYS.some((k) => get(k) !== null)) return;
    if (byId.has(get("why"))) this.select(get("why"));
    for (const mode of MODES) {
      if (mode.fromParams) mode.fromParams(this.ctx, get);
      else {
        for (const p of mode.declared.params) {
          if (p.link && get(p.link) !== null) this.state[p.name] = fromLinkText(p, get(p.link));
        }
      }
    }
    this.pending = { run: get("run"), step: Number(get("wstep")), get };
    this.applyPending();
  }

  async applyPending() {
    const p = this.pending;
    if (!p || !this.deps.answer() || !this.deps.ready()) return;
    this.pending = null;
    const mode = byId.get(p.run);
    this.replaying = true; // until the mode is back on the stepper, the link keeps its own parameters
    try {
      if (mode) await (mode.replay ? mode.replay(this.ctx, p.get) : this.start(mode));
    } finally {
      this.replaying = false;
    }
    const s = this.deps.stepper();
    if (s?.trace.mode && Number.isInteger(p.step) && p.step >= 0 && p.step < s.trace.mode.frames.length) {
      s.pos = { pass: "mode", index: p.step };
      this.deps.render();
    }
  }
}
