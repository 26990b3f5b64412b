// The step-details panel: what the current frame did, with every number.
// For a backward visit: one card per incoming edge, showing the rule in code,
// local × upstream = contribution, and the parent's grad before → after.

import { factor, fmt } from "../lib/format.js";

function node(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function renderDetails(container, view, answer) {
  const nodes = answer.nodes;
  const edges = answer.edges;
  const f = view.frame;
  const parts = [];
  if (view.pass === "start") {
    parts.push(node("p", "muted", "Nothing is computed yet. Step forward runs the program one node at a time."));
  } else if (view.pass === "forward") {
    // The narration already spells the computation out; say what comes next.
    if (view.index === view.total - 1) {
      parts.push(node("p", "muted", "Every node has its data now. Start backward seeds the output's grad."));
    }
  } else if (f.kind === "seed") {
    const n = nodes[f.node];
    const out = n.box?.shown?.at(-1)?.label ?? n.label; // in a closed group's box: its output, by name
    parts.push(node("p", "detail-head", n.box ? `Seed the output ${out} (in ${n.label})` : `Seed the output ${out}`));
    const row = node("p", "detail-math");
    row.append(node("code", "", `${out}.grad: ${fmt(f.before)} → ${fmt(f.after)}`));
    parts.push(row);
  } else {
    const n = nodes[f.node];
    parts.push(node("p", "detail-head", `Visit ${n.label} (${upstreamText(n, f)})`));
    // A tensor's line (engine/grid.py's line_rules): its backward step in matrix form, each
    // rule with its shapes, before the pushes element by element that it sums up.
    if (f.rules?.length) {
      const said = "In matrix form (each rule is the scalar += rule, applied to every element):";
      parts.push(node("p", "detail-sub", said));
      const rules = node("ul", "tensor-rules");
      for (const rule of f.rules) {
        const li = node("li", "");
        li.append(node("code", "", rule));
        rules.append(li);
      }
      parts.push(rules);
    }
    if (!f.pushes.length) {
      parts.push(node("p", "muted", n.box
        ? `${n.label} is a closed group with no inputs drawn outside it: it has no parents to pass its grad to.`
        : `${n.label} is an input: it has no parents to pass its grad to.`));
    }
    const list = node("ul", "pushes");
    for (const p of f.pushes) {
      const parent = nodes[p.parent];
      const li = node("li", `push${p.late ? " is-late" : ""}`);
      li.append(node("code", "push-rule", p.rule));
      const math = node("div", "push-math");
      if (p.byElement) { // into a tensor's box: each element's own pushes, one per use, and their sum
        const each = node("ul", "push-elements");
        for (const line of p.byElement) each.append(node("li", "", line));
        math.append(each);
      } else {
        // A closed group's push went through its nodes (grouped.js): each output's share and
        // their sum, as the engine worked them out (p.math), never one local derivative.
        math.append(node("span", "", p.math
          ? (p.local === null ? `through its ${n.box?.size ?? ""} nodes: ${p.math}` : p.math)
          : `local ${factor(p.local)} × upstream ${factor(p.upstream)} = ${fmt(p.contribution)}`));
      }
      li.append(math);
      const change = node("div", "push-change");
      // (into a box with several outputs: which output's grad, by its own name)
      change.append(node("code", "", p.change ?? `${parent.label}.grad: ${fmt(p.before)} → ${fmt(p.after)}`));
      li.append(change);
      if (p.late) {
        li.append(node("div", "push-late", `⚠ Too late: ${parent.label} was already visited, `
          + `so this never reaches ${parent.label}'s own parents.`));
      }
      const edge = edges[p.edge];
      li.dataset.edge = String(edge.id);
      list.append(li);
    }
    if (f.pushes.length) parts.push(list);
  }
  container.replaceChildren(...parts);
}

// What a visit starts from: the node's grad, or a closed group's outputs' grads by their
// own names ("layer 1.grad" names no number: a group is no node).
function upstreamText(n, f) {
  if (!n.box) return `upstream ${n.label}.grad = ${fmt(f.upstream)}`;
  const outputs = f.outputs ?? [];
  if (outputs.length === 1) return `its output ${outputs[0].label}.grad = ${fmt(outputs[0].grad)}`;
  const listed = outputs.map((o) => `${o.label}.grad = ${fmt(o.grad)}`).join(", ");
  const more = n.box.outputs.length > outputs.length ? ", …" : "";
  // (a tensor's are its elements: an input tensor's are no one's outputs)
  return `its ${n.box.outputs.length} ${n.box.kind === "tensor" ? "elements" : "outputs"}' grads: ${listed}${more}`;
}
