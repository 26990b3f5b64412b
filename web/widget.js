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
// One flow: an event calls an action (actions/), which asks the engine for what it
// needs (actions/requests.js) and gives the changes to update() (update.js), the only
// writer of the state (state.js); update() then calls render (render.js), which draws
// everything from the state. The pieces share one context object, `w`: the element,
// the options, the state, the panels and the engine client. Actions are functions
// imported where they are used, called as action(w, ...args).

import { sharedEngine } from "./boot/engine-client.js";
import { GraphView } from "./panels/graph.js";
import { NodeTable, watchScrollable } from "./panels/table.js";
import { ProgramView } from "./panels/program.js";
import { VisitOrder } from "./panels/visit-order.js";
import { Scrubber } from "./panels/scrubber.js";
import { CheckReport } from "./panels/check-report.js";
import { StageTabs } from "./panels/stage-tabs.js";
import { Learn } from "./learn.js";
import { WhyReverse } from "./modes/why-reverse.js";
import { YourCode } from "./modes/your-code.js";
import { createState } from "./state.js";
import { render } from "./render.js";
import { boot, choosePreset, firstPaint, onProgress } from "./actions/load.js";
import { engineFailed } from "./actions/say.js";
import { reset, showProblem, startBackward, stepBack, stepForward, stepTo } from "./actions/step.js";
import { chooseTab, startWith } from "./actions/stage.js";
import { showDigits } from "./actions/digits.js";
import { orderChanged, orderStatus, restoreOrder, runOrder } from "./actions/order.js";
import {
  applyPendingWhy, chooseRule, engineReadyForWhy, leaveMode, modeContext, selectWhy, whyFromParams,
} from "./actions/why.js";
import { redoNudge } from "./actions/nudge.js";
import {
  buildPreset, chooseExercise, openCode, pickFinding, resetCode, runCode, showSolution,
} from "./actions/code.js";
import { dropAll, requestKinds } from "./actions/requests.js";
import { openAllGroups, showAsScalars, toggleGroup } from "./actions/groups.js";
import { siteAddress } from "./panels/embed.js";
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
      else /** @type {HTMLLinkElement} */ (link).href = new URL(link.getAttribute("href"), import.meta.url).href;
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
    for (const part of shadow.querySelectorAll("[role='region'], [role='complementary']")) {
      part.setAttribute("role", "group");
    }
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
    requests: requestKinds(), // only the newest request of each kind counts (actions/requests.js)
    // What the load actions run after them (actions/load.js), registered here so that the
    // actions form a one-way chain: a new graph on screen redoes what depends on it (the
    // link's experiment waiting for it, the nudge check), and the engine ready lets the
    // "Why reverse mode" experiment waiting for it run.
    hooks: {
      afterGraph: [(w) => applyPendingWhy(w), (w) => redoNudge(w)],
      engineReady: [(w) => engineReadyForWhy(w)],
    },
    drawn: { narration: 0, orderStatus: 0 }, // what the panels last drew (render.js): the markup's texts at first
    unmounted: false,
    retries: 0,
    ui: Object.fromEntries(Object.entries({
      loading: "engine-loading", stage: "engine-stage", progress: "engine-progress", percent: "engine-percent",
      error: "engine-error", errorText: "engine-error-text", retry: "retry", elsewhere: "engine-elsewhere",
      preset: "preset", title: "preset-title", summary: "preset-summary", lesson: "preset-lesson",
      back: "step-back", forward: "step-forward", startBackward: "start-backward", reset: "reset",
      position: "position", narration: "narration", details: "details",
      placeholder: "graph-placeholder", svg: "graph", scroller: "graph-scroll",
      runOrder: "run-order", restoreOrder: "restore-order", orderStatus: "order-status",
      experimentBody: "experiment-body", showScalars: "show-scalars",
    }).map(([key, id]) => [key, $(id)])),
  };
  // Push or pull, next to the visit order (the rule is state.why.rule: push and pull's experiment reads it too).
  w.ui.orderRules = /** @type {HTMLInputElement[]} */ ([...shadow.querySelectorAll("input[name='order-rule']")]);

  // The page's one engine, shared with every other widget on it (boot/engine-client.js);
  // its status (downloading, starting Python, ready, failed) is shown by each widget.
  w.engine = options.engine
    ?? sharedEngine({ bootTimeoutMs: BOOT_TIMEOUT_MS, callTimeoutMs: CALL_TIMEOUT_MS }).client();
  if (!options.engine) disposers.push(() => w.engine.close()); // a client handed in is its owner's to close

  // The panels. Each draws what render gives it and says what the learner did, which
  // the actions turn into requests and changes.
  w.stageTabs = new StageTabs(shadow, { choose: (tab) => chooseTab(w, tab) });
  w.graph = new GraphView(w.ui.svg);
  w.graph.onGroup = (name) => toggleGroup(w, name); // a grouped graph's box or open group's name
  // On a phone the controls and the graph stay on top while the page scrolls: what is
  // brought into view below them (a question, the run's result) keeps clear of them
  // by their height (style.css's scroll-margin-top).
  const stageMain = shadow.querySelector(".stage-main");
  if (stageMain && typeof ResizeObserver === "function") {
    const sticky = new ResizeObserver(() =>
      host.style.setProperty("--gw-sticky-height", `${Math.ceil(stageMain.getBoundingClientRect().height)}px`));
    sticky.observe(stageMain);
    const hadStyle = host.hasAttribute("style");
    disposers.push(() => {
      sticky.disconnect();
      host.style.removeProperty("--gw-sticky-height");
      if (!hadStyle && !host.style.length) host.removeAttribute("style"); // the host as it was
    });
  }
  // "More digits" changes how this widget writes numbers (state.digits).
  w.table = new NodeTable($("node-rows"), { onDigits: (on) => showDigits(w, on) });
  w.program = new ProgramView($("program"));
  // The scrubber moves the stepper through the step action; render keeps it in step.
  w.scrubber = new Scrubber($("scrubber-box"), { onMove: (offset) => stepTo(w, offset) });
  w.visitOrder = new VisitOrder($("visit-order"), {
    announce: (text) => orderStatus(w, text),
    onChange: (labels) => orderChanged(w, labels),
  });
  w.learn = new Learn(w);
  w.report = new CheckReport($("check-report"), options.report ?? {}, { show: (problem) => showProblem(w, problem) });
  w.why = new WhyReverse(shadow, modeContext(w), {
    select: (id) => selectWhy(w, id),
    leave: () => leaveMode(w),
    openAll: () => openAllGroups(w),
  });
  // "Your code": the learner's own Value class, run on the graph (its actions: actions/code.js).
  w.yourCode = new YourCode(shadow, {
    choose: (id) => chooseExercise(w, id),
    run: () => runCode(w),
    solution: () => showSolution(w),
    reset: () => resetCode(w),
    pick: (index) => pickFinding(w, index),
    build: (id) => buildPreset(w, id).catch((error) => engineFailed(w, error)),
  });
  // If the engine cannot start here (a lesson page that does not allow its worker, or
  // cannot reach its files), the error says so with a link to this same widget in its
  // iframe form on the site, where it runs as at home.
  const iframeForm = options.ownsAddressBar ? null : siteAddress(false);
  if (iframeForm) {
    const query = [...params].filter(([key]) => key !== "embed");
    w.ui.elsewhere.href = `${iframeForm}?${new URLSearchParams([["embed", "1"], ...query])}`;
    w.ui.elsewhere.hidden = false;
  }
  // A notebook has no site to start the code worker from: no "Your code" there.
  const codeOn = !options.css;
  if (!codeOn) $("stage-tab-code").hidden = true;
  // What the widget starts with: the link's questions switch, its experiment, its tab.
  // A link into an experiment, or an embed that starts at the visit order, opens on its
  // tab; start=code (a link or the element's attribute, embedded or not) opens "Your code".
  const tab = codeOn && params.get("start") === "code"
    ? "code"
    : parametersOf("why").some((k) => params.has(k))
      ? "why"
      : host.classList.contains("start-order") ? "order" : null;
  startWith(w, { questions: w.learn.link.state.cp, tab });
  render(w); // the widget as it starts, before any graph
  if (tab === "code") openCode(w);
  disposers.push(w.engine.subscribe((status) => status.state === "loading" && onProgress(w, status)));
  whyFromParams(w, params);
  disposers.push(watchScrollable($("table-scroll")));

  // Events → actions.
  w.ui.preset.addEventListener("change", () => choosePreset(w, w.ui.preset.value));
  // Step forward and Step back act even when marked disabled, to say why nothing moved.
  w.ui.forward.addEventListener("click", () => stepForward(w));
  w.ui.back.addEventListener("click", () => stepBack(w));
  w.ui.startBackward.addEventListener("click", () => startBackward(w));
  w.ui.reset.addEventListener("click", () => reset(w));
  w.ui.showScalars.addEventListener("click", () => showAsScalars(w, w.ui.showScalars.ariaPressed !== "true"));
  w.ui.retry.addEventListener("click", () => boot(w));
  w.ui.runOrder.addEventListener("click", () => runOrder(w).catch((error) => engineFailed(w, error)));
  w.ui.restoreOrder.addEventListener("click", () => restoreOrder(w));
  for (const radio of w.ui.orderRules) {
    radio.addEventListener("change", () => chooseRule(w, radio.value === "pull" ? "pull" : "push"));
  }
  // ← → step. On its own page the widget hears the keys from anywhere on it; among
  // other content (several widgets on a lesson page) only while focus is inside it.
  // In a question's answer field they step too while it is empty or holds the answer just
  // checked (the caret has nowhere to go, or the learner is done with it); Escape there, or
  // Enter on an answer already checked, hands the keys back to the stage (Step forward).
  const answered = (t) => {
    const field = t instanceof HTMLInputElement && t.classList.contains("cp-input") ? t : null;
    const card = field?.closest(".checkpoint");
    return Boolean(field && (field.value.trim() === "" || card?.getAttribute("data-checked") === field.value.trim()));
  };
  (options.keys === "page" ? document : shadow).addEventListener("keydown", (e) => {
    const t = e.composedPath()[0]; // the element inside the shadow root, not its host
    if ((e.key === "Escape" || e.key === "Enter") && t instanceof Element && t.closest(".checkpoint")
      && (e.key === "Escape" || (answered(t) && /** @type {HTMLInputElement} */ (t).value.trim() !== ""))) {
      e.preventDefault();
      w.ui.forward.focus();
      return;
    }
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.defaultPrevented) return;
    if (t instanceof Element && !answered(t)
      && t.closest("input, select, textarea, [contenteditable], .visit-order, .graph-scroll")) return;
    e.preventDefault();
    if (e.key === "ArrowRight") stepForward(w);
    else stepBack(w);
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
    dropAll(w); // any answer still on its way is dropped
    shadow.replaceChildren();
    for (const name of ["data-engine", "data-pass", "data-step", "data-questions", "data-code", "aria-busy"]) {
      host.removeAttribute(name);
    }
    if (hostClasses) host.className = hostClasses;
    else host.removeAttribute("class");
    delete host.gradwalk;
  }

  firstPaint(w);
  boot(w);
  return { element: host, root: shadow, unmount };
}

function timeLimitFrom(params, name, fallback) {
  const asked = params.get(name);
  if (asked === null || !/^\d{3,6}$/.test(asked)) return fallback;
  const ms = Number(asked);
  return ms >= 500 && ms <= 300000 ? ms : fallback;
}
