// When each boot stage ended, in ms since the worker started: reported with the
// worker's "ready" message (engine-client.js makes a performance mark of it).

export const STARTED = performance.now();
export const timings = {}; // stage -> ms since the worker started

export function mark(stage) {
  timings[stage] = Math.round(performance.now() - STARTED);
}
