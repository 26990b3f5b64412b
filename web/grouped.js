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

import { factor, fmt } from "./lib/format.js";

/**
 * @typedef {{id: string, name: string, kind: string, parent: string | null, groups: string[], size: number,
 *            outputs: number[], open: boolean, data: number | null, grad: number | null,
 *            shown?: {node: number, label: string, data: number, grad: number}[],
 *            shape?: [number, number], cells?: (number | null)[][], values?: (number | null)[][],
 *            grads?: (number | null)[][]}} GroupBox
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

// Where each number of a grouped answer goes at the level on screen (read, not written).
function unitMaps({ units, groups }) {
  const box = new Map(groups.map((g) => [g.id, g]));
  const index = new Map(units.map((u, i) => [u, i])); // unit → its index
  // The engine's node id of every number on screen → the unit that shows it: a drawn node
  // itself, a collapsed group's one output its box (a box with several outputs shows none
  // of them as its own: its sentences list each).
  const shows = new Map();
  // ... and every output of a collapsed group → its box, for the pushes into it.
  const within = new Map();
  units.forEach((u, i) => {
    if (typeof u !== "string") {
      shows.set(u, i);
      within.set(u, i);
      return;
    }
    const outputs = box.get(u).outputs;
    if (outputs.length === 1) shows.set(outputs[0], i);
    for (const o of outputs) within.set(o, i);
  });
  return { box, index, shows, within };
}

// The unit each of `frames` (a grouped answer's own forward or backward frames, not read
// yet) stands at once readLevel has read the answer (answer.nodes[frame.node].unit then):
// a node's id or a group's, or undefined for a frame of a number not on screen. It reads
// the answer and writes nothing, so an action can find its place in a new view before
// update() is given the answer and decodes it (decodeAnswer, stepper.js, in changes.js:
// the one place that does). readLevel maps the frames one to one, so the indices hold.
export function frameUnits(answer, frames) {
  if (!isGrouped(answer)) return frames.map(() => undefined);
  const { index, shows } = unitMaps(answer);
  return frames.map((f) => {
    const i = f.kind === "group" ? index.get(f.group) : shows.get(f.node);
    return i === undefined ? undefined : answer.units[i];
  });
}

export function readLevel(answer) {
  const { units, groups, nodes, edges, output } = answer;
  const { box, index, shows, within } = unitMaps(answer);
  const node = new Map(nodes.map((n) => [n.id, n]));
  const unitNodes = units.map((u, i) => {
    if (typeof u === "string") {
      const g = box.get(u);
      return {
        id: i, unit: u, label: g.name, short: shortName(g, box), op: "",
        expr: `${plural(g.size, "node")} inside`, data: g.data ?? null, grad: g.grad ?? null,
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
      // between boxes a push's own rule is the frame's (unitFrame): a group is no node, so no
      // "∂layer 1/∂x1" and no "layer 1.grad"
      rule: between ? `${label(parent)}.grad += ${fmt(e.local)} * ${label(child)}.grad` : null,
    };
  });
  for (const e of unitEdges) {
    unitNodes[e.parent].children.push(e.id);
    unitNodes[e.child].parents.push(e.id);
  }
  const frame = (f) => unitFrame(f, index, shows, within, unitNodes, unitEdges);
  const pass = (frames) => withCells(frames, frame, cellsOf(units, box));
  answer.level = { units, groups, nodes, edges, output };
  answer.boxes = box; // a group's id → its box (open or collapsed)
  answer.nodes = unitNodes;
  answer.edges = unitEdges;
  answer.output = shows.get(output);
  answer.inputs = unitNodes.filter((n) => n.is_input && !n.box).map((n) => n.id);
  answer.unused = [];
  answer.questions = [];
  answer.forward = pass(answer.forward);
  answer.backward = pass(answer.backward);
  if (answer.experiment) answer.experiment = unitExperiment(answer.experiment, pass, index, unitNodes, unitEdges);
  return answer;
}

// One frame, unit-indexed. A backward visit of a node or of a collapsed group becomes a
// push visit ({kind: "visit", pushes}) so that the graph, the details and the table read it
// as any other. Each push says what the engine says of it: a node's push its local
// derivative and rule; a collapsed group's push (its pass into one input) its shares, in
// symbols (rule) and in numbers (math), with no one local derivative. A push into a box
// with several outputs says which output's grad changed (change) and has no one number.
function unitFrame(f, index, shows, within, nodes, edges) {
  const changes = (f.changes ?? []).filter((c) => shows.has(c.node)).map((c) => ({ ...c, node: shows.get(c.node) }));
  const unit = f.kind === "group" ? index.get(f.group) : shows.get(f.node);
  const out = { ...f, node: unit, changes, line: null };
  if (f.group !== undefined) out.group = f.group;
  if (!("upstream" in f)) return out; // a forward step or the seed
  out.kind = "visit";
  /** @type {Map<number, any>} */
  const byEdge = new Map();
  const pushes = [];
  const into = f.kind === "group" ? f.passes ?? [] : f.pushes ?? [];
  for (const q of into) {
    const parent = within.get(q.node);
    const edge = edges.find((e) => e.child === unit && e.parent === parent);
    if (parent === undefined || !edge) continue;
    const whole = shows.get(q.node) === parent; // the parent shows this very number
    const contribution = q.contribution ?? q.after - q.before;
    const rule = q.rule ?? `${q.label}.grad += ${fmt(q.local)} * ${nodes[unit].label}.grad`;
    const change = `${q.label}.grad: ${fmt(q.before)} → ${fmt(q.after)}`;
    const line = q.local === undefined ? `+= ${fmt(contribution)}` : null;
    const same = byEdge.get(edge.id);
    if (same && !whole) { // several outputs of one box, through one edge: one push, each said
      same.rule += `; ${rule}`;
      same.math = [same.math, q.math ?? `${factor(q.local)} × ${factor(f.upstream)} = ${fmt(contribution)}`].join("; ");
      same.change += `; ${change}`;
      same.lines.push(`${q.label} += ${fmt(contribution)}`);
      same.elements.push(`${q.label}.grad += ${q.math ?? fmt(contribution)}`);
      same.everyLine = true; // each line is an output's own number: none may be left out
      same.contribution += Math.abs(contribution);
      continue;
    }
    const push = {
      edge: edge.id, parent, local: q.local ?? null, upstream: q.local === undefined ? null : f.upstream,
      contribution, before: whole ? q.before : null, after: whole ? q.after : null, late: false, rule,
      math: q.math ?? null, change: whole && !nodes[parent].box ? null : change,
      lines: whole ? (line ? [line] : null) : [`${q.label} += ${fmt(contribution)}`],
      elements: [`${q.label}.grad += ${q.math ?? fmt(contribution)}`], // each output's own push
    };
    if (!whole && push.local !== null) push.math = `${factor(q.local)} × ${factor(f.upstream)} = ${fmt(contribution)}`;
    byEdge.set(edge.id, push);
    pushes.push(push);
  }
  // A push into a box carries a number for each of its outputs that changed. Into a tensor's
  // box, more than MAX_LABEL_LINES of them (W's 6 grads) are counted on the edge, not listed
  // there: the details and the narration list them. (A closed layer lists each neuron's.)
  // Its rule is the tensor rule that sums those pushes up (X.grad += dY · Wᵀ, from the visit's
  // line: engine/grid.py), not one line per element.
  for (const push of pushes) {
    const box = nodes[push.parent]?.box;
    if (box?.kind !== "tensor") continue;
    if (push.everyLine && push.lines.length > MAX_LABEL_LINES) push.lines = [`+= ${push.lines.length} grads`];
    // (a tensor line's visit: its rules name each tensor outside it; a node's own push keeps its rule)
    const name = box.name.split(" ", 1)[0];
    const rules = (f.rules ?? []).filter((rule) => rule.startsWith(`${name}.grad +=`));
    if (!rules.length) continue;
    push.rule = rules.join("; ");
    push.math = null;
    push.byElement = push.elements; // the details list each element's push (W[0,0]: x · dy over the rows)
  }
  out.pushes = pushes;
  return out;
}

const MAX_LABEL_LINES = 1;

// A closed tensor's box (a group with "cells": engine/level.py) draws its numbers as a
// matrix (panels/graph-matrix.js): its data once its line has run, and its grad element by
// element as the backward pass reaches each one. The closed tensor boxes on screen: each
// one's unit → its box, and each element → [its box's unit, row, column].
function cellsOf(units, box) {
  /** @type {Map<number, GroupBox>} */
  const boxes = new Map();
  /** @type {Map<number, [number, number, number]>} */
  const at = new Map();
  units.forEach((u, unit) => {
    const g = typeof u === "string" ? box.get(u) : null;
    if (!g || g.open || !isMatrix(g)) return;
    boxes.set(unit, g);
    g.cells.forEach((row, i) => row.forEach((node, j) => node !== null && at.set(node, [unit, i, j])));
  });
  return { boxes, at };
}

// Whether a box is drawn as a matrix: a tensor of more than one number (a 1×1 tensor's box
// shows its one number as any box of one output does).
/** @param {GroupBox | null | undefined} box */
export function isMatrix(box) {
  return Boolean(box?.shape && box.shape[0] * box.shape[1] > 1);
}

// A pass's frames, unit-indexed (`frame`), each with the changes it makes to a tensor box's
// matrix (field "values": its data rows, at its forward step; field "grads": its grad rows,
// null where no push has reached an element yet). A matrix is never changed in place: each
// change holds a new one, so that stepping back finds the one before (stepper.js's States).
function withCells(frames, frame, { boxes, at }) {
  if (!boxes.size) return frames.map(frame);
  /** @type {Map<number, (number | null)[][]>} */
  const grads = new Map();
  const setGrad = (out, node, after) => {
    const [unit, i, j] = at.get(node) ?? [];
    if (unit === undefined) return;
    const change = out.changes.find((c) => c.field === "grads" && c.node === unit);
    const before = grads.get(unit) ?? null;
    const [rows, columns] = boxes.get(unit).shape;
    const matrix = change ? change.after
      : before?.map((row) => row.slice()) ?? Array.from({ length: rows }, () => new Array(columns).fill(null));
    matrix[i][j] = after;
    if (!change) out.changes.push({ node: unit, field: "grads", before, after: matrix });
    grads.set(unit, matrix);
  };
  return frames.map((f) => {
    const out = frame(f);
    if (f.kind === "group" && !("upstream" in f) && boxes.has(out.node)) { // a box's forward step
      out.changes.push({ node: out.node, field: "values", before: null, after: boxes.get(out.node).values });
    }
    if (f.kind === "seed") setGrad(out, f.node, f.after);
    for (const q of (f.kind === "group" ? f.passes : f.pushes) ?? []) setGrad(out, q.node, q.after);
    return out;
  });
}

// The visit-order experiment at this level, in the shape the page reads (docs/api.md's
// Experiment): the frames unit-indexed, a push marked late when the engine says its pair of
// units was (a push into an input already visited is harmless: not late), the grads after
// the run beside the right ones.
function unitExperiment(exp, pass, index, nodes, edges) {
  const frames = pass(exp.frames);
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
  // (a box with several outputs has no one grad: null, as its correct one)
  const grads = nodes.map((n) => (n.box && n.grad === null ? null : 0));
  for (const f of frames) for (const c of f.changes ?? []) if (c.field === "grad") grads[c.node] = c.after;
  if (frames[0]?.kind === "seed") grads[frames[0].node] = frames[0].after;
  return {
    rule: "push", order: exp.order.map((u) => index.get(u)), frames, grads,
    correct_grads: nodes.map((n) => n.grad), is_topological: exp.late.length === 0, late,
    lost_paths: [], lost_path_count: exp.lost_path_count, wrong_inputs: exp.wrong_inputs, harmless: [],
    explanation: exp.explanation, mistake: null,
  };
}

// The name a unit's grad is written with: a node's own label, or in a closed group's box of
// one output that output's ("o.grad", never "layer 2.grad": a group is no node).
/** @param {{label: string, box?: GroupBox | null}} node */
export function gradName(node) {
  const shown = node.box?.shown;
  return node.box && shown?.length === 1 ? shown[0].label : node.label;
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
