// How a typed answer is graded: the rule engine/questions.py's is_right and diagnosed follow
// too (tests/engine/test_grading_agrees.py runs both on the same replies). A reply is right
// within the question's tolerance, or within half a unit of the last digit of the answer as
// the page shows it (fmt: four significant digits, 0.5 read as 0.5000), so a learner who
// types the number they see is right; a wrong number a diagnosis quotes is matched the same way.

// Half a unit in the last digit of `value` as fmt writes it; 0 for a number shown whole.
/** @param {number} value */
function shownSlack(value) {
  const v = Number(value);
  if (!Number.isFinite(v) || v === 0 || (Number.isInteger(v) && Math.abs(v) < 1e15)) return 0;
  return 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(v))) - 3);
}

// The reply (a number, already read) is the answer `value`, within `tolerance` or as shown.
/** @param {number | null} reply @param {number} value @param {number} tolerance */
export function isRight(reply, value, tolerance) {
  if (reply === null || !Number.isFinite(reply)) return false;
  return Math.abs(reply - Number(value)) <= Math.max(tolerance, shownSlack(Number(value)));
}

// The wrong-answer entry ({value, ...}) a wrong reply is, compared as a right one is, or null.
/**
 * @param {number | null} reply @param {any[]} wrong @param {number} value @param {number} tolerance
 * @returns {any}
 */
export function diagnosed(reply, wrong, value, tolerance) {
  if (reply === null || !Number.isFinite(reply) || isRight(reply, value, tolerance)) return null;
  return wrong.find((e) => Math.abs(reply - Number(e.value)) <= Math.max(tolerance, shownSlack(Number(e.value))))
    ?? null;
}
