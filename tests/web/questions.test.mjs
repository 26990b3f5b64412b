// The question model (web/questions.js) in Node, on the engine's own answers: every
// preset's questions are asked once, each at the position just before the frame that
// answers it, and revealed there only if seen; a reply is graded as the page shows the
// answer; and every mistake of the catalogue that a question lists is found from the
// number a learner would type. The browser test (tests/page/test_diagnosed_answers.py)
// checks the cards that draw this: the sentence under the field, announced, tied to it,
// on screen, and the nodes it names marked on the graph.
import assert from "node:assert/strict";
import { test } from "node:test";
import { answers, site } from "./support.mjs";

const { Stepper, buildTrace, decodeAnswer } = await import(site("stepper.js"));
const { cardsFor, diagnosis, graded, questionKey, questionSummary, questionsFor, showsNext } =
  await import(site("questions.js"));
const { createState } = await import(site("state.js"));
const { closedGroups } = await import(site("grouped.js"));

const OPEN = { state: "open", tries: 0, reply: "" };

// A graph's questions as changes.js makes them: {questions, answer} is all cardsFor reads.
function asked(subject, { edited = false, answer = null } = {}) {
  const all = answers();
  const isPreset = subject in all.details;
  const graph = decodeAnswer(answer ?? (isPreset ? all.presets[subject] ?? all.network : all.programs[subject]));
  const questions = createState().questions;
  Object.assign(questions, questionsFor(questions, graph, isPreset ? all.details[subject] : null, subject, edited));
  return { state: { questions, answer: graph }, answer: graph, detail: isPreset ? all.details[subject] : null };
}

function question(state, id) {
  const cp = state.questions.list.find((q) => q.id === id);
  assert.ok(cp, `no question ${id}`);
  return cp;
}

// Where a question is asked: just before the frame of its pass that answers it (a backward
// pass's seed, at the forward pass's last frame).
function askedAt(cp, answer) {
  if (cp.pass === "forward") return cp.step === 0 ? "start:-1" : `forward:${cp.step - 1}`;
  if (cp.step > 0) return `backward:${cp.step - 1}`;
  return answer.forward.length ? `forward:${answer.forward.length - 1}` : "start:-1";
}

// Every position of the graph's trace, in order.
function* positions(answer) {
  const stepper = new Stepper(buildTrace(answer));
  do yield stepper.view(); while (stepper.next());
}

for (const subject of [...Object.keys(answers().details), ...Object.keys(answers().programs)]) {
  test(`${subject}: each question asked once, where it belongs, and revealed only if seen`, () => {
    const { state, answer, detail } = asked(subject);
    const { questions } = state;
    if (detail) {
      // Every checkpoint the graph can show is on the list (a graph with closed groups
      // asks only those of a pass's last frame, which every view ends with).
      const closed = closedGroups(answer) > 0;
      const expected = detail.checkpoints.filter((c) => !closed || c.before_step === -1).map((c) => c.id);
      assert.deepEqual(questions.list.map((q) => q.id), expected);
    } else {
      assert.ok(questions.list.length > 0 && questions.list.every((q) => q.auto), "a program's questions are made");
    }
    // A learner who answers each question as it opens: every one opens exactly once, at its place.
    const opened = new Map();
    for (const view of positions(answer)) {
      for (let open; (open = cardsFor(state, view).find((c) => !c.folded));) {
        assert.ok(!opened.has(open.question.id), `${open.question.id} opened twice`);
        opened.set(open.question.id, `${view.pass}:${view.index}`);
        questions.seen.add(questionKey(questions, open.question));
        questions.status.set(questionKey(questions, open.question), { state: "right", tries: 1, reply: "" });
      }
      // ... and at the frame that answers it, it is shown folded, revealed.
      for (const card of cardsFor(state, view).filter((c) => c.mode === "revealed")) {
        assert.equal(`${card.question.pass}:${card.question.step}`, `${view.pass}:${view.index}`);
      }
    }
    for (const cp of questions.list) assert.equal(opened.get(cp.id), askedAt(cp, answer), cp.id);
    assert.deepEqual(questionSummary(questions), { total: questions.list.length, right: questions.list.length,
      waiting: 0 });

    // A learner who never had a question on screen is not told its answer by the step after.
    const fresh = asked(subject).state;
    for (const view of positions(answer)) {
      assert.deepEqual(cardsFor(fresh, view).filter((c) => c.mode === "revealed"), [], `${view.pass}:${view.index}`);
    }
  });
}

// question (preset or program, question id), reply, the mistake it is (worked out by hand):
//   add-mul: a = 2, b = 3, c = 4, d = a + b = 5, e = d·c = 20; d.grad = c = 4
const CASES = [
  ["add-mul", "first-step-d", "5", "own-value"], // d's own value for ∂e/∂d
  ["add-mul", "first-step-d", "20", "output-value"], // e's value
  ["add-mul", "first-step-d", "1", "no-local"], // e.grad, not times c
  ["add-mul", "seed", "0", "seed-zero"],
  ["add-mul", "seed", "20", "seed-output"],
  ["add-mul", "leaf-a", "1", "no-upstream"], // ∂d/∂a = 1 without d.grad = 4
  ["add-mul", "leaf-a", "5", "factors-added"], // 1 + 4
  ["add-mul", "leaf-a", "0", "input-no-grad"], // an input given no grad (or the sum d passing on 0)
  ["add-mul", "leaf-a", "2", "sum-halves"], // the sum d splitting its 4 between a and b
  ["square", "a-grad", "3", "overwrite"], // b = a·a: one of the two 3s
  ["double-diamond", "a-grad", "18", "one-path"], // a.grad = 7 + 18: the path through c only
  ["diamond", "a-grad", "54", "paths-multiplied"], // 9 × 6 instead of 9 + 6
  ["cos", "x2-grad", "-2.1411", "sub-sign"], // x2 is subtracted in x1 - x2
  ["neuron", "through-tanh", "0.2232", "tanh-input"], // 1 - n² with n = 0.8814
  ["neuron", "through-tanh", "0.7071", "tanh-itself"], // o itself
  ["diamond", "c-to-a", "6", "own-value"], // c = 3·a carries a's own 2 × c.grad 3, not 3 × 3
  ["cos", "square-local", "2", "power-base"], // ∂u²/∂u taken at the output u² = 1, not at u = -1
  ["power", "auto-b4", "2", "power-base"], // 2·u with u = (x1 - x2)**2 = 1, not (x1 - x2) = -1
];

for (const [subject, id, typed, mistake] of CASES) {
  test(`${subject} ${id}: ${typed} is ${mistake}, in the engine's own sentence`, () => {
    const cp = question(asked(subject).state, id);
    const found = diagnosis(cp, typed);
    assert.ok(found && found.mistakes.includes(mistake), `${typed} → ${JSON.stringify(found)}`);
    const expected = cp.ahead.wrong.find((e) =>
      e.mistakes.includes(mistake) && Math.abs(e.value - Number(typed)) < 1e-3);
    assert.equal(found.text, expected.text);
    assert.deepEqual([...found.nodes].sort(), [...expected.nodes].sort());
    assert.equal(graded(cp, OPEN, typed).status.state, "wrong");
    // The right answer, typed as the engine gives it, is right and diagnosed as nothing.
    assert.equal(graded(cp, OPEN, String(cp.answerValue)).status.state, "right");
    assert.equal(diagnosis(cp, String(cp.answerValue)), null);
  });
}

test("a number no mistake gives is wrong, with no diagnosis; a non-number costs no try", () => {
  const cp = question(asked("add-mul").state, "first-step-d");
  assert.equal(diagnosis(cp, "7"), null);
  const { status } = graded(cp, OPEN, " 7 ");
  assert.deepEqual(status, { state: "wrong", tries: 1, reply: "7" });
  assert.deepEqual(graded(cp, status, "seven"), { invalid: "number" });
  assert.deepEqual(graded(cp, status, "−4").status, { state: "wrong", tries: 2, reply: "−4" });
  assert.deepEqual(graded(cp, status, "16/4").status, { state: "right", tries: 2, reply: "16/4" });
});

test("the answer typed as the page shows it is right", () => {
  // cos's x1.grad is -2.14112, asked to 1e-4 and shown as -2.141 (lib/grading.js).
  const cp = question(asked("cos").state, "x1-grad");
  assert.equal(graded(cp, OPEN, "-2.141").status.state, "right");
  assert.equal(graded(cp, OPEN, "-2.15").status.state, "wrong");
});

test("a choice tied to a mistake names it; an untagged one is neutral; none picked is no try", () => {
  const { state, detail } = asked("square");
  const cp = question(state, "overwrite");
  const choices = detail.checkpoints.find((c) => c.id === "overwrite").choices;
  const nine = choices.indexOf("9");
  assert.deepEqual(diagnosis(cp, nine), { mistakes: ["output-value"], text: cp.ahead.choices[nine], nodes: [] });
  assert.equal(diagnosis(cp, choices.indexOf("0")), null);
  assert.deepEqual(graded(cp, OPEN, null), { invalid: "pick" });
  assert.equal(graded(cp, OPEN, cp.answerValue).status.state, "right");
  assert.equal(graded(cp, OPEN, nine).status.state, "wrong");
});

test("with edited values, the questions the graph answers use its numbers and the others wait", () => {
  // c = 10: d.grad on (a+b)·c is 10; d's own value is still 5, the output 50.
  const { state } = asked("add-mul", { edited: true, answer: answers().edited["add-mul"] });
  const cp = question(state, "first-step-d");
  assert.equal(cp.answerValue, 10);
  assert.ok(diagnosis(cp, "50").text.includes("50 is the output's value (e)"));
  assert.equal(graded(cp, OPEN, "10").status.state, "right");
  // square with a = 4: its choice about a = 3's numbers waits for the preset's values.
  const square = asked("square", { edited: true, answer: answers().edited.square }).state.questions;
  const all = answers().details.square.checkpoints;
  assert.equal(square.list.length + square.waiting, all.length);
  assert.ok(square.waiting > 0, "a question about the preset's own numbers waits");
  assert.ok(square.list.every((q) => q.ahead?.value != null && q.kind === "number"));
  assert.deepEqual(square.list.map((q) => q.answerValue), square.list.map((q) => q.ahead.value));
});

test("the card promises that the next step shows the answer only when it does", () => {
  const { state } = asked("add-mul");
  for (const cp of state.questions.list) assert.equal(showsNext(cp), cp.ahead?.value != null, cp.id);
  const program = asked("power").state;
  assert.ok(program.questions.list.every(showsNext));
});
