// The "Why reverse mode" experiments' actions: run one on the graph on screen and put
// its frames on the stepper, leave it, pick a tab, and bring the section back from a
// link. A mode (modes/*.js) never asks the engine itself: its request() says what to
// ask, these actions ask (requests.js), its result() reads the answer and says what
// to step, and update() writes it into the state.

import { MODES } from "../modes/index.js";
import { fromLinkText, parametersOf, readModeLink, toLinkText } from "../url.js";
import { update } from "../update.js";
import { engineFailed, narrate, notReady } from "./say.js";
import { ask } from "./requests.js";
import { loadSource } from "./load.js";
import { orderStatus } from "./order.js";

/** @typedef {import("../state.js").Mode} Mode */

// The URL parameters this section owns (url.js's table).
const LINK_KEYS = parametersOf("why");
const byId = new Map(MODES.map((mode) => [mode.id, mode]));

export const LEFT_MODE = "Left the experiment: these are the grads of the ordinary backward pass.";

// What a mode may read, and what it may ask for (each request goes through an action).
export function modeContext(w) {
  return {
    $: (id) => w.shadow.getElementById(id),
    get state() { return w.state.why; }, // the section's choices (read only: change them with set)
    get memo() { return w.state.why.memo; }, // what the modes keep between runs on this graph
    answer: () => w.state.answer,
    ready: () => w.state.ready && Boolean(w.state.answer),
    active: () => w.state.stepper?.trace.mode?.name ?? null,
    order: () => w.state.order, // the visit order in the list
    correctOrder: () => w.state.correctOrder,
    set: (choices) => update(w, { type: "why", set: choices }, false), // a choice changed
    start: (mode, params) => runMode(w, mode, params),
    leave: () => leaveMode(w),
    reset: (id, memo, message) => resetMode(w, id, memo, message),
    select: (id) => selectWhy(w, id),
    say: (message) => narrate(w, message),
    notReady: (what) => notReady(w, what),
    failed: (error) => narrate(w, `The engine could not answer: ${error?.message ?? error}`),
    growth: (request) => askAside(w, request),
    compare: (order, what) => compareRules(w, order, what),
    compared: (order) => comparedOn(w, order),
    arrangeOrder: (labels, message) => arrangeOrder(w, labels, message),
    loadProgram: (program) => loadSource(w, { program }, { kind: "program" })
      .then((answer) => Boolean(answer?.ok))
      .catch((error) => { engineFailed(w, error); return false; }),
  };
}

// The learner picks a tab (its mode may want something at once: the path sums' plot).
export function selectWhy(w, id) {
  update(w, { type: "why", set: { tab: id } }, false);
  byId.get(id).selected?.(w.why.ctx);
}

// Push or pull, for the visit-order experiment. A run on the graph keeps the rule it ran
// with (the position line names it); the status line says so when they differ.
export function chooseRule(w, rule) {
  update(w, { type: "why", set: { rule } }, false);
  const ran = w.state.stepper?.trace.experiment?.rule;
  const chosen = `${rule === "pull" ? "Pull" : "Push"} chosen:`;
  orderStatus(w, ran && ran !== rule
    ? `${chosen} the run on the graph used ${ran}; press Run order to run this order with ${rule}.`
    : `${chosen} press Run order to run the visit order this way.`, false);
}

// Ask the engine about the graph on screen for a mode; null if the answer is stale
// (a newer experiment, or another graph) or refused (the mode's panel says why).
async function askFor(w, mode, request, what) {
  if (!w.state.ready || !w.state.answer) {
    notReady(w, what);
    return null;
  }
  const answer = w.state.answer;
  update(w, { type: "why", set: { busy: true } }, false);
  let reply;
  try {
    reply = await ask(w, "why", { ...w.state.source, ...request });
  } catch (error) {
    update(w, { type: "why", set: { busy: false } }, false);
    throw error;
  }
  if (reply) update(w, { type: "why", set: { busy: false } }, false); // a stale one leaves it to the newer
  if (!reply || w.state.answer !== answer) return null;
  if (!reply.ok) {
    w.why.refuse(mode, `The engine could not run this: ${reply.error.message}`);
    narrate(w, `${what} failed: ${reply.error.message}`);
    return null;
  }
  return reply;
}

// Run a mode (its button, or a link) and put what it made on the stepper.
/** @param {Mode} mode */
async function runMode(w, mode, params = {}) {
  const ctx = w.why.ctx;
  const asked = mode.request(ctx, params);
  if (!asked) return;
  if (asked.refused) { // the mode's own panel has said why; the narration says it too
    narrate(w, asked.refused);
    return;
  }
  if (asked.set) update(w, { type: "why", set: asked.set }, false);
  const reply = await askFor(w, mode, asked.request, asked.what);
  if (!reply) return;
  const result = mode.result(ctx, reply, asked);
  /** @type {import("../update.js").StateChange[]} */
  const changes = [];
  if (result.memo !== undefined) changes.push({ type: "whyMemo", id: mode.id, memo: result.memo });
  if (result.set) changes.push({ type: "why", set: result.set });
  if (result.mode) changes.push({ type: "mode", run: { name: mode.id, ...result.mode }, atEnd: Boolean(result.atEnd) });
  if (!changes.length) return;
  update(w, changes, result.mode
    ? (s) => `${result.message ?? ""} ${s.stepper.view().frame.text}`.trim()
    : result.said ?? false);
}

export function leaveMode(w) {
  if (!w.state.stepper?.trace.mode) return;
  update(w, { type: "modeLeft" }, LEFT_MODE);
}

// A mode's own reset (Reset descent): its memo back to `memo`, its run left.
function resetMode(w, id, memo, message) {
  /** @type {import("../update.js").StateChange[]} */
  const changes = [{ type: "whyMemo", id, memo }];
  if (w.state.stepper?.trace.mode?.name === id) changes.push({ type: "modeLeft" });
  update(w, changes, message);
}

// A request that supersedes nothing and is about no graph (the path sums' plot).
async function askAside(w, request) {
  if (!w.state.ready) return null;
  return ask(w, "side", request);
}

// Push and pull run on one order: {push, pull} (their experiments), or null.
async function compareRules(w, order, what) {
  const compare = byId.get("pushpull");
  const push = await askFor(w, compare, { cmd: "load", order, rule: "push" }, what);
  if (!push) return null;
  const pull = await askFor(w, compare, { cmd: "load", order, rule: "pull" }, what);
  if (!pull) return null;
  return { push: push.experiment, pull: pull.experiment };
}

// The comparison is what the section shows now: an experiment still on the stepper
// gives way (back to the ordinary grads), so no status names it any longer.
function comparedOn(w, order) {
  const left = w.state.stepper?.trace.mode?.title ?? null;
  orderStatus(w, `Compared push and pull on ${order.join(", ")}: the results are in the Push and pull panel.`, false);
  /** @type {import("../update.js").StateChange[]} */
  const changes = [{ type: "say" }];
  if (left) changes.push({ type: "modeLeft" });
  update(w, changes, `Compared push and pull on the order ${order.join(", ")}. `
    + "The results are in the Push and pull panel."
    + (left ? ` (${left} was left: the graph shows the ordinary backward pass.)` : ""));
}

// A mode puts the visit order list in an order of its own (push and pull's "input first").
function arrangeOrder(w, labels, message) {
  update(w, { type: "order", labels }, message);
}

// ------------------------------------------------------------------ links

// The page's other link parameters with this section's (fresh) ones in place of any old ones.
export function whyLinkParams(w, other) {
  if (w.state.why.pending || w.state.why.replaying) return other; // not restored yet: keep what the link asked for
  return [...other.filter(([k]) => !LINK_KEYS.includes(k)), ...Object.entries(whyParams(w))];
}

function whyParams(w) {
  const why = w.state.why;
  const ctx = w.why.ctx;
  const params = {};
  if (why.tab !== MODES[0].id) params.why = why.tab;
  const active = ctx.active();
  if (active) params.run = active;
  for (const mode of MODES) Object.assign(params, mode.params ? mode.params(ctx) : declaredParams(why, mode));
  const pos = w.state.stepper?.pos;
  if (active && pos?.pass === "mode") params.wstep = String(pos.index);
  return params;
}

// A mode's declared parameters that differ from their defaults, as a link writes them
// (for a mode whose module does not write its own, params(ctx)).
function declaredParams(why, mode) {
  /** @type {Record<string, string>} */
  const params = {};
  for (const p of mode.declared.params) {
    const value = why[p.name];
    if (p.link && value !== null && value !== undefined && value !== p.default) params[p.link] = toLinkText(p, value);
  }
  return params;
}

// A mode's declared parameters read back from a link (for a mode whose module does not
// read its own, fromParams(ctx, get)).
function declaredChoices(mode, get) {
  /** @type {Record<string, any>} */
  const choices = {};
  for (const p of mode.declared.params) {
    if (p.link && get(p.link) !== null) choices[p.name] = fromLinkText(p, get(p.link));
  }
  return choices;
}

// Bring the section back from URL parameters (a URLSearchParams or a plain object);
// what needs the engine runs as soon as it is ready and a graph is on screen. Only
// what the modes' declarations allow is read (url.js reports the rest).
export function whyFromParams(w, params) {
  const query = params instanceof URLSearchParams ? params
    : new URLSearchParams(Object.entries(params).filter(([, value]) => value !== null && value !== undefined));
  const valid = readModeLink(query).values;
  const get = (k) => valid.get(k) ?? null;
  if (!LINK_KEYS.some((k) => get(k) !== null)) return;
  const choices = byId.has(get("why")) ? { tab: get("why") } : {};
  for (const mode of MODES) {
    Object.assign(choices, mode.fromParams ? mode.fromParams(w.why.ctx, get) ?? {} : declaredChoices(mode, get));
  }
  const pending = { run: get("run"), step: Number(get("wstep")), get };
  update(w, [{ type: "why", set: choices }, { type: "whyPending", pending }], false);
  applyPendingWhy(w);
}

// The engine has started: a link's experiment runs, and the tab's mode gets what it shows.
export function engineReadyForWhy(w) {
  applyPendingWhy(w);
  byId.get(w.state.why.tab).selected?.(w.why.ctx);
}

// A link's experiment, once the engine is ready and a graph is on screen.
export async function applyPendingWhy(w) {
  const p = w.state.why.pending;
  if (!p || !w.state.answer || !w.state.ready) return;
  const mode = byId.get(p.run);
  // Until the mode is back on the stepper, the link keeps its own parameters.
  update(w, [{ type: "whyPending", pending: null }, { type: "why", set: { replaying: true } }], false);
  try {
    if (mode) await (mode.replay ? mode.replay(w.why.ctx, p.get) : runMode(w, mode));
  } finally {
    update(w, { type: "why", set: { replaying: false } }, false);
  }
  const s = w.state.stepper;
  if (s?.trace.mode && Number.isInteger(p.step) && p.step >= 0 && p.step < s.trace.mode.frames.length) {
    update(w, { type: "step", pos: { pass: "mode", index: p.step } });
  }
}
