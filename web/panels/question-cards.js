// The question cards (the model is questions.js): the open question with its field or
// choices, Check and Show answer; answered and revealed ones folded to a line with the
// answer (the explanation a click away). The card says whether the next step gives the
// answer away. A wrong reply gets the sentence of the mistake it is (its nodes marked on
// the graph) or a neutral line; a second wrong answer adds the hint, a third the answer.

import { fmt } from "../lib/format.js";
import { bringIntoView, h } from "../lib/dom.js";
import { askedLabel, cardsFor, diagnosis, graded, questionKey, showsNext, statusOf } from "../questions.js";

// The questions are the widget's state (state.questions: on or off, what the learner
// did with each, which ones have been on screen), written through update.js; this panel
// draws them and says what the learner did (onAnswer, onToggle).

/**
 * @typedef {import("../state.js").State} State
 * @typedef {import("../state.js").View} View
 */

export class QuestionCards {
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
    const open = cards.find((c) => !c.folded)?.question;
    this.markAsked(askedLabel(open));
    // ... and the nodes a diagnosed wrong answer names, while it is on the card.
    const st = open ? this.statusOf(open) : null;
    this.markNamed(st?.state === "wrong" ? diagnosis(open, st.reply)?.nodes ?? [] : []);
    const shown = cards.map((c) => `${c.question.id}:${c.mode}:${c.folded}`).join("|")
      + `@${state.questions.key}:${state.questions.enabled}`;
    if (shown === this.shown) return;
    this.shown = shown;
    this.box.hidden = cards.length === 0;
    this.box.replaceChildren(...cards.map((c) => (c.folded ? this.folded(c.question, c.mode) : this.card(c.question))));
    this.box.dataset.count = String(cards.length);
    // A new question must be seen before the step that answers it (lib/dom.js).
    if (visible) bringIntoView(this.box.querySelector(".checkpoint:not(.is-folded)"));
  }

  statusOf(question) {
    return statusOf(this.questions, question);
  }

  // An answered or revealed question, folded to one line: the answer, with the
  // question and the explanation a click away.
  folded(question, mode) {
    const st = this.statusOf(question);
    const [verdict, ...parts] = this.answerParts(question, st);
    return h("details", {
      class: `checkpoint is-folded is-${mode} state-${st.state}`,
      data: { checkpoint: question.id, mode, state: st.state },
    },
    h("summary", { class: "cp-summary" }, verdict, h("span", { class: "cp-summary-q" }, question.question)),
    h("p", { class: "cp-question" }, question.question),
    ...parts);
  }

  // The open question: asked, with a field (or choices), Check and Show answer.
  card(question) {
    const st = this.statusOf(question);
    const where = question.pass === "forward"
      ? `forward pass, node ${question.step + 1}`
      : question.step === 0 ? "backward pass, the seed" : `backward pass, visit ${question.step}`;
    const qid = `cp-${question.id}-q`;
    const card = h("section", {
      class: `checkpoint is-ask state-${st.state}`, "aria-labelledby": qid,
      data: { checkpoint: question.id, mode: "ask", state: st.state },
    });
    // An answer checked before (drawn again after a step away and back): still the checked one.
    if (st.state === "wrong" && st.reply !== null && st.reply !== undefined) card.dataset.checked = String(st.reply);
    const head = h("p", { class: "cp-head" },
      h("span", { class: "cp-badge", "aria-hidden": "true" }, "?"),
      h("span", {}, "Your turn"),
      h("span", { class: "cp-where" }, `· ${where}`));
    const text = h("p", { class: "cp-question", id: qid }, question.question);
    const about = askedLabel(question);
    if (about) head.append(h("span", { class: "cp-where" }, `· ${about} is outlined on the graph`));
    card.append(head, text);
    if (question.edited) {
      card.append(h("p", { class: "cp-note" },
        "With your new input values the answer is worked out from them, not the preset's numbers."));
    }
    if (question.auto && question.step === 0) {
      card.append(h("p", { class: "cp-note" },
        "Questions made from your program: one before each backward visit. The switch turns them off."));
    }
    const feedback = h("div", { class: "cp-feedback", id: `cp-${question.id}-fb`, "aria-live": "polite" });
    const form = h("form", { class: "cp-form", novalidate: true });
    let read;
    if (question.kind === "choice") {
      const group = h("fieldset", { class: "cp-choices" }, h("legend", { class: "visually-hidden" }, "Choices"));
      question.choices.forEach((choice, i) => {
        const id = `cp-${question.id}-c${i}`;
        group.append(h("div", { class: "cp-choice" },
          h("input", {
            type: "radio", name: `cp-${question.id}`, id, value: String(i), checked: String(st.reply) === String(i),
            "aria-describedby": `cp-${question.id}-fb`,
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
        class: "cp-input", id: `cp-${question.id}-in`, "aria-labelledby": qid, value: st.reply ?? "",
        "aria-describedby": `cp-${question.id}-fb`,
      });
      form.append(h("label", { class: "visually-hidden", for: input.id }, "Your answer"), input);
      read = () => input.value;
    }
    const check = h("button", { type: "submit", class: "button primary small" }, "Check");
    const show = h("button", {
      type: "button", class: "button quiet small",
      onclick: () => this.reveal(question),
    }, "Show answer");
    form.append(h("span", { class: "cp-buttons" }, check, show));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.answerWith(question, read(), feedback, card);
    });
    card.append(form);
    if (st.state === "wrong") feedback.append(...this.wrongText(question, st.reply, st.tries));
    else feedback.append(h("p", { class: "cp-hint" }, showsNext(question)
      ? "Answer before you step on: the next step shows it."
      : "No step shows this one: check your answer, or show it."));
    card.append(feedback);
    return card;
  }

  // The learner's answer: checked here, kept in the state (onAnswer). A right one folds
  // the card (the next render draws it so); a wrong one is said on the card as it is,
  // so the field keeps its focus.
  answerWith(question, reply, feedback, card) {
    const { status: st, invalid } = graded(question, this.statusOf(question), reply);
    if (invalid === "pick") {
      feedback.replaceChildren(h("p", { class: "cp-wrong" }, "Pick one of the answers first."));
      return;
    }
    if (invalid) {
      feedback.replaceChildren(h("p", { class: "cp-wrong" }, "Type a number, like 6, -1.5 or 0.25."));
      card.dataset.state = "invalid";
      return;
    }
    const right = st.state === "right";
    // What was checked: Enter or Escape on it hands the keys back to the stage (widget.js).
    card.dataset.checked = st.reply;
    this.onAnswer(questionKey(this.questions, question), st);
    if (right) {
      // The card has folded to its answer and the next question here (if any) opened;
      // the focus goes to the next question's field, or else to the folded answer.
      this.focusAfter(question);
    } else {
      card.dataset.state = st.state;
      card.className = card.className.replace(/state-\S+/, `state-${st.state}`);
      feedback.replaceChildren(...this.wrongText(question, st.reply, st.tries));
      this.markNamed(diagnosis(question, st.reply)?.nodes ?? []);
      bringIntoView(feedback); // below the field: on a phone it may start off the screen
    }
  }

  // What a wrong answer says: the mistake it matches (its sentence names what the
  // learner did and the fact that fixes it), or a neutral line; from the second wrong
  // answer on, a hint too, and from the third, the answer.
  wrongText(question, reply, tries) {
    const shown = question.kind === "choice" ? `“${question.choices[Number(reply)]}”` : reply;
    const found = diagnosis(question, reply);
    const lines = [found
      ? h("p", { class: "cp-wrong cp-diagnosis", data: { mistake: found.mistakes.join(" ") } },
        h("strong", {}, "✗ "), found.text)
      : h("p", { class: "cp-wrong" },
        h("strong", {}, "✗ Not quite. "), `${shown} is not it. Try again, or press Show answer.`)];
    const hint = question.hint ?? question.ahead?.hint;
    if (tries >= 2 && hint) lines.push(h("p", { class: "cp-next-hint" }, h("strong", {}, "Hint: "), hint));
    if (tries >= 3 || (tries >= 2 && !hint)) {
      lines.push(h("p", { class: "cp-answer-shown" },
        h("strong", {}, "The answer: "), this.answerText(question), `. ${question.explanation}`));
    }
    return lines;
  }

  reveal(question) {
    const st = { ...this.statusOf(question) };
    if (st.state !== "right") st.state = "revealed";
    this.onAnswer(questionKey(this.questions, question), st);
    this.focusAfter(question);
  }

  focusAfter(question) {
    const next = this.box.querySelector(".checkpoint:not(.is-folded) input");
    const summary = this.box.querySelector(`[data-checkpoint="${question.id}"] summary`);
    /** @type {HTMLElement | null} */ (next ?? summary)?.focus();
  }

  answerText(question) {
    if (question.kind === "choice") return question.choices[question.answerValue];
    return fmt(question.answerValue);
  }

  // A folded question's verdict line (first), explanation and any "Run this order".
  answerParts(question, st) {
    const parts = [];
    const answer = this.answerText(question);
    if (st.state === "right") {
      parts.push(h("p", { class: "cp-verdict cp-right" }, h("strong", {}, "✓ Right: "), answer));
    } else if (st.state === "wrong") {
      parts.push(h("p", { class: "cp-verdict cp-missed" },
        h("strong", {}, "The answer: "), answer,
        ` (you said ${question.kind === "choice" ? question.choices[Number(st.reply)] : st.reply})`));
    } else {
      parts.push(h("p", { class: "cp-verdict cp-shown" }, h("strong", {}, "The answer: "), answer));
    }
    if (question.edited && !question.auto) {
      parts.push(h("p", { class: "cp-explanation" },
        `Worked out from the trace with your values. (For the preset's own numbers: ${question.explanation})`));
    } else {
      parts.push(h("p", { class: "cp-explanation" }, question.explanation));
    }
    if (question.order && !question.edited) {
      parts.push(h("p", {},
        h("button", {
          type: "button", class: "button small", onclick: () => this.onTryOrder(question.order),
        }, "Run this order")));
    }
    return parts;
  }
}
