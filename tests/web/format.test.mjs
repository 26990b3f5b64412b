// lib/format.js in Node: a number as a learner reads it, and as a factor of a written product
// (a negative one in brackets, as the engine's sentences write it: engine/text.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { site } from "./support.mjs";

const { factor, fmt } = await import(site("lib/format.js"));

test("fmt writes four significant digits, integers bare", () => {
  assert.equal(fmt(0.78969), "0.7897");
  assert.equal(fmt(-0.394913), "-0.3949");
  assert.equal(fmt(15), "15");
  assert.equal(fmt(-0), "-0");
});

test("a negative factor is bracketed, a positive one is not", () => {
  assert.equal(factor(-0.394913), "(-0.3949)");
  assert.equal(factor(-3), "(-3)");
  assert.equal(factor(0.5528), "0.5528");
  assert.equal(factor(6), "6");
  assert.equal(`${factor(-0.5134)} × ${factor(-0.3949)}`, "(-0.5134) × (-0.3949)");
});
