// One Gradwalk widget: mount(element, options) puts a complete, independent widget
// into any element, inside an open shadow root, so its ids, styles and listeners are
// its own. Hosts: index.html (page.js, which owns the address bar), <grad-walk>
// (gradwalk.js), an iframe (index.html?embed=1) and a notebook (anywidget).
//
//   const widget = mount(element, {
//     query: "?preset=diamond&hide=editor",  // what to show, in the permalink vocabulary
//                                            // (learn/permalink.js); index.html passes its URL
//     ownsAddressBar: false,  // true: the widget keeps the page's URL up to date
//     keys: "widget",         // "page": ← → step from anywhere on the page
//     engine: null,           // an engine client (default: the page's shared engine)
//     onEngine: (state) => {},// "loading" | "ready" | "error", also as data-engine on element
//     css: null,              // the stylesheets' text, where they cannot be linked (a notebook)
//     firstPaint: true,       // draw the build's prerendered graph before the engine answers
//     graph: false,           // show the engine's own graph (a notebook kernel's micrograd value)
//     report: null,           // a check's report on that graph, opened on its first problem
//   });
//   widget.unmount();         // takes everything down: listeners, observers, engine client
//
// Inside, the state is (pass, index) in the Stepper over frames that are plain data;
// render() draws everything from it. Python is called only when the inputs change:
// the list of presets, a preset, a visit order. loadGraph(answer) takes any engine
// graph answer, so prerendered JSON can be fed in without the engine.

import { sharedEngine } from "./engine-client.js";
import { exact, fmt } from "./format.js";
import { Stepper, buildTrace } from "./stepper.js";
import { GraphView, keepInView } from "./render-graph.js";
import { NodeTable } from "./table.js";
import { ProgramView } from "./program-view.js";
import { VisitOrder } from "./visit-order.js";
import { renderDetails } from "./details.js";
import { Learn } from "./learn/index.js";
import { WhyReverse, pullMarks } from "./modes/why-reverse.js";
import { prerendered } from "./first-paint.js";
import { WIDGET_HTML } from "./widget-template.js";
import { CheckReport } from "./learn/check-report.js";

export function mount(element, options = {}) {
  if (element.gradwalk) throw new Error("This element already holds a Gradwalk widget; unmount it first.");
  const shadow = element.shadowRoot ?? element.attachShadow({ mode: "open" });
  // index.html's markup arrives as a declarative shadow root (painted before any
  // script runs); anywhere else the widget writes its own.
  if (!shadow.getElementById("main")) {
    const template = document.createElement("template");
    template.innerHTML = WIDGET_HTML;
    // Its stylesheets are named relative to this site, not to the page it is on; where
    // there is no site to link to (a notebook), they come as text instead.
    for (const link of template.content.querySelectorAll("link[href]")) {
      if (options.css) link.remove();
      else link.href = new URL(link.getAttribute("href"), import.meta.url).href;
    }
    if (options.css) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(options.css);
      shadow.adoptedStyleSheets = [sheet];
    }
    shadow.replaceChildren(template.content);
  }
  if (!options.ownsAddressBar) {
    // Among other content (several widgets on a lesson page) the widget's parts are
    // not page landmarks (they would repeat, one set per widget): the page's
    // landmark is the widget itself. Unnamed sections are plain containers.
    for (const part of shadow.querySelectorAll("section[aria-labelledby]")) part.removeAttribute("aria-labelledby");
    for (const part of shadow.querySelectorAll("[role='region'], [role='complementary']")) part.setAttribute("role", "group");
  }
  const widget = createWidget(element, shadow, options);
  element.gradwalk = widget;
  return widget;
}

function createWidget(host, shadow, options) {
const params = new URLSearchParams(options.query ?? "");
const teardown = new AbortController(); // every listener outside the shadow root stops with it
const disposers = []; // what unmount() undoes: engine client, observers, timers
const hostClasses = host.className;
let unmounted = false;

// Time limits; the query may change them (?boottimeout=3000&calltimeout=2000, in
// ms; whole numbers from 500 to 300000, anything else is ignored), which tests use
// so that a stalled download or a hung computation fails in seconds.
const BOOT_TIMEOUT_MS = timeLimitFrom(params, "boottimeout", 60000);
const CALL_TIMEOUT_MS = timeLimitFrom(params, "calltimeout", 10000);
const $ = (id) => shadow.getElementById(id);
const root = host;

const ui = {
  loading: $("engine-loading"),
  stage: $("engine-stage"),
  progress: $("engine-progress"),
  percent: $("engine-percent"),
  error: $("engine-error"),
  errorText: $("engine-error-text"),
  retry: $("retry"),
  preset: $("preset"),
  title: $("preset-title"),
  summary: $("preset-summary"),
  lesson: $("preset-lesson"),
  back: $("step-back"),
  forward: $("step-forward"),
  startBackward: $("start-backward"),
  reset: $("reset"),
  position: $("position"),
  narration: $("narration"),
  details: $("details"),
  placeholder: $("graph-placeholder"),
  svg: $("graph"),
  scroller: $("graph-scroll"),
  runOrder: $("run-order"),
  restoreOrder: $("restore-order"),
  orderStatus: $("order-status"),
  experimentBody: $("experiment-body"),
};

const app = {
  engine: null,
  ready: false,
  stage: "downloading",
  presets: [],
  presetDetails: new Map(),
  answer: null, // the graph answer on screen
  source: null, // {preset: id} or {program: text}: what loadGraph's answer was made from
  stepper: null,
  seq: 0, // the latest load request; older answers are dropped
  pendingPreset: null,
  unverified: null, // the prerendered answer on screen, until the engine has given the same
};

const graph = new GraphView(ui.svg);
const table = new NodeTable($("node-rows"));
const code = new ProgramView($("program"));
const visitOrder = new VisitOrder($("visit-order"), {
  announce: (text) => say(ui.orderStatus, text),
  onChange: (order) => orderChanged(order),
});
// Learn by doing (web/learn/): checkpoint questions, editable inputs, the nudge
// check, the program editor, permalinks and embedding.
const learn = new Learn({
  app,
  call: (request) => engine.call(request),
  load: (source, options) => loadSource(source, options),
  render: (message) => render(message),
  narrate: (text) => narrate(text),
  arrangeOrder: (labels) => {
    visitOrder.arrange(labels);
    return runOrder().catch(engineFailed);
  },
  linkParams: (other) => why.linkParams(other), // "Why reverse mode" keeps its state in the link too
  inputTip: (text) => (graph.inputTip = text),
  element: host,
  shadow,
  query: options.query ?? "",
  ownsAddressBar: Boolean(options.ownsAddressBar),
});
// A check's report on the graph (a notebook's gradwalk.check), opened once the graph is on screen.
const report = new CheckReport($("check-report"), options.report ?? {}, { show: (problem) => showProblem(problem) });

// Put the graph where a problem of the learner's engine can be seen.
function showProblem(problem) {
  const answer = app.answer;
  const s = app.stepper;
  if (!answer || !s) return;
  if (problem.kind === "order" && options.report?.order) {
    // The learner's own visit order, run on their graph: the late and lost marks show what it cost.
    visitOrder.arrange(options.report.order);
    runOrder().catch(engineFailed);
    return;
  }
  const id = answer.nodes.findIndex((n) => n.label === problem.node);
  const visit = s.frames("backward").findIndex((f) => f.node === id && f.kind !== "seed");
  if (s.trace.experiment) s.setExperiment(null);
  if (problem.kind === "grad" || visit < 0) s.toEnd("backward");
  else s.pos = { pass: "backward", index: visit };
  render(problem.text);
}

// "Why reverse mode" (web/modes/): path sums, naive recursion, push/pull, forward mode,
// backward twice, gradient descent; each one a mode the stepper walks.
const why = new WhyReverse({
  call: (request) => engine.call(request),
  ready: () => app.ready && Boolean(app.answer),
  source: () => app.source,
  answer: () => app.answer,
  stepper: () => app.stepper,
  render: (message) => render(message),
  notReady: (what) => notReady(what),
  visitOrder,
  root: shadow,
  loadProgram: (program) => loadSource({ program }, { kind: "program" })
    .then((answer) => Boolean(answer?.ok))
    .catch((e) => { engineFailed(e); return false; }),
});
why.fromParams(params);

// ---------------------------------------------------------------- engine boot

// The page's one engine, shared with every other widget on it (engine-client.js);
// its status (downloading, starting Python, ready, failed) is shown by each widget.
const engine = options.engine ?? sharedEngine({ bootTimeoutMs: BOOT_TIMEOUT_MS, callTimeoutMs: CALL_TIMEOUT_MS }).client();
app.engine = engine;
disposers.push(engine.subscribe((status) => {
  if (status.state === "loading") onProgress(status);
}));
disposers.push(() => engine.close());

function onProgress({ stage, fraction }) {
  app.stage = stage;
  ui.stage.textContent = stage;
  const pct = Math.max(0, Math.min(100, Math.round((fraction ?? 0) * 100)));
  ui.progress.value = pct;
  ui.progress.textContent = `${pct}%`;
  ui.percent.textContent = `${pct}%`;
}

function setEngineState(state) {
  root.dataset.engine = state;
  options.onEngine?.(state);
}

let retries = 0;
async function boot() {
  setEngineState("loading");
  app.ready = false;
  ui.error.hidden = true;
  ui.loading.hidden = false;
  onProgress(engine.status.state === "loading" ? engine.status : { stage: "downloading", fraction: 0 });
  try {
    // A retry restarts a failed engine (every widget on the page shares it), and
    // gives the boot four times as long each time (a slow line deserves more time).
    if (retries++ && engine.status.state === "error") engine.restart(Math.max(BOOT_TIMEOUT_MS, 60000));
    await engine.ready;
    const answer = await engine.call({ cmd: "presets" });
    if (!answer.ok) throw new Error(answer.error?.message ?? "The engine did not list its presets.");
    if (unmounted) return;
    setPresets(answer.presets);
    const pending = app.pendingPreset;
    const wanted = app.pendingPreset ?? app.source?.preset ?? initialPreset();
    app.pendingPreset = null;
    ui.preset.value = wanted;
    // The state the query asks for (learn/permalink.js); else a prerendered graph
    // of the same preset stays, with the learner's place in it.
    if (options.graph) {
      // The engine's own graph (a notebook kernel's): a load that names no preset or program.
      const first = await loadSource({}, { kind: "graph" });
      if (first && !first.ok) throw new Error(first.error.message);
    } else {
      const restored = await learn.restore(pending);
      if (!restored && app.source?.preset !== wanted) await loadPreset(wanted);
    }
    if (unmounted) return;
    app.unverified = null;
    app.ready = true;
    ui.loading.hidden = true;
    setEngineState("ready");
    why.engineReady();
    if (options.report) report.open();
  } catch (error) {
    if (unmounted) return;
    app.ready = false;
    setEngineState("error");
    ui.loading.hidden = true;
    ui.error.hidden = false;
    ui.errorText.textContent = error?.message ?? String(error);
    narrate("The engine could not start, so nothing can be computed yet. Press Retry to try again.");
  }
}

function initialPreset() {
  const asked = params.get("preset");
  return app.presets.some((p) => p.id === asked) ? asked : app.presets[0].id;
}

function notReady(what) {
  const why = root.dataset.engine === "error"
    ? "the engine failed to start (press Retry at the top)"
    : `the engine is still starting (${app.stage})`;
  narrate(`${what} needs the engine, and ${why}. It will work once the engine is ready.`);
}

// ---------------------------------------------------------------- presets

function setPresets(presets) {
  app.presets = presets;
  ui.preset.replaceChildren(
    ...presets.map((p) => {
      const option = document.createElement("option");
      option.value = p.id;
      option.textContent = p.title;
      return option;
    }),
  );
}

async function presetDetail(id) {
  if (app.presetDetails.has(id)) return app.presetDetails.get(id);
  const answer = await engine.call({ cmd: "preset", id });
  if (answer.ok) app.presetDetails.set(id, answer.preset);
  return answer.ok ? answer.preset : null;
}

async function loadPreset(id) {
  const seq = ++app.seq;
  root.setAttribute("aria-busy", "true");
  try {
    const [answer, detail] = await Promise.all([
      engine.call({ cmd: "load", preset: id }),
      presetDetail(id),
    ]);
    if (seq !== app.seq) return;
    if (!answer.ok) {
      narrate(`The preset could not be loaded: ${answer.error.message}`);
      return;
    }
    app.source = { preset: id };
    showPresetText(id, detail);
    loadGraph(answer);
  } finally {
    if (seq === app.seq) root.removeAttribute("aria-busy");
  }
}

function showPresetText(id, detail) {
  const listed = app.presets.find((p) => p.id === id);
  ui.title.textContent = detail?.title ?? listed?.title ?? id;
  ui.summary.textContent = detail?.summary ?? listed?.summary ?? "";
  ui.lesson.textContent = (detail?.lesson ?? "").trim();
  $("lesson-more").hidden = ui.lesson.textContent === "";
}

// Load a preset or a program, {preset, values?} or {program, values?}, with an
// optional visit order. keepPlace keeps the learner's place in the trace (new input
// values, an edited program); place puts them at {pass, index}. Resolves with the
// engine's answer (an error answer leaves the screen as it was), or null if a newer
// load overtook this one.
async function loadSource(source, { keepPlace = false, place = null, order = null, message = null, kind = "load" } = {}) {
  const seq = ++app.seq;
  const request = { cmd: "load", ...source };
  if (order) Object.assign(request, { order, mode: why.orderRule() });
  const [answer, detail] = await Promise.all([
    engine.call(request),
    source.preset ? presetDetail(source.preset) : null,
  ]);
  if (seq !== app.seq) return null;
  if (!answer.ok) return answer;
  if (confirmsPrerendered(source, answer, { order, place, keepPlace, message })) return app.answer;
  app.source = sourceOf(source, answer);
  if (source.preset) {
    ui.preset.value = source.preset;
    showPresetText(source.preset, detail);
  } else if (answer.program === null) {
    ui.preset.selectedIndex = -1;
    showPresetText(null, options.report
      ? { title: "Your graph, checked", summary: "The graph your code built, with what check found in your engine.", lesson: "" }
      : { title: "Your graph", summary: "The graph your code built, read from the kernel without changing it.", lesson: "" });
  } else {
    ui.preset.selectedIndex = -1;
    showPresetText(null, { title: "Your program", summary: "Your own program: change it in the Program panel, or pick a preset to go back.", lesson: "" });
  }
  loadGraph(answer, {
    place: keepPlace ? app.stepper?.pos : place,
    message: typeof message === "function" ? message(answer) : message,
    kind,
  });
  return answer;
}

// What an answer was made from, for the next request: {preset, values?}, {program}
// (with any new values already written into it), or, for the engine's own graph
// (a notebook kernel's, which has no program), {values?} alone.
function sourceOf(source, answer) {
  if (source.preset) return source;
  if (answer.program === null) return source.values ? { values: source.values } : {};
  return { program: answer.program };
}

// The place in a new trace that matches `pos` in the old one: the same pass, the
// index clamped to the new pass's length.
function placeIn(s, pos) {
  const pass = pos.pass === "experiment" && !s.trace.experiment ? "backward" : pos.pass;
  if (!["forward", "backward", "experiment"].includes(pass)) return { pass: "start", index: -1 };
  const n = s.frames(pass).length;
  return n ? { pass, index: Math.max(0, Math.min(n - 1, pos.index)) } : { pass: "start", index: -1 };
}

ui.preset.addEventListener("change", () => {
  const id = ui.preset.value;
  if (!id) return;
  if (!app.ready) {
    app.pendingPreset = id;
    notReady("Loading a preset");
    return;
  }
  loadPreset(id).catch(engineFailed);
});

// ---------------------------------------------------------------- the graph

// Show an engine graph answer (from the engine, or prerendered JSON).
function loadGraph(answer, { place = null, message = null, kind = "load" } = {}) {
  app.answer = answer;
  app.unverified = null;
  app.stepper = new Stepper(buildTrace(answer));
  ui.placeholder.hidden = true;
  ui.svg.dataset.graph = answer.preset ?? "program";
  graph.build(answer);
  table.build(answer.nodes);
  code.show(answer.program);
  visitOrder.setNodes(answer.nodes);
  ui.orderStatus.textContent = "";
  showExperiment(null);
  if (answer.experiment) {
    app.stepper.setExperiment(answer.experiment);
    showExperiment(answer.experiment);
    visitOrder.arrange(answer.experiment.order.map((id) => answer.nodes[id].label));
  }
  why.graphLoaded(answer);
  if (place) app.stepper.pos = placeIn(app.stepper, place);
  learn.graphLoaded(answer, { kind });
  render(message ?? (app.stepper.atStart() ? "Press Step forward to compute the first node." : null));
}

// Show prerendered answers before the engine is ready (the build's first-paint
// files): {presets, preset, load}, each the engine's answer object for
// {"cmd":"presets"}, {"cmd":"preset","id"} and {"cmd":"load","preset"}.
// Returns false (and changes nothing) if a graph is already on screen.
function loadPrerendered({ presets, preset, load }) {
  if (app.answer || !load?.ok) return false;
  if (presets?.ok) setPresets(presets.presets);
  const id = load.preset;
  if (preset?.ok) app.presetDetails.set(id, preset.preset);
  ui.preset.value = id;
  app.source = { preset: id };
  showPresetText(id, preset?.ok ? preset.preset : null);
  loadGraph(load);
  app.unverified = load;
  return true;
}

// The engine's answer to a plain {preset} load is the prerendered one on screen
// (the build proves the bytes equal; this checks): keep the screen as it is, with
// the learner's place, instead of drawing the same graph again.
function confirmsPrerendered(source, answer, { order, place, keepPlace, message }) {
  const shown = app.unverified;
  if (!shown || order || place || keepPlace || message) return false;
  if (Object.keys(source).join() !== "preset" || source.preset !== shown.preset) return false;
  if (JSON.stringify(answer) !== JSON.stringify(shown)) return false;
  app.unverified = null;
  return true;
}

// Draw the prerendered graph only when the page's URL asks for nothing but that
// preset (or nothing at all): a permalink or an embed with values, a program, a
// place or a teaching mode waits for the engine rather than show something else.
const FIRST_PAINT_PARAMS = new Set(["preset", "boot", "sw", "boottimeout", "calltimeout"]);

function firstPaintFits(first) {
  if ([...params.keys()].some((k) => !FIRST_PAINT_PARAMS.has(k))) return false;
  const asked = params.get("preset");
  return asked === null || asked === first.id;
}

if (options.firstPaint !== false) {
  prerendered(params.get("preset"))
    .then((p) => p && !unmounted && app.seq === 0 && !app.answer && firstPaintFits(p) && loadPrerendered(p));
}

function stepper() {
  if (app.stepper) return app.stepper;
  notReady("Stepping");
  return null;
}

// ---------------------------------------------------------------- rendering

function marksFor(view) {
  const answer = app.answer;
  const marks = {
    current: null, visiting: null, visitTag: null,
    receiving: new Map(), pushes: new Map(), feeding: new Set(),
    late: new Set(), lost: new Set(), wrong: new Set(), shouldBe: null,
  };
  const f = view.frame;
  if (view.pass === "mode") return why.marks(view, marks);
  if (view.pass === "forward") {
    marks.current = f.node;
    for (const e of answer.nodes[f.node].parents) marks.feeding.add(e);
  } else if (f?.kind === "pull") {
    pullMarks(f, marks);
  } else if (f) {
    marks.visiting = f.node;
    if (f.kind === "seed") {
      marks.visitTag = "seed: grad 1";
    } else {
      for (const p of f.pushes) {
        marks.receiving.set(p.parent, "+=");
        marks.pushes.set(p.edge, {
          lines: [`${fmt(p.local)} × ${fmt(p.upstream)}`, `= ${fmt(p.contribution)}`],
          late: p.late,
        });
      }
    }
  }
  const exp = view.experiment;
  if (exp) {
    const lateFrame = new Map();
    for (const l of exp.late) {
      if (l.frame <= view.index) marks.late.add(l.edge);
      lateFrame.set(l.edge, l.frame);
    }
    for (const path of exp.lost_paths) {
      if ((lateFrame.get(path.late_edge) ?? Infinity) > view.index) continue;
      for (const e of pathEdges(path.nodes)) marks.lost.add(e);
    }
    if (view.final) {
      exp.grads.forEach((g, i) => {
        if (exact(g) !== exact(exp.correct_grads[i])) marks.wrong.add(i);
      });
      marks.shouldBe = exp.correct_grads;
    }
  }
  return marks;
}

// The edges along a path of node ids (every parallel edge between two neighbours).
function pathEdges(nodeIds) {
  const out = [];
  for (let k = 0; k + 1 < nodeIds.length; k++) {
    for (const e of app.answer.edges) {
      if (e.parent === nodeIds[k] && e.child === nodeIds[k + 1]) out.push(e.id);
    }
  }
  return out;
}

function positionText(view) {
  const order = view.pass === "experiment" ? " (your order)" : "";
  if (view.pass === "start") return "Not started: nothing computed yet";
  if (view.pass === "mode") return why.position(view);
  if (view.pass === "forward") return `Forward pass · node ${view.index + 1} of ${view.total}`;
  if (view.index === 0) return `Backward pass${order} · seed`;
  return `Backward pass${order} · visit ${view.index} of ${view.total - 1}`;
}

function render(message = null) {
  const s = app.stepper;
  if (!s) return;
  const view = s.view();
  const marks = marksFor(view);
  graph.update(view, marks);
  keepInView(ui.scroller, ui.svg, [marks.current ?? marks.visiting, ...marks.receiving.keys()], graph.layout);
  table.update(view, marks);
  if (view.pass === "mode" || view.frame?.kind === "pull") why.details(ui.details, view);
  else renderDetails(ui.details, view, app.answer);
  code.update(view, app.answer);
  ui.position.textContent = positionText(view);
  setEnabled(ui.back, !s.atStart());
  setEnabled(ui.forward, !s.atEnd());
  setEnabled(ui.startBackward, true);
  setEnabled(ui.reset, true);
  root.dataset.pass = view.pass;
  root.dataset.step = String(view.index);
  if (view.pass === "experiment") {
    const visited = app.answer.nodes[view.frame.node].label;
    visitOrder.mark(view.index === 0 ? null : visited, "visiting");
  } else {
    visitOrder.mark(null);
  }
  why.sync(view);
  narrate(message ?? narrationFor(view));
  learn.rendered(view);
  performance.mark("gw:render");
}

// A box that scrolls must be reachable by keyboard; one that does not need not be a tab stop.
// Checked when the box or its table changes size (a ResizeObserver), not on every
// render: reading scrollWidth right after a DOM update forces a layout.
function watchScrollable(box) {
  if (typeof ResizeObserver !== "function") return () => {};
  const observer = new ResizeObserver(() => keyboardScrollable(box));
  observer.observe(box);
  if (box.firstElementChild) observer.observe(box.firstElementChild);
  return () => observer.disconnect();
}
disposers.push(watchScrollable($("table-scroll")));

function keyboardScrollable(box) {
  if (box.scrollWidth > box.clientWidth + 1) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "Nodes table (scrolls sideways)");
  } else {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
}

function narrationFor(view) {
  if (view.pass === "start") return "Back at the start: nothing is computed yet.";
  let text = view.frame.text;
  if (view.pass === "forward" && !/[.!?]$/.test(text)) text += "."; // "d = b * c = 18." then more
  if (view.pass === "forward" && view.index === view.total - 1) {
    text += " The forward pass is done; Start backward seeds the output's grad.";
  }
  if (view.final) text += " That was the last visit in your order.";
  else if (view.pass === "backward" && view.index === view.total - 1) text += " The backward pass is done.";
  return text;
}

function narrate(text) {
  say(ui.narration, text);
}

// Set a live region's text; the same text twice is still announced.
function say(region, text) {
  if (region.textContent === text) region.textContent = "";
  region.textContent = text;
}

// aria-disabled keeps a button focusable, so keyboard users never lose their place.
function setEnabled(button, on) {
  button.setAttribute("aria-disabled", on ? "false" : "true");
}

function enabled(button) {
  return button.getAttribute("aria-disabled") !== "true";
}

// ---------------------------------------------------------------- stepping

function stepForward() {
  const s = stepper();
  if (!s) return;
  if (!s.next()) {
    const view = s.view();
    narrate(view.pass === "mode" ? why.endText(view) : view.pass === "experiment"
      ? "That was the last visit in your order. Step back to replay it, or Reset."
      : "The backward pass is finished. Step back to replay it, or Reset to start over.");
    return;
  }
  render();
}

function stepBack() {
  const s = stepper();
  if (!s) return;
  if (!s.prev()) {
    narrate("Already at the start: nothing to undo.");
    return;
  }
  render();
}

function startBackward() {
  const s = stepper();
  if (!s) return;
  const wasForward = s.pos.pass === "start" || s.pos.pass === "forward";
  const finished = s.pos.pass === "forward" && s.pos.index === app.answer.forward.length - 1;
  s.startBackward();
  const view = s.view();
  const lead = wasForward && !finished ? "Every node's data is filled in first. " : "";
  render(lead + view.frame.text);
}

function reset() {
  const s = stepper();
  if (!s) return;
  s.reset();
  render(s.trace.experiment
    ? "Back at the start. The backward pass will follow your visit order; Restore correct order to go back to the right one."
    : "Back at the start: nothing is computed yet.");
}

function guard(button, action) {
  button.addEventListener("click", () => {
    if (!enabled(button)) {
      if (button === ui.forward) stepForward();
      else if (button === ui.back) stepBack();
      return;
    }
    action();
  });
}

guard(ui.forward, stepForward);
guard(ui.back, stepBack);
ui.startBackward.addEventListener("click", startBackward);
ui.reset.addEventListener("click", reset);
ui.retry.addEventListener("click", () => boot());

// ← → step. On its own page the widget hears the keys from anywhere on it; among
// other content (several widgets on a lesson page) only while focus is inside it.
(options.keys === "page" ? document : shadow).addEventListener("keydown", (e) => {
  if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
  if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
  const t = e.composedPath()[0]; // the element inside the shadow root, not its host
  if (t instanceof Element && t.closest("input, select, textarea, [contenteditable], .visit-order, .graph-scroll")) return;
  e.preventDefault();
  if (e.key === "ArrowRight") stepForward();
  else stepBack();
}, { signal: teardown.signal });

// ---------------------------------------------------------------- the experiment

function orderChanged(order) {
  const exp = app.stepper?.trace.experiment;
  const ran = exp ? exp.order.map((id) => app.answer.nodes[id].label) : null;
  const hint = ran && ran.join() === order.join() ? "" : " Press Run order to try it.";
  ui.orderStatus.textContent = `${ui.orderStatus.textContent}${hint}`;
}

async function runOrder() {
  if (!app.ready || !app.answer) {
    notReady("Run order");
    say(ui.orderStatus, "Run order needs the engine, which is still starting.");
    return;
  }
  const order = visitOrder.order;
  const seq = ++app.seq;
  say(ui.orderStatus, `Running the order ${order.join(", ")}…`);
  const mode = why.orderRule();
  const answer = await engine.call({ cmd: "load", ...app.source, order, mode });
  if (seq !== app.seq) return;
  if (!answer.ok) {
    say(ui.orderStatus, `The engine refused this order: ${answer.error.message}`);
    return;
  }
  const exp = answer.experiment;
  app.runs = (app.runs ?? 0) + 1;
  $("experiment-result").dataset.runs = String(app.runs); // how many orders have been run
  app.stepper.setMode(null); // a "Why reverse mode" experiment gives way to the run
  app.stepper.setExperiment(exp);
  app.stepper.toEnd("experiment");
  showExperiment(exp);
  const wrong = exp.grads.filter((g, i) => exact(g) !== exact(exp.correct_grads[i])).length;
  const verdict = wrong === 0
    ? "every grad came out right."
    : `${wrong === 1 ? "1 grad is" : `${wrong} grads are`} wrong (see the table and the result below).`;
  say(ui.orderStatus, `Ran ${order.join(", ")}.`);
  render(`Ran the backward pass (${mode}) in the order ${order.join(", ")}: ${verdict} Step back to replay it one visit at a time.`);
}

function restoreOrder() {
  visitOrder.restore();
  const s = app.stepper;
  if (!s) {
    say(ui.orderStatus, "The list is in a correct order.");
    return;
  }
  const wasExperiment = s.pos.pass === "experiment";
  s.setExperiment(null);
  if (wasExperiment) s.toEnd("backward");
  showExperiment(null);
  say(ui.orderStatus, `Restored a correct order: ${visitOrder.order.join(", ")}.`);
  render(wasExperiment
    ? "Back to the correct visit order: these are the right grads."
    : null);
}

ui.runOrder.addEventListener("click", () => runOrder().catch(engineFailed));
ui.restoreOrder.addEventListener("click", restoreOrder);

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function showExperiment(exp) {
  const body = ui.experimentBody;
  body.parentElement.classList.toggle("has-result", Boolean(exp));
  if (!exp) {
    body.replaceChildren(el("p", "muted", "Run an order to see what it does to the grads."));
    return;
  }
  const nodes = app.answer.nodes;
  const parts = [];
  const wrong = [];
  exp.grads.forEach((g, i) => {
    if (exact(g) !== exact(exp.correct_grads[i])) wrong.push(i);
  });
  parts.push(el("p", "ran-order", `Order run: ${exp.order.map((id) => nodes[id].label).join(" → ")}`));
  parts.push(el("p", `verdict ${wrong.length ? "is-wrong" : "is-right"}`,
    wrong.length ? `✗ ${wrong.length === 1 ? "1 grad is" : `${wrong.length} grads are`} wrong` : "✓ Every grad is right"));
  const explain = el("ul", "explanation");
  for (const sentence of exp.explanation) explain.append(el("li", "", sentence));
  parts.push(explain);
  if (wrong.length) {
    const list = el("ul", "wrong-grads");
    for (const i of wrong) {
      list.append(el("li", "", `${nodes[i].label}.grad = ${fmt(exp.grads[i])} (should be ${fmt(exp.correct_grads[i])})`));
    }
    parts.push(el("h4", "", "Wrong grads"), list);
  }
  if (exp.lost_paths.length) {
    const list = el("ul", "lost-paths");
    for (const path of exp.lost_paths) {
      list.append(el("li", "", `${path.nodes.map((id) => nodes[id].label).join(" → ")} (this path carries ${fmt(path.product)})`));
    }
    if (exp.lost_path_count > exp.lost_paths.length) {
      list.append(el("li", "muted", `…and ${exp.lost_path_count - exp.lost_paths.length} more`));
    }
    parts.push(el("h4", "", "Lost paths"), list);
  }
  if (exp.harmless.length) {
    const list = el("ul", "harmless");
    for (const h of exp.harmless) list.append(el("li", "", h.text));
    parts.push(el("h4", "", "Out of order, but harmless"), list);
  }
  parts.push(el("p", "muted", "Step back and forward to replay this run one visit at a time."));
  body.replaceChildren(...parts);
}

function engineFailed(error) {
  learn.recover(error); // Python itself failed: start a fresh worker
  narrate(`The engine could not answer: ${error?.message ?? error}`);
}

// On a phone the lesson notes start folded, so the graph is near the top.
if (window.matchMedia("(max-width: 640px)").matches) {
  $("lesson-more").open = false;
  $("legend-box").open = false;
}

// Take the widget down: its listeners, observers and engine client go, its shadow
// root is emptied and the host element gets back the attributes it had.
function unmount() {
  if (unmounted) return;
  unmounted = true;
  teardown.abort();
  for (const dispose of disposers.splice(0)) dispose();
  graph.destroy();
  learn.destroy();
  app.seq++; // any answer still on its way is dropped
  shadow.replaceChildren();
  for (const name of ["data-engine", "data-pass", "data-step", "data-questions", "aria-busy"]) host.removeAttribute(name);
  if (hostClasses) host.className = hostClasses;
  else host.removeAttribute("class");
  delete host.gradwalk;
}

boot();
return { element: host, root: shadow, unmount };
}

function timeLimitFrom(params, name, fallback) {
  const asked = params.get(name);
  if (asked === null || !/^\d{3,6}$/.test(asked)) return fallback;
  const ms = Number(asked);
  return ms >= 500 && ms <= 300000 ? ms : fallback;
}
