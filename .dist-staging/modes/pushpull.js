// Push and pull: the two ways to write a backward visit, compared on the visit order in
// the list above ({cmd: "load", order, rule: "push" | "pull"}). Push (micrograd's
// _backward) adds local × the node's grad into each parent; pull sets the node's grad
// from the nodes that use it. Both are right when every node comes after all its
// consumers; they break in different places when one does not. This mode puts nothing
// on the stepper: to step either run, the visit-order experiment's Push/Pull switch and
// Run order do that.

import { fmt } from "../lib/format.js";
import { h, list, plural, same, wrongGrads } from "./shared.js";

// Its id, tab, parameters and fields are declared by engine/modes/pushpull.py.
export default {
  panel(ctx) {
    return [
      h("p", {}, "The backward visit can be written two ways. ", h("strong", {}, "Push"), " (micrograd's ",
        h("code", {}, "_backward"), "): the visited node adds local × its own grad into each parent. ",
        h("strong", {}, "Pull"), " (the formula g", h("sub", {}, "p"), " = Σ g", h("sub", {}, "c"),
        " · ∂c/∂p): the visited node sets its own grad "
        + "from the grads of the nodes that use it. Both are right when every node comes after all its consumers; they "
        + "break in different places when it does not."),
      h("p", {}, "Try an input visited before the nodes that use it. Pull reads their grads before they are final and "
        + "loses those paths; push does not care, because an input has nothing to pass on."),
      h("div", { class: "why-row" },
        h("button", { type: "button", id: "pushpull-early", class: "button", onclick: () => inputFirst(ctx) },
          "Put an input first in the visit order"),
        h("button", {
          type: "button", id: "pushpull-compare", class: "button primary",
          onclick: () => compare(ctx).catch(ctx.failed),
        }, "Compare push and pull on this order")),
      h("div", { id: "pushpull-result", class: "why-result" }),
    ];
  },

  graphLoaded(ctx) {
    ctx.$("pushpull-result").replaceChildren();
  },

  // Nothing to step here; a link's ?run=pushpull has nothing to replay.
  request() {
    return null;
  },

  params(ctx) {
    return ctx.state.rule !== "push" ? { rule: ctx.state.rule } : {};
  },

  fromParams(ctx, get) {
    return get("rule") === "pull" ? { rule: "pull" } : {};
  },
};

// The input that feeds the most non-output nodes shows the difference best: move it to the top.
function inputFirst(ctx) {
  const answer = ctx.answer();
  if (!answer) return;
  const consumers = (i) => answer.nodes[i].children.filter((e) => answer.edges[e].child !== answer.output).length;
  const input = [...answer.inputs].sort((a, b) => consumers(b) - consumers(a))[0];
  const label = answer.nodes[input].label;
  const order = [label, ...ctx.correctOrder().filter((l) => l !== label)];
  ctx.$("pushpull-result").replaceChildren(h("p", {},
    `The visit order is now ${order.join(", ")}: ${label} is visited before the nodes that use it. `
    + "Compare push and pull, or press Run order."));
  ctx.arrangeOrder(order, `Moved ${label} to the top of the visit order. `
    + "Press Compare push and pull, or choose Push or Pull and press Run order.");
}

async function compare(ctx) {
  const box = ctx.$("pushpull-result");
  const order = ctx.order();
  const runs = await ctx.compare(order, "Comparing push and pull");
  if (!runs) return;
  const nodes = ctx.answer().nodes;
  const label = (i) => nodes[i].label;
  const head = ["node", "push", "pull", "correct"].map((t) => h("th", { scope: "col" }, t));
  const rows = nodes.map((n, i) => h("tr", {}, h("th", { scope: "row" }, n.label),
    ...[runs.push, runs.pull].map((exp) => {
      const good = same(exp.grads[i], exp.correct_grads[i]);
      return h("td", { class: good ? "" : "why-bad" }, `${good ? "" : "✗ "}${fmt(exp.grads[i])}`);
    }),
    h("td", {}, fmt(n.grad))));
  const parts = [h("p", { class: "ran-order" }, `Order: ${order.join(" → ")}`),
    h("table", { class: "why-table" }, h("thead", {}, h("tr", {}, ...head)), h("tbody", {}, ...rows))];
  for (const [name, exp] of [["Push", runs.push], ["Pull", runs.pull]]) {
    const wrong = wrongGrads(exp.grads, exp.correct_grads).length;
    const section = h("div", { class: `why-rule rule-${name.toLowerCase()}` },
      h("h3", {}, `${name}: ${wrong
        ? `✗ ${plural(wrong, "wrong grad")}, ${plural(exp.lost_path_count, "lost path")}`
        : "✓ every grad right"}`),
      list(exp.explanation, "explanation"));
    if (exp.lost_paths.length) {
      const lost = exp.lost_paths.map((p) => `Lost: ${p.nodes.map(label).join(" → ")} (carries ${fmt(p.product)})`);
      section.append(list(lost, "lost-paths"));
    }
    if (exp.harmless.length) section.append(list(exp.harmless.map((x) => `Harmless: ${x.text}`), "harmless"));
    parts.push(section);
  }
  parts.push(h("p", { class: "muted" },
    "To step through either run, choose Push or Pull next to the visit order and press Run order."));
  box.replaceChildren(...parts);
  ctx.compared(order);
}
