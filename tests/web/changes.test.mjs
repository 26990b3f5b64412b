// The state's changes (web/changes.js: what update() applies before it draws) in Node, on a
// state from createState() and the engine's own answers: what each change writes, what it
// asks to be drawn again, and what follows from it (the narration, a question seen, a
// playing run ended).
import assert from "node:assert/strict";
import { test } from "node:test";
import { answers, site } from "./support.mjs";

const { applyChanges } = await import(site("changes.js"));
const { createState } = await import(site("state.js"));
const { narrationFor } = await import(site("view.js"));

// A state with add-mul on screen, as a load leaves it (the preset's detail came first).
function withAddMul() {
  const all = answers();
  const s = createState();
  assert.equal(applyChanges(s, { type: "presetDetail", id: "add-mul", detail: all.details["add-mul"] }), "none");
  const drawn = applyChanges(s, { type: "graph", answer: all.presets["add-mul"], source: { preset: "add-mul" } });
  assert.equal(drawn, "all");
  return s;
}

test("a graph puts its trace on a new Stepper, with its order, questions and the preset's values", () => {
  const s = withAddMul();
  const labels = (ids) => ids.map((id) => s.answer.nodes[id].label);
  assert.deepEqual(s.stepper.pos, { pass: "start", index: -1 });
  assert.equal(s.kind, "load");
  assert.deepEqual(s.source, { preset: "add-mul" });
  // The correct order is the one the backward pass walks.
  assert.deepEqual(s.correctOrder, labels(s.answer.backward.slice(1).map((f) => f.node)));
  assert.deepEqual(s.order, s.correctOrder);
  assert.deepEqual(s.questions.list.map((q) => q.id), answers().details["add-mul"].checkpoints.map((c) => c.id));
  assert.deepEqual(s.values.originals, { preset: "add-mul", values: { a: 2, b: 3, c: 4 } });
  assert.equal(s.values.edited, false);
  assert.equal(s.graphs, 1);
  // The narration says the start frame's words, once.
  assert.equal(s.narration.said, 1);
  assert.equal(s.narration.text, narrationFor(s.stepper.view()));
});

test("steps move the Stepper and say each frame's words; a message replaces them", () => {
  const s = withAddMul();
  assert.equal(applyChanges(s, { type: "step", to: "next" }), "all");
  assert.deepEqual(s.stepper.pos, { pass: "forward", index: 0 });
  assert.equal(s.narration.text, narrationFor(s.stepper.view()));
  applyChanges(s, { type: "step", to: "end" });
  assert.ok(s.stepper.atEnd());
  const said = s.narration.said;
  applyChanges(s, { type: "step", to: "start" }, "Back to the start.");
  assert.equal(s.narration.text, "Back to the start.");
  assert.equal(s.narration.said, said + 1);
  applyChanges(s, { type: "step", offset: 3 }, false); // false: the narration stays as it is
  assert.equal(s.narration.text, "Back to the start.");
  assert.equal(s.stepper.offset, 3);
});

test("what only the engine's line shows asks for that alone; what nothing shows, for nothing", () => {
  const s = createState();
  assert.equal(applyChanges(s, { type: "progress", stage: "python", fraction: 0.456 }), "status");
  assert.equal(s.progress, 46);
  assert.equal(applyChanges(s, [{ type: "busy", on: true }, { type: "progress", stage: "x", fraction: 2 }]), "status");
  assert.equal(s.progress, 100);
  assert.equal(applyChanges(s, { type: "edit", name: "a", value: 5 }), "none");
  assert.equal(s.values.edits.get("a"), 5);
  assert.equal(applyChanges(s, [{ type: "busy", on: false }, { type: "digits", on: true }]), "all");
  assert.equal(s.digits, true);
  assert.equal(applyChanges(s, { type: "engine", engine: "error", error: "no wasm" }), "all");
  assert.deepEqual([s.engine, s.ready, s.error], ["error", false, "no wasm"]);
  assert.throws(() => applyChanges(s, { type: "nothing-like-this" }), /no change called nothing-like-this/);
});

test("the engine's answer to a prerendered graph, the same to the byte, only confirms it", () => {
  const all = answers();
  const s = createState();
  applyChanges(s, { type: "graph", answer: all.presets.diamond, source: { preset: "diamond" }, prerendered: true });
  applyChanges(s, { type: "step", to: "next" });
  assert.ok(s.unverified);
  const same = answers().presets.diamond;
  assert.equal(applyChanges(s, { type: "graph", answer: same, source: { preset: "diamond" }, confirms: true }), "none");
  assert.equal(s.unverified, null);
  assert.deepEqual(s.stepper.pos, { pass: "forward", index: 0 }, "the learner's place stays");
  assert.equal(s.graphs, 1);
});

test("a playing run goes on through its own steps and status changes, and any other change ends it", () => {
  const s = withAddMul();
  s.playing = 1; // as an orderRun with {play: true} leaves it
  applyChanges(s, { type: "step", to: "next", play: true });
  applyChanges(s, { type: "progress", stage: "x", fraction: 1 });
  applyChanges(s, { type: "edit", name: "a", value: 1 });
  assert.equal(s.playing, 1);
  applyChanges(s, { type: "step", to: "next" });
  assert.equal(s.playing, null);
});

test("a question on screen counts as seen, on the stage's passes tab only", () => {
  const s = withAddMul();
  const first = s.questions.list[0];
  const key = `${s.questions.key}#${first.id}`;
  applyChanges(s, { type: "tab", tab: "order" });
  applyChanges(s, { type: "step", pos: pointBefore(s, first) });
  assert.ok(!s.questions.seen.has(key), "behind another tab, not seen");
  applyChanges(s, { type: "tab", tab: "passes" });
  assert.ok(s.questions.seen.has(key));
  applyChanges(s, { type: "question", key, status: { state: "right", tries: 1, reply: "1" } });
  assert.equal(s.questions.status.get(key).state, "right");
  applyChanges(s, { type: "questionsEnabled", on: false });
  assert.equal(s.questions.enabled, false);
});

// The position where a question is asked (questions.js).
function pointBefore(s, cp) {
  if (cp.pass === "forward") {
    return cp.step === 0 ? { pass: "start", index: -1 } : { pass: "forward", index: cp.step - 1 };
  }
  if (cp.step === 0) return { pass: "forward", index: s.answer.forward.length - 1 };
  return { pass: "backward", index: cp.step - 1 };
}

test("edited values: the graph is marked edited, and questions about the preset's numbers wait", () => {
  const all = answers();
  const s = createState();
  applyChanges(s, { type: "presetDetail", id: "square", detail: all.details.square });
  applyChanges(s, { type: "graph", answer: all.edited.square, source: { preset: "square", values: { a: 4 } } });
  assert.equal(s.values.edited, true);
  assert.ok(s.questions.waiting > 0);
  assert.equal(s.values.originals, null, "a load with edits is not the preset's own values");
});

test("a program's graph gets questions made from its trace; a learner's class graph gets none", () => {
  const all = answers();
  const s = createState();
  applyChanges(s, { type: "graph", answer: all.programs.power, source: { program: "p" } });
  assert.ok(s.questions.list.length > 0 && s.questions.list.every((q) => q.auto));
  applyChanges(s, { type: "graph", answer: answers().presets.diamond, source: { program: "p" }, kind: "code" });
  assert.deepEqual([s.questions.key, s.questions.list], ["code", []]);
  assert.equal(s.code.base.kind, "load", "the graph their run replaced is kept for an error to go back to");
});
