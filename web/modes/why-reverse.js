// "Why reverse mode": six experiments that run through the same engine, trace format
// and stepper as the main passes (docs/api.md, the teaching-mode commands).
//
//   path sums        {cmd: "paths"}         every input → output path and its product
//   naive recursion  {cmd: "naive"}         the recursive backward without a topological order
//   push and pull    {cmd: "load", order, mode}   (the visit-order experiment's rule switch)
//   forward mode     {cmd: "forward_mode"}  one tangent pass per input
//   backward twice   {cmd: "again"}         backward() on top of the first pass, or after zero_grad()
//   gradient descent {cmd: "descend"} + {cmd: "load", values}: one step per click
//
// Each mode becomes a *mode* for the page's Stepper ({name, frames, start}; every
// frame lists its changes), so Step forward / Step back and the arrow keys walk it,
// and the page asks this module for the mode's highlights (marks), position line
// and step details. The page wires it up with a few hooks:
//
//   const why = new WhyReverse({call, ready, source, answer, stepper, render,
//                               notReady, visitOrder, loadProgram, root});
//   why.engineReady()              the engine has started (a link's state can run)
//   why.graphLoaded(answer)        a new graph is on screen
//   why.marks(view, marks)         highlights for a mode frame (fills `marks`)
//   why.position(view)             the position line for a mode frame
//   why.details(container, view)   the step details for a mode or pull frame
//   why.sync(view)                 after every render
//   why.orderRule()                "push" or "pull" for the visit-order experiment
//
// The learner's choices live in one plain object (this.state) with toParams() and
// fromParams(), so a permalink can carry them.

import { exact, fmt } from "../format.js";
import { renderDetails } from "../details.js";
import { dataTable, linePlot } from "./plot.js";

const TABS = ["paths", "naive", "pushpull", "forward", "again", "descent"];
// The URL parameters this section owns (learn/permalink.js keeps the page's own).
export const LINK_KEYS = ["why", "run", "wrt", "family", "rule", "zero", "moves", "lr", "inputs", "wstep"];
const GROWTH_SIZES = { diamonds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], neuron: [1, 2, 4, 8, 16, 24, 32, 48, 60] };
const SHARED_PROGRAM = "a = 1\nb = a + a\nc = b + b";
const TITLES = {
  paths: "Path sums", naive: "Naive recursion", forward: "Forward mode", again: "Backward twice", descent: "Gradient descent",
};

function h(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function same(a, b) {
  return exact(a) === exact(b);
}

function list(items, className = "") {
  const ul = h("ul", className);
  for (const item of items) ul.append(item instanceof Node ? item : h("li", "", item));
  return ul;
}

// The marks for a pull visit in the visit-order experiment (the page's own marks
// for push visits stay as they are).
export function pullMarks(f, marks) {
  marks.visiting = f.node;
  marks.visitTag = "pulls";
  for (const p of f.pushes) {
    marks.pushes.set(p.edge, {
      lines: [`${fmt(p.upstream)} × ${fmt(p.local)}`, `= ${fmt(p.contribution)}`],
      late: p.late,
      tag: p.late ? "⚠ not final" : undefined,
    });
  }
}

export class WhyReverse {
  constructor(deps) {
    this.deps = deps;
    this.$ = (id) => deps.root.getElementById(id);
    this.section = this.$("why-reverse");
    // Everything a permalink needs to bring this section back.
    this.state = {
      tab: "paths", active: null, wrt: null, family: "diamonds", rule: "push", zero: false,
      rate: 0.1, inputs: null, moves: "",
    };
    this.seq = 0;
    this.mode = null; // the mode handed to the stepper
    this.growth = new Map(); // family → rows
    this.pending = null; // params waiting for the engine
    this.wireTabs();
    this.wireButtons();
    this.select("paths");
  }

  // The engine has started: a link's state can run, and the growth plot can be drawn.
  engineReady() {
    this.applyPending();
    if (this.state.tab === "paths") this.showGrowth().catch((e) => this.failed(e));
  }

  // ------------------------------------------------------------ tabs

  wireTabs() {
    this.tabs = TABS.map((name) => this.$(`why-tab-${name}`));
    this.tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => this.select(TABS[i], true));
      tab.addEventListener("keydown", (e) => {
        const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 };
        if (!(e.key in moves)) return;
        e.preventDefault(); // the page's arrow keys step the trace; here they move between tabs
        const next = (moves[e.key] + TABS.length) % TABS.length;
        this.select(TABS[next], true);
        this.tabs[next].focus();
      });
    });
  }

  select(name, byUser = false) {
    this.state.tab = name;
    TABS.forEach((tab, i) => {
      const on = tab === name;
      this.tabs[i].setAttribute("aria-selected", on ? "true" : "false");
      this.tabs[i].tabIndex = on ? 0 : -1;
      this.$(`why-${tab}`).hidden = !on;
    });
    if (name === "paths" && byUser) this.showGrowth().catch((e) => this.failed(e));
  }

  // ------------------------------------------------------------ wiring

  wireButtons() {
    const on = (id, fn) => this.$(id).addEventListener("click", () => fn().catch((e) => this.failed(e)));
    on("paths-run", () => this.runPaths());
    on("naive-run", () => this.runNaive());
    on("naive-shared", () => this.loadShared());
    on("pushpull-early", async () => this.inputFirst());
    on("pushpull-compare", () => this.comparePushPull());
    on("forward-run", () => this.runForward());
    on("again-run", () => this.runAgain(false));
    on("again-zero", () => this.runAgain(true));
    on("descent-step", () => this.descend(false));
    on("descent-ascend", () => this.descend(true));
    on("descent-reset", async () => this.resetDescent(true));
    on("why-exit", async () => this.exit());
    this.$("growth-family").addEventListener("change", () => {
      this.state.family = this.$("growth-family").value;
      this.showGrowth().catch((e) => this.failed(e));
    });
    this.$("paths-wrt").addEventListener("change", () => { this.state.wrt = this.$("paths-wrt").value; });
    this.$("forward-wrt").addEventListener("change", () => { this.state.wrt = this.$("forward-wrt").value; });
    this.$("descent-rate").addEventListener("change", () => {
      const rate = Number(this.$("descent-rate").value);
      if (rate > 0 && rate <= 10) this.state.rate = rate;
    });
    for (const radio of this.deps.root.querySelectorAll("input[name='order-rule']")) {
      radio.addEventListener("change", () => {
        this.state.rule = this.orderRule();
        this.$("order-status").textContent = `${this.state.rule === "pull" ? "Pull" : "Push"} chosen: press Run order to run the visit order this way.`;
      });
    }
  }

  orderRule() {
    return this.deps.root.querySelector("input[name='order-rule']:checked")?.value === "pull" ? "pull" : "push";
  }

  // ------------------------------------------------------------ the page's hooks

  graphLoaded(answer) {
    this.answer = answer;
    this.mode = null;
    this.state.active = null;
    this.forwardRuns = new Map(); // input label → derivative, for "one pass per input"
    this.againRuns = {};
    const inputs = answer.inputs.map((i) => answer.nodes[i].label);
    for (const id of ["paths-wrt", "forward-wrt"]) {
      const select = this.$(id);
      select.replaceChildren(...inputs.map((label) => {
        const option = h("option", "", label);
        option.value = label;
        return option;
      }));
      if (inputs.includes(this.state.wrt)) select.value = this.state.wrt;
    }
    for (const id of ["paths-result", "naive-result", "pushpull-result", "forward-result", "again-result"]) {
      this.$(id).replaceChildren();
    }
    this.resetDescent(false);
    this.showDescentInputs(inputs);
    this.sync(null);
    this.applyPending();
  }

  // The stepper's mode is ours while it is on; a new graph or a visit-order run turns it off.
  sync(view) {
    const on = this.deps.stepper()?.trace.mode ?? null;
    if (!on) {
      this.mode = null;
      this.state.active = null;
    }
    this.section.dataset.active = on?.name ?? "";
    this.$("why-active").hidden = !on;
    if (on) {
      const where = view?.pass === "mode" ? "" : " (the forward pass comes first)";
      this.$("why-active-text").textContent = `Stepping: ${on.title}${where}. Step forward and Step back walk it; the graph, the table and the narration follow.`;
      this.$("why-now").textContent = view?.pass === "mode" ? `Now: ${view.frame.text}` : "";
    }
  }

  position(view) {
    const mode = view.mode;
    const f = view.frame;
    if (mode.name === "paths") return `${mode.title} · path ${view.index + 1} of ${view.total}`;
    if (mode.name === "forward") return `${mode.title} · node ${view.index + 1} of ${view.total}`;
    if (mode.name === "descent") return view.index === 0 ? `${mode.title} · start` : `${mode.title} · step ${view.index} of ${view.total - 1}`;
    if (f.kind === "seed") return `${mode.title} · seed`;
    if (f.kind === "zero") return `${mode.title} · zero_grad()`;
    const first = mode.frames.findIndex((x) => x.kind !== "seed" && x.kind !== "zero");
    return `${mode.title} · ${mode.name === "naive" ? "send" : "visit"} ${view.index - first + 1} of ${view.total - first}`;
  }

  endText(view) {
    return `That was the last step of ${view.mode.title.toLowerCase()}. Step back to replay it, or leave the experiment below.`;
  }

  marks(view, marks) {
    const mode = view.mode;
    const f = view.frame;
    if (mode.column) {
      marks.column = { title: mode.column.title, values: mode.column.field ? view[mode.column.field] : mode.column.values };
    }
    const backwardVisit = () => {
      if (f.kind === "seed") {
        marks.visiting = f.node;
        marks.visitTag = "seed: grad 1";
      } else if (f.kind === "zero") {
        marks.visiting = f.node;
        marks.visitTag = "zero_grad()";
      } else {
        marks.visiting = f.node;
        for (const p of f.pushes) {
          marks.receiving.set(p.parent, "+=");
          marks.pushes.set(p.edge, { lines: [`${fmt(p.local)} × ${fmt(p.upstream)}`, `= ${fmt(p.contribution)}`], late: false });
        }
      }
    };
    if (mode.name === "paths") {
      marks.path = new Set(f.edges);
      for (const e of f.edges) marks.pushes.set(e, { lines: [`× ${fmt(this.answer.edges[e].local)}`], late: false });
      marks.visiting = f.node;
      marks.visitTag = `path ${view.index + 1}`;
      marks.notes = new Map([[f.node, `Σ paths = ${fmt(view.pathsum[f.node])}`]]);
    } else if (mode.name === "naive") {
      const info = mode.info[view.index];
      marks.resent = info.carried;
      if (f.kind === "seed") {
        marks.visiting = f.node;
        marks.visitTag = "seed: grad 1";
      } else {
        const p = f.pushes[0];
        marks.visiting = f.node;
        marks.visitTag = `${info.repeat ? "↻ " : ""}called with ${fmt(f.upstream)}`;
        marks.receiving.set(p.parent, info.calls?.again ? "+=, calls again" : "+=");
        const sum = `${fmt(p.local)} × ${fmt(p.upstream)} = ${fmt(p.contribution)}`;
        marks.pushes.set(p.edge, info.repeat
          ? { lines: [sum], late: false, kind: "resent", tag: `↻ re-sends ${fmt(p.local * info.repeat)}` }
          : { lines: [`${fmt(p.local)} × ${fmt(p.upstream)}`, `= ${fmt(p.contribution)}`], late: false });
      }
    } else if (mode.name === "forward") {
      marks.current = f.node;
      for (const p of f.pushes) {
        marks.feeding.add(p.edge);
        marks.pushes.set(p.edge, { lines: [`${fmt(p.local)} × ${fmt(p.upstream)}`, `= ${fmt(p.contribution)}`], late: false });
      }
      marks.notes = new Map();
      view.tangent.forEach((t, i) => {
        if (t !== null) marks.notes.set(i, `d/d${mode.wrtLabel} = ${fmt(t)}`);
      });
    } else if (mode.name === "again") {
      backwardVisit();
    } else if (mode.name === "descent") {
      marks.visiting = this.answer.output;
      marks.visitTag = view.index === 0 ? "start" : `step ${view.index}`;
      if (view.index > 0) {
        const tag = f.ascend ? "+ lr × grad" : "− lr × grad";
        for (const i of mode.moved) marks.receiving.set(i, tag);
      }
    }
    const last = view.index === view.total - 1;
    if (last && mode.correct) {
      view.grad.forEach((g, i) => {
        if (g !== null && !same(g, mode.correct[i])) marks.wrong.add(i);
      });
      if (marks.wrong.size) marks.shouldBe = mode.correct;
    }
    return marks;
  }

  details(container, view) {
    const f = view.frame;
    const nodes = this.answer.nodes;
    const label = (i) => nodes[i].label;
    const parts = [];
    if (f.kind === "pull") {
      parts.push(h("p", "detail-head", `Visit ${label(f.node)}: pull from the nodes that use it`));
      if (!f.pushes.length) parts.push(h("p", "muted", "Nothing to pull: the output keeps its seed."));
      parts.push(list(f.pushes.map((p) => {
        const li = h("li", `push${p.late ? " is-late" : ""}`);
        li.append(h("code", "push-rule", p.rule));
        li.append(h("div", "push-math", `${label(p.child)}.grad ${fmt(p.upstream)} × local ${fmt(p.local)} = ${fmt(p.contribution)}`));
        li.append(h("div", "push-change", `running sum ${fmt(p.before)} → ${fmt(p.after)}`));
        if (p.late) {
          li.append(h("div", "push-late", `⚠ Too early: ${label(p.child)} has not been visited yet, so its grad is not final and the paths through it are lost.`));
        }
        return li;
      }), "pushes"));
      container.replaceChildren(...parts);
      return;
    }
    const mode = view.mode;
    if (mode.name === "again" && f.kind !== "zero") {
      renderDetails(container, view, this.answer);
      return;
    }
    if (mode.name === "paths") {
      const route = f.nodes.map(label).join(" → ");
      parts.push(h("p", "detail-head", `Path ${view.index + 1} of ${view.total}: ${route}`));
      const locals = f.edges.map((e) => this.answer.edges[e].local);
      parts.push(h("p", "detail-math", `${locals.map((l) => fmt(l)).join(" × ")} = ${fmt(f.product)}`));
      const c = f.changes[0];
      parts.push(h("p", "detail-math", `Σ paths for ${label(f.node)}: ${fmt(c.before)} → ${fmt(c.after)}`));
      if (view.index === view.total - 1) {
        const grad = nodes[f.node].grad;
        parts.push(h("p", same(c.after, grad) ? "why-ok" : "why-bad",
          `${same(c.after, grad) ? "✓" : "≈"} The backward pass gives ${label(f.node)}.grad = ${fmt(grad)}.`));
      }
    } else if (mode.name === "naive") {
      const info = mode.info[view.index];
      if (f.kind === "seed") {
        parts.push(h("p", "detail-head", `Seed the output ${label(f.node)}`));
        parts.push(h("p", "muted", `${label(f.node)}.grad = 1, and ${label(f.node)} calls its backward with 1.`));
      } else {
        const p = f.pushes[0];
        const sender = label(f.node);
        parts.push(h("p", "detail-head", `${sender}'s backward, called with ${fmt(f.upstream)}`
          + (info.repeat ? ` (${fmt(info.repeat)} of it already passed on)` : "")));
        const li = h("li", `push${info.repeat ? " is-resent" : ""}`);
        li.append(h("code", "push-rule", p.rule));
        li.append(h("div", "push-math", `local ${fmt(p.local)} × ${fmt(p.upstream)} = ${fmt(p.contribution)}`));
        li.append(h("div", "push-change", `${label(p.parent)}.grad: ${fmt(p.before)} → ${fmt(p.after)}`));
        if (info.repeat) {
          li.append(h("div", "push-late", `↻ Counted twice: ${fmt(p.local * info.repeat)} of this ${fmt(p.contribution)} `
            + `already reached ${label(p.parent)} through ${sender}'s earlier call.`));
        }
        if (info.calls?.again) {
          li.append(h("div", "push-late", `↻ ${label(p.parent)} now calls its backward again with its whole total `
            + `${fmt(p.after)}, so the ${fmt(f.resent)} it passed on before goes out a second time.`));
        }
        parts.push(list([li], "pushes"));
      }
    } else if (mode.name === "forward") {
      const x = mode.wrtLabel;
      parts.push(h("p", "detail-head", `Tangent of ${label(f.node)}: d${label(f.node)}/d${x}`));
      if (!f.pushes.length) {
        parts.push(h("p", "muted", f.node === mode.wrt ? `The seed: ${x} moves one for one with itself.`
          : `${label(f.node)} is another input: it does not move when ${x} does.`));
      }
      parts.push(list(f.pushes.map((p) => {
        const li = h("li", "push");
        li.append(h("code", "push-rule", p.rule));
        li.append(h("div", "push-math", `local ${fmt(p.local)} × d${label(p.parent)}/d${x} ${fmt(p.upstream)} = ${fmt(p.contribution)}`));
        li.append(h("div", "push-change", `running sum ${fmt(p.before)} → ${fmt(p.after)}`));
        return li;
      }), "pushes"));
    } else if (mode.name === "again") {
      parts.push(h("p", "detail-head", "zero_grad()"));
      parts.push(h("p", "muted", "Every grad goes back to 0, so the next backward pass starts clean."));
    } else if (mode.name === "descent") {
      const entry = mode.history[view.index];
      parts.push(h("p", "detail-head", view.index === 0 ? "The starting point" : `Step ${view.index} (${f.ascend ? "ascend" : "descend"}, learning rate ${fmt(f.rate)})`));
      const rows = Object.keys(entry.values).filter((name) => mode.names.includes(name)).map((name) => {
        const before = view.index ? mode.history[view.index - 1] : null;
        return before
          ? `${name}: ${fmt(before.values[name])} ${f.ascend ? "+" : "−"} ${fmt(f.rate)} × ${fmt(before.grads[name])} = ${fmt(entry.values[name])}`
          : `${name} = ${fmt(entry.values[name])}, ${name}.grad = ${fmt(entry.grads[name])}`;
      });
      parts.push(list(rows, "why-math"));
      parts.push(h("p", "detail-math", `${label(this.answer.output)} = ${fmt(entry.output)}`));
    }
    container.replaceChildren(...parts);
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
        resultBox.replaceChildren(h("p", "why-bad", `The engine could not run this: ${reply.error.message}`));
        this.deps.render(`${what} failed: ${reply.error.message}`);
        return null;
      }
      return reply;
    } finally {
      if (seq === this.seq) this.section.removeAttribute("aria-busy");
    }
  }

  activate(mode, message, atEnd = false) {
    const s = this.deps.stepper();
    s.setMode(mode);
    if (atEnd) s.toEnd("mode");
    else s.startBackward();
    this.mode = mode;
    this.state.active = mode.name;
    this.section.dataset.runs = String(Number(this.section.dataset.runs ?? 0) + 1); // tests wait on this
    this.deps.render(`${message} ${s.view().frame.text}`.trim());
  }

  exit() {
    const s = this.deps.stepper();
    if (!s?.trace.mode) return;
    s.setMode(null);
    s.toEnd();
    this.deps.render("Left the experiment: these are the grads of the ordinary backward pass.");
  }

  withFinal(frames, sentences) {
    if (!frames.length || !sentences.length) return frames;
    const last = frames[frames.length - 1];
    return [...frames.slice(0, -1), { ...last, text: `${last.text} ${sentences.join(" ")}` }];
  }

  // -- path sums

  async runPaths() {
    const wrt = this.$("paths-wrt").value;
    this.state.wrt = wrt;
    const box = this.$("paths-result");
    const reply = await this.ask({ cmd: "paths", wrt }, box, "Path sums");
    if (!reply) return;
    const nodes = this.answer.nodes;
    const label = (i) => nodes[i].label;
    const x = label(reply.wrt);
    const c = reply.cost;
    const parts = [];
    const ok = same(reply.sum, reply.grad) || Math.abs(reply.sum - reply.grad) <= 1e-12 * Math.max(1, Math.abs(reply.grad));
    parts.push(h("p", `why-verdict ${ok ? "why-ok" : "why-bad"}`,
      `${ok ? "✓" : "≈"} ${reply.path_count} path${reply.path_count === 1 ? "" : "s"} from ${x}: their products sum to `
      + `${fmt(reply.sum)}, and the backward pass gives ${x}.grad = ${fmt(reply.grad)}.`));
    const rows = reply.paths.map((p) => {
      const li = h("li");
      li.append(h("span", "why-route", p.nodes.map(label).join(" → ")), ": ",
        h("span", "why-product", `${p.locals.map((l) => fmt(l)).join(" × ")} = ${fmt(p.product)}`));
      return li;
    });
    if (reply.path_count > reply.paths.length) rows.push(h("li", "muted", `…and ${reply.path_count - reply.paths.length} more`));
    parts.push(list(rows, "why-paths"));
    const cost = h("p", "why-cost");
    cost.append(`Listing the paths of every input (${c.inputs} here): ${c.paths} path${c.paths === 1 ? "" : "s"}, `,
      h("strong", "", `${c.path_multiplications} multiplication${c.path_multiplications === 1 ? "" : "s"}`),
      `. One backward pass: `, h("strong", "", `${c.backward_multiplications}`),
      ` (one per edge), and it finds all ${c.inputs} grad${c.inputs === 1 ? "" : "s"} at once.`);
    parts.push(cost);
    box.replaceChildren(...parts);
    const pathsum = new Array(nodes.length).fill(null);
    this.activate({
      name: "paths", title: `${TITLES.paths} for ${x}`, wrt: reply.wrt,
      frames: this.withFinal(reply.frames, reply.explanation),
      start: { grad: nodes.map((n) => n.grad), pathsum },
      column: { title: "path sum", field: "pathsum" },
    }, `Path sums for ${x}: ${reply.path_count} path${reply.path_count === 1 ? "" : "s"}, one per step.`);
    this.showGrowth().catch((e) => this.failed(e));
  }

  async showGrowth() {
    const family = this.state.family;
    this.$("growth-family").value = family;
    const box = this.$("growth-plot");
    let rows = this.growth.get(family);
    if (!rows) {
      if (!this.deps.ready()) return;
      const reply = await this.deps.call({ cmd: "growth", family, sizes: GROWTH_SIZES[family] });
      if (!reply.ok) {
        box.replaceChildren(h("p", "why-bad", reply.error.message));
        return;
      }
      rows = reply.rows;
      this.growth.set(family, rows);
    }
    if (this.state.family !== family) return;
    const name = family === "diamonds" ? "diamonds in a chain" : "inputs to the neuron";
    const last = rows[rows.length - 1];
    const summary = `Multiplications against n, ${name}, log scale. Listing every path: `
      + rows.map((r) => r.path_multiplications).join(", ")
      + `. One backward pass: ${rows.map((r) => r.backward_multiplications).join(", ")}. At n = ${last.n}: `
      + `${last.path_multiplications} against ${last.backward_multiplications}.`;
    const plot = linePlot({
      series: [
        { name: "paths", points: rows.map((r) => [r.n, r.path_multiplications]), kind: "a" },
        { name: "backward", points: rows.map((r) => [r.n, r.backward_multiplications]), kind: "b" },
      ],
      xLabel: `n (${name})`, yLabel: "multiplications", log: true, summary, className: "growth",
    });
    const legend = h("ul", "plot-legend");
    legend.append(h("li", "legend-a", "● solid: listing every path, for every input"),
      h("li", "legend-b", "■ dashed: one backward pass"));
    const more = h("details", "plot-numbers");
    more.append(h("summary", "", "The numbers"),
      dataTable(`Multiplications for ${name}`, ["n", "paths", "listing paths", "backward pass"],
        rows.map((r) => [r.n, r.paths, r.path_multiplications, r.backward_multiplications])));
    const factor = Math.round(last.path_multiplications / last.backward_multiplications);
    const say = h("p", "why-cost", family === "diamonds"
      ? `Each diamond doubles the number of paths, so listing them grows exponentially (${last.paths} paths at n = ${last.n}, ${factor}× the work), while the backward pass grows by 4 multiplications per diamond.`
      : `Each input has only a few paths, but each path is walked separately: ${last.path_multiplications} multiplications for ${last.inputs} inputs at n = ${last.n}, about ${factor}× the ${last.backward_multiplications} of one backward pass.`);
    box.replaceChildren(plot, legend, say, more);
  }

  // -- naive recursion

  async runNaive() {
    const box = this.$("naive-result");
    const reply = await this.ask({ cmd: "naive" }, box, "Naive recursion");
    if (!reply) return;
    const nodes = this.answer.nodes;
    const label = (i) => nodes[i].label;
    const info = naiveInfo(reply.frames, nodes);
    const inputs = this.answer.inputs;
    const wrong = inputs.filter((i) => !same(reply.grads[i], reply.correct_grads[i]));
    const parts = [];
    const grads = (which) => inputs.map((i) => `${label(i)}.grad = ${fmt(which[i])}`).join(", ");
    parts.push(wrong.length
      ? h("p", "why-verdict why-bad", `✗ Double counted: ${wrong.map((i) => `${label(i)}.grad = ${fmt(reply.grads[i])} where the truth is ${fmt(reply.correct_grads[i])}`).join("; ")}.`)
      : h("p", "why-verdict why-ok", `✓ The recursion agrees with the backward pass here: ${grads(reply.grads)}.`));
    parts.push(list(reply.explanation, "explanation"));
    // What each input received, with the re-sent parts marked.
    const received = new Map(inputs.map((i) => [i, []]));
    reply.frames.forEach((f, j) => {
      if (f.kind !== "naive") return;
      const p = f.pushes[0];
      if (!received.has(p.parent)) return;
      const again = p.local * info[j].repeat;
      received.get(p.parent).push(again ? `${fmt(p.contribution)} (↻ ${fmt(again)} re-sent)` : fmt(p.contribution));
    });
    if (reply.resends.length) {
      parts.push(h("h3", "", "What each input received"));
      parts.push(list(inputs.map((i) => `${label(i)}: ${received.get(i).join(" + ") || "0"} = ${fmt(reply.grads[i])}`
        + (same(reply.grads[i], reply.correct_grads[i]) ? "" : ` (should be ${fmt(reply.correct_grads[i])})`)), "why-math"));
    }
    if (reply.truncated) parts.push(h("p", "muted", "Only the first calls are shown: the recursion kept doubling."));
    box.replaceChildren(...parts);
    const lead = wrong.length
      ? `Naive recursion: ${reply.frames.length - 1} sends, and ${wrong.map(label).join(", ")} come${wrong.length === 1 ? "s" : ""} out wrong.`
      : "Naive recursion: every node is called once here, so it agrees with the backward pass.";
    this.activate({
      name: "naive", title: TITLES.naive, info,
      frames: this.withFinal(reply.frames, reply.explanation),
      start: { grad: new Array(nodes.length).fill(0) },
      column: { title: "true grad", values: reply.correct_grads },
      correct: reply.correct_grads,
    }, lead);
  }

  async loadShared() {
    if (!this.deps.ready()) {
      this.deps.notReady("Loading that program");
      return;
    }
    const ok = await this.deps.loadProgram(SHARED_PROGRAM);
    if (ok) {
      this.select("naive");
      await this.runNaive();
    }
  }

  // -- push and pull

  inputFirst() {
    const answer = this.answer;
    const vo = this.deps.visitOrder;
    if (!answer || !vo) return;
    // The input that feeds the most non-output nodes shows the difference best.
    const consumers = (i) => answer.nodes[i].children.filter((e) => answer.edges[e].child !== answer.output).length;
    const input = [...answer.inputs].sort((a, b) => consumers(b) - consumers(a))[0];
    const label = answer.nodes[input].label;
    const order = [label, ...vo.correct.filter((l) => l !== label)];
    vo.arrange(order);
    this.$("pushpull-result").replaceChildren(h("p", "", `The visit order is now ${order.join(", ")}: ${label} is visited before the nodes that use it. Compare push and pull, or run it above.`));
    this.deps.render(`Moved ${label} to the top of the visit order. Press Compare push and pull, or choose Push or Pull and press Run order.`);
  }

  async comparePushPull() {
    const box = this.$("pushpull-result");
    const order = this.deps.visitOrder.order;
    const push = await this.ask({ cmd: "load", order, mode: "push" }, box, "Comparing push and pull");
    if (!push) return;
    const pull = await this.ask({ cmd: "load", order, mode: "pull" }, box, "Comparing push and pull");
    if (!pull) return;
    const nodes = this.answer.nodes;
    const label = (i) => nodes[i].label;
    const parts = [h("p", "ran-order", `Order: ${order.join(" → ")}`)];
    const table = h("table", "why-table");
    const head = table.createTHead().insertRow();
    for (const t of ["node", "push", "pull", "correct"]) {
      const th = h("th", "", t);
      th.scope = "col";
      head.append(th);
    }
    const body = table.createTBody();
    nodes.forEach((n, i) => {
      const tr = body.insertRow();
      const th = h("th", "", n.label);
      th.scope = "row";
      tr.append(th);
      for (const exp of [push.experiment, pull.experiment]) {
        const good = same(exp.grads[i], exp.correct_grads[i]);
        tr.append(h("td", good ? "" : "why-bad", `${good ? "" : "✗ "}${fmt(exp.grads[i])}`));
      }
      tr.append(h("td", "", fmt(n.grad)));
    });
    parts.push(table);
    for (const [name, exp] of [["Push", push.experiment], ["Pull", pull.experiment]]) {
      const wrong = exp.grads.filter((g, i) => !same(g, exp.correct_grads[i])).length;
      const section = h("div", `why-rule rule-${name.toLowerCase()}`);
      section.append(h("h3", "", `${name}: ${wrong ? `✗ ${wrong} wrong grad${wrong === 1 ? "" : "s"}, ${exp.lost_path_count} lost path${exp.lost_path_count === 1 ? "" : "s"}` : "✓ every grad right"}`));
      section.append(list(exp.explanation, "explanation"));
      if (exp.lost_paths.length) {
        section.append(list(exp.lost_paths.map((p) => `Lost: ${p.nodes.map(label).join(" → ")} (carries ${fmt(p.product)})`), "lost-paths"));
      }
      if (exp.harmless.length) section.append(list(exp.harmless.map((x) => `Harmless: ${x.text}`), "harmless"));
      parts.push(section);
    }
    parts.push(h("p", "muted", "To step through either run, choose Push or Pull next to the visit order and press Run order."));
    box.replaceChildren(...parts);
    this.section.dataset.compared = String(Number(this.section.dataset.compared ?? 0) + 1);
    this.deps.render(`Compared push and pull on the order ${order.join(", ")}. The results are in the Push and pull panel.`);
  }

  // -- forward mode

  async runForward() {
    const wrt = this.$("forward-wrt").value;
    this.state.wrt = wrt;
    const box = this.$("forward-result");
    const reply = await this.ask({ cmd: "forward_mode", wrt }, box, "Forward mode");
    if (!reply) return;
    const nodes = this.answer.nodes;
    const out = nodes[this.answer.output].label;
    const grad = nodes[reply.wrt].grad;
    this.forwardRuns.set(wrt, reply.derivative);
    const inputs = this.answer.inputs.map((i) => nodes[i].label);
    const ok = Math.abs(reply.derivative - grad) <= 1e-12 * Math.max(1, Math.abs(grad));
    const parts = [
      h("p", `why-verdict ${ok ? "why-ok" : "why-bad"}`,
        `${ok ? "✓" : "≈"} d${out}/d${wrt} = ${fmt(reply.derivative)}, the same as the backward pass's ${wrt}.grad = ${fmt(grad)}.`),
      list(reply.explanation, "explanation"),
      h("h3", "", `Forward-mode passes run: ${this.forwardRuns.size} of ${inputs.length}`),
      list(inputs.map((x) => (this.forwardRuns.has(x)
        ? `${x}: d${out}/d${x} = ${fmt(this.forwardRuns.get(x))} ✓`
        : `${x}: needs its own pass`)), "why-math"),
      h("p", "why-cost", `Forward mode: ${reply.passes_for_all_inputs} pass${reply.passes_for_all_inputs === 1 ? "" : "es"}, `
        + `${reply.multiplications_forward_mode} multiplications for every input. Reverse mode: 1 pass, `
        + `${reply.multiplications_reverse_mode} multiplications.`),
    ];
    box.replaceChildren(...parts);
    this.activate({
      name: "forward", title: `${TITLES.forward} for ${wrt}`, wrt: reply.wrt, wrtLabel: wrt,
      frames: this.withFinal(reply.frames, reply.explanation),
      start: { tangent: new Array(nodes.length).fill(null) },
      column: { title: `d/d${wrt}`, field: "tangent" },
    }, `Forward mode for ${wrt}: one tangent per node, in the same order as the data.`);
  }

  // -- backward twice

  async runAgain(zero) {
    this.state.zero = zero;
    const box = this.$("again-result");
    const reply = await this.ask({ cmd: "again", zero_grad: zero }, box, "Backward twice");
    if (!reply) return;
    this.againRuns[zero ? "zero" : "plain"] = reply;
    const nodes = this.answer.nodes;
    const table = h("table", "why-table");
    const head = table.createTHead().insertRow();
    const columns = [["first", "after backward()"]];
    if (this.againRuns.plain) columns.push(["plain", "backward() again"]);
    if (this.againRuns.zero) columns.push(["zero", "zero_grad(), backward()"]);
    for (const t of ["node", ...columns.map((c) => c[1])]) {
      const th = h("th", "", t);
      th.scope = "col";
      head.append(th);
    }
    const body = table.createTBody();
    nodes.forEach((n, i) => {
      const tr = body.insertRow();
      tr.dataset.row = n.label;
      const th = h("th", "", n.label);
      th.scope = "row";
      tr.append(th);
      for (const [key] of columns) {
        const g = key === "first" ? reply.start_grads[i] : this.againRuns[key].grads[i];
        const good = same(g, n.grad);
        tr.append(h("td", `why-${key}${good ? "" : " why-bad"}`, `${good ? "" : "✗ "}${fmt(g)}`));
      }
    });
    box.replaceChildren(
      h("p", `why-verdict ${zero ? "why-ok" : "why-bad"}`, zero
        ? "✓ zero_grad() first: the second pass gives the same grads as the first."
        : "✗ Without zero_grad(), the second pass lands on top of the first."),
      list(reply.explanation, "explanation"), table);
    const out = nodes[this.answer.output].label;
    this.activate({
      name: "again", title: zero ? "zero_grad(), then backward()" : "backward() again",
      frames: this.withFinal(reply.frames, reply.explanation),
      start: { grad: reply.start_grads },
      column: { title: "1st pass", values: reply.start_grads },
      correct: nodes.map((n) => n.grad),
    }, zero
      ? `The first backward() left its grads behind; zero_grad() clears them before ${out}.backward() runs again.`
      : `The first backward() left its grads behind, and ${out}.backward() runs again on top of them.`);
  }

  // -- gradient descent

  showDescentInputs(inputs) {
    const box = this.$("descent-inputs");
    const chosen = this.state.inputs?.filter((x) => inputs.includes(x));
    const legend = box.querySelector("legend");
    box.replaceChildren(legend, ...inputs.map((label) => {
      const wrap = h("label", "why-check");
      const check = h("input");
      check.type = "checkbox";
      check.value = label;
      check.checked = chosen?.length ? chosen.includes(label) : true;
      check.addEventListener("change", () => { this.state.inputs = this.descentNames(); });
      wrap.append(check, ` ${label}`);
      return wrap;
    }));
    this.$("descent-rate").value = String(this.state.rate);
  }

  descentNames() {
    return [...this.$("descent-inputs").querySelectorAll("input:checked")].map((c) => c.value);
  }

  resetDescent(byUser) {
    this.descent = null;
    this.state.moves = "";
    this.$("descent-result").replaceChildren();
    this.$("descent-plot").replaceChildren();
    if (byUser) {
      const s = this.deps.stepper();
      if (s?.trace.mode?.name === "descent") {
        s.setMode(null);
        s.toEnd();
      }
      this.deps.render("Descent reset: back at the starting values.");
    }
  }

  async descend(ascend) {
    const names = this.descentNames();
    const box = this.$("descent-result");
    const what = ascend ? "Ascend" : "Descend";
    if (!names.length) {
      box.replaceChildren(h("p", "why-bad", "Tick at least one input to move."));
      this.deps.render(`${what} needs at least one input ticked under Inputs to move.`);
      return;
    }
    const rate = Number(this.$("descent-rate").value);
    if (!(rate > 0 && rate <= 10)) {
      box.replaceChildren(h("p", "why-bad", "The learning rate must be a number above 0 and at most 10."));
      this.deps.render(`${what}: the learning rate must be a number above 0 and at most 10.`);
      return;
    }
    this.state.rate = rate;
    this.state.inputs = names;
    const d = this.descent;
    const base = this.deps.source().values ?? {};
    const values = d ? { ...base, ...d.history[d.history.length - 1].values } : base;
    const withValues = (request) => ({ ...request, values });
    const step = await this.ask(withValues({ cmd: "descend", inputs: names, rate, steps: 1, ascend }), box, what);
    if (!step) return;
    if (step.stopped) {
      box.prepend(h("p", "why-bad", step.stopped));
      this.deps.render(`${what}: ${step.stopped}`);
      return;
    }
    const next = step.history[1].values;
    const graph = await this.ask({ cmd: "load", values: { ...base, ...next } }, box, what);
    if (!graph) return;
    if (!this.descent) {
      this.descent = { history: [{ ...step.history[0], answer: this.answer }] };
    }
    this.descent.history.push({ ...step.history[1], answer: graph, ascend, rate, names });
    this.state.moves += ascend ? "a" : "d";
    this.showDescent();
  }

  showDescent() {
    const d = this.descent;
    const nodes = this.answer.nodes;
    const out = nodes[this.answer.output].label;
    const frames = d.history.map((entry, k) => {
      if (k === 0) {
        return {
          kind: "descent", node: this.answer.output, line: nodes[this.answer.output].line, pushes: [], changes: [],
          text: `Start: ${out} = ${fmt(entry.output)} at ${Object.entries(entry.values).map(([n, v]) => `${n} = ${fmt(v)}`).join(", ")}.`,
        };
      }
      const before = d.history[k - 1];
      const changes = [];
      entry.answer.nodes.forEach((n, i) => {
        const old = before.answer.nodes[i];
        if (!same(old.data, n.data)) changes.push({ node: i, field: "data", before: old.data, after: n.data });
        if (!same(old.grad, n.grad)) changes.push({ node: i, field: "grad", before: old.grad, after: n.grad });
      });
      const sign = entry.ascend ? "+" : "−";
      const moves = entry.names.map((n) => `${n} = ${fmt(before.values[n])} ${sign} ${fmt(entry.rate)} × ${fmt(before.grads[n])} = ${fmt(entry.values[n])}`);
      const change = entry.output < before.output ? "down" : entry.output > before.output ? "up" : "unchanged";
      return {
        kind: "descent", node: this.answer.output, line: nodes[this.answer.output].line, pushes: [], changes,
        ascend: entry.ascend, rate: entry.rate,
        text: `Step ${k} (${entry.ascend ? "ascend" : "descend"}): ${moves.join("; ")}. Forward and backward again: `
          + `${out} ${fmt(before.output)} → ${fmt(entry.output)} (${change}).`,
      };
    });
    const outputs = d.history.map((e) => e.output);
    const names = d.history[d.history.length - 1].names;
    const moved = this.answer.inputs.filter((i) => names.includes(nodes[i].label));
    const summary = `${out} over ${outputs.length} point${outputs.length === 1 ? "" : "s"} (step 0 to ${outputs.length - 1}): ${outputs.map((y) => fmt(y)).join(", ")}.`;
    const plot = linePlot({
      series: [{ name: "output", points: outputs.map((y, k) => [k, y]), kind: "a" }],
      xLabel: "step", yLabel: out, summary, className: "descent",
    });
    const more = h("details", "plot-numbers");
    const inputNames = Object.keys(d.history[0].values);
    more.append(h("summary", "", "The numbers"), dataTable(`${out} at every step`, ["step", ...inputNames, out],
      d.history.map((e, k) => [k, ...inputNames.map((n) => e.values[n]), e.output])));
    const first = outputs[0];
    const lastY = outputs[outputs.length - 1];
    this.$("descent-result").replaceChildren(h("p", "why-verdict",
      `${outputs.length - 1} step${outputs.length === 2 ? "" : "s"}: ${out} went from ${fmt(first)} to ${fmt(lastY)}.`));
    this.$("descent-plot").replaceChildren(plot, more);
    this.activate({
      name: "descent", title: TITLES.descent, frames, history: d.history, names, moved,
      start: { grad: d.history[0].answer.nodes.map((n) => n.grad) },
    }, "", true);
  }

  // ------------------------------------------------------------ permalinks

  // The page's other link parameters with this section's (fresh) ones in place of any old ones.
  linkParams(other) {
    if (this.pending) return other; // not restored yet: keep what the link asked for
    return [...other.filter(([k]) => !LINK_KEYS.includes(k)), ...Object.entries(this.toParams())];
  }

  toParams() {
    const s = this.state;
    const params = {};
    if (s.tab !== "paths") params.why = s.tab;
    if (s.active) params.run = s.active;
    if (s.wrt) params.wrt = s.wrt;
    if (s.family !== "diamonds") params.family = s.family;
    if (s.rule !== "push") params.rule = s.rule;
    if (s.active === "again" && s.zero) params.zero = "1";
    const pos = this.deps.stepper()?.pos;
    if (s.active && pos?.pass === "mode") params.wstep = String(pos.index);
    if (s.moves) {
      params.moves = s.moves;
      params.lr = String(s.rate);
      if (s.inputs) params.inputs = s.inputs.join(",");
    }
    return params;
  }

  // Bring the state back from URL parameters (a URLSearchParams or a plain object);
  // what needs the engine runs as soon as it is ready and a graph is on screen.
  fromParams(params) {
    const get = (k) => (params instanceof URLSearchParams ? params.get(k) : params[k]) ?? null;
    if (!LINK_KEYS.some((k) => get(k) !== null)) return;
    const tab = get("why");
    if (TABS.includes(tab)) this.select(tab);
    if (get("family") === "neuron") this.state.family = "neuron";
    if (get("rule") === "pull") {
      this.state.rule = "pull";
      const radio = this.deps.root.querySelector("input[name='order-rule'][value='pull']");
      if (radio) radio.checked = true;
    }
    if (get("wrt")) this.state.wrt = get("wrt");
    const rate = Number(get("lr"));
    if (rate > 0 && rate <= 10) this.state.rate = rate;
    if (get("inputs")) this.state.inputs = get("inputs").split(",");
    this.pending = {
      run: get("run"), zero: get("zero") === "1", step: Number(get("wstep")),
      moves: (get("moves") ?? "").replace(/[^ad]/g, "").slice(0, 50),
    };
    this.applyPending();
  }

  async applyPending() {
    const p = this.pending;
    if (!p || !this.answer || !this.deps.ready()) return;
    this.pending = null;
    if (p.run === "paths") await this.runPaths();
    else if (p.run === "naive") await this.runNaive();
    else if (p.run === "forward") await this.runForward();
    else if (p.run === "again") await this.runAgain(p.zero);
    else if (p.run === "descent") for (const m of p.moves) await this.descend(m === "a");
    const s = this.deps.stepper();
    if (s?.trace.mode && Number.isInteger(p.step) && p.step >= 0 && p.step < s.trace.mode.frames.length) {
      s.pos = { pass: "mode", index: p.step };
      this.deps.render();
    }
  }

  failed(error) {
    this.deps.render(`The engine could not answer: ${error?.message ?? error}`);
  }
}

// For every naive-recursion frame: how much of the sender's current call repeats what
// it passed on before (`repeat`), which edges have carried a repeat so far (`carried`),
// and whom the frame makes call its backward (`calls`, with `again` on a repeat call).
export function naiveInfo(frames, nodes) {
  const current = new Map(); // node → what its current call repeats
  let carried = new Set();
  return frames.map((f) => {
    if (f.kind !== "naive") {
      current.set(f.node, 0);
      return { repeat: 0, carried, calls: null };
    }
    const repeat = current.get(f.node) ?? 0;
    const p = f.pushes[0];
    if (repeat) {
      carried = new Set(carried);
      carried.add(p.edge);
    }
    let calls = null;
    if (!nodes[p.parent].is_input) {
      current.set(p.parent, f.resent ?? 0);
      calls = { node: p.parent, again: (f.resent ?? 0) > 0 };
    }
    return { repeat, carried, calls };
  });
}
