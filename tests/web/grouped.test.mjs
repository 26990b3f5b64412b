// grouped.js in Node: a grouped answer (the small network, at the level it opens with)
// read as units on screen, each closed group one box.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answers, site } from "./support.mjs";

const grouped = await import(site("grouped.js"));
const { Stepper, buildTrace, decodeAnswer } = await import(site("stepper.js"));
const { network } = answers();

test("a grouped answer becomes units, closed groups as boxes, and steps at that level", () => {
  assert.ok(grouped.isGrouped(network));
  decodeAnswer(network); // readLevel, once
  assert.ok(!grouped.isGrouped(network), "read once");
  assert.equal(network.nodes.length, network.level ? network.nodes.length : -1);
  const boxes = network.nodes.filter((n) => n.box);
  assert.equal(grouped.closedGroups(network), boxes.length);
  assert.ok(boxes.length > 0);
  for (const box of boxes) assert.match(box.expr, /nodes? inside$/);
  const stepper = new Stepper(buildTrace(network));
  let steps = 0;
  while (stepper.next()) steps += 1;
  assert.equal(steps, network.forward.length + network.backward.length);
});

test("the link names open groups only when they are not the ones the graph opens with", () => {
  const usual = grouped.defaultExpanded(network.groups);
  const open = [...network.expanded];
  const same = open.length === usual.length && usual.every((id) => open.includes(id));
  assert.deepEqual(grouped.openInLink(network), same ? null : open);
  const groups = [
    { id: "g0", parent: null, groups: ["g1"] },
    { id: "g1", parent: "g0", groups: [] },
    { id: "g2", parent: null, groups: [] },
  ];
  assert.deepEqual(grouped.defaultExpanded(groups), ["g0"]);
  const level = grouped.levelOf({ answer: { level: {}, expanded: new Set(["g0", "g1"]) } });
  assert.deepEqual(level, { expanded: ["g0", "g1"] });
  assert.deepEqual(grouped.levelOf({ answer: { nodes: [] } }), {});
});

test("a closed tensor's box steps as matrices: its data at its line, its grad element by element", () => {
  const { linear } = answers();
  const engineFrames = linear.backward.map((f) => ({ ...f }));
  decodeAnswer(linear);
  const unit = (name) => linear.nodes.findIndex((n) => n.label.startsWith(`${name} `));
  const [X, b, H, L] = ["X", "b", "H", "L"].map(unit);
  assert.ok(grouped.isMatrix(linear.nodes[X].box), "a 4×3 tensor is drawn as a matrix");
  assert.ok(!grouped.isMatrix(linear.nodes[L].box), "a 1×1 tensor is drawn as its number");
  const stepper = new Stepper(buildTrace(linear));
  assert.equal(stepper.view().values, null, "nothing computed at the start");
  stepper.next(); // X's line
  assert.deepEqual(stepper.view().values[X], linear.nodes[X].box.values);
  assert.equal(stepper.view().values[H], null, "H's line has not run yet");
  stepper.startBackward(); // the seed
  assert.equal(stepper.view().grads?.[H] ?? null, null, "no push has reached H yet");
  stepper.next(); // L's visit: dL copied to each of H's 8 numbers
  assert.deepEqual(stepper.view().grads[H], [[1, 1], [1, 1], [1, 1], [1, 1]]);
  assert.equal(stepper.view().grads[b], null);
  stepper.next(); // H's visit: b's 2 cells each take the sum of 4 rows' shares
  const afterH = stepper.view().grads;
  assert.deepEqual(afterH[b], linear.nodes[b].box.grads, "b feeds only H: its whole grad");
  assert.deepEqual(afterH[X], linear.nodes[X].box.grads);
  const hVisit = engineFrames.findIndex((f) => f.group === linear.nodes[H].unit && "upstream" in f);
  const sum = (r) => r.startsWith("b.grad += ") && r.includes("summed over its 4 rows");
  assert.ok(linear.backward[hVisit].rules.some(sum), "b's rule is a sum over the batch's 4 rows");
  stepper.prev(); // back: the matrix before, untouched by the step after it
  assert.equal(stepper.view().grads[b], null);
  assert.deepEqual(stepper.view().grads[H], [[1, 1], [1, 1], [1, 1], [1, 1]]);
});
