// The question model: a graph's questions, when each is asked and revealed, how a reply
// is graded and which mistake a wrong one is. Pure (no DOM): changes.js keeps what it
// returns in state.questions, panels/question-cards.js draws the cards, and the Node tests
// (tests/web/questions.test.mjs) run it on the engine's own answers.
//
// Questions are a preset's [[checkpoint]] entries (presets/README.md), asked while the
// learner stands just before the frame that reveals the answer. A checkpoint {pass,
// before_step: N} is *asked* at the position just before frame N of that pass (N = -1 is
// the pass's last frame) and *revealed* at frame N itself. One question is open at a time;
// answered and revealed ones fold to a line with the answer. Stepping is never blocked,
// and a question the learner never saw is not revealed.
//
// With edited input values, a question the engine answers on the graph itself (`check =
// "b.grad"`, no `values`, no `order`) is asked with the new numbers; the others only make
// sense for the preset's own numbers and wait until the values are reset. A learner's own
// program gets questions made from its trace (generated).
//
// A wrong answer is diagnosed on the spot: the engine sends, with the graph, each
// question's right value, a hint and the numbers the mistakes of its catalogue
// (engine/mistakes.py) give there (answer.questions); diagnosis() finds the one a reply is.

import { factor, fmt, parseNumber } from "./lib/format.js";
import { closedGroups } from "./grouped.js";
import { diagnosed, isRight } from "./lib/grading.js";

/**
 * @typedef {import("./state.js").State} State
 * @typedef {import("./state.js").View} View
 * @typedef {import("./state.js").QuestionStatus} QuestionStatus
 */

// The questions of a new graph and when they are asked (changes.js keeps them in
// state.questions): {key, list, waiting}.
//   detail  the preset's detail ({checkpoints}) or null for a program
//   edited  true if the input values differ from the preset's
export function questionsFor(questions, answer, detail, sourceKey, edited) {
  // A graph's key holds a whole program's text; statuses are keyed by a short
  // number standing for it, so that looking one up does not hash the program.
  if (!questions.graphKeys.has(sourceKey)) questions.graphKeys.set(sourceKey, `g${questions.graphKeys.size + 1}`);
  const key = questions.graphKeys.get(sourceKey);
  let waiting = 0;
  const list = [];
  const answered = new Map((answer.questions ?? []).map((q) => [q.id, q]));
  // A preset's steps count the frames of its graph drawn node by node: while a group is
  // closed the frames are fewer and others, so only the questions of a pass's last frame,
  // which every view ends with, are asked then.
  const closed = closedGroups(answer) > 0;
  for (const question of detail?.checkpoints ?? []) {
    if (closed && question.before_step !== -1) continue;
    const frames = question.pass === "forward" ? answer.forward : answer.backward;
    const step = question.before_step === -1 ? frames.length - 1 : question.before_step;
    if (!(step >= 0 && step < frames.length)) continue;
    const ahead = answered.get(question.id);
    let answerValue = question.answer;
    if (edited) {
      // Only the engine's own answer on this graph fits new values (none for a question
      // about other values or another visit order).
      if (ahead?.value == null || question.kind !== "number") {
        waiting += 1;
        continue;
      }
      answerValue = ahead.value;
    }
    list.push({ ...question, step, answerValue, edited, ahead });
  }
  if (!detail) list.push(...generated(answer));
  return { key, list, waiting };
}

export function questionKey(questions, question) {
  return `${questions.key}#${question.id}`;
}

// What the learner did with a question so far: {state: "open" | "right" | "wrong" |
// "revealed", tries, reply}.
export function statusOf(questions, question) {
  return questions.status.get(questionKey(questions, question)) ?? { state: "open", tries: 0, reply: "" };
}

function answered(questions, question) {
  const { state } = statusOf(questions, question);
  return state === "right" || state === "revealed";
}

// The cards for a position. One question at a time: the first one asked here that is
// still open; the ones answered already (here, or revealed by the step just taken)
// are folded to a line. A question the learner never had on screen (stepped past
// while another was open) is not revealed: it is asked again when they come back.
/** @param {State} state @param {View} view */
export function cardsFor(state, view) {
  const questions = state.questions;
  if (!questions.enabled || !questions.list.length || !state.answer) return [];
  const { pass, index } = view;
  const nForward = state.answer.forward.length;
  const asked = [];
  const revealed = [];
  for (const question of questions.list) {
    let ask;
    if (question.pass === "forward") {
      ask = (question.step === 0 && pass === "start") || (pass === "forward" && index === question.step - 1);
    } else {
      ask = question.step === 0
        ? (pass === "forward" && index === nForward - 1) || (nForward === 0 && pass === "start")
        : pass === "backward" && index === question.step - 1;
    }
    const seen = questions.seen.has(questionKey(questions, question));
    if (ask) asked.push(question);
    else if (pass === question.pass && index === question.step && seen) revealed.push(question);
  }
  const open = asked.find((question) => !answered(questions, question));
  return [
    ...(open ? [{ question: open, mode: "ask", folded: false }] : []),
    ...asked.filter((question) => question !== open && answered(questions, question))
      .map((question) => ({ question, mode: "ask", folded: true })),
    ...revealed.map((question) => ({ question, mode: "revealed", folded: true })),
  ];
}

// The keys of the questions a view puts on screen, open (changes.js marks them seen).
export function questionsOnScreen(state, view) {
  return cardsFor(state, view).filter((c) => !c.folded).map((c) => questionKey(state.questions, c.question));
}

// How many questions this graph has, and how many were answered right.
export function questionSummary(questions) {
  let right = 0;
  for (const question of questions.list) if (statusOf(questions, question).state === "right") right += 1;
  return { total: questions.list.length, right, waiting: questions.waiting };
}

// The node a question is about: "d" for check = "d.grad" or "e->d.local" (a question
// with no check, such as a choice about why, is about no one node).
export function askedLabel(question) {
  return /^(?:.+?->)?(.+)\.(grad|data|local|contribution)$/.exec(question?.check ?? "")?.[1] ?? null;
}

// A numeric reply is right within the question's tolerance (or as its answer is shown:
// lib/grading.js).
function tolerance(question) {
  const t = Number(question.tolerance ?? 1e-3);
  // Edited values (or a learner's program) can make the answer large: allow relative slack too.
  return question.edited || question.auto ? Math.max(t, Math.abs(Number(question.answerValue)) * 1e-4) : t;
}

// A reply checked against the question: {status} (the question's status after it: a try
// more, the reply as typed, right or wrong), or {invalid} when the reply is no answer at
// all ("pick": no choice picked; "number": not a number), which costs no try.
/** @param {any} question @param {QuestionStatus} status @param {string | number | null} reply */
export function graded(question, status, reply) {
  if (question.kind === "choice") {
    if (reply === null) return { invalid: "pick" };
    const state = reply === question.answerValue ? "right" : "wrong";
    return { status: { ...status, tries: status.tries + 1, reply: String(reply), state } };
  }
  const x = parseNumber(reply);
  if (x === null) return { invalid: "number" };
  // (right as shown counts: lib/grading.js)
  const state = isRight(x, Number(question.answerValue), tolerance(question)) ? "right" : "wrong";
  return { status: { ...status, tries: status.tries + 1, reply: String(reply).trim(), state } };
}

// Whether the frame a question comes before shows its answer: a generated question's does,
// and an authored one the engine answered on the graph on screen (engine/questions.py gives
// no value for a what-if on other values or another visit order, nor for a count or a belief).
export function showsNext(question) {
  return Boolean(question.auto || question.ahead?.value != null);
}

// The mistake a wrong reply is, as the engine worked it out ahead ({mistakes, text,
// nodes}), or null: a choice the preset ties to a mistake, or a number one of the
// catalogue's mistakes gives here (compared as a right answer is).
export function diagnosis(question, reply) {
  const ahead = question?.ahead;
  if (!ahead) return null;
  if (question.kind === "choice") {
    const i = Number(reply);
    const text = ahead.choices?.[i];
    return text ? { mistakes: [question.choice_mistakes?.[i] ?? ""], text, nodes: [] } : null;
  }
  const x = parseNumber(reply);
  if (x === null) return null;
  return diagnosed(x, ahead.wrong ?? [], Number(question.answerValue), tolerance(question));
}

// Questions for a learner's own program, made from its trace: the engine chose them
// (engine/questions.py: the seed, then before each backward visit that pushes something,
// the grad of the first node it pushes into) and worked out what wrong answers mean;
// their words are written here, when a question is shown: a big program has a thousand.
export function generated(answer) {
  const nodes = answer.nodes;
  const backward = answer.backward;
  const out = [];
  for (const ahead of answer.questions ?? []) {
    const frame = backward[ahead.step];
    if (!frame) continue;
    const label = nodes[ahead.node].label;
    const base = { id: ahead.id, auto: true, pass: "backward", step: ahead.step, kind: "number", tolerance: 1e-3,
      check: ahead.check, ahead };
    if (frame.kind === "seed") {
      out.push({ ...base,
        question: `The backward pass starts by setting the output's grad, ${label}.grad. To what?`,
        answerValue: frame.after,
        explanation: `${label}.grad asks how much ${label} moves when ${label} moves: one for one, so the seed is 1.`,
      });
      continue;
    }
    const pushes = frame.pushes.filter((p) => p.parent === ahead.node);
    const after = pushes[pushes.length - 1].after; // its grad after this visit
    const node = nodes[frame.node];
    out.push({ ...base,
      get question() {
        return `Visiting ${node.label} = ${node.expr}: what will ${label}.grad be after this visit?`;
      },
      answerValue: after,
      get explanation() {
        const sums = pushes.map((p) =>
          `${p.rule}: ${factor(p.local)} × ${factor(p.upstream)} = ${fmt(p.contribution)}`);
        return `${sums.join("; ")}. `
          + `Added to what ${label}.grad held (${fmt(pushes[0].before)}), that makes ${fmt(after)}.`;
      },
    });
  }
  return out;
}
