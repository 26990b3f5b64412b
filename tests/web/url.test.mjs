// url.js, the link vocabulary, in Node: what a link reads as, what a state writes as,
// and that every bad part becomes one sentence and the default, never an exception.
import assert from "node:assert/strict";
import { test } from "node:test";
import { site } from "./support.mjs";

const url = await import(site("url.js"));

test("a full link reads as its state", () => {
  const { state, problems, other } = url.parseLink("?gw=1&preset=diamond&v=a:3,b:-1.5&pass=backward&step=3"
    + "&order=b,d,c,a&cp=0&boot=stock");
  assert.deepEqual(problems, []);
  assert.equal(state.preset, "diamond");
  assert.deepEqual(state.values, { a: 3, b: -1.5 });
  assert.equal(state.pass, "backward");
  assert.equal(state.step, 3);
  assert.deepEqual(state.order, ["b", "d", "c", "a"]);
  assert.equal(state.cp, false);
  assert.deepEqual(other, [["boot", "stock"]]); // other parameters pass through
});

test("a state writes a link that reads back as the same state", () => {
  const state = { preset: "diamond", values: { a: 3, x: -0 }, pass: "experiment", step: 2, order: ["b", "d"],
    cp: false, embed: false, hide: [], start: null, open: null };
  const link = url.formatLink(state);
  assert.equal(link, "?gw=1&preset=diamond&v=a:3,x:-0&pass=experiment&step=2&order=b,d&cp=0");
  const back = url.parseLink(link);
  assert.deepEqual(back.problems, []);
  for (const key of ["preset", "pass", "step", "order", "cp"]) assert.deepEqual(back.state[key], state[key], key);
  assert.ok(Object.is(back.state.values.x, -0), "the sign of -0 is kept");
});

test("every part that cannot be used is one sentence, and the rest still reads", () => {
  const { state, problems } = url.parseLink("?preset=diamond&pass=sideways&step=-4&embed=2&hide=graph,table&cp=7");
  assert.equal(state.preset, "diamond");
  assert.equal(state.pass, null);
  assert.equal(state.embed, false);
  assert.ok(problems.length >= 4, problems.join(" | "));
  assert.ok(problems.some((p) => p.includes("embed=2")));
  assert.ok(problems.some((p) => p.includes('no part called "graph"')));
  assert.ok(problems.every((p) => typeof p === "string" && p.length < 200));
});

test("a link of another format version is refused whole", () => {
  const { problems, fatal } = url.parseLink("?gw=9&preset=diamond");
  assert.equal(fatal, true);
  assert.match(problems[0], /format version 9/);
});

test("a link naming two programs says so", () => {
  const { problems } = url.parseLink("?preset=diamond&program=a%3D1");
  assert.ok(problems.some((p) => p.includes("both preset and program")), problems.join(" | "));
});

test("a program survives compression into a link and back", async () => {
  const text = "a = 2\nb = a + 1\nc = 3 * a\nd = b * c  # ünïcode\n";
  const { encoded, format } = await url.encodeProgram(text);
  assert.equal(format, "deflate");
  assert.match(encoded, /^[A-Za-z0-9_-]+$/);
  assert.equal(await url.decodeProgram(encoded, format), text);
  await assert.rejects(url.decodeProgram("AAAA", "deflate"), Error); // damaged: a reason, never a hang
  const bytes = new Uint8Array([0, 1, 2, 250, 251, 255]);
  assert.deepEqual(url.fromBase64url(url.toBase64url(bytes)), bytes);
});
