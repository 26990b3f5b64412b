// Backward twice: grads collect contributions with +=, so a second backward() lands on
// top of what the first left behind, unless zero_grad() clears them first
// ({cmd: "again", zero_grad}). Forgetting zero_grad() is the question asked most often
// in micrograd's issue tracker.

import { fmt } from "../lib/format.js";
import { h, list, markVisit, same, withFinal } from "./shared.js";

// Its id, tab, parameters and fields are declared by engine/modes/again.py.
export default {
  panel(ctx) {
    const start = (zero) => () => ctx.start(this, { zero }).catch(ctx.failed);
    return [
      h("p", {}, "Grads collect contributions with ", h("code", {}, "+="), ", so a second ",
        h("code", {}, "backward()"), " adds on top of what the first one left behind. Forgetting ",
        h("code", {}, "zero_grad()"),
        " is the question asked most often in micrograd's issue tracker."),
      h("div", { class: "why-row" },
        h("button", { type: "button", id: "again-run", class: "button primary", onclick: start(false) },
          "backward() again"),
        h("button", { type: "button", id: "again-zero", class: "button", onclick: start(true) },
          "zero_grad(), then backward()")),
      h("div", { id: "again-result", class: "why-result" }),
    ];
  },

  graphLoaded(ctx) {
    ctx.$("again-result").replaceChildren();
  },

  request(ctx, { zero = ctx.state.zero_grad } = {}) {
    return { request: { cmd: "again", zero_grad: zero }, what: "Backward twice", set: { zero_grad: zero } };
  },

  result(ctx, reply, asked) {
    const zero = asked.request.zero_grad;
    const box = ctx.$("again-result");
    // "plain" / "zero" → this graph's answer, for the table's columns.
    const runs = { ...ctx.memo.again, [zero ? "zero" : "plain"]: reply };
    const answer = ctx.answer();
    const nodes = answer.nodes;
    const columns = [["first", "after backward()"]];
    if (runs.plain) columns.push(["plain", "backward() again"]);
    if (runs.zero) columns.push(["zero", "zero_grad(), backward()"]);
    const rows = nodes.map((n, i) => h("tr", { data: { row: n.label } }, h("th", { scope: "row" }, n.label),
      ...columns.map(([key]) => {
        const g = key === "first" ? reply.start_grads[i] : runs[key].grads[i];
        const good = same(g, n.grad);
        return h("td", { class: `why-${key}${good ? "" : " why-bad"}` }, `${good ? "" : "✗ "}${fmt(g)}`);
      })));
    box.replaceChildren(
      h("p", { class: `why-verdict ${zero ? "why-ok" : "why-bad"}` }, zero
        ? "✓ zero_grad() first: the second pass gives the same grads as the first."
        : "✗ Without zero_grad(), the second pass lands on top of the first."),
      list(reply.explanation, "explanation"),
      h("table", { class: "why-table" },
        h("thead", {}, h("tr", {}, ...["node", ...columns.map((c) => c[1])].map((t) => h("th", { scope: "col" }, t)))),
        h("tbody", {}, ...rows)));
    const out = nodes[answer.output].label;
    return {
      memo: runs,
      message: zero
        ? `The first backward() left its grads behind; zero_grad() clears them before ${out}.backward() runs again.`
        : `The first backward() left its grads behind, and ${out}.backward() runs again on top of them.`,
      mode: {
        title: zero ? "zero_grad(), then backward()" : "backward() again",
        frames: withFinal(reply.frames, reply.explanation),
        start: { grad: reply.start_grads },
        column: { title: "1st pass", values: reply.start_grads },
        correct: nodes.map((n) => n.grad),
      },
    };
  },

  marks(view, marks) {
    markVisit(view.frame, marks);
  },

  position(view) {
    const f = view.frame;
    if (f.kind === "seed") return `${view.mode.title} · seed`;
    if (f.kind === "zero") return `${view.mode.title} · zero_grad()`;
    const first = view.mode.frames.findIndex((x) => x.kind !== "seed" && x.kind !== "zero");
    return `${view.mode.title} · visit ${view.index - first + 1} of ${view.total - first}`;
  },

  // A visit reads like the ordinary backward pass's; zero_grad() has its own lines.
  details(view) {
    if (view.frame.kind !== "zero") return null;
    return [h("p", { class: "detail-head" }, "zero_grad()"),
      h("p", { class: "muted" }, "Every grad goes back to 0, so the next backward pass starts clean.")];
  },

  params(ctx) {
    return ctx.active() === "again" && ctx.state.zero_grad ? { zero: "1" } : {};
  },

  replay(ctx, get) {
    return ctx.start(this, { zero: get("zero") === "1" });
  },
};
