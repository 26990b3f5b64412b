// A widget's state: one plain object, one per widget. What the learner sees and did is
// here (besides it a widget keeps only caches: what its panels last drew, and links.js's
// bookkeeping for the address bar); update.js is the only code that writes it, and
// render.js draws the widget from it. The Stepper (stepper.js) holds the engine's whole trace and the position in
// it; stepping moves the position and never calls Python.
//
// The types below are checked by `npm run typecheck` (jsconfig.json).

/**
 * One value a frame changes.
 * @typedef {{node: number, field: string, before: number | null, after: number | null}} Change
 */

/**
 * A frame of any pass or mode (docs/api.md): what one step does. A graph answer's
 * frames leave out what their edges say; decodeAnswer (stepper.js) writes it back.
 * @typedef {{
 *   node: number, text: string, kind?: string, data?: number, before?: number, after?: number,
 *   upstream?: number, pushes?: any[], changes?: Change[], [more: string]: any
 * }} Frame
 */

/**
 * The engine's answer to {cmd: "load"} (docs/api.md), decoded.
 * @typedef {{
 *   ok: true, preset?: string | null, program: string | null, nodes: any[], edges: any[], inputs: number[],
 *   output: number, forward: Frame[], backward: Frame[], experiment?: any, layout: any, [more: string]: any
 * }} Answer
 */

/**
 * What a "Why reverse mode" experiment puts on the stepper ({name, frames, start, ...}).
 * @typedef {{name: string, title: string, frames: Frame[], start?: Object<string, any[]>,
 *            column?: {title: string, field?: string, values?: any[]}, correct?: number[],
 *            [more: string]: any}} ModeRun
 */

/**
 * What the page draws at one position: Stepper.view() (stepper.js).
 * @typedef {{
 *   pass: "start" | "forward" | "backward" | "experiment" | "mode", index: number, total: number,
 *   frame: Frame | null, data: any[], grad: any[], tangent: any[] | null, pathsum: any[] | null,
 *   values: any[] | null, grads: any[] | null,
 *   mode: ModeRun | null, experiment: any, final: boolean
 * }} View
 */

/**
 * A parameter a mode declares (engine/registry.py's Param): its name in the state, its
 * kind (what a request and a link may hold), its default, and its key in links.
 * @typedef {{name: string, kind: any, default: any, link?: string | null, [more: string]: any}} ParamDeclaration
 */

/**
 * What a mode declares in its engine module (engine/modes/<id>.py), as modes/registry.js
 * holds it: its id, tab, parameters, per-node fields and commands.
 * @typedef {{id: string, tab: string, params: ParamDeclaration[], fields: string[], [more: string]: any}}
 *   ModeDeclaration
 */

/**
 * A teaching mode (modes/index.js): what its frames mark and how they read; a "Why
 * reverse mode" experiment also has a panel, a request to make and a result to read.
 * @typedef {{
 *   id: string, tab?: string, declared?: ModeDeclaration,
 *   marks?: (view: View, marks: any, answer: Answer) => any,
 *   position?: (view: View) => string,
 *   details?: (view: View, answer: Answer) => Node[] | null,
 *   narration?: (view: View) => string,
 *   panel?: (ctx: any) => Node[],
 *   graphLoaded?: (ctx: any, answer: Answer) => void,
 *   request?: (ctx: any, params: any) => any,
 *   result?: (ctx: any, reply: any, params: any) => any,
 *   selected?: (ctx: any) => void,
 *   params?: (ctx: any) => {[key: string]: any},
 *   fromParams?: (ctx: any, get: (key: string) => string | null) => Object<string, any>,
 *   replay?: (ctx: any, get: (key: string) => string | null) => any,
 * }} Mode
 */

/**
 * A question's progress: {state: "open" | "right" | "wrong" | "revealed", tries, reply}.
 * @typedef {{state: string, tries: number, reply: string}} QuestionStatus
 */

/**
 * @typedef {ReturnType<typeof createState>} State
 */

import { MODES } from "./modes/registry.js"; // written by the build from engine/modes/

// The "Why reverse mode" section's choices, as a new widget starts: the first tab, and
// each parameter at the default its mode declares.
/** @type {{tab: string, [param: string]: any}} */
const WHY_CHOICES = {
  tab: MODES[0].id,
  ...Object.fromEntries(MODES.flatMap((mode) => mode.params.map((p) => [p.name, p.default]))),
};

export function createState() {
  return {
    engine: "loading", // "loading" | "ready" | "error" (also the host's data-engine)
    ready: false, // the engine has started and a graph from it is on screen
    /** @type {string | null} */
    error: null, // why the engine could not start
    stage: "downloading", // the engine's boot stage, while it starts
    progress: 0, // how far it is, in percent
    busy: false, // a load is on its way (the host's aria-busy)
    /** @type {{id: string, title: string, summary: string, program: string}[]} */
    presets: [], // the chooser's list
    /** @type {Map<string, any>} */
    presetDetails: new Map(), // id → the whole preset (lesson text, checkpoints)
    /** @type {Answer | null} */
    answer: null, // the engine's graph answer on screen
    /** @type {{preset?: string, program?: string, values?: Object<string, number>} | null} */
    source: null, // what that answer was made from: {preset, values?}, {program}, or {values?} (a kernel's graph)
    /** @type {import("./stepper.js").Stepper | null} */
    stepper: null, // the trace of that answer and the position in it
    // How that graph came: "load" | "preset" | "program" | "editor" | "values" | "reset" | "link" | "graph"
    // | "code" (the graph a learner's own Value class built: "Your code") | "group" (a group opened or closed).
    kind: "load",
    graphs: 0, // graph answers shown so far
    /** @type {string | null} */
    pendingPreset: null, // a preset picked before the engine was ready
    /** @type {Answer | null} */
    unverified: null, // the prerendered answer on screen, until the engine has given the same
    /** @type {string[]} */
    order: [], // the visit order in the list (node labels), as the learner arranged it
    /** @type {string[]} */
    correctOrder: [], // the order the graph's own backward pass visits its nodes
    runs: 0, // visit orders run: the one playing is known by its number (playing, below)
    /** @type {number | null} */
    playing: null, // the run playing visit by visit (its number among the runs), if one is (actions/play.js)
    orderStatus: { text: "", say: true, said: 0 }, // the visit order's status line; said counts its changes
    // "What just happened"; said counts what was said (the same words twice are announced twice).
    // waiting: it is a big graph's visit whose sentence is still on its way (actions/load.js)
    narration: { text: "", said: 0, waiting: false },
    tab: "passes", // the stage's tab: "passes" | "order" | "why" | "code" (actions/stage.js)
    /** @type {string | null} */
    tabOwner: null, // the tab of the experiment on the stepper, if any
    digits: false, // "More digits": numbers with five decimals instead of 4 significant digits
    questions: {
      enabled: true, // "Ask me questions as I step"
      /** @type {Map<string, QuestionStatus>} */
      status: new Map(), // a question's key → what the learner did with it
      /** @type {Set<string>} */
      seen: new Set(), // the questions that have been on screen (their keys)
      /** @type {Map<string, string>} */
      graphKeys: new Map(), // a graph's source → the short key its questions' keys start with
      key: "", // the graph on screen's
      /** @type {any[]} */
      list: [], // its questions, and when they are asked (questions.js: questionsFor)
      waiting: 0, // its questions that wait for the preset's own values
    },
    values: {
      /** @type {Map<string, number>} */
      edits: new Map(), // input values typed and not sent to the engine yet
      /** @type {string | null} */
      programOrigin: null, // a program before its input values were edited
      /** @type {{preset: string, values: Object<string, number>} | null} */
      originals: null, // a preset's own input values
      /** @type {string | null} */
      lastPreset: null, // the preset "Back to the preset" goes back to
      edited: false, // the input values on screen differ from the graph's own
    },
    /** @type {{asked: {kind: string, wrt?: string, h: string}, shown: any, stale: boolean} | null} */
    nudge: null, // the nudge check: what was asked (redone with a new graph's numbers) and its result
    code: {
      // "Your code" (modes/your-code.js, actions/code.js). The code itself is the editor's
      // (and the browser's storage); its run on the stepper is the Stepper's mode "code".
      opened: false, // the mode has been opened (its worker started, its exercises asked for)
      /** @type {any[] | null} */
      exercises: null, // the exercises ({id, title, scaffold, solution}), once fetched
      exercise: null, // the exercise chosen (the first of exercises.json unless a link says)
      /** @type {null | "running" | "done" | "error"} */
      status: null, // the last run's (also the host's data-code)
      /** @type {any} */
      result: null, // the last run's answer, when it ran (engine.yourcode's, ok)
      /** @type {{kind: string, message: string, line?: number | null, [more: string]: any} | null} */
      error: null, // why the last run gave no result: an error of their code, or of its sandbox
      /** @type {number | null} */
      picked: null, // the finding the learner picked (its index), marked in the editor and on the graph
      runs: 0, // runs answered
      /** @type {{answer: any, source: any, kind: string, programOrigin: any} | null} */
      base: null, // the graph on screen before their run's graph replaced it (an error goes back to it)
    },
    why: {
      // The "Why reverse mode" section's choices (WHY_CHOICES above);
      // which experiment is on the stepper is the Stepper's (state.stepper.trace.mode).
      ...WHY_CHOICES,
      busy: false, // an experiment's request is on its way
      replaying: false, // a link's experiment is being run again
      /** @type {Object<string, any>} */
      memo: {}, // what a mode keeps between its runs on the graph on screen (a new graph clears it)
      /** @type {{run: string | null, step: number, get: (key: string) => string | null} | null} */
      pending: null, // a link's experiment, waiting for the engine and a graph
    },
  };
}
