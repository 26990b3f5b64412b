// The step-details panel: what the current frame did, with every number.
// For a backward visit: one card per incoming edge, showing the rule in code,
// local × upstream = contribution, and the parent's grad before → after.

import { fmt } from "../lib/format.js";

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
    parts.push(node("p", "detail-head", `Seed the output ${n.label}`));
    const row = node("p", "detail-math");
    row.append(node("code", "", `${n.label}.grad: ${fmt(f.before)} → ${fmt(f.after)}`));
    parts.push(row);
  } else {
    const n = nodes[f.node];
    parts.push(node("p", "detail-head", `Visit ${n.label} (upstream ${n.label}.grad = ${fmt(f.upstream)})`));
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
      // A closed group's push went through its nodes (grouped.js): its sum, not one local derivative.
      math.append(node("span", "", p.local === null
        ? `through its ${n.box?.size ?? ""} nodes: ${fmt(p.contribution)}`
        : `local ${fmt(p.local)} × upstream ${fmt(p.upstream)} = ${fmt(p.contribution)}`));
      li.append(math);
      const change = node("div", "push-change");
      change.append(node("code", "", `${parent.label}.grad: ${fmt(p.before)} → ${fmt(p.after)}`));
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
