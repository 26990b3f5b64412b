// What the "Why reverse mode" experiments share: small DOM helpers over lib/dom.js's
// h(), and the few ways every mode reads a frame.

import { exact, factor, fmt } from "../lib/format.js";
import { h } from "../lib/dom.js";

export { h };

// Two engine numbers are the same number (nan equals nan; -0 is not 0).
export function same(a, b) {
  return exact(a) === exact(b);
}

// The nodes whose grad differs from the correct one.
export function wrongGrads(grads, correct) {
  // A node with no right grad (null: a constant of "Your code") is not judged.
  return grads.map((g, i) => (g !== null && correct[i] != null && !same(g, correct[i]) ? i : -1)).filter((i) => i >= 0);
}

export function list(items, className = "") {
  return h("ul", { class: className }, ...items.map((item) => (item instanceof Node ? item : h("li", {}, item))));
}

// The edge label of one push: "local × upstream", then "= contribution".
export function pushLines(p) {
  // A push on a grouped view (grouped.js) may say its own lines: a closed group's went
  // through its nodes (no one local derivative), a push into a box names the output it fed.
  if (p.lines) return p.lines;
  if (p.local === null) return [`+= ${fmt(p.contribution)}`];
  return [`${factor(p.local)} × ${factor(p.upstream)}`, `= ${fmt(p.contribution)}`];
}

// A backward visit's marks: the visited node, each parent receiving with +=.
export function markVisit(f, marks) {
  marks.visiting = f.node;
  if (f.kind === "seed") {
    marks.visitTag = "seed: grad 1";
    return;
  }
  if (f.kind === "zero") {
    marks.visitTag = "zero_grad()";
    return;
  }
  for (const p of f.pushes) {
    marks.receiving.set(p.parent, "+=");
    // (everyLine: a closed group's shares, one line each, none to be left out: graph.js)
    marks.pushes.set(p.edge, { lines: pushLines(p), late: Boolean(p.late), everyLine: Boolean(p.everyLine) });
  }
}

// The frames with the engine's closing sentences added to the last one's text.
export function withFinal(frames, sentences) {
  if (!frames.length || !sentences.length) return frames;
  const last = frames[frames.length - 1];
  return [...frames.slice(0, -1), { ...last, text: `${last.text} ${sentences.join(" ")}` }];
}

// A row of controls, and a select of the graph's inputs.
export function row(...children) {
  return h("div", { class: "why-row" }, ...children);
}

export function inputSelect(id) {
  return h("select", { id });
}

export function fillInputs(select, labels, wanted) {
  select.replaceChildren(...labels.map((label) => h("option", { value: label }, label)));
  if (labels.includes(wanted)) select.value = wanted;
}

export function plural(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}
