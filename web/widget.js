// One Gradwalk widget: mount(element, options) puts a complete, independent widget
// into any element, inside an open shadow root, so its ids, styles and listeners are
// its own. Hosts: index.html (page.js, which owns the address bar), <grad-walk>
// (gradwalk.js), an iframe (index.html?embed=1) and a notebook (notebook.js).
//
//   const widget = mount(element, {
//     query: "?preset=diamond&hide=editor",  // what to show, in the permalink vocabulary
//                                            // (url.js); index.html passes its URL
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
// One flow: an event calls an action (actions/), the only code that writes the state
// (state.js) and calls the engine; the action then calls render (render.js), which
// draws everything from the state. The pieces share one context object, `w`.

import { sharedEngine } from "./boot/engine-client.js";
import { say } from "./lib/dom.js";
import { GraphView } from "./panels/graph.js";
import { NodeTable, watchScrollable } from "./panels/table.js";
import { ProgramView } from "./panels/program.js";
import { VisitOrder } from "./panels/visit-order.js";
import { Scrubber } from "./panels/scrubber.js";
import { CheckReport } from "./panels/check-report.js";
import { StageTabs } from "./panels/stage-tabs.js";
import { Learn } from "./learn.js";
import { WhyReverse } from "./modes/why-reverse.js";
import { createState } from "./state.js";
import * as load from "./actions/load.js";
import * as step from "./actions/step.js";
import * as stage from "./actions/stage.js";
import visitOrderMode from "./modes/visit-order.js";
import * as draw from "./render.js";
import { WIDGET_HTML } from "./widget-template.js";
import { parametersOf } from "./url.js";

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
  const disposers = []; // what unmount() undoes: engine client, observers
  const hostClasses = host.className;
  const $ = (id) => shadow.getElementById(id);
  // Time limits; the query may change them (?boottimeout=3000&calltimeout=2000, in ms,
  // 500 to 300000), which tests use so that a stalled download or a hung call fails fast.
  const BOOT_TIMEOUT_MS = timeLimitFrom(params, "boottimeout", 60000);
  const CALL_TIMEOUT_MS = timeLimitFrom(params, "calltimeout", 10000);

  const w = {
    host, shadow, options, params, $, BOOT_TIMEOUT_MS,
    state: createState(),
    unmounted: false,
    retries: 0,
    ui: Object.fromEntries(Object.entries({
      loading: "engine-loading", stage: "engine-stage", progress: "engine-progress", percent: "engine-percent",
      error: "engine-error", errorText: "engine-error-text", retry: "retry",
      preset: "preset", title: "preset-title", summary: "preset-summary", lesson: "preset-lesson",
      back: "step-back", forward: "step-forward", startBackward: "start-backward", reset: "reset",
      position: "position", narration: "narration", details: "details",
      placeholder: "graph-placeholder", svg: "graph", scroller: "graph-scroll",
      runOrder: "run-order", restoreOrder: "restore-order", orderStatus: "order-status", experimentBody: "experiment-body",
    }).map(([key, id]) => [key, $(id)])),
  };
  // The actions and the drawing, each called as w.name(...args) with the context bound.
  for (const module of [load, step, stage, draw]) {
    for (const [name, fn] of Object.entries(module)) w[name] = (...args) => fn(w, ...args);
  }
  // The visit-order experiment's own actions (modes/visit-order.js).
  w.runOrder = () => visitOrderMode.run(w);
  w.restoreOrder = () => visitOrderMode.restore(w);
  w.orderChanged = (labels) => visitOrderMode.changed(w, labels);

  // The page's one engine, shared with every other widget on it (boot/engine-client.js);
  // its status (downloading, starting Python, ready, failed) is shown by each widget.
  w.engine = options.engine ?? sharedEngine({ bootTimeoutMs: BOOT_TIMEOUT_MS, callTimeoutMs: CALL_TIMEOUT_MS }).client();
  disposers.push(w.engine.subscribe((status) => status.state === "loading" && w.onProgress(status)));
  if (!options.engine) disposers.push(() => w.engine.close()); // a client handed in is its owner's to close

  // The panels. Each draws what it is given; the learn-by-doing ones (learn.js) and the
  // "Why reverse mode" experiments (modes/) reach the engine through the actions.
  w.stageTabs = new StageTabs(shadow, { choose: (tab) => w.chooseTab(tab) });
  w.graph = new GraphView(w.ui.svg);
  w.table = new NodeTable($("node-rows"), {
    // "More digits" changed how numbers are written: draw the graph's texts and the table again.
    onDigits: () => {
      if (w.state.answer) w.graph.build(w.state.answer);
      w.render();
    },
  });
  w.code = new ProgramView($("program"));
  // The scrubber moves the stepper through the step action; render.js keeps it in step.
  w.scrubber = new Scrubber($("scrubber-box"), { onMove: (offset) => w.stepTo(offset) });
  w.visitOrder = new VisitOrder($("visit-order"), {
    announce: (text) => say(w.ui.orderStatus, text),
    onChange: (labels) => w.orderChanged(labels),
  });
  w.learn = new Learn({
    app: w.state,
    call: (request) => w.engine.call(request),
    load: (source, loadOptions) => w.loadSource(source, loadOptions),
    render: (message) => w.render(message),
    narrate: (text) => w.narrate(text),
    arrangeOrder: (labels) => {
      w.visitOrder.arrange(labels);
      return w.runOrder().catch((error) => w.engineFailed(error));
    },
    linkParams: (other) => w.why.linkParams(other), // "Why reverse mode" keeps its state in the link too
    restoreWhy: (params) => w.why.fromParams(params), // and gets it back on Back / Forward
    inputTip: (text) => (w.graph.inputTip = text),
    element: host,
    shadow,
    query: options.query ?? "",
    ownsAddressBar: Boolean(options.ownsAddressBar),
  });
  w.report = new CheckReport($("check-report"), options.report ?? {}, { show: (problem) => w.showProblem(problem) });
  w.why = new WhyReverse({
    state: w.state.why,
    call: (request) => w.engine.call(request),
    ready: () => w.state.ready && Boolean(w.state.answer),
    source: () => w.state.source,
    answer: () => w.state.answer,
    stepper: () => w.state.stepper,
    render: (message) => w.render(message),
    notReady: (what) => w.notReady(what),
    visitOrder: w.visitOrder,
    root: shadow,
    loadProgram: (program) => w.loadSource({ program }, { kind: "program" })
      .then((answer) => Boolean(answer?.ok))
      .catch((error) => { w.engineFailed(error); return false; }),
  });
  w.why.fromParams(params);
  // A link into an experiment, or an embed that starts at the visit order, opens on its tab.
  if (parametersOf("why").some((k) => params.has(k))) w.state.tab = "why";
  if (host.classList.contains("start-order")) w.state.tab = "order";
  w.stageTabs.show(w.state.tab);
  disposers.push(watchScrollable($("table-scroll")));

  // Events → actions.
  w.ui.preset.addEventListener("change", () => w.choosePreset(w.ui.preset.value));
  // Step forward and Step back act even when marked disabled, to say why nothing moved.
  w.ui.forward.addEventListener("click", () => w.stepForward());
  w.ui.back.addEventListener("click", () => w.stepBack());
  w.ui.startBackward.addEventListener("click", () => w.startBackward());
  w.ui.reset.addEventListener("click", () => w.reset());
  w.ui.retry.addEventListener("click", () => w.boot());
  w.ui.runOrder.addEventListener("click", () => w.runOrder().catch((error) => w.engineFailed(error)));
  w.ui.restoreOrder.addEventListener("click", () => w.restoreOrder());
  // ← → step. On its own page the widget hears the keys from anywhere on it; among
  // other content (several widgets on a lesson page) only while focus is inside it.
  (options.keys === "page" ? document : shadow).addEventListener("keydown", (e) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    const t = e.composedPath()[0]; // the element inside the shadow root, not its host
    if (t instanceof Element && t.closest("input, select, textarea, [contenteditable], .visit-order, .graph-scroll")) return;
    e.preventDefault();
    if (e.key === "ArrowRight") w.stepForward();
    else w.stepBack();
  }, { signal: teardown.signal });

  // On a phone the legend starts folded (the lesson notes always do: the stage comes first).
  if (window.matchMedia("(max-width: 760px)").matches) $("legend-box").open = false;

  // Take the widget down: its listeners, observers and engine client go, its shadow
  // root is emptied and the host element gets back the attributes it had.
  function unmount() {
    if (w.unmounted) return;
    w.unmounted = true;
    teardown.abort();
    for (const dispose of disposers.splice(0)) dispose();
    w.graph.destroy();
    w.learn.destroy();
    w.state.seq++; // any answer still on its way is dropped
    shadow.replaceChildren();
    for (const name of ["data-engine", "data-pass", "data-step", "data-questions", "aria-busy"]) host.removeAttribute(name);
    if (hostClasses) host.className = hostClasses;
    else host.removeAttribute("class");
    delete host.gradwalk;
  }

  w.firstPaint();
  w.boot();
  return { element: host, root: shadow, unmount };
}

function timeLimitFrom(params, name, fallback) {
  const asked = params.get(name);
  if (asked === null || !/^\d{3,6}$/.test(asked)) return fallback;
  const ms = Number(asked);
  return ms >= 500 && ms <= 300000 ? ms : fallback;
}
