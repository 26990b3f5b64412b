// Forward mode: every value carries a second number, its tangent, the rate at which it
// moves when the chosen input moves ({cmd: "forward", wrt}). One pass gives the
// derivative for one input, so a graph with many inputs needs many passes; reverse mode
// gets them all from one backward pass.

import { factor, fmt } from "../lib/format.js";
import { fillInputs, h, inputSelect, list, plural, pushLines, row, withFinal } from "./shared.js";

// Its id, tab, parameters and fields are declared by engine/modes/forward.py.
export default {
  panel(ctx) {
    return [
      h("p", {}, "Forward mode carries a second number with every value, its tangent: how fast it moves when the "
        + "chosen input moves. Seed that input's tangent with 1 (every other input's with 0) and compute tangents in "
        + "the same order as the data. One pass gives the derivative for one input, so a graph with many inputs needs "
        + "many passes; reverse mode gets them all from one backward pass."),
      row(h("label", { for: "forward-wrt" }, "Input"), inputSelect("forward-wrt"),
        h("button", {
          type: "button", id: "forward-run", class: "button primary", onclick: () => ctx.start(this).catch(ctx.failed),
        }, "Run forward mode")),
      h("div", { id: "forward-result", class: "why-result" }),
    ];
  },

  graphLoaded(ctx, answer) {
    const select = ctx.$("forward-wrt");
    fillInputs(select, answer.inputs.map((i) => answer.nodes[i].label), ctx.state.wrt);
    select.onchange = () => ctx.set({ wrt: select.value });
    ctx.$("forward-result").replaceChildren();
  },

  request(ctx) {
    const wrt = ctx.$("forward-wrt").value;
    return { request: { cmd: "forward", wrt }, what: "Forward mode", set: { wrt } };
  },

  result(ctx, reply, asked) {
    const wrt = asked.request.wrt;
    const box = ctx.$("forward-result");
    const answer = ctx.answer();
    const nodes = answer.nodes;
    const out = nodes[answer.output].label;
    const grad = nodes[reply.wrt].grad;
    // Input label → derivative, this graph's: "one pass per input".
    const runs = new Map(ctx.memo.forward ?? []).set(wrt, reply.derivative);
    const inputs = answer.inputs.map((i) => nodes[i].label);
    const ok = Math.abs(reply.derivative - grad) <= 1e-12 * Math.max(1, Math.abs(grad));
    box.replaceChildren(
      h("p", { class: `why-verdict ${ok ? "why-ok" : "why-bad"}` },
        `${ok ? "✓" : "≈"} d${out}/d${wrt} = ${fmt(reply.derivative)}, `
          + `the same as the backward pass's ${wrt}.grad = ${fmt(grad)}.`),
      list(reply.explanation, "explanation"),
      h("h3", {}, `Forward-mode passes run: ${runs.size} of ${inputs.length}`),
      list(inputs.map((x) => (runs.has(x)
        ? `${x}: d${out}/d${x} = ${fmt(runs.get(x))} ✓`
        : `${x}: needs its own pass`)), "why-math"),
      h("p", { class: "why-cost" }, `Forward mode: ${plural(reply.passes_for_all_inputs, "pass", "passes")}, `
        + `${reply.multiplications_forward_mode} multiplications for every input. Reverse mode: 1 pass, `
        + `${reply.multiplications_reverse_mode} multiplications.`));
    return {
      memo: runs,
      message: `Forward mode for ${wrt}: one tangent per node, in the same order as the data.`,
      mode: {
        title: `Forward mode for ${wrt}`, wrt: reply.wrt, wrtLabel: wrt,
        frames: withFinal(reply.frames, reply.explanation),
        start: { tangent: new Array(nodes.length).fill(null) },
        column: { title: `d/d${wrt}`, field: "tangent" },
      },
    };
  },

  marks(view, marks) {
    const f = view.frame;
    marks.current = f.node;
    for (const p of f.pushes) {
      marks.feeding.add(p.edge);
      marks.pushes.set(p.edge, { lines: pushLines(p), late: false });
    }
    marks.notes = new Map();
    view.tangent.forEach((t, i) => {
      if (t !== null) marks.notes.set(i, `d/d${view.mode.wrtLabel} = ${fmt(t)}`);
    });
  },

  position(view) {
    return `${view.mode.title} · node ${view.index + 1} of ${view.total}`;
  },

  details(view, answer) {
    const f = view.frame;
    const mode = view.mode;
    const label = (i) => answer.nodes[i].label;
    const x = mode.wrtLabel;
    const parts = [h("p", { class: "detail-head" }, `Tangent of ${label(f.node)}: d${label(f.node)}/d${x}`)];
    if (!f.pushes.length) {
      parts.push(h("p", { class: "muted" }, f.node === mode.wrt ? `The seed: ${x} moves one for one with itself.`
        : `${label(f.node)} is another input: it does not move when ${x} does.`));
    }
    parts.push(list(f.pushes.map((p) => h("li", { class: "push" },
      h("code", { class: "push-rule" }, p.rule),
      h("div", { class: "push-math" },
        `local ${factor(p.local)} × d${label(p.parent)}/d${x} ${fmt(p.upstream)} = ${fmt(p.contribution)}`),
      h("div", { class: "push-change" }, `running sum ${fmt(p.before)} → ${fmt(p.after)}`))), "pushes"));
    return parts;
  },

  params(ctx) {
    return ctx.state.wrt ? { wrt: ctx.state.wrt } : {};
  },
};
