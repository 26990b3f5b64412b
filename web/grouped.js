// A grouped graph answer (docs/api.md, "A grouped graph answer") read as an ordinary graph
// answer whose nodes are the *units* on screen: each collapsed group is one node (its box),
// each node outside a collapsed group is itself. Unit i is the i-th of the answer's
// "units" (the forward order), so every panel (the graph, the table, the scrubber, the
// stepper) works on what is drawn, at the level on screen, and nothing else needs to know
// about groups beyond what a box and an open group's frame draw.
//
// readLevel rewrites the answer in place (decodeAnswer, stepper.js, calls it once, on
// every answer update() is given): its nodes, edges, frames and experiment are made
// unit-indexed; what came from the engine stays in answer.level.

import { fmt } from "./lib/format.js";

/**
 * @typedef {{id: string, name: string, kind: string, parent: string | null, groups: string[], size: number,
 *            outputs: number[], open: boolean, data: number, grad: number}} GroupBox
 */

export function isGrouped(answer) {
  return Boolean(answer?.ok && answer.grouped === true && !answer.level);
}

// How many groups of a grouped answer (read by readLevel) are drawn closed, as one box.
export function closedGroups(answer) {
  return answer?.boxes ? [...answer.boxes.values()].filter((g) => !g.open).length : 0;
}

// What keeps the experiments that answer node by node (the nudge check, "Why reverse mode")
// from running on a grouped view: how many groups are drawn closed, or Infinity for a
// notebook kernel's network, which answers at the level on screen only; 0 when nothing does.
export function groupsInTheWay(answer) {
  return answer?.graph?.source === "kernel" && answer.graph.grouped ? Infinity : closedGroups(answer);
}

export function readLevel(answer) {
  const { units, groups, nodes, edges, output } = answer;
  const box = new Map(groups.map((g) => [g.id, g]));
  const node = new Map(nodes.map((n) => [n.id, n]));
  const index = new Map(units.map((u, i) => [u, i])); // unit → its index
  // The engine's node id of every number on screen → the unit that shows it: a drawn node
  // itself, a collapsed group's shown output its box.
  const shows = new Map(units.map((u, i) => [typeof u === "string" ? box.get(u).outputs.at(-1) : u, i]));
  const unitNodes = units.map((u, i) => {
    if (typeof u === "string") {
      const g = box.get(u);
      return {
        id: i, unit: u, label: g.name, short: shortName(g, box), op: "",
        expr: `${plural(g.size, "node")} inside`, data: g.data, grad: g.grad,
        group: g.parent, box: g, is_input: false, is_output: g.outputs.at(-1) === output,
        line: null, col: null, parents: [], children: [],
      };
    }
    const n = node.get(u);
    return { ...n, id: i, unit: u, box: null, line: null, col: null, parents: [], children: [] };
  });
  const label = (i) => unitNodes[i].label;
  const unitEdges = edges.map((e, k) => {
    const parent = index.get(e.parent);
    const child = index.get(e.child);
    const between = e.local !== undefined; // two nodes: the graph's own edge
    return {
      id: k, parent, child, slot: e.slot ?? 0, count: e.count, local: between ? e.local : null,
      local_text: between ? fmt(e.local) : null,
      rule: between
        ? `${label(parent)}.grad += ${fmt(e.local)} * ${label(child)}.grad`
        : `${label(parent)}.grad += ∂${label(child)}/∂${label(parent)} * ${label(child)}.grad`,
    };
  });
  for (const e of unitEdges) {
    unitNodes[e.parent].children.push(e.id);
    unitNodes[e.child].parents.push(e.id);
  }
  const frame = (f) => unitFrame(f, index, shows, unitNodes, unitEdges);
  answer.level = { units, groups, nodes, edges, output };
  answer.boxes = box; // a group's id → its box (open or collapsed)
  answer.nodes = unitNodes;
  answer.edges = unitEdges;
  answer.output = shows.get(output);
  answer.inputs = unitNodes.filter((n) => n.is_input && !n.box).map((n) => n.id);
  answer.unused = [];
  answer.questions = [];
  answer.forward = answer.forward.map(frame);
  answer.backward = answer.backward.map(frame);
  if (answer.experiment) answer.experiment = unitExperiment(answer.experiment, frame, index, unitNodes, unitEdges);
  return answer;
}

// One frame, unit-indexed. A backward visit of a node or of a collapsed group becomes a
// push visit ({kind: "visit", pushes}) so that the graph, the details and the table read it
// as any other; a group's push has no local derivative (its grad went through its nodes).
function unitFrame(f, index, shows, nodes, edges) {
  const at = (id) => shows.get(id);
  const changes = (f.changes ?? []).filter((c) => shows.has(c.node)).map((c) => ({ ...c, node: at(c.node) }));
  const unit = f.kind === "group" ? index.get(f.group) : at(f.node);
  const out = { ...f, node: unit, changes, line: null };
  if (f.group !== undefined) out.group = f.group;
  if (!("upstream" in f)) return out; // a forward step or the seed
  const left = edges.filter((e) => e.child === unit);
  out.kind = "visit";
  out.pushes = changes.map((c) => {
    const k = left.findIndex((e) => e.parent === c.node);
    const edge = k >= 0 ? left.splice(k, 1)[0] : null;
    return {
      edge: edge?.id ?? null, parent: c.node, local: edge?.local ?? null, upstream: f.upstream,
      contribution: c.after - c.before, before: c.before, after: c.after, late: false,
      rule: edge?.rule ?? `${nodes[c.node].label}.grad += …`,
    };
  }).filter((p) => p.edge !== null);
  return out;
}

// The visit-order experiment at this level, in the shape the page reads (docs/api.md's
// Experiment): the frames unit-indexed, a push marked late when the engine says its pair of
// units was (a push into an input already visited is harmless: not late), the grads after
// the run beside the right ones.
function unitExperiment(exp, frame, index, nodes, edges) {
  const frames = exp.frames.map(frame);
  const pair = (parent, child) => `${parent}\u0000${child}`;
  const latePairs = new Set(exp.late.map((l) => pair(index.get(l.parent), index.get(l.child))));
  const visitedAt = new Map(); // unit → the frame that visited it
  const late = [];
  frames.forEach((f, j) => {
    if (f.kind !== "visit") return;
    for (const p of f.pushes) {
      if (!latePairs.has(pair(p.parent, f.node))) continue;
      p.late = true;
      late.push({
        frame: j, edge: p.edge, parent: p.parent, child: f.node, contribution: p.contribution,
        parent_visit_frame: visitedAt.get(p.parent),
      });
    }
    visitedAt.set(f.node, j);
  });
  // Late pairs whose contribution was 0 have no push above; the engine's pairs are the truth.
  for (const l of exp.late) {
    const parent = index.get(l.parent);
    const child = index.get(l.child);
    if (late.some((l) => l.parent === parent && l.child === child)) continue;
    const edge = edges.find((e) => e.parent === parent && e.child === child);
    late.push({ frame: visitedAt.get(child) ?? frames.length - 1, edge: edge?.id ?? null, parent, child,
      contribution: 0, parent_visit_frame: visitedAt.get(parent) });
  }
  const grads = nodes.map(() => 0);
  for (const f of frames) for (const c of f.changes ?? []) if (c.field === "grad") grads[c.node] = c.after;
  if (frames[0]?.kind === "seed") grads[frames[0].node] = frames[0].after;
  return {
    rule: "push", order: exp.order.map((u) => index.get(u)), frames, grads,
    correct_grads: nodes.map((n) => n.grad), is_topological: exp.late.length === 0, late,
    lost_paths: [], lost_path_count: exp.lost_path_count, wrong_inputs: exp.wrong_inputs, harmless: [],
    explanation: exp.explanation, mistake: null,
  };
}

function plural(n, word) {
  return `${n.toLocaleString("en")} ${n === 1 ? word : `${word}s`}`;
}

// The groups open by default on a graph that first arrives whole: every outermost group
// that holds other groups (a layer, a model), so that the next ones in (neurons) are its
// boxes.
/** @param {{id: string, groups: string[], parent: string | null}[]} groups */
export function defaultExpanded(groups) {
  return groups.filter((g) => g.parent === null && g.groups.length).map((g) => g.id);
}

// The groups open on screen, for the page's link: null when they are the ones the graph
// opens with (or it has no groups), so that a plain link stays plain.
export function openInLink(answer) {
  if (!answer?.level) return null;
  const open = [...answer.expanded];
  const usual = defaultExpanded(answer.groups);
  const same = open.length === usual.length && usual.every((id) => open.includes(id));
  return same ? null : open;
}

// The request fields that say which groups are open, for a request about the graph on
// screen (new values, a visit order): none for a graph without groups.
export function levelOf(state) {
  const a = state.answer;
  return a?.level ? { expanded: [...a.expanded] } : {};
}

// A box's name as drawn inside its open parent's frame, which already says the rest:
// "neuron 2 of layer 1" in the frame of "layer 1" is "neuron 2" (the whole name is in
// its tooltip, its accessible name and data-group).
function shortName(g, box) {
  const parent = g.parent ? box.get(g.parent) : null;
  const tail = parent ? ` of ${parent.name}` : "";
  return tail && g.name.endsWith(tail) ? g.name.slice(0, -tail.length) : g.name;
}
