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
