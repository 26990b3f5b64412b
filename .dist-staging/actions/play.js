// Playing a visit-order run: Run order shows the run one visit at a time, as a short
// animation, so that the learner sees each grad add up (the diamond's a.grad goes
// 0 → 9 → 15) instead of only the sums at the end. Under prefers-reduced-motion, and
// for a run too long to watch, the run lands at its end at once.
//
// The animation is nothing but ordinary steps. The orderRun change puts the stepper on
// the run's seed and sets state.playing; then a timer gives update() one
// {type: "step", to: "next", play: true} change per visit, and the last one reaches the
// end and clears state.playing. Any other change the learner sees (a key, the scrubber,
// Reset, the list, another tab or graph, another Run) clears it too (update.js): the
// timer's next tick finds its play over and writes nothing. While a run plays the page
// counts as busy (boot/busy.js), as it does while the pulses each visit sends travel.

import { update } from "../update.js";
import { markBusy } from "../boot/busy.js";
import { PULSE_MS } from "../panels/graph-pulse.js";

const VISIT_MS = PULSE_MS + 50; // a visit's pulses land, and the graph rests a moment before the next
const LONGEST_MS = 4000; // a longer run's visits come faster, so that no run plays longer than this
const MOST_VISITS = 60; // a run with more visits lands at its end at once: too many to watch

// Whether a run of this many frames (its seed and its visits) plays, or lands at its end.
export function runPlays(frames) {
  const visits = frames - 1;
  return visits > 0 && visits <= MOST_VISITS && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// Play the run that the orderRun change (with play: true) has put on its seed, and say
// `message` at its last visit.
export function playRun(w, message) {
  const s = w.state;
  const id = s.playing;
  const last = s.stepper.frames("experiment").length - 1;
  const every = Math.min(VISIT_MS, LONGEST_MS / last);
  markBusy(1);
  const tick = () => {
    if (w.unmounted || s.playing !== id) {
      markBusy(-1); // ended by another change, or replaced by another run: nothing more to write
      return;
    }
    const atLast = s.stepper.pos.index + 1 === last;
    update(w, { type: "step", to: "next", play: true }, atLast ? message : false);
    if (s.playing === id) setTimeout(tick, every);
    else markBusy(-1);
  };
  setTimeout(tick, every);
}
