// Naive recursion: a backward pass with no topological order ({cmd: "naive"}). As
// soon as a node receives a contribution it calls its parents' backward with its
// running total, so a node that feeds two consumers is called twice, and the second
// call hands on its whole total, including what the first call already passed on.
// The engine says, frame by frame, how much of each call repeats an earlier one
// (upstream_resent), which edges have carried a repeat (carried), whom a send makes
// call its backward again (calls), and what each input received.

import { factor, fmt } from "../lib/format.js";
import { h, list, same, withFinal } from "./shared.js";

const SHARED_PROGRAM = "a = 1\nb = a + a\nc = b + b";

// Its id, tab, parameters and fields are declared by engine/modes/naive.py.
export default {
  panel(ctx) {
    return [
      h("p", {}, "A backward pass with no topological order: as soon as a node receives a contribution it calls its "
        + "parents' backward with its running total, as a recursive ", h("code", {}, "grad_fn"), " written without a "
        + "topological sort does. A node that feeds two consumers is called twice, and the second call hands on its "
        + "whole total, including the part its first call already passed on."),
      h("div", { class: "why-row" },
        h("button", {
          type: "button", id: "naive-run", class: "button primary", onclick: () => ctx.start(this).catch(ctx.failed),
        }, "Run the recursion"),
        h("button", {
          type: "button", id: "naive-shared", class: "button", onclick: () => loadShared(ctx, this).catch(ctx.failed),
        }, "Load a = 1, b = a + a, c = b + b")),
      h("div", { id: "naive-result", class: "why-result" }),
    ];
  },

  graphLoaded(ctx) {
    ctx.$("naive-result").replaceChildren();
  },

  request() {
    return { request: { cmd: "naive" }, what: "Naive recursion" };
  },

  result(ctx, reply) {
    const box = ctx.$("naive-result");
    const answer = ctx.answer();
    const label = (i) => answer.nodes[i].label;
    const inputs = answer.inputs;
    const wrong = inputs.filter((i) => !same(reply.grads[i], reply.correct_grads[i]));
    const grads = inputs.map((i) => `${label(i)}.grad = ${fmt(reply.grads[i])}`).join(", ");
    const parts = [wrong.length
      ? h("p", { class: "why-verdict why-bad" }, `✗ Double counted: ${wrong.map((i) =>
        `${label(i)}.grad = ${fmt(reply.grads[i])} where the truth is ${fmt(reply.correct_grads[i])}`).join("; ")}.`)
      : h("p", { class: "why-verdict why-ok" }, `✓ The recursion agrees with the backward pass here: ${grads}.`),
    list(reply.explanation, "explanation")];
    if (reply.resends.length) {
      // What each input received, with the re-sent parts marked.
      parts.push(h("h3", {}, "What each input received"));
      parts.push(list(reply.received.map(({ node, parts: got }) => {
        const sum = got.map((p) =>
          (p.resent ? `${fmt(p.contribution)} (↻ ${fmt(p.resent)} re-sent)` : fmt(p.contribution)));
        return `${label(node)}: ${sum.join(" + ") || "0"} = ${fmt(reply.grads[node])}`
          + (same(reply.grads[node], reply.correct_grads[node])
            ? ""
            : ` (should be ${fmt(reply.correct_grads[node])})`);
      }), "why-math"));
    }
    if (reply.truncated) {
      parts.push(h("p", { class: "muted" }, "Only the first calls are shown: the recursion kept doubling."));
    }
    box.replaceChildren(...parts);
    return {
      message: wrong.length
        ? `Naive recursion: ${reply.frames.length - 1} sends, `
          + `and ${wrong.map(label).join(", ")} come${wrong.length === 1 ? "s" : ""} out wrong.`
        : "Naive recursion: every node is called once here, so it agrees with the backward pass.",
      mode: {
        title: "Naive recursion",
        frames: withFinal(reply.frames, reply.explanation),
        start: { grad: new Array(answer.nodes.length).fill(0) },
        column: { title: "true grad", values: reply.correct_grads },
        correct: reply.correct_grads,
      },
    };
  },

  marks(view, marks) {
    const f = view.frame;
    marks.resent = new Set(f.carried ?? []);
    marks.visiting = f.node;
    if (f.kind === "seed") {
      marks.visitTag = "seed: grad 1";
      return;
    }
    const p = f.pushes[0];
    const repeat = f.upstream_resent;
    marks.visitTag = `${repeat ? "↻ " : ""}called with ${fmt(f.upstream)}`;
    marks.receiving.set(p.parent, f.calls?.again ? "+=, calls again" : "+=");
    marks.pushes.set(p.edge, repeat
      ? {
        lines: [`${factor(p.local)} × ${factor(p.upstream)} = ${fmt(p.contribution)}`],
        late: false,
        kind: "resent",
        tag: `↻ re-sends ${fmt(p.local * repeat)}`,
      }
      : { lines: [`${factor(p.local)} × ${factor(p.upstream)}`, `= ${fmt(p.contribution)}`], late: false });
  },

  position(view) {
    if (view.frame.kind === "seed") return `${view.mode.title} · seed`;
    const first = view.mode.frames.findIndex((x) => x.kind !== "seed");
    return `${view.mode.title} · send ${view.index - first + 1} of ${view.total - first}`;
  },

  details(view, answer) {
    const f = view.frame;
    const label = (i) => answer.nodes[i].label;
    if (f.kind === "seed") {
      return [h("p", { class: "detail-head" }, `Seed the output ${label(f.node)}`),
        h("p", { class: "muted" }, `${label(f.node)}.grad = 1, and ${label(f.node)} calls its backward with 1.`)];
    }
    const p = f.pushes[0];
    const sender = label(f.node);
    const repeat = f.upstream_resent;
    const li = h("li", { class: `push${repeat ? " is-resent" : ""}` },
      h("code", { class: "push-rule" }, p.rule),
      h("div", { class: "push-math" }, `local ${factor(p.local)} × ${factor(p.upstream)} = ${fmt(p.contribution)}`),
      h("div", { class: "push-change" }, `${label(p.parent)}.grad: ${fmt(p.before)} → ${fmt(p.after)}`));
    if (repeat) {
      li.append(h("div", { class: "push-late" },
        `↻ Counted twice: ${fmt(p.local * repeat)} of this ${fmt(p.contribution)} `
        + `already reached ${label(p.parent)} through ${sender}'s earlier call.`));
    }
    if (f.calls?.again) {
      li.append(h("div", { class: "push-late" },
        `↻ ${label(p.parent)} now calls its backward again with its whole total `
        + `${fmt(p.after)}, so the ${fmt(f.resent)} it passed on before goes out a second time.`));
    }
    return [h("p", { class: "detail-head" }, `${sender}'s backward, called with ${fmt(f.upstream)}`
      + (repeat ? ` (${fmt(repeat)} of it already passed on)` : "")), list([li], "pushes")];
  },
};

// The smallest graph where the recursion goes wrong, then the recursion on it.
async function loadShared(ctx, mode) {
  if (!ctx.ready()) {
    ctx.notReady("Loading that program");
    return;
  }
  if (await ctx.loadProgram(SHARED_PROGRAM)) {
    ctx.select(mode.id);
    await ctx.start(mode);
  }
}
