// Opening and closing a group of a grouped graph (docs/api.md, "A grouped graph answer"):
// {cmd: "expand", group, expanded} opens one, a load without it in "expanded" closes it.
// The new view replaces the whole trace; the learner's place moves to the same unit's
// frame, or to the first frame of an opened group's parts, or to a closed group's frame.

import { update } from "../update.js";
import { frameUnits } from "../grouped.js";
import { ask, requestSource } from "./requests.js";
import { engineFailed, notReady } from "./say.js";

// The learner pressed a group's box (open it) or an open group's name (close it).
export async function toggleGroup(w, name) {
  const s = w.state;
  const answer = s.answer;
  const group = answer?.boxes ? [...answer.boxes.values()].find((g) => g.name === name) : null;
  if (!group) return;
  if (!s.ready) {
    notReady(w, group.open ? `Closing ${name}` : `Opening ${name}`);
    return;
  }
  const inside = (id) => { // id is the group or inside it
    for (let g = id; g; g = answer.boxes.get(g)?.parent ?? null) if (g === group.id) return true;
    return false;
  };
  const request = group.open
    ? { cmd: "load", ...requestSource(s), expanded: answer.expanded.filter((id) => !inside(id)) }
    : { cmd: "expand", ...requestSource(s), group: group.id, expanded: [...answer.expanded] };
  let next;
  try {
    next = await ask(w, "load", request);
  } catch (error) {
    engineFailed(w, error);
    return;
  }
  if (!next || w.state.answer !== answer) return; // overtaken
  if (!next.ok) {
    update(w, { type: "say" }, `${name} could not be ${group.open ? "closed" : "opened"}: ${next.error.message}`);
    return;
  }
  const place = placeAfter(s.stepper, answer, next, group, inside);
  next.toggled = name; // the graph keeps this group where it was on screen (panels/graph.js)
  const parts = group.open ? "" : ` Its ${next.inner.length} parts are drawn in its place.`;
  update(w, { type: "graph", answer: next, source: s.source, kind: "group", place },
    `${capital(name)} is ${group.open ? "closed into one box" : "open"}.${parts}`);
}

// The frame of the new view that stands for where the learner was: the same unit's, or
// for the group just opened its first part's, or for a unit inside the group just closed
// that group's. Before the passes (the start) or at the seed, the same place.
function placeAfter(stepper, before, next, group, inside) {
  const pos = stepper.pos;
  const pass = pos.pass === "experiment" ? "backward" : pos.pass;
  if (pass !== "forward" && pass !== "backward") return { pass: "start", index: -1 };
  const frames = (pass === "forward" ? before.forward : before.backward);
  const old = frames[pos.index];
  if (!old || old.kind === "seed") return { pass, index: Math.max(0, pos.index) };
  const unitOf = (a, f) => a.nodes[f.node]?.unit;
  const was = unitOf(before, old);
  const wanted = (u) => {
    if (u === was) return true;
    if (!group.open && was === group.id) return next.inner.includes(u); // opened: its parts
    if (group.open) { // closed: the group's own frame stands for every unit inside it
      const n = before.nodes[old.node];
      return u === group.id && inside(n.box ? n.box.id : n.group);
    }
    return false;
  };
  // `next` is the engine's answer as it came (update() decodes it: changes.js), read at
  // its level without writing it (frameUnits).
  const list = pass === "forward" ? next.forward : next.backward;
  const units = frameUnits(next, list);
  const index = list.findIndex((f, j) => (pass === "forward" || j > 0) && wanted(units[j]));
  return index >= 0 ? { pass, index } : { pass, index: Math.min(pos.index, list.length - 1) };
}

// The learner asked for every group open (the panels that answer for the whole graph
// offer it): ask with every group shown open until none is closed (a group inside a
// closed one is named only once that one is open), then show that view from the start.
export async function openAllGroups(w, said = "Every group is open: each node of the graph is drawn.") {
  const s = w.state;
  const answer = s.answer;
  if (!answer?.boxes) return;
  if (!s.ready) {
    notReady(w, "Opening every group");
    return;
  }
  let next = answer;
  try {
    for (let round = 0; round < 16 && next.groups.some((g) => !g.open); round++) {
      next = await ask(w, "load", { cmd: "load", ...requestSource(s), expanded: next.groups.map((g) => g.id) });
      if (!next || w.state.answer !== answer) return; // overtaken
      if (!next.ok) {
        update(w, { type: "say" }, `The groups could not all be opened: ${next.error.message}`);
        return;
      }
    }
  } catch (error) {
    engineFailed(w, error);
    return;
  }
  if (next === answer) return;
  update(w, { type: "graph", answer: next, source: s.source, kind: "group", place: { pass: "start", index: -1 } },
    said);
}

// "Show as scalars" (a tensor program's graph): every group open, each element of each tensor
// its own node named X[i,j], stepped as any scalar graph; pressed again, every tensor line is
// one box again. Either way the walk starts over, as the frames it counts are another view's.
export async function showAsScalars(w, on) {
  const s = w.state;
  const answer = s.answer;
  if (!answer?.boxes) return;
  if (on) {
    await openAllGroups(w, "Shown as scalars: every tensor is opened into its elements, each a node of its own, "
      + "stepped one operation at a time. The walk starts again from the beginning.");
    return;
  }
  if (!s.ready) {
    notReady(w, "Closing every group");
    return;
  }
  let next;
  try {
    next = await ask(w, "load", { cmd: "load", ...requestSource(s), expanded: [] });
  } catch (error) {
    engineFailed(w, error);
    return;
  }
  if (!next || w.state.answer !== answer) return; // overtaken
  if (!next.ok) {
    update(w, { type: "say" }, `The groups could not be closed: ${next.error.message}`);
    return;
  }
  update(w, { type: "graph", answer: next, source: s.source, kind: "group", place: { pass: "start", index: -1 } },
    "Shown as tensors: each tensor line is one box again, its numbers drawn as matrices. "
      + "The walk starts again from the beginning.");
}

function capital(text) {
  return text.slice(0, 1).toUpperCase() + text.slice(1);
}
