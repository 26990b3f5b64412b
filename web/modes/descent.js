// Gradient descent: what grads are for. Each click moves the chosen inputs a small step
// against their grads (x ← x − lr × grad), then the forward and backward passes run again
// at the new point; Ascend steps with the grad instead. The engine replays every move so
// far from the graph's own values ({cmd: "descent", moves}) and answers with the history
// and one frame per point, which the stepper walks; a line plot shows the output falling.

import { factor, fmt } from "../lib/format.js";
import { dataTable, linePlot } from "../lib/plot.js";
import { h, list, plural } from "./shared.js";

const MAX_MOVES = 50; // as many as a link carries

// Its id, tab, parameters and fields are declared by engine/modes/descent.py.
export default {
  panel(ctx) {
    const move = (ascend) => () => ctx.start(this, { ascend }).catch(ctx.failed);
    return [
      h("p", {}, "This is what grads are for. Move each chosen input a small step against its grad, ",
        h("code", {}, "x ← x − lr × grad"), ", then run the forward and backward passes again at the new point. "
        + "The output goes down; Ascend steps with the grad instead and the output goes up."),
      h("fieldset", { class: "why-inputs", id: "descent-inputs" }, h("legend", {}, "Inputs to move")),
      h("div", { class: "why-row" },
        h("label", { for: "descent-rate" }, "Learning rate"),
        h("input", {
          type: "number", id: "descent-rate", value: "0.1", min: "0.001", max: "10", step: "any", inputmode: "decimal",
          onchange: (e) => { const rate = Number(e.target.value); if (rate > 0 && rate <= 10) ctx.set({ rate }); } }),
        h("button", { type: "button", id: "descent-step", class: "button primary", onclick: move(false) }, "Descend"),
        h("button", { type: "button", id: "descent-ascend", class: "button", onclick: move(true) }, "Ascend"),
        h("button", { type: "button", id: "descent-reset", class: "button quiet", onclick: () => reset(ctx) },
          "Reset descent")),
      h("div", { id: "descent-result", class: "why-result" }),
      h("div", { id: "descent-plot", class: "why-plot" }),
    ];
  },

  graphLoaded(ctx, answer) {
    clear(ctx);
    const inputs = answer.inputs.map((i) => answer.nodes[i].label);
    const box = ctx.$("descent-inputs");
    const chosen = ctx.state.inputs?.filter((x) => inputs.includes(x));
    box.replaceChildren(box.querySelector("legend"), ...inputs.map((label) => h("label", { class: "why-check" },
      h("input", { type: "checkbox", value: label, checked: chosen?.length ? chosen.includes(label) : true,
        onchange: () => ctx.set({ inputs: names(ctx) }) }), ` ${label}`)));
    ctx.$("descent-rate").value = String(ctx.state.rate);
  },

  // One more move ({ascend}), or the moves of a link (replay).
  request(ctx, { ascend = false, moves = null } = {}) {
    const box = ctx.$("descent-result");
    const what = ascend ? "Ascend" : "Descend";
    const chosen = names(ctx);
    const rate = Number(ctx.$("descent-rate").value);
    let set = {};
    if (!moves) {
      if (!chosen.length) {
        box.replaceChildren(h("p", { class: "why-bad" }, "Tick at least one input to move."));
        return { refused: `${what} needs at least one input ticked under Inputs to move.` };
      }
      if (!(rate > 0 && rate <= 10)) {
        box.replaceChildren(h("p", { class: "why-bad" }, "The learning rate must be a number above 0 and at most 10."));
        return { refused: `${what}: the learning rate must be a number above 0 and at most 10.` };
      }
      set = { rate, inputs: chosen };
      moves = [...(ctx.memo.descent ?? []), { ascend, rate, inputs: chosen }].slice(-MAX_MOVES);
    }
    return { request: { cmd: "descent", moves }, what, set, before: ctx.memo.descent?.length ?? 0 };
  },

  result(ctx, reply, asked) {
    const box = ctx.$("descent-result");
    const made = asked.request.moves.slice(0, reply.history.length - 1); // a move the engine refused was not made
    show(ctx, reply, made);
    if (reply.stopped) {
      box.prepend(h("p", { class: "why-bad" }, reply.stopped));
      if (made.length <= asked.before) { // this click moved nothing: the stepper stays where it is
        return { memo: made, said: `${asked.what}: ${reply.stopped}` };
      }
    }
    const answer = ctx.answer();
    return {
      memo: made,
      atEnd: true,
      mode: {
        title: "Gradient descent", frames: reply.frames, history: reply.history, moves: made,
        start: { grad: answer.nodes.map((n) => n.grad) },
      },
    };
  },

  marks(view, marks, answer) {
    const f = view.frame;
    marks.visiting = answer.output;
    marks.visitTag = view.index === 0 ? "start" : `step ${view.index}`;
    if (view.index > 0) {
      for (const i of f.moved ?? []) marks.receiving.set(i, f.ascend ? "+ lr × grad" : "− lr × grad");
    }
  },

  position(view) {
    return view.index === 0
      ? `${view.mode.title} · start`
      : `${view.mode.title} · step ${view.index} of ${view.total - 1}`;
  },

  details(view, answer) {
    const { history, moves } = view.mode;
    const f = view.frame;
    const entry = history[view.index];
    const before = view.index ? history[view.index - 1] : null;
    const moved = view.index ? moves[view.index - 1].inputs : moves[0]?.inputs ?? Object.keys(entry.values);
    const rows = moved.map((name) => (before
      ? `${name}: ${fmt(before.values[name])} ${f.ascend ? "+" : "−"} ${fmt(f.rate)} × ${factor(before.grads[name])} `
        + `= ${fmt(entry.values[name])}`
      : `${name} = ${fmt(entry.values[name])}, ${name}.grad = ${fmt(entry.grads[name])}`));
    return [
      h("p", { class: "detail-head" }, view.index === 0
        ? "The starting point"
        : `Step ${view.index} (${f.ascend ? "ascend" : "descend"}, learning rate ${fmt(f.rate)})`),
      list(rows, "why-math"),
      h("p", { class: "detail-math" }, `${answer.nodes[answer.output].label} = ${fmt(entry.output)}`),
    ];
  },

  params(ctx) {
    const s = ctx.state;
    // The moves made on this graph (its memo; a new graph has none).
    const moves = (ctx.memo.descent ?? []).map((m) => (m.ascend ? "a" : "d")).join("");
    if (!moves) return {};
    return { moves, lr: String(s.rate), ...(s.inputs ? { inputs: s.inputs.join(",") } : {}) };
  },

  fromParams(ctx, get) {
    const choices = {};
    const rate = Number(get("lr"));
    if (rate > 0 && rate <= 10) choices.rate = rate;
    if (get("inputs")) choices.inputs = get("inputs").split(",");
    return choices;
  },

  // A link's moves (?moves=dda&lr=0.1&inputs=x1,x2), all at once.
  replay(ctx, get) {
    const letters = (get("moves") ?? "").replace(/[^ad]/g, "").slice(0, MAX_MOVES);
    if (!letters) return null;
    ctx.$("descent-rate").value = String(ctx.state.rate);
    const inputs = names(ctx);
    return ctx.start(this, { moves: [...letters].map((m) => ({ ascend: m === "a", rate: ctx.state.rate, inputs })) });
  },
};

function names(ctx) {
  return [...ctx.$("descent-inputs").querySelectorAll("input:checked")].map((c) => c.value);
}

// A new graph, or Reset descent: no moves made, nothing shown.
function clear(ctx) {
  ctx.$("descent-result").replaceChildren();
  ctx.$("descent-plot").replaceChildren();
}

function reset(ctx) {
  clear(ctx);
  ctx.reset("descent", [], "Descent reset: back at the starting values.");
}

// The result line, and the output's path as a plot with its numbers.
function show(ctx, reply, made) {
  const answer = ctx.answer();
  const out = answer.nodes[answer.output].label;
  const outputs = reply.history.map((e) => e.output);
  const summary = `${out} over ${plural(outputs.length, "point")} (step 0 to ${outputs.length - 1}): `
    + `${outputs.map((y) => fmt(y)).join(", ")}.`;
  const plot = linePlot({
    series: [{ name: "output", points: outputs.map((y, k) => [k, y]), kind: "a" }],
    xLabel: "step", yLabel: out, summary, className: "descent",
  });
  const inputNames = Object.keys(reply.history[0].values);
  const more = h("details", { class: "plot-numbers" }, h("summary", {}, "The numbers"),
    dataTable(`${out} at every step`, ["step", ...inputNames, out],
      reply.history.map((e, k) => [k, ...inputNames.map((n) => e.values[n]), e.output])));
  ctx.$("descent-result").replaceChildren(h("p", { class: "why-verdict" },
    `${plural(made.length, "step")}: ${out} went from ${fmt(outputs[0])} to ${fmt(outputs[outputs.length - 1])}.`));
  ctx.$("descent-plot").replaceChildren(plot, more);
}
