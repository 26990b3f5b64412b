// Drawing: everything a widget shows comes from its state (w.state) through view.js's
// pure functions. update.js calls render after a change it applies, but not after one
// that leaves the screen as it was (its UNSEEN changes, or one that changed nothing),
// and after progress or busy changes alone it redraws only the engine's line
// (drawEngine). widget.js calls render once itself, at mount, before any graph. Nothing
// else draws, and render writes nothing to the state. What the panels last drew (w.drawn)
// is theirs: it lets a render redo only what changed (a new graph, a new list of
// presets, the engine's status).

import { renderDetails } from "./panels/details.js";
import { showExperiment } from "./panels/experiment.js";
import { withDigits } from "./lib/format.js";
import { bringIntoView, say, setEnabled } from "./lib/dom.js";
import { detailsFor, marksFor, positionText } from "./view.js";
import { closedGroups } from "./grouped.js";

/**
 * @typedef {import("./state.js").State} State
 */

// Draw the widget from its state.
export function render(w) {
  withDigits(w.state.digits, () => draw(w, w.state));
  performance.mark("gw:render");
}

function draw(w, s) {
  if (s.narration.said !== w.drawn.narration) {
    w.drawn.narration = s.narration.said;
    say(w.ui.narration, s.narration.text);
  }
  drawEngine(w, s);
  if (s.answer !== w.drawn.answer || s.digits !== w.drawn.digits) drawGraph(w, s);
  const stepper = s.stepper;
  const view = stepper?.view() ?? null;
  w.stageTabs.show(s.tab);
  w.why.draw(s, view);
  w.yourCode.draw(s, view, w.host);
  // push or pull; a grouped view's boxes are visited by push only (view.js's orderRule)
  const grouped = Boolean(s.answer?.level);
  for (const radio of w.ui.orderRules) {
    radio.checked = radio.value === (grouped ? "push" : s.why.rule);
    radio.disabled = grouped && radio.value === "pull";
  }
  if (!stepper) return;
  const answer = s.answer;
  const marks = marksFor(view, answer);
  w.graph.update(view, marks);
  w.graph.keepInView([marks.current ?? marks.visiting, ...marks.receiving.keys()]);
  // A step (not a new graph) says what it did: on a phone, where that is below the
  // controls and the graph, bring it into view just under them.
  const step = `${view.pass}:${view.index}`;
  if (s.tab === "passes" && w.drawn.stepOf === answer && w.drawn.step !== step) bringIntoView(w.ui.narration);
  Object.assign(w.drawn, { step, stepOf: answer });
  w.table.update(view, marks);
  const parts = detailsFor(view, answer);
  if (parts) w.ui.details.replaceChildren(...parts);
  else renderDetails(w.ui.details, view, answer);
  w.program.update(view, answer);
  const where = positionText(view);
  w.ui.position.textContent = where;
  w.scrubber.follow(stepper, view, answer, where);
  setEnabled(w.ui.back, !stepper.atStart());
  setEnabled(w.ui.forward, !stepper.atEnd());
  setEnabled(w.ui.startBackward, true);
  setEnabled(w.ui.reset, true);
  w.host.dataset.pass = view.pass;
  w.host.dataset.step = String(view.index);
  // The visit-order experiment: its result (once its run has played), and the list's
  // mark on the node it visits.
  const experiment = stepper.trace.experiment;
  const playing = s.playing !== null;
  if (experiment !== w.drawn.experiment || playing !== w.drawn.playing) {
    Object.assign(w.drawn, { experiment, playing });
    showExperiment(w.ui.experimentBody, experiment, answer, playing);
  }
  // The list in the state's order, when that changed (while the learner carries an
  // item, the list is theirs: it tells the state when they drop it).
  if (s.order !== w.drawn.order) {
    w.drawn.order = s.order;
    w.visitOrder.arrange(s.order);
  }
  if (view.pass === "experiment") {
    const visited = answer.nodes[view.frame.node].label;
    w.visitOrder.mark(view.index === 0 ? null : visited, "visiting");
  } else {
    w.visitOrder.mark(null);
  }
  if (s.orderStatus.said !== w.drawn.orderStatus) {
    w.drawn.orderStatus = s.orderStatus.said;
    if (s.orderStatus.say) say(w.ui.orderStatus, s.orderStatus.text);
    else w.ui.orderStatus.textContent = s.orderStatus.text;
  }
  w.learn.draw(s, view);
}

// The engine's status: starting (with its progress), ready or failed.
// What the graph's box says until a graph comes, and when none can.
const GRAPH_WAITING = "The graph appears once the engine has started.";
const GRAPH_FAILED = "The engine could not start, so there is no graph to show (the message above says why).";

export function drawEngine(w, s) {
  const ui = w.ui;
  if (w.host.dataset.engine !== s.engine) {
    w.host.dataset.engine = s.engine;
    w.options.onEngine?.(s.engine);
  }
  ui.loading.hidden = s.engine !== "loading";
  ui.error.hidden = s.engine !== "error";
  ui.errorText.textContent = s.error ?? "";
  if (!s.answer) ui.placeholder.textContent = s.engine === "error" ? GRAPH_FAILED : GRAPH_WAITING;
  ui.stage.textContent = s.stage;
  ui.progress.value = s.progress;
  ui.progress.textContent = `${s.progress}%`;
  ui.percent.textContent = `${s.progress}%`;
  if (s.busy) w.host.setAttribute("aria-busy", "true");
  else w.host.removeAttribute("aria-busy");
  if (s.presets !== w.drawn.presets) {
    w.drawn.presets = s.presets;
    ui.preset.replaceChildren(...s.presets.map((p) => {
      const option = document.createElement("option");
      option.value = p.id;
      option.textContent = p.title;
      return option;
    }));
    if (s.pendingPreset ?? s.source?.preset) ui.preset.value = s.pendingPreset ?? s.source.preset;
  }
}

// A new graph on screen (or the numbers' format changed): every panel draws it.
function drawGraph(w, s) {
  const answer = s.answer;
  const newGraph = answer !== w.drawn.answer;
  w.drawn.answer = answer;
  w.drawn.digits = s.digits;
  if (!answer) return;
  w.graph.build(answer);
  if (!newGraph) return; // only the graph's texts are written with the new digits
  w.ui.placeholder.hidden = true;
  w.ui.placeholder.removeAttribute("data-prerendered"); // index.html's inlined graph is this view's now
  w.ui.svg.dataset.graph = answer.preset ?? "program";
  // A tensor program's toggle: pressed while no group is closed (each element drawn as a node).
  const tensors = Boolean(answer.boxes && [...answer.boxes.values()].some((g) => g.kind === "tensor"));
  w.ui.showScalars.hidden = !tensors;
  w.ui.showScalars.setAttribute("aria-pressed", String(tensors && closedGroups(answer) === 0));
  w.table.build(answer.nodes);
  w.program.show(answer.program);
  w.visitOrder.setNodes(answer.nodes, s.correctOrder);
  w.drawn.experiment = undefined; // a new graph: its result box and its list are drawn again
  w.drawn.order = undefined;
  drawPresetText(w, s);
  w.why.graphLoaded(s, answer);
  w.learn.graphLoaded(s, answer);
}

// The title, summary and lesson above the graph, and the chooser.
function drawPresetText(w, s) {
  const ui = w.ui;
  const source = s.source ?? {};
  let text;
  if (source.preset) {
    ui.preset.value = source.preset;
    const listed = s.presets.find((p) => p.id === source.preset);
    const detail = s.presetDetails.get(source.preset);
    text = {
      title: detail?.title ?? listed?.title ?? source.preset,
      summary: detail?.summary ?? listed?.summary ?? "",
      lesson: detail?.lesson ?? "",
    };
  } else {
    ui.preset.selectedIndex = -1;
    if (s.answer.program === null) {
      text = w.options.report
        ? {
          title: "Your graph, checked",
          summary: "The graph your code built, with what check found in your engine.",
          lesson: "",
        }
        : {
          title: "Your graph",
          summary: "The graph your code built, read from the kernel without changing it.",
          lesson: "",
        };
    } else {
      text = {
        title: "Your program",
        summary: "Your own program: change it in the Program panel, or pick a preset to go back.",
        lesson: "",
      };
    }
  }
  ui.title.textContent = text.title;
  ui.summary.textContent = text.summary;
  ui.lesson.textContent = text.lesson.trim();
  w.$("lesson-more").hidden = ui.lesson.textContent === "";
  // index.html's texts for its default preset (buildtools/graph_svg.py) are now these.
  for (const el of [ui.title, ui.summary, w.$("lesson-more")]) el.removeAttribute("data-prerendered");
}

