// Checkpoint questions: a preset's [[checkpoint]] entries (presets/README.md), asked
// while the learner stands just before the frame that reveals the answer.
//
// A checkpoint {pass, before_step: N} is *asked* at the position just before frame
// N of that pass (N = -1 is the pass's last frame) and *revealed* at frame N itself.
// One question is open at a time; answered and revealed ones fold to a line with the
// answer (the explanation a click away). Stepping is never blocked: each step still
// reveals exactly one frame; the card says the next step will give the answer away,
// and a question the learner never saw is not revealed. The learner types a number
// (or picks a choice) and presses Check: wrong answers can be tried again, and Show
// answer reveals it at once.
//
// With edited input values, a question the engine answers on the graph itself
// (`check = "b.grad"`, no `values`, no `order`) is asked with the new numbers;
// the others only make sense for the preset's own numbers and wait until the
// values are reset. A learner's own program gets questions made from its trace.
//
// A wrong answer is diagnosed on the spot: the engine sends, with the graph, each
// question's right value, a hint and the numbers the mistakes of its catalogue
// (engine/mistakes.py) give there (answer.questions). A reply that is one of them gets
// that mistake's sentence under the field and its nodes marked on the graph; another
// number gets a neutral line. A second wrong answer adds the hint, a third the answer.

import { factor, fmt } from "../lib/format.js";
import { bringIntoView, h, parseNumber } from "../lib/dom.js";
import { closedGroups } from "../grouped.js";
import { diagnosed, isRight } from "../lib/grading.js";

// The questions are the widget's state (state.questions: on or off, what the learner
// did with each, which ones have been on screen), written by update.js; this panel
// draws them and says what the learner did (onAnswer, onToggle).

/**
 * @typedef {import("../state.js").State} State
 * @typedef {import("../state.js").View} View
 */

// The questions of a new graph and when they are asked (update.js keeps them in
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
  for (const cp of detail?.checkpoints ?? []) {
    if (closed && cp.before_step !== -1) continue;
    const frames = cp.pass === "forward" ? answer.forward : answer.backward;
    const step = cp.before_step === -1 ? frames.length - 1 : cp.before_step;
    if (!(step >= 0 && step < frames.length)) continue;
    const ahead = answered.get(cp.id);
    let answerValue = cp.answer;
    if (edited) {
      // Only the engine's own answer on this graph fits new values (none for a question
      // about other values or another visit order).
      if (ahead?.value == null || cp.kind !== "number") {
        waiting += 1;
        continue;
      }
      answerValue = ahead.value;
    }
    list.push({ ...cp, step, answerValue, edited, ahead });
  }
  if (!detail) list.push(...generated(answer));
  return { key, list, waiting };
}

function statusKey(questions, cp) {
  return `${questions.key}#${cp.id}`;
}

// What the learner did with a question so far: {state: "open" | "right" | "wrong" |
// "revealed", tries, reply}.
function statusOf(questions, cp) {
  return questions.status.get(statusKey(questions, cp)) ?? { state: "open", tries: 0, reply: "" };
}

function answered(questions, cp) {
  const { state } = statusOf(questions, cp);
  return state === "right" || state === "revealed";
}

// The cards for a position. One question at a time: the first one asked here that is
// still open; the ones answered already (here, or revealed by the step just taken)
// are folded to a line. A question the learner never had on screen (stepped past
// while another was open) is not revealed: it is asked again when they come back.
/** @param {State} state @param {View} view */
function cardsFor(state, view) {
  const questions = state.questions;
  if (!questions.enabled || !questions.list.length || !state.answer) return [];
  const { pass, index } = view;
  const nForward = state.answer.forward.length;
  const asked = [];
  const revealed = [];
  for (const cp of questions.list) {
    let ask;
    if (cp.pass === "forward") {
      ask = (cp.step === 0 && pass === "start") || (pass === "forward" && index === cp.step - 1);
    } else {
      ask = cp.step === 0
        ? (pass === "forward" && index === nForward - 1) || (nForward === 0 && pass === "start")
        : pass === "backward" && index === cp.step - 1;
    }
    if (ask) asked.push(cp);
    else if (pass === cp.pass && index === cp.step && questions.seen.has(statusKey(questions, cp))) revealed.push(cp);
  }
  const open = asked.find((cp) => !answered(questions, cp));
  return [
    ...(open ? [{ cp: open, mode: "ask", folded: false }] : []),
    ...asked.filter((cp) => cp !== open && answered(questions, cp)).map((cp) => ({ cp, mode: "ask", folded: true })),
    ...revealed.map((cp) => ({ cp, mode: "revealed", folded: true })),
  ];
}

// The keys of the questions a view puts on screen, open (update.js marks them seen).
export function questionsOnScreen(state, view) {
  return cardsFor(state, view).filter((c) => !c.folded).map((c) => statusKey(state.questions, c.cp));
}

// How many questions this graph has, and how many were answered right.
export function questionSummary(questions) {
  let right = 0;
  for (const cp of questions.list) if (statusOf(questions, cp).state === "right") right += 1;
  return { total: questions.list.length, right, waiting: questions.waiting };
}

export class Checkpoints {
  /**
   * @param {HTMLElement} box
   * @param {{onTryOrder?: (labels: string[]) => void, onToggle?: (on: boolean) => void,
   *          markAsked?: (label: string | null) => void, markNamed?: (labels: string[]) => void,
   *          onAnswer?: (key: string, status: import("../state.js").QuestionStatus) => void}} [callbacks]
   */
  constructor(box, {
    onTryOrder = () => {}, onToggle = () => {}, markAsked = () => {}, markNamed = () => {}, onAnswer = () => {},
  } = {}) {
    this.box = box;
    this.markAsked = markAsked; // outline the node the open question is about (or none)
    this.markNamed = markNamed; // mark the nodes a diagnosis mentions (labels; [] for none)
    this.onTryOrder = onTryOrder;
    this.onToggle = onToggle;
    this.onAnswer = onAnswer;
    this.shown = ""; // which cards are on screen, so a re-render keeps focus and typing
    /** @type {HTMLInputElement | null} */
    this.switchInput = null;
    box.classList.add("checkpoints");
  }

  // The switch that turns questions on and off (built by the page's learn bar).
  makeSwitch(on) {
    const input = h("input", {
      type: "checkbox", id: "checkpoint-switch", class: "switch-input", checked: on,
      onchange: () => this.onToggle(input.checked),
    });
    this.switchInput = input;
    return h("div", { class: "switch" },
      input,
      // " as I step" is for screen readers only on a phone (style.css's lesson bar).
      h("label", { for: "checkpoint-switch" }, "Ask me questions", h("span", { class: "label-long" }, " as I step")));
  }

  // Draw the questions of this view (render.js, at every render). visible: the
  // stage's "Step the passes" tab is in front.
  /** @param {State} state @param {View} view @param {boolean} visible */
  draw(state, view, visible) {
    this.questions = state.questions;
    if (this.switchInput) this.switchInput.checked = state.questions.enabled;
    const cards = cardsFor(state, view);
    // The node the open question is about is outlined on the graph, beside its numbers
    // (every update: a redrawn graph has new elements).
    const open = cards.find((c) => !c.folded)?.cp;
    this.markAsked(askedLabel(open));
    // ... and the nodes a diagnosed wrong answer names, while it is on the card.
    const st = open ? this.statusOf(open) : null;
    this.markNamed(st?.state === "wrong" ? diagnosis(open, st.reply)?.nodes ?? [] : []);
    const shown = cards.map((c) => `${c.cp.id}:${c.mode}:${c.folded}`).join("|")
      + `@${state.questions.key}:${state.questions.enabled}`;
    if (shown === this.shown) return;
    this.shown = shown;
    this.box.hidden = cards.length === 0;
    this.box.replaceChildren(...cards.map((c) => (c.folded ? this.folded(c.cp, c.mode) : this.card(c.cp))));
    this.box.dataset.count = String(cards.length);
    // A new question must be seen before the step that answers it (lib/dom.js).
    if (visible) bringIntoView(this.box.querySelector(".checkpoint:not(.is-folded)"));
  }

  statusOf(cp) {
    return statusOf(this.questions, cp);
  }

  // An answered or revealed question, folded to one line: the answer, with the
  // question and the explanation a click away.
  folded(cp, mode) {
    const st = this.statusOf(cp);
    const [verdict, ...parts] = this.answerParts(cp, st);
    return h("details", {
      class: `checkpoint is-folded is-${mode} state-${st.state}`,
      data: { checkpoint: cp.id, mode, state: st.state },
    },
    h("summary", { class: "cp-summary" }, verdict, h("span", { class: "cp-summary-q" }, cp.question)),
    h("p", { class: "cp-question" }, cp.question),
    ...parts);
  }

  // The open question: asked, with a field (or choices), Check and Show answer.
  card(cp) {
    const st = this.statusOf(cp);
    const where = cp.pass === "forward"
      ? `forward pass, node ${cp.step + 1}`
      : cp.step === 0 ? "backward pass, the seed" : `backward pass, visit ${cp.step}`;
    const qid = `cp-${cp.id}-q`;
    const card = h("section", {
      class: `checkpoint is-ask state-${st.state}`, "aria-labelledby": qid,
      data: { checkpoint: cp.id, mode: "ask", state: st.state },
    });
    // An answer checked before (drawn again after a step away and back): still the checked one.
    if (st.state === "wrong" && st.reply !== null && st.reply !== undefined) card.dataset.checked = String(st.reply);
    const head = h("p", { class: "cp-head" },
      h("span", { class: "cp-badge", "aria-hidden": "true" }, "?"),
      h("span", {}, "Your turn"),
      h("span", { class: "cp-where" }, `· ${where}`));
    const question = h("p", { class: "cp-question", id: qid }, cp.question);
    const about = askedLabel(cp);
    if (about) head.append(h("span", { class: "cp-where" }, `· ${about} is outlined on the graph`));
    card.append(head, question);
    if (cp.edited) {
      card.append(h("p", { class: "cp-note" },
        "With your new input values the answer is worked out from them, not the preset's numbers."));
    }
    if (cp.auto && cp.step === 0) {
      card.append(h("p", { class: "cp-note" },
        "Questions made from your program: one before each backward visit. The switch turns them off."));
    }
    const feedback = h("div", { class: "cp-feedback", id: `cp-${cp.id}-fb`, "aria-live": "polite" });
    const form = h("form", { class: "cp-form", novalidate: true });
    let read;
    if (cp.kind === "choice") {
      const group = h("fieldset", { class: "cp-choices" }, h("legend", { class: "visually-hidden" }, "Choices"));
      cp.choices.forEach((choice, i) => {
        const id = `cp-${cp.id}-c${i}`;
        group.append(h("div", { class: "cp-choice" },
          h("input", {
            type: "radio", name: `cp-${cp.id}`, id, value: String(i), checked: String(st.reply) === String(i),
            "aria-describedby": `cp-${cp.id}-fb`,
          }),
          h("label", { for: id }, choice)));
      });
      form.append(group);
      read = () => {
        const picked = form.querySelector("input[type=radio]:checked");
        return picked ? Number(picked.value) : null;
      };
    } else {
      const input = h("input", {
        type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
        class: "cp-input", id: `cp-${cp.id}-in`, "aria-labelledby": qid, value: st.reply ?? "",
        "aria-describedby": `cp-${cp.id}-fb`,
      });
      form.append(h("label", { class: "visually-hidden", for: input.id }, "Your answer"), input);
      read = () => input.value;
    }
    const check = h("button", { type: "submit", class: "button primary small" }, "Check");
    const show = h("button", {
      type: "button", class: "button quiet small",
      onclick: () => this.reveal(cp),
    }, "Show answer");
    form.append(h("span", { class: "cp-buttons" }, check, show));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.answerWith(cp, read(), feedback, card);
    });
    card.append(form);
    if (st.state === "wrong") feedback.append(...this.wrongText(cp, st.reply, st.tries));
    else feedback.append(h("p", { class: "cp-hint" }, showsNext(cp)
      ? "Answer before you step on: the next step shows it."
      : "No step shows this one: check your answer, or show it."));
    card.append(feedback);
    return card;
  }

  // The learner's answer: checked here, kept in the state (onAnswer). A right one folds
  // the card (the next render draws it so); a wrong one is said on the card as it is,
  // so the field keeps its focus.
  answerWith(cp, reply, feedback, card) {
    const key = statusKey(this.questions, cp);
    const st = { ...this.statusOf(cp) };
    st.tries += 1;
    let right;
    if (cp.kind === "choice") {
      if (reply === null) {
        feedback.replaceChildren(h("p", { class: "cp-wrong" }, "Pick one of the answers first."));
        return;
      }
      st.reply = String(reply);
      right = reply === cp.answerValue;
    } else {
      const x = parseNumber(reply);
      st.reply = String(reply).trim();
      if (x === null) {
        st.tries -= 1;
        feedback.replaceChildren(h("p", { class: "cp-wrong" }, "Type a number, like 6, -1.5 or 0.25."));
        card.dataset.state = "invalid";
        return;
      }
      right = isRight(x, Number(cp.answerValue), tolerance(cp)); // as shown counts (lib/grading.js)
    }
    st.state = right ? "right" : "wrong";
    // What was checked: Enter or Escape on it hands the keys back to the stage (widget.js).
    card.dataset.checked = st.reply;
    this.onAnswer(key, st);
    if (right) {
      // The card has folded to its answer and the next question here (if any) opened;
      // the focus goes to the next question's field, or else to the folded answer.
      this.focusAfter(cp);
    } else {
      card.dataset.state = st.state;
      card.className = card.className.replace(/state-\S+/, `state-${st.state}`);
      feedback.replaceChildren(...this.wrongText(cp, st.reply, st.tries));
      this.markNamed(diagnosis(cp, st.reply)?.nodes ?? []);
      bringIntoView(feedback); // below the field: on a phone it may start off the screen
    }
  }

  // What a wrong answer says: the mistake it matches (its sentence names what the
  // learner did and the fact that fixes it), or a neutral line; from the second wrong
  // answer on, a hint too, and from the third, the answer.
  wrongText(cp, reply, tries) {
    const shown = cp.kind === "choice" ? `“${cp.choices[Number(reply)]}”` : reply;
    const found = diagnosis(cp, reply);
    const lines = [found
      ? h("p", { class: "cp-wrong cp-diagnosis", data: { mistake: found.mistakes.join(" ") } },
        h("strong", {}, "✗ "), found.text)
      : h("p", { class: "cp-wrong" },
        h("strong", {}, "✗ Not quite. "), `${shown} is not it. Try again, or press Show answer.`)];
    const hint = cp.hint ?? cp.ahead?.hint;
    if (tries >= 2 && hint) lines.push(h("p", { class: "cp-next-hint" }, h("strong", {}, "Hint: "), hint));
    if (tries >= 3 || (tries >= 2 && !hint)) {
      lines.push(h("p", { class: "cp-answer-shown" },
        h("strong", {}, "The answer: "), this.answerText(cp), `. ${cp.explanation}`));
    }
    return lines;
  }

  reveal(cp) {
    const st = { ...this.statusOf(cp) };
    if (st.state !== "right") st.state = "revealed";
    this.onAnswer(statusKey(this.questions, cp), st);
    this.focusAfter(cp);
  }

  focusAfter(cp) {
    const next = this.box.querySelector(".checkpoint:not(.is-folded) input");
    /** @type {HTMLElement | null} */ (next ?? this.box.querySelector(`[data-checkpoint="${cp.id}"] summary`))?.focus();
  }

  answerText(cp) {
    if (cp.kind === "choice") return cp.choices[cp.answerValue];
    return fmt(cp.answerValue);
  }

  // A folded question's verdict line (first), explanation and any "Run this order".
  answerParts(cp, st) {
    const parts = [];
    const answer = this.answerText(cp);
    if (st.state === "right") {
      parts.push(h("p", { class: "cp-verdict cp-right" }, h("strong", {}, "✓ Right: "), answer));
    } else if (st.state === "wrong") {
      parts.push(h("p", { class: "cp-verdict cp-missed" },
        h("strong", {}, "The answer: "), answer,
        ` (you said ${cp.kind === "choice" ? cp.choices[Number(st.reply)] : st.reply})`));
    } else {
      parts.push(h("p", { class: "cp-verdict cp-shown" }, h("strong", {}, "The answer: "), answer));
    }
    if (cp.edited && !cp.auto) {
      parts.push(h("p", { class: "cp-explanation" },
        `Worked out from the trace with your values. (For the preset's own numbers: ${cp.explanation})`));
    } else {
      parts.push(h("p", { class: "cp-explanation" }, cp.explanation));
    }
    if (cp.order && !cp.edited) {
      parts.push(h("p", {},
        h("button", {
          type: "button", class: "button small", onclick: () => this.onTryOrder(cp.order),
        }, "Run this order")));
    }
    return parts;
  }
}

// The node a question is about: "d" for check = "d.grad" or "e->d.local" (a question
// with no check, such as a choice about why, is about no one node).
function askedLabel(cp) {
  return /^(?:.+?->)?(.+)\.(grad|data|local|contribution)$/.exec(cp?.check ?? "")?.[1] ?? null;
}

// A numeric reply is right within the question's tolerance (or as its answer is shown:
// lib/grading.js).
function tolerance(cp) {
  const t = Number(cp.tolerance ?? 1e-3);
  // Edited values (or a learner's program) can make the answer large: allow relative slack too.
  return cp.edited || cp.auto ? Math.max(t, Math.abs(Number(cp.answerValue)) * 1e-4) : t;
}

// Whether the frame a question comes before shows its answer: a generated question's does,
// and an authored one the engine answered on the graph on screen (engine/questions.py gives
// no value for a what-if on other values or another visit order, nor for a count or a belief).
function showsNext(cp) {
  return Boolean(cp.auto || cp.ahead?.value != null);
}

// The mistake a wrong reply is, as the engine worked it out ahead ({mistakes, text,
// nodes}), or null: a choice the preset ties to a mistake, or a number one of the
// catalogue's mistakes gives here (compared as a right answer is).
export function diagnosis(cp, reply) {
  const ahead = cp?.ahead;
  if (!ahead) return null;
  if (cp.kind === "choice") {
    const i = Number(reply);
    const text = ahead.choices?.[i];
    return text ? { mistakes: [cp.choice_mistakes?.[i] ?? ""], text, nodes: [] } : null;
  }
  const x = parseNumber(reply);
  if (x === null) return null;
  return diagnosed(x, ahead.wrong ?? [], Number(cp.answerValue), tolerance(cp));
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
