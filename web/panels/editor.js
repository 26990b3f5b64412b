// Your own program: an editor in the Program panel.
//
// "Edit" turns the read-only listing into a text area holding the program on
// screen. Typing rebuilds the graph 300 ms after the last key; only the newest
// request's answer is drawn. A program outside the engine's subset shows the
// engine's message at its line and column (a marked line number, the line itself
// with a caret under the column) and the last good graph stays, marked as such on the
// graph panel ("Showing the last graph that worked") until the program is fixed or
// another graph is loaded. A program over the engine's limits is refused here,
// before it is sent, in the engine's words.

import { h, debounce, newestOnly, say } from "../lib/dom.js";
import { MAX_LINES, MAX_SOURCE_CHARS } from "../url.js";
import { OPS } from "../ops.js";

/**
 * The editor's help: the operations a program may use, from the engine's table (ops.js,
 * written by the build from engine/ops.py), so a new operation is listed without an edit here.
 * @param {{name: string, arity: number, written: string, symbol: string}[]} ops
 */
function editorHelp(ops) {
  const written = (how) => ops.filter((op) => op.written === how).map((op) => op.symbol);
  const prefix = written("prefix").map((symbol) => `, ${symbol} before a term`).join("");
  return `One assignment per line, micrograd style: numbers, ${written("infix").join(" ")}${prefix}, and `
    + `${written("function").join(", ")} (as functions or methods). The last line is the output.`;
}

export class Editor {
  // build(text) asks for a graph: resolves {ok:true} | {ok:false, error} | null (stale).
  constructor(box, { pre, build, backToPreset }) {
    this.box = box;
    this.pre = pre;
    this.build = build;
    this.backToPreset = backToPreset;
    this.open = false;
    this.mine = false; // the graph on screen came from this editor
    this.requests = newestOnly(); // only the newest program's answer counts
    this.typed = debounce(() => this.submit(), 300);

    this.toggle = h("button", {
      type: "button", class: "button small", id: "edit-program", "aria-expanded": "false",
      "aria-controls": "editor", onclick: () => (this.open ? this.close() : this.openEditor()),
    }, "Edit");
    this.gutter = h("pre", { class: "editor-gutter", "aria-hidden": "true" });
    this.area = h("textarea", {
      id: "program-editor", class: "editor-area", spellcheck: "false", autocapitalize: "off",
      autocomplete: "off", wrap: "off", rows: "8", "aria-describedby": "editor-help editor-status",
    });
    this.status = h("div", { class: "editor-status", id: "editor-status", role: "status" });
    this.backButton = h("button", { type: "button", class: "button quiet small", onclick: () => this.backToPreset() },
      "Back to the preset");
    this.panel = h("div", { class: "editor", id: "editor", hidden: true },
      h("label", { for: "program-editor", class: "editor-label" }, "Type or paste a program"),
      h("p", { class: "editor-help", id: "editor-help" }, editorHelp(OPS)),
      h("div", { class: "editor-frame" }, this.gutter, this.area),
      this.status,
      h("div", { class: "editor-buttons" },
        h("button", { type: "button", class: "button small", onclick: () => this.close() }, "Done"),
        this.backButton));
    box.append(this.panel);
    this.lastGood = new LastGoodNote(box);

    this.area.addEventListener("input", () => {
      this.numberLines();
      this.typed();
    });
    this.area.addEventListener("scroll", () => {
      this.gutter.scrollTop = this.area.scrollTop;
    });
  }

  // The heading row's Edit button (the page puts it next to the "Program" heading).
  get button() {
    return this.toggle;
  }

  openEditor(text = null) {
    this.open = true;
    this.toggle.setAttribute("aria-expanded", "true");
    this.toggle.textContent = "Close editor";
    this.panel.hidden = false;
    this.pre.hidden = true;
    if (text !== null || !this.area.value) this.setText(text ?? this.currentProgram ?? "");
    this.area.focus();
  }

  close() {
    this.typed.now();
    this.open = false;
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.textContent = "Edit";
    this.panel.hidden = true;
    this.pre.hidden = false;
    this.toggle.focus();
  }

  setText(text) {
    this.area.value = text;
    this.numberLines();
    this.area.rows = Math.max(6, Math.min(18, text.split("\n").length + 1));
  }

  // A graph is on screen: show its program unless it came from the typing here.
  graphLoaded(answer, fromEditor, isPreset) {
    this.currentProgram = (answer.program ?? "").replace(/\n$/, ""); // none for a kernel's graph
    if (!fromEditor) {
      this.mine = false;
      this.showError(null);
      if (this.area.value.replace(/\n$/, "") !== this.currentProgram) this.setText(this.currentProgram);
    }
    this.backButton.hidden = isPreset;
  }

  numberLines(errorLine = this.errorLine) {
    const count = Math.min(this.area.value.split("\n").length, MAX_LINES + 1);
    const rows = [];
    for (let i = 1; i <= count; i++) rows.push(i === errorLine ? `▸${i}` : String(i));
    this.gutter.textContent = `${rows.join("\n")}\n`;
    // Reading scrollTop lays the whole page out: do it once, at the next frame
    // (when the page is laid out anyway), and not at all for a closed editor.
    if (this.open && !this.syncing) {
      this.syncing = true;
      requestAnimationFrame(() => {
        this.syncing = false;
        if (this.open) this.gutter.scrollTop = this.area.scrollTop;
      });
    }
  }

  // Check the size here, then ask for a graph; only the newest answer counts.
  async submit() {
    const text = this.area.value;
    const isLatest = this.requests.begin();
    const refused = tooBig(text);
    if (refused) {
      // Where the engine would put it: the first line for a long text, the line past the limit for too many.
      const line = text.length > MAX_SOURCE_CHARS ? 1 : MAX_LINES + 1;
      this.showError({ message: refused, line, col: 1 }, text);
      return;
    }
    this.box.dataset.building = "1";
    let result;
    try {
      result = await this.build(text);
    } catch (error) {
      if (isLatest()) this.showError({ message: `The engine could not answer: ${error?.message ?? error}` }, text);
      return;
    } finally {
      if (isLatest()) delete this.box.dataset.building;
    }
    if (!isLatest() || result === null) return; // a newer edit is on its way
    if (result.ok) {
      this.mine = true;
      this.showError(null);
      say(this.status, `Graph rebuilt: ${result.nodes} node${result.nodes === 1 ? "" : "s"}, output ${result.output}.`);
    } else {
      this.showError(result.error, text);
    }
  }

  showError(error, text = this.area.value) {
    this.errorLine = error?.line ?? null;
    this.numberLines();
    this.panel.classList.toggle("has-error", Boolean(error));
    this.lastGood.show(error);
    if (!error) {
      this.area.removeAttribute("aria-invalid");
      this.status.replaceChildren();
      delete this.status.dataset.line;
      delete this.status.dataset.col;
      return;
    }
    this.area.setAttribute("aria-invalid", "true");
    const parts = [];
    if (error.line) {
      this.status.dataset.line = String(error.line);
      this.status.dataset.col = String(error.col ?? 1);
      const lineText = text.split("\n")[error.line - 1] ?? "";
      const col = Math.max(1, error.col ?? 1);
      parts.push(h("p", { class: "editor-error-head" },
        h("strong", {}, `Line ${error.line}, column ${col}: `), error.message));
      parts.push(h("pre", { class: "editor-caret", "aria-hidden": "true" },
        `${String(error.line).padStart(3)} | ${lineText}\n    | ${" ".repeat(col - 1)}^`));
      parts.push(h("p", { class: "muted editor-kept" },
        h("button", { type: "button", class: "linkish", onclick: () => this.goTo(error.line, col) },
          `Go to line ${error.line}`),
        " · The graph shows your last program that worked."));
    } else {
      delete this.status.dataset.line;
      delete this.status.dataset.col;
      parts.push(h("p", { class: "editor-error-head" }, h("strong", {}, "Not built: "), error.message));
      parts.push(h("p", { class: "muted" }, "The graph shows your last program that worked."));
    }
    this.status.replaceChildren(...parts);
    this.keepStatusInView();
  }

  // The message belongs where the learner is typing: if it came up below the bottom of
  // the screen, scroll just enough to show it (the text area sits right above it).
  keepStatusInView() {
    if (!this.open || typeof window === "undefined") return;
    const box = this.status.getBoundingClientRect();
    if (box.bottom > window.innerHeight || box.top < 0) this.status.scrollIntoView({ block: "nearest" });
  }

  goTo(line, col) {
    const lines = this.area.value.split("\n");
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
    at += Math.min(col - 1, (lines[line - 1] ?? "").length);
    this.area.focus();
    this.area.setSelectionRange(at, at);
  }
}

// The note on the graph panel while the program in the editor doesn't build: the graph
// on screen is the last one that did. It is an element of its own right under the
// graph's scroll box (on the side of the program panel, where the learner is typing),
// named by the graph region's aria-describedby, and the panel gets a class (panels.css)
// that frames the graph.
class LastGoodNote {
  constructor(box) {
    this.box = box;
    this.note = null;
  }

  show(error) {
    const panel = this.box.getRootNode().querySelector?.(".graph-panel");
    const scroller = panel?.querySelector(".graph-scroll");
    if (!scroller) return;
    panel.classList.toggle("shows-last-good", Boolean(error));
    const described = (scroller.getAttribute("aria-describedby") ?? "").split(" ")
      .filter((id) => id && id !== "last-good-note");
    if (!error) {
      this.note?.remove();
      if (described.length) scroller.setAttribute("aria-describedby", described.join(" "));
      else scroller.removeAttribute("aria-describedby");
      return;
    }
    this.note ??= h("p", { class: "last-good-note", id: "last-good-note" }, h("span", { class: "last-good-text" }));
    const where = error.line ? ` (line ${error.line})` : "";
    this.note.firstChild.textContent =
      `Showing the last graph that worked: your program has an error${where}, see the editor.`;
    if (this.note.previousElementSibling !== scroller) scroller.after(this.note);
    scroller.setAttribute("aria-describedby", [...described, "last-good-note"].join(" "));
  }
}

// The engine's limits, checked before anything is sent (same wording as engine/program.py).
function tooBig(text) {
  if (text.length > MAX_SOURCE_CHARS) {
    return `This program is ${text.length.toLocaleString("en-US")} characters long; `
      + `the limit is ${MAX_SOURCE_CHARS.toLocaleString("en-US")}.`;
  }
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lines += 1;
    if (lines > MAX_LINES) {
      return `This program has more than ${MAX_LINES.toLocaleString("en-US")} lines; make it shorter.`;
    }
  }
  return null;
}
