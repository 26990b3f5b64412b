// "Your code": the learner writes their own micrograd-style Value class (an exercise's
// part, or the whole class) and runs it on the graph on screen. Their code runs in the
// code worker (boot/code-runner.js, engine.yourcode.run: docs/yourcode.md); the stage
// then shows THEIR run: the graph their class built, each visit their backward() made
// and each write to a grad (+= or =) as a frame, stepped with the same controls,
// scrubber and keys as any pass (the Stepper's "mode" pass, named "code"), their grads
// beside the right ones, and what went wrong, one finding each, tied to its node and line.
//
// This module is the mode's web side: its panel (YourCode, drawn from state.code by
// render.js), the frames of a run (runOf), and what a frame marks and says (the default
// export, which view.js asks like any mode's). What it does (open, run, pick an exercise)
// is actions/code.js's; the state is update.js's to write.

import { fmt, exact } from "../lib/format.js";
import { h, withCode } from "../lib/dom.js";
import { markVisit, plural, wrongGrads } from "./shared.js";

// Room kept between a marked line of code and the sticky graph above it, or the screen's foot.
const LINE_MARGIN_PX = 12;
// How long a line brought into view is kept there while the page settles (YourCode.reveal),
// and what the learner does that ends it at once.
const REVEAL_FOR_MS = 15_000;
const LEARNER_EVENTS = ["pointerdown", "keydown", "wheel", "touchstart"];
// How an exercise marks the part to write (engine/yourcode/exercises.py's scaffold_of).
const WRITE_HERE = "# >>> write here";

// ---------------------------------------------------------------- a run as frames

// The learner's run as a mode the Stepper steps: one frame for the writes made before
// their first visit (the seed), one per visit with the writes it made, and one for any
// write made between visits. Frames list their changes, so the generic rule of
// stepper.js walks them. `graph` is their graph's answer (decoded), `result` the run's.
export function runOf(result, graph) {
  const idOf = new Map(graph.nodes.map((n) => [n.label, n.id]));
  const id = (label) => idOf.get(label) ?? -1;
  const n = graph.nodes.length;
  // A number in an operation (micrograd's Value(other)) is a constant: its visit passes nothing
  // on and is not stepped, and its grad is nobody's to get right.
  const constants = new Set((result.constants ?? []).map(id).filter((i) => i >= 0));
  const output = graph.output;
  const grads = graph.nodes.map((node) => numberOr(result.grads[node.label], null));
  // Every grad starts where their code found it: before its first write, or where it ended.
  const start = grads.slice();
  for (const write of [...result.writes].reverse()) if (id(write.node) >= 0) start[id(write.node)] = write.before;

  /** @type {any[]} */
  const frames = [];
  const visitFrames = new Map(); // a visit's index → its frame
  let nextVisit = 0;
  const visitsUpTo = (k) => {
    for (; nextVisit <= k; nextVisit++) {
      const frame = { node: id(result.visits[nextVisit]), kind: "visit", visit: nextVisit, writes: [] };
      visitFrames.set(nextVisit, frame);
      frames.push(frame);
    }
  };
  for (const write of result.writes) {
    if (id(write.node) < 0) continue;
    const last = frames[frames.length - 1];
    if (write.visit !== null) {
      visitsUpTo(write.visit);
      visitFrames.get(write.visit).writes.push(write);
    } else if (last && last.kind !== "visit") {
      last.writes.push(write);
    } else {
      const kind = nextVisit === 0 && id(write.node) === output ? "seed" : "write";
      frames.push({ node: id(write.node), kind, visit: null, writes: [write] });
    }
  }
  visitsUpTo(result.visits.length - 1);
  // A constant's visit that wrote nothing is left out; the others are counted without them.
  const stepped = frames.filter((f) => !(f.kind === "visit" && constants.has(f.node) && !f.writes.length));
  frames.length = 0;
  frames.push(...stepped);
  let counted = 0;
  for (const frame of frames) if (frame.kind === "visit") frame.shown = counted++;
  // Where their grads ended, if a write was not seen (a very big graph records fewer).
  const state = start.slice();
  for (const frame of frames) for (const write of frame.writes) state[id(write.node)] = write.after;
  const unseen = grads.map((g, i) => (g !== null && !sameNumber(g, state[i]) ? i : -1)).filter((i) => i >= 0);
  if (unseen.length) {
    frames.push({ node: unseen[0], kind: "end", visit: null, writes: [], ended: unseen.map((i) => ({
      node: i, before: state[i], after: grads[i] })) });
  }
  if (!frames.length) frames.push({ node: output, kind: "none", visit: null, writes: [] });

  const label = (i) => graph.nodes[i]?.label ?? "?";
  const runFrames = frames.map((frame) => {
    const changes = [
      ...frame.writes.map((w) => ({ node: id(w.node), field: "grad", before: w.before, after: w.after })),
      ...(frame.ended ?? []).map((c) => ({ ...c, field: "grad" })),
    ];
    return { ...frame, changes, text: frameText(frame, label, counted) };
  });
  // A constant has no right grad to be judged by (view.js marks and counts the wrong ones).
  const correct = graph.nodes.map((node, i) => (constants.has(i) ? null : numberOr(result.expected[node.label], null)));
  return {
    name: "code",
    title: "your run",
    frames: runFrames,
    visits: counted,
    start: { grad: start },
    correct,
    expected: correct,
    findings: result.findings,
    constants,
    n,
  };
}

function frameText(frame, label, visits) {
  const writes = frame.writes.map((w) =>
    `line ${w.line}: ${w.node}.grad ${w.op} … (${fmt(w.before)} → ${fmt(w.after)})`);
  const said = writes.length ? ` ${writes.join("; ")}.` : "";
  if (frame.kind === "seed") return `Your backward() seeds the output ${label(frame.node)}.${said}`;
  if (frame.kind === "write") return `Your code writes a grad outside any visit.${said}`;
  if (frame.kind === "end") return "Where your backward() left the grads.";
  if (frame.kind === "none") return "Your backward() changed no grad.";
  const what = writes.length ? said : " It changes no grad.";
  return `Your code visits ${label(frame.node)} (visit ${frame.shown + 1} of ${visits}).${what}`;
}

// What the position line calls a frame that is not a visit (frameText says it in full).
const OTHER_FRAMES = { seed: "seed", write: "a write outside a visit", end: "the end", none: "no grad changed" };

// The nodes a finding names: every node its mistake affected, the node it is about first.
function findingNodes(finding) {
  return finding.nodes?.length ? finding.nodes : [finding.node];
}

function numberOr(x, fallback) {
  if (typeof x === "number") return x;
  if (x === "NaN") return NaN;
  if (x === "Infinity") return Infinity;
  if (x === "-Infinity") return -Infinity;
  return fallback;
}

function sameNumber(a, b) {
  return exact(a) === exact(b);
}

// ---------------------------------------------------------------- a frame on screen

export default {
  id: "code",

  marks(view, marks, answer) {
    const f = view.frame;
    const run = view.mode;
    marks.expected = run.expected;
    if (f.kind === "visit") {
      markVisit({ node: f.node, kind: "visit", pushes: [] }, marks);
      marks.visitTag = `your visit ${f.shown + 1}`;
    } else if (f.kind === "seed") {
      marks.visiting = f.node;
      marks.visitTag = "your seed";
    }
    for (const write of f.writes) {
      const node = answer.nodes.findIndex((n) => n.label === write.node);
      marks.receiving.set(node, write.op);
      if (write.edge === null || write.edge === undefined) continue;
      const change = write.op === "=" ? `= ${fmt(write.after)}` : `${write.op} ${fmt(write.after - write.before)}`;
      marks.pushes.set(write.edge, { lines: [`line ${write.line}`, change], tag: write.op === "=" ? "= not +=" : "" });
    }
    // At the end, and for the finding picked: every node the findings name, tagged with the
    // line of the (first) finding that names it; the picked one's nodes with its line.
    const last = view.index === view.total - 1;
    const picked = run.picked ?? null;
    run.findings.forEach((finding, k) => {
      if (!last && k !== picked) return;
      for (const label of findingNodes(finding)) {
        const node = answer.nodes.findIndex((n) => n.label === label);
        if (node < 0 || (marks.named.has(node) && k !== picked)) continue;
        marks.named.set(node, finding.line ? `⚠ line ${finding.line}` : "⚠");
        if (k === picked) { // the node the learner asked to see shows its line, whatever this frame does there
          marks.receiving.delete(node);
          if (marks.visiting === node) marks.visiting = null;
        }
      }
    });
    return marks;
  },

  position(view) {
    const f = view.frame;
    // "visit 5 of 5", as the frame's sentence counts visits; the steps (seed and writes outside
    // a visit too) after it
    const where = f.kind === "visit" ? `visit ${f.shown + 1} of ${view.mode.visits}` : OTHER_FRAMES[f.kind];
    return `Your run · ${where} (step ${view.index + 1} of ${view.total})`;
  },

  narration(view) {
    let text = view.frame.text;
    if (view.index === view.total - 1) {
      const wrong = wrongGrads(view.grad, view.mode.correct).length;
      const problems = view.mode.findings.length;
      text += wrong || problems
        ? ` Your run is over: ${plural(wrong, "grad")} wrong, ${plural(problems, "problem")} found (see Your code).`
        : " Your run is over: every grad is right.";
    }
    return text;
  },

  details(view, answer) {
    const f = view.frame;
    const parts = [h("p", { class: "detail-head" }, view.frame.text.split(". ")[0])];
    if (f.writes.length) {
      parts.push(h("ul", { class: "pushes" }, ...f.writes.map((w) => {
        const expected = view.mode.expected[answer.nodes.findIndex((n) => n.label === w.node)];
        return h("li", { class: `push${w.op === "=" ? " is-late" : ""}` },
          h("code", { class: "push-rule" }, `line ${w.line}: ${w.node}.grad ${w.op} …`),
          h("div", { class: "push-change" },
            `${fmt(w.before)} → ${fmt(w.after)} (right at the end: ${fmt(expected)})`));
      })));
    }
    return parts;
  },
};

// ---------------------------------------------------------------- the panel

// The line of their code an error is at (a program's error is at a line of the program).
function theirLine(error) {
  return error && error.kind !== "program" && Number.isInteger(error.line) ? error.line : null;
}

// The mode's panel in the stage's side column (#stage-code): the exercise chooser, the
// editor (panels/code-editor.js, loaded when the mode opens), Run my code, Show a
// solution and Reset, the run's status, its findings or its error.
//
//   const panel = new YourCode(root, {choose, run, solution, reset, pick, changed, build});
//   panel.attach(editor)         the editor, once it has loaded
//   panel.draw(state, view)      at every render (render.js)
export class YourCode {
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.box = root.getElementById("stage-code");
    this.editor = null;
    this.drawn = {};
    /** @type {(() => void) | null} */
    this.stopRevealing = null; // ends the reveal under way (a newer one takes its place)
    this.select = h("select", { id: "code-exercise", onchange: () => actions.choose(this.select.value) });
    this.title = h("p", { id: "code-exercise-title", class: "code-exercise-title" });
    this.editorBox = h("div", { class: "code-editor-box", id: "code-editor-box" },
      h("p", { class: "muted" }, "Loading the editor…"));
    this.runButton = h("button", {
      type: "button", id: "code-run", class: "button primary", onclick: () => actions.run(),
    }, "Run my code");
    this.status = h("p", { id: "code-status", class: "code-status", role: "status" });
    this.result = h("div", { id: "code-result", class: "code-result" });
    this.box.append(h("section", { class: "your-code", id: "your-code" },
      h("h2", { class: "panel-heading", id: "your-code-heading" }, "Your code"),
      h("p", { class: "your-code-intro" }, "Write your own micrograd-style Value class and run it on the graph on "
        + "screen: the stage then steps your run, your grads beside the right ones, and says what went wrong."),
      h("div", { class: "code-chooser" }, h("label", { for: "code-exercise" }, "Exercise"), this.select),
      this.title,
      this.editorBox,
      h("div", { class: "code-buttons" },
        this.runButton,
        h("button", { type: "button", id: "code-solution", class: "button quiet", onclick: () => actions.solution() },
          "Show a solution"),
        h("button", { type: "button", id: "code-reset", class: "button quiet", onclick: () => actions.reset() },
          "Reset")),
      this.status,
      this.result));
  }

  attach(editor) {
    this.editor = editor;
    this.drawn.error = undefined;
    this.drawn.picked = undefined;
  }

  draw(s, view, host) {
    const code = s.code;
    if (code.status) host.dataset.code = code.status;
    else host.removeAttribute("data-code");
    if (code.exercises !== this.drawn.exercises) {
      this.drawn.exercises = code.exercises;
      // The chooser names each by its title's head ("tanh"); the line below says it whole.
      this.select.replaceChildren(...(code.exercises ?? []).map((e) =>
        h("option", { value: e.id }, e.title.split(":")[0])));
    }
    if (this.select.value !== code.exercise) this.select.value = code.exercise;
    this.title.textContent = code.exercises?.find((e) => e.id === code.exercise)?.title ?? "";
    this.runButton.setAttribute("aria-disabled", String(code.status === "running"));
    const key = [code.status, code.runs, code.error, code.result];
    if (key.some((k, i) => k !== this.drawn.key?.[i])) {
      this.drawn.key = key;
      this.drawResult(s);
    }
    this.markEditor(code);
    this.result.querySelectorAll("[data-finding]")
      .forEach((li, k) => li.classList.toggle("is-picked", k === code.picked));
  }

  // The error at its line, and the finding picked at its line, in the editor. A new run's
  // first finding (picked by update.js) is brought on screen with its line and the graph.
  markEditor(code) {
    const editor = this.editor;
    if (!editor) return;
    const error = code.status === "error" ? code.error : null;
    if (error !== this.drawn.error) {
      this.drawn.error = error;
      if (theirLine(error)) {
        editor.markError(error.line, error.message);
        this.reveal(error.line, this.result);
      } else editor.clearError();
    }
    if (code.picked !== this.drawn.picked || code.result !== this.drawn.pickedOf) {
      const fresh = code.result !== this.drawn.pickedOf; // a run just answered, its first finding picked
      this.drawn.picked = code.picked;
      this.drawn.pickedOf = code.result;
      const finding = code.status === "done" && code.picked !== null ? code.result?.findings[code.picked] : null;
      // After a run the line goes to the editor's foot, next to the findings under the editor.
      editor.markLines(finding?.line ? [finding.line] : [], "finding", fresh ? "end" : "nearest");
      const item = code.picked !== null ? this.result.querySelectorAll("[data-finding]")[code.picked] : null;
      if (finding?.line) this.reveal(finding.line, item ?? null);
      else if (fresh && item) this.reveal(null, item);
    }
  }

  // A finding clicked: picked (its line and node marked, by the state), or, when it is the
  // one picked already, its line brought back into view: the learner may have scrolled away.
  pick(k) {
    const line = this.drawn.picked === k ? this.drawn.pickedOf?.findings[k]?.line : null;
    if (line && this.editor) {
      this.editor.showLine(line);
      this.reveal(line, this.result.querySelectorAll("[data-finding]")[k] ?? null);
    }
    this.actions.pick(k);
  }

  // The part of the exercise to write (its first "# >>> write here" line) at the top of the
  // editor's view, and on screen: when an exercise opens, is chosen, reset or solved.
  showPart() {
    const editor = this.editor;
    if (!editor) return;
    const lines = editor.getText().split("\n");
    const at = lines.findIndex((line) => line.trim().startsWith(WRITE_HERE)) + 1;
    if (!at) return;
    editor.showLine(at, "start");
    this.reveal(at, null, Math.min(lines.length, at + 2));
  }

  // Brings `line` of the editor (scrolled within the editor already), lines down to `last`,
  // and the element `other` (the finding picked) into the part of the screen the learner
  // sees: below the controls and graph that stay at the top of a phone's screen (.stage-main
  // is position: sticky there), above the screen's foot. (On a wider screen the graph, in the
  // column beside, stays at the top itself: modes.css.) When they don't all fit, the line
  // (else the element) is put at the top. First once the editor has scrolled (two frames: it
  // measures, then scrolls), then again whenever the widget's layout changes (the engine
  // ready, the graph drawn and sized), until the learner scrolls, touches or types, or a
  // while has passed.
  reveal(line, other = null, last = line) {
    this.stopRevealing?.();
    let scrolled = null; // where the page was left, to tell a learner's own scrolling from it
    const attempt = () => {
      const rects = [];
      if (line) {
        const first = this.editor?.lineRect(line);
        if (first) rects.push(first, this.editor?.lineRect(last) ?? first);
      }
      if (other?.isConnected) rects.push(other.getBoundingClientRect());
      if (rects.length) {
        const sticky = this.root.querySelector(".stage-main");
        const stuck = sticky instanceof HTMLElement && getComputedStyle(sticky).position === "sticky";
        const top = (stuck ? sticky.getBoundingClientRect().bottom : 0) + LINE_MARGIN_PX;
        const bottom = window.innerHeight - LINE_MARGIN_PX;
        const lo = Math.min(...rects.map((r) => r.top));
        const hi = Math.max(...rects.map((r) => r.bottom));
        const by = hi - lo > bottom - top || lo < top ? lo - top : hi > bottom ? hi - bottom : 0;
        // Less than a pixel is the page's rounding (it scrolls by whole device pixels), not an error.
        if (Math.abs(by) >= 1) window.scrollBy({ top: by });
      }
      scrolled = window.scrollY;
    };
    const again = () => {
      if (scrolled === null) return; // the first attempt is still to come
      if (Math.abs(window.scrollY - scrolled) > 1) stop(); // scrolled by someone else: theirs now
      else attempt();
    };
    const observer = new ResizeObserver(() => requestAnimationFrame(again));
    // The editor scrolls its line into its own view when it gets round to it, which may be
    // after the first attempt (the line was not drawn then): that moves the line too.
    const scroller = this.editor?.scroller;
    const editorScrolled = () => requestAnimationFrame(again);
    scroller?.addEventListener("scroll", editorScrolled, { passive: true });
    const root = this.box.getRootNode();
    const host = root instanceof ShadowRoot ? root.host : document.body;
    for (const element of [host, this.root.querySelector(".stage-main"), this.box]) {
      if (element) observer.observe(element);
    }
    const stop = () => {
      observer.disconnect();
      scroller?.removeEventListener("scroll", editorScrolled);
      clearTimeout(timer);
      for (const type of LEARNER_EVENTS) window.removeEventListener(type, stop, true);
      if (this.stopRevealing === stop) this.stopRevealing = null;
    };
    const timer = setTimeout(stop, REVEAL_FOR_MS);
    for (const type of LEARNER_EVENTS) window.addEventListener(type, stop, { capture: true, passive: true });
    this.stopRevealing = stop;
    requestAnimationFrame(() => requestAnimationFrame(attempt));
  }

  drawResult(s) {
    const code = s.code;
    if (code.status === "running") {
      this.status.textContent = "Running your code…";
      return;
    }
    if (code.status === "error") {
      const error = code.error;
      const line = theirLine(error);
      this.status.textContent = line ? `Your code stopped at line ${line}.` : "Your code did not run.";
      const programLine = error.kind === "program" && error.line;
      const where = line ? `Line ${line}: ` : programLine ? `The program, line ${error.line}: ` : "";
      const parts = [h("p", { class: "code-error", role: "alert" }, where, error.message)];
      if (error.kind === "missing" && error.buildable?.length) {
        const title = (id) => s.presets.find((p) => p.id === id)?.title ?? id;
        parts.push(h("p", {}, "Graphs your class can build:"),
          h("div", { class: "code-buildable" }, ...error.buildable.map((id) =>
            h("button", { type: "button", class: "button small", "data-preset": id,
              onclick: () => this.actions.build(id) }, title(id)))));
      }
      this.result.replaceChildren(...parts);
      return;
    }
    if (code.status !== "done") {
      this.status.textContent = "";
      this.result.replaceChildren();
      return;
    }
    const result = code.result;
    const constants = new Set(result.constants ?? []); // numbers in operations: no grad of theirs to get right
    const wrong = Object.keys(result.grads)
      .filter((label) => !constants.has(label) && !sameNumber(result.grads[label], result.expected[label]));
    const findings = result.findings;
    this.status.textContent = findings.length || wrong.length
      ? `Your run: ${plural(wrong.length, "grad")} wrong, ${plural(findings.length, "problem")}.`
      : "Your run: every grad is right, and no problem found.";
    const list = h("ul", { class: "code-findings", "data-findings": "", "aria-label": "What went wrong" },
      ...findings.map((finding, k) => h("li", {
        class: "code-finding", "data-finding": "", "data-node": finding.node, "data-line": finding.line ?? "",
        "data-nodes": JSON.stringify(findingNodes(finding)), "data-kind": finding.kind,
      }, h("button", { type: "button", class: "finding-button", onclick: () => this.pick(k) },
        ...withCode(finding.text)))));
    const notes = result.notes.map((note) => h("p", { class: "muted" }, note));
    this.result.replaceChildren(
      ...(findings.length ? [h("p", {}, "Click a problem to see its line and its node.")] : []),
      list,
      ...notes);
  }
}
