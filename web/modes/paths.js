// Path sums: the chain rule written out in full. The derivative of the output with
// respect to an input is a sum over every path from that input to the output of the
// product of the local derivatives met along it. The engine lists the paths
// ({cmd: "paths"}); each is one step, and the running sum lands on the input's grad.
// Below, how listing paths grows with the graph ({cmd: "growth"}) against one backward pass.

import { factor, fmt } from "../lib/format.js";
import { dataTable, linePlot } from "../lib/plot.js";
import { fillInputs, h, inputSelect, list, plural, row, same, withFinal } from "./shared.js";

const GROWTH_SIZES = { diamonds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], neuron: [1, 2, 4, 8, 16, 24, 32, 48, 60] };
const growthCache = new Map(); // family → rows: the same for every graph, so asked once per page

// Its id, tab, parameters and fields are declared by engine/modes/paths.py.
export default {
  panel(ctx) {
    const family = h("select", { id: "growth-family" },
      h("option", { value: "diamonds" }, "A chain of n diamonds"),
      h("option", { value: "neuron" }, "A neuron with n inputs"));
    family.addEventListener("change", () => {
      ctx.set({ family: family.value });
      showGrowth(ctx).catch(ctx.failed);
    });
    return [
      h("p", {}, "The chain rule written out in full: the derivative of the output with respect to an input is a "
        + "sum with one term per path from that input to the output, and each term multiplies the local derivatives "
        + "met along its path. Walk one input's paths and watch the running sum land on its grad."),
      row(h("label", { for: "paths-wrt" }, "Input"), inputSelect("paths-wrt"),
        h("button", {
          type: "button", id: "paths-run", class: "button primary", onclick: () => ctx.start(this).catch(ctx.failed),
        }, "Walk its paths")),
      h("div", { id: "paths-result", class: "why-result" }),
      h("h3", { id: "growth-heading" }, "On bigger graphs"),
      h("p", {}, "Listing paths repeats work: every input needs its own walk, and where branches meet again the paths "
        + "multiply. A backward pass multiplies once per edge and gets every grad at the same time."),
      row(h("label", { for: "growth-family" }, "Graph family"), family),
      h("div", { id: "growth-plot", class: "why-plot" }),
    ];
  },

  selected(ctx) {
    showGrowth(ctx).catch(ctx.failed);
  },

  graphLoaded(ctx, answer) {
    const select = ctx.$("paths-wrt");
    fillInputs(select, answer.inputs.map((i) => answer.nodes[i].label), ctx.state.wrt);
    select.onchange = () => ctx.set({ wrt: select.value });
    ctx.$("paths-result").replaceChildren();
  },

  request(ctx) {
    const wrt = ctx.$("paths-wrt").value;
    return { request: { cmd: "paths", wrt }, what: "Path sums", set: { wrt } };
  },

  result(ctx, reply) {
    const box = ctx.$("paths-result");
    const nodes = ctx.answer().nodes;
    const label = (i) => nodes[i].label;
    const x = label(reply.wrt);
    const c = reply.cost;
    const ok = same(reply.sum, reply.grad)
      || Math.abs(reply.sum - reply.grad) <= 1e-12 * Math.max(1, Math.abs(reply.grad));
    const rows = reply.paths.map((p) => h("li", {},
      h("span", { class: "why-route" }, p.nodes.map(label).join(" → ")), ": ",
      h("span", { class: "why-product" }, `${p.locals.map((l) => factor(l)).join(" × ")} = ${fmt(p.product)}`)));
    if (reply.path_count > reply.paths.length) {
      rows.push(h("li", { class: "muted" }, `…and ${reply.path_count - reply.paths.length} more`));
    }
    box.replaceChildren(
      h("p", { class: `why-verdict ${ok ? "why-ok" : "why-bad"}` },
        `${ok ? "✓" : "≈"} ${plural(reply.path_count, "path")} from ${x}: their products sum to `
        + `${fmt(reply.sum)}, and the backward pass gives ${x}.grad = ${fmt(reply.grad)}.`),
      list(rows, "why-paths"),
      h("p", { class: "why-cost" }, `Listing the paths of every input (${c.inputs} here): ${plural(c.paths, "path")}, `,
        h("strong", {}, plural(c.path_multiplications, "multiplication")),
        ". One backward pass: ", h("strong", {}, `${c.backward_multiplications}`),
        ` (one per edge), and it finds all ${plural(c.inputs, "grad")} at once.`));
    showGrowth(ctx).catch(ctx.failed);
    return {
      message: `Path sums for ${x}: ${plural(reply.path_count, "path")}, one per step.`,
      mode: {
        title: `Path sums for ${x}`, wrt: reply.wrt,
        frames: withFinal(reply.frames, reply.explanation),
        start: { grad: nodes.map((n) => n.grad), pathsum: new Array(nodes.length).fill(null) },
        column: { title: "path sum", field: "pathsum" },
      },
    };
  },

  marks(view, marks, answer) {
    const f = view.frame;
    marks.path = new Set(f.edges);
    for (const e of f.edges) marks.pushes.set(e, { lines: [`× ${factor(answer.edges[e].local)}`], late: false });
    marks.visiting = f.node;
    marks.visitTag = `path ${view.index + 1}`;
    marks.notes = new Map([[f.node, `Σ paths = ${fmt(view.pathsum[f.node])}`]]);
  },

  position(view) {
    return `${view.mode.title} · path ${view.index + 1} of ${view.total}`;
  },

  details(view, answer) {
    const f = view.frame;
    const label = (i) => answer.nodes[i].label;
    const c = f.changes[0];
    const parts = [
      h("p", { class: "detail-head" }, `Path ${view.index + 1} of ${view.total}: ${f.nodes.map(label).join(" → ")}`),
      h("p", { class: "detail-math" },
        `${f.edges.map((e) => factor(answer.edges[e].local)).join(" × ")} = ${fmt(f.product)}`),
      h("p", { class: "detail-math" }, `Σ paths for ${label(f.node)}: ${fmt(c.before)} → ${fmt(c.after)}`),
    ];
    if (view.index === view.total - 1) {
      const grad = answer.nodes[f.node].grad;
      const ok = same(c.after, grad);
      parts.push(h("p", { class: ok ? "why-ok" : "why-bad" },
        `${ok ? "✓" : "≈"} The backward pass gives ${label(f.node)}.grad = ${fmt(grad)}.`));
    }
    return parts;
  },

  params(ctx) {
    const s = ctx.state;
    const params = {};
    if (s.wrt) params.wrt = s.wrt;
    if (s.family !== "diamonds") params.family = s.family;
    return params;
  },

  fromParams(ctx, get) {
    const choices = {};
    if (get("family") === "neuron") choices.family = "neuron";
    if (get("wrt")) choices.wrt = get("wrt");
    return choices;
  },
};

async function showGrowth(ctx) {
  const family = ctx.state.family;
  ctx.$("growth-family").value = family;
  const box = ctx.$("growth-plot");
  let rows = growthCache.get(family);
  if (!rows) {
    const reply = await ctx.growth({ cmd: "growth", family, sizes: GROWTH_SIZES[family] });
    if (!reply) return; // the engine is not ready yet
    if (!reply.ok) {
      box.replaceChildren(h("p", { class: "why-bad" }, reply.error.message));
      return;
    }
    rows = reply.rows;
    growthCache.set(family, rows);
  }
  if (ctx.state.family !== family) return;
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
  const legend = h("ul", { class: "plot-legend" },
    h("li", { class: "legend-a" }, "● solid: listing every path, for every input"),
    h("li", { class: "legend-b" }, "■ dashed: one backward pass"));
  const more = h("details", { class: "plot-numbers" }, h("summary", {}, "The numbers"),
    dataTable(`Multiplications for ${name}`, ["n", "paths", "listing paths", "backward pass"],
      rows.map((r) => [r.n, r.paths, r.path_multiplications, r.backward_multiplications])));
  const factor = Math.round(last.path_multiplications / last.backward_multiplications);
  const say = h("p", { class: "why-cost" }, family === "diamonds"
    ? "Each diamond doubles the number of paths, so listing them grows exponentially "
      + `(${last.paths} paths at n = ${last.n}, ${factor}× the work), `
      + "while the backward pass grows by 4 multiplications per diamond."
    : "Each input has only a few paths, but each path is walked separately: "
      + `${last.path_multiplications} multiplications for ${last.inputs} inputs at n = ${last.n}, `
      + `about ${factor}× the ${last.backward_multiplications} of one backward pass.`);
  box.replaceChildren(plot, legend, say, more);
}
