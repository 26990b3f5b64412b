// STAND-IN: a plain <textarea> with this module's interface, so the "Your code" mode
// (modes/your-code.js) can be built and tested before the real CodeMirror 6 editor
// lands; that editor replaces this whole file, with the same exports.
//
//   const { createEditor } = await loadCodeEditor();
//   const editor = createEditor(parent, {doc, label, onChange, onRun});
//   editor.getText() / setText(text) / markError(line, message) / clearError()
//   editor.markLines(lines, kind) / focus() / destroy()
//
// The text area is the mode's one multi-line textbox; Ctrl+Enter (⌘+Enter) runs.

import { h } from "../lib/dom.js";

export async function loadCodeEditor() {
  return { createEditor };
}

let made = 0;

// Its own styles, so that this file is the whole stand-in.
const CSS = `
.code-editor-frame { display: grid; grid-template-columns: auto minmax(0, 1fr); border: 1px solid #8f98a6;
  border-radius: 6px; background: var(--panel, #fff); overflow: hidden; height: min(24rem, 60dvh); }
.code-editor-frame:focus-within { outline: 3px solid var(--accent); outline-offset: 1px; }
.code-editor-gutter { margin: 0; padding: 0.4rem 0.45rem; background: var(--soft, #f3f5f8); color: var(--muted);
  text-align: right; font: 0.82rem/1.45 var(--mono); overflow: hidden; user-select: none; min-width: 2.4em;
  white-space: pre; }
.code-editor-gutter .is-error, .code-editor-gutter .is-finding { color: #fff; background: var(--late);
  font-weight: 700; }
.code-editor-area { font: 0.82rem/1.45 var(--mono); border: 0; padding: 0.4rem 0.5rem; resize: none;
  width: 100%; height: 100%; color: var(--ink); background: transparent; white-space: pre; overflow: auto;
  tab-size: 4; }
.code-editor-area:focus { outline: none; }
.code-editor-error { color: var(--late); font-weight: 600; margin: 0.3rem 0 0; font-size: 0.88rem; }
`;

/**
 * @param {HTMLElement} parent
 * @param {{doc?: string, label?: string, onChange?: (text: string) => void, onRun?: () => void}} options
 */
export function createEditor(parent, { doc = "", label = "Code", onChange = (_text) => {}, onRun = () => {} } = {}) {
  const id = `code-editor-${++made}`;
  const gutter = h("pre", { class: "code-editor-gutter", "aria-hidden": "true" });
  const area = /** @type {HTMLTextAreaElement} */ (h("textarea", {
    id, class: "code-editor-area", spellcheck: "false", autocapitalize: "off", autocomplete: "off", wrap: "off",
    rows: "16", "aria-label": label, "aria-multiline": "true",
  }));
  area.value = doc;
  const error = h("p", { class: "code-editor-error", id: `${id}-error`, hidden: true });
  const frame = h("div", { class: "code-editor" }, h("div", { class: "code-editor-frame" }, gutter, area), error);
  parent.append(frame);
  // Its styles, adopted by the widget's shadow root (a <style> element would break the CSP).
  const root = /** @type {ShadowRoot | Document} */ (parent.getRootNode());
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  /** @type {{error: number | null, lines: Map<number, string>}} */
  const marked = { error: null, lines: new Map() };

  /** @returns {void} */
  function numberLines() {
    const count = area.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: count }, (_, i) => {
      const n = i + 1;
      const kind = n === marked.error ? "error" : marked.lines.get(n);
      return h("span", { class: kind ? `is-${kind}` : "" }, `${n}\n`);
    }));
  }
  numberLines();
  area.addEventListener("input", () => {
    numberLines();
    onChange(area.value);
  });
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  let escaped = false; // Escape, then Tab leaves the editor (no keyboard trap)
  area.addEventListener("keydown", (e) => {
    const leaving = escaped;
    escaped = e.key === "Escape";
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      onRun();
    } else if (e.key === "Tab" && !leaving && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault(); // indentation, as in a code editor (Escape then Tab leaves it)
      area.setRangeText("    ", area.selectionStart, area.selectionEnd, "end");
      onChange(area.value);
    }
  });

  // The start of a line (1-based) in the text, to select it.
  const startOf = (line) => area.value.split("\n").slice(0, line - 1).reduce((at, l) => at + l.length + 1, 0);
  function select(line) {
    const start = startOf(line);
    const end = area.value.indexOf("\n", start);
    area.setSelectionRange(start, end < 0 ? area.value.length : end);
  }

  return {
    getText: () => area.value,
    setText(text) {
      area.value = text;
      marked.error = null;
      marked.lines.clear();
      error.hidden = true;
      numberLines();
    },
    markError(line, message) {
      marked.error = line;
      error.textContent = `Line ${line}: ${message}`;
      error.hidden = false;
      area.setAttribute("aria-describedby", error.id);
      area.setAttribute("aria-invalid", "true");
      numberLines();
    },
    clearError() {
      marked.error = null;
      error.hidden = true;
      area.removeAttribute("aria-describedby");
      area.removeAttribute("aria-invalid");
      numberLines();
    },
    markLines(lines, kind = "finding") {
      marked.lines = new Map(lines.map((n) => [n, kind]));
      numberLines();
      if (lines.length) select(lines[0]);
    },
    focus: () => area.focus(),
    destroy() {
      frame.remove();
      root.adoptedStyleSheets = root.adoptedStyleSheets.filter((s) => s !== sheet);
    },
  };
}
