// The questions (panels/question-cards.js): the switch that turns them on or off, and what
// the learner did with one (answered it, asked for the answer...), each a change of the
// state's questions (questions.js decides when each is asked).

import { update } from "../update.js";

export function switchQuestions(w, on) {
  update(w, { type: "questionsEnabled", on }, on
    ? "Questions are on: before a step that reveals something worth predicting, a question appears."
    : "Questions are off: stepping shows every number straight away.");
}

export function questionAnswered(w, key, status) {
  update(w, { type: "question", key, status }, false);
}
