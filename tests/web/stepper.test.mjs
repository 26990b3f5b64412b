// The Stepper (stepper.js) in Node, on the engine's own answers for every preset: it walks
// every frame, stepping back returns exactly the state it left, the scrubber's line and
// next() agree, and the last backward frame shows the preset's [expect] grads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answers, site } from "./support.mjs";

const { Stepper, buildTrace, decodeAnswer } = await import(site("stepper.js"));
const { presets, expected } = answers();

// As tests/support/presets.py's agrees(): [expect] writes a number to the digits shown, so
// the engine's number agrees when it rounds to it.
const close = (actual, want) => {
  const decimals = (String(want).split(".")[1] ?? "").length;
  return Math.abs(actual - want) <= 0.5 * 10 ** -decimals + 1e-12;
};

for (const [id, answer] of Object.entries(presets)) {
  test(`${id}: every frame, forward and back, and the preset's grads at the end`, () => {
    decodeAnswer(answer);
    const stepper = new Stepper(buildTrace(answer));
    const seen = [JSON.stringify(stepper.view())];
    let steps = 0;
    while (stepper.next()) {
      steps += 1;
      assert.equal(stepper.offset, steps, "the scrubber's line counts next()'s steps");
      seen.push(JSON.stringify(stepper.view()));
    }
    assert.equal(steps, stepper.steps);
    assert.equal(steps, answer.forward.length + answer.backward.length);
    assert.ok(stepper.atEnd());
    const view = stepper.view();
    for (const node of answer.nodes) {
      const want = expected[id][node.label];
      if (!want) continue;
      assert.ok(close(view.data[node.id], want[0]), `${id} ${node.label}.data ${view.data[node.id]} vs ${want[0]}`);
      assert.ok(close(view.grad[node.id], want[1]), `${id} ${node.label}.grad ${view.grad[node.id]} vs ${want[1]}`);
    }
    // Back the whole way: each state exactly as it was on the way there.
    for (let k = seen.length - 1; k > 0; k--) {
      assert.equal(JSON.stringify(stepper.view()), seen[k], `step ${k} on the way back`);
      assert.ok(stepper.prev());
    }
    assert.ok(stepper.atStart() && !stepper.prev());
    // Any step reached directly, as the scrubber does.
    for (const k of [0, 1, Math.floor(seen.length / 2), seen.length - 1]) {
      stepper.goTo(k);
      assert.equal(JSON.stringify(stepper.view()), seen[k], `goTo(${k})`);
    }
  });
}

test("a backward frame's grads come only from its pushes and the seed", () => {
  const answer = decodeAnswer(presets.square);
  const stepper = new Stepper(buildTrace(answer));
  stepper.startBackward();
  const seed = stepper.view();
  assert.equal(seed.grad[answer.output], 1);
  stepper.toEnd();
  const a = answer.nodes.find((n) => n.label === "a").id;
  assert.equal(stepper.view().grad[a], 6); // both edges of a·a, 3 + 3
});
