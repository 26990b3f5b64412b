// The "Your code" mode's code editor: CodeMirror 6 with Python highlighting, undo and
// redo, line numbers, bracket matching, and Tab to indent.
//
// The build bundles this module with CodeMirror at the same address, Python's grammar split
// off into a chunk beside it (buildtools/bundle.py); the page fetches it only when the mode asks for it
// (panels/code-editor.js), so a page that never opens the mode never loads it.
//
//   const editor = createEditor(parent, { doc, label, onChange, onRun });
//   editor.getText(); editor.setText(text);
//   editor.markError(line, message); editor.clearError();
//   editor.markLines([3, 7], "finding"); editor.focus(); editor.destroy();
//
// Keyboard: Tab and Shift-Tab indent and dedent; Escape then Tab moves focus out of the
// editor (CodeMirror's own way out of a Tab-handling editor); Ctrl-Enter (Cmd-Enter on a
// Mac) runs the code. The editable element is a multi-line textbox (role="textbox",
// aria-multiline="true") named by `label`.
//
// The site's Content-Security-Policy allows no <style> elements and no style=""
// attributes. The editor therefore lives in a shadow root: there CodeMirror's styles
// go into a constructed stylesheet (adoptedStyleSheets), which the policy does not
// govern, and the few styles it sets on elements go through the CSSOM, which it does
// not govern either. In a document CodeMirror would add a <style> element to <head>,
// which the policy blocks, so createEditor refuses a parent outside a shadow root.

import { Annotation, EditorState, Prec, RangeSet, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration, EditorView, GutterMarker, WidgetType, gutterLineClass, keymap, lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  LanguageSupport, bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting,
} from "@codemirror/language";

// Python's grammar (Lezer's parse tables, decoded when its module runs) comes in a chunk of
// its own, which loadPython() imports in a task after this module's: the two together
// would make one task over 50 ms on a slow machine. createEditor() needs it loaded.
/** @type {import("@codemirror/language").Language | null} */
let python = null;

/** Loads Python's grammar (once); createEditor() may be called when this has resolved. */
export async function loadPython() {
  python ??= (await import("@codemirror/lang-python")).pythonLanguage;
}

/**
 * @typedef {object} CodeEditor
 * @property {() => string} getText  the whole text
 * @property {(text: string) => void} setText  replace the whole text (undoable; onChange is not called),
 *   clearing the error and the marked lines
 * @property {(line: number, message: string) => void} markError  mark a line (1-based) and show the
 *   message under it; the next edit, setText or clearError() removes it
 * @property {() => void} clearError
 * @property {(lines: number[], kind?: string, y?: ScrollTo) => void} markLines  highlight these lines
 *   (1-based) as `kind` ("finding" unless named), in place of the lines marked as `kind` before; []
 *   clears them. The marks follow their text through the learner's edits; the first is scrolled into
 *   the editor's view (`y`: "nearest" unless named; "end" puts it near the editor's foot).
 * @property {(line: number, y?: ScrollTo) => void} showLine  scroll the editor so that the line
 *   (1-based) is in its view: at its top ("start"), its foot ("end"), or as little as it takes
 * @property {(line: number) => DOMRect | null} lineRect  where the line (1-based) is on the screen, or
 *   null when it is not drawn (scrolled far out of the editor's view)
 * @property {HTMLElement} scroller  the element the editor scrolls its lines in (a line scrolled
 *   into the editor's view moves on the screen without any resize)
 * @property {() => void} focus
 * @property {() => void} destroy
 */

// Python's indentation: four spaces, and a tab shown four columns wide.
/** @typedef {"nearest" | "start" | "end" | "center"} ScrollTo */

const INDENT = "    ";
const SCROLL_MARGIN_PX = 28; // about a line of code kept beyond a line scrolled to the editor's top or foot

// Changes made by setText, not by the learner: onChange is not told of them.
const programmatic = Annotation.define();

/** @typedef {{ line: number, from: number, to: number, message: string }} LineError */

/** @type {import("@codemirror/state").StateEffectType<LineError | null>} */
const setError = StateEffect.define();

// The error on screen, or null. Any change to the text clears it (a change that sets a
// new error at the same time keeps that one).
const errorField = StateField.define({
  create: () => /** @type {LineError | null} */ (null),
  update(error, tr) {
    const set = tr.effects.find((e) => e.is(setError));
    if (set) return set.value;
    return tr.docChanged ? null : error;
  },
  provide: (field) => [
    EditorView.decorations.from(field, (error) => (error ? errorDecorations(error) : Decoration.none)),
    gutterLineClass.from(field, (error) => (error ? RangeSet.of([errorNumber.range(error.from)]) : RangeSet.empty)),
  ],
});

// The message, on a row of its own under the line, in words (not only in colour).
class ErrorMessage extends WidgetType {
  constructor(text) {
    super();
    this.text = text;
  }

  eq(other) {
    return other.text === this.text;
  }

  toDOM() {
    const box = document.createElement("div");
    box.className = "cm-error-message";
    box.textContent = this.text;
    return box;
  }
}

class LineNumberClass extends GutterMarker {
  constructor(name) {
    super();
    this.elementClass = name;
  }
}

const errorLine = Decoration.line({ class: "cm-error-line" });
const errorNumber = new LineNumberClass("cm-error-line-number");

function errorDecorations({ line, from, to, message }) {
  return Decoration.set([
    errorLine.range(from),
    Decoration.widget({ widget: new ErrorMessage(`Line ${line}: ${message}`), block: true, side: 1 }).range(to),
  ]);
}

class MarkedNumber extends LineNumberClass {
  constructor(kind) {
    super("cm-marked-line-number");
    this.kind = kind;
  }

  eq(other) {
    return other instanceof MarkedNumber && other.kind === this.kind;
  }
}

// Marked lines: a line decoration and a class on the line's number, both tagged with
// their kind so that marking one kind again replaces only that kind's lines.
/** @type {import("@codemirror/state").StateEffectType<{ kind: string, starts: number[] }>} */
const setMarks = StateEffect.define();

const marksField = StateField.define({
  create: () => ({ lines: Decoration.none, numbers: RangeSet.empty }),
  update(marks, tr) {
    if (tr.annotation(programmatic)) return { lines: Decoration.none, numbers: RangeSet.empty }; // a new text
    let { lines, numbers } = tr.docChanged
      ? { lines: marks.lines.map(tr.changes), numbers: marks.numbers.map(tr.changes) }
      : marks;
    for (const effect of tr.effects) {
      if (!effect.is(setMarks)) continue;
      const { kind, starts } = effect.value;
      const line = Decoration.line({ class: "cm-marked-line", attributes: { "data-mark": kind }, kind });
      const number = new MarkedNumber(kind);
      lines = lines.update({
        filter: (_from, _to, deco) => deco.spec.kind !== kind,
        add: starts.map((at) => line.range(at)),
        sort: true,
      });
      numbers = numbers.update({
        filter: (_from, _to, marker) => marker.kind !== kind,
        add: starts.map((at) => number.range(at)),
        sort: true,
      });
    }
    return lines === marks.lines && numbers === marks.numbers ? marks : { lines, numbers };
  },
  provide: (field) => [
    EditorView.decorations.from(field, (marks) => marks.lines),
    gutterLineClass.from(field, (marks) => marks.numbers),
  ],
});


// The widget's colours and fonts where it defines them (its custom properties reach
// into the shadow root), with the same values as fallbacks.
const theme = EditorView.theme({
  "&": {
    color: "var(--ink, #1d2129)",
    backgroundColor: "var(--panel, #ffffff)",
    border: "1px solid var(--line, #d9dde3)",
    borderRadius: "6px",
  },
  "&.cm-focused": { outline: "2px solid var(--accent, #1f5fbf)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "var(--mono, monospace)", fontSize: "0.92rem", lineHeight: "1.5" },
  ".cm-content": { minHeight: "9em", padding: "6px 0" },
  ".cm-gutters": {
    backgroundColor: "var(--soft, #f1f3f6)",
    color: "var(--muted, #555d6b)",
    borderRight: "1px solid var(--line, #d9dde3)",
    borderRadius: "6px 0 0 6px",
  },
  ".cm-error-line": { backgroundColor: "var(--late-soft, #fde8e6)" },
  ".cm-gutterElement.cm-error-line-number": {
    backgroundColor: "var(--late, #b3261e)",
    color: "#ffffff",
    fontWeight: "700",
  },
  ".cm-error-message": {
    margin: "2px 8px 4px 4px",
    padding: "2px 8px",
    borderLeft: "3px solid var(--late, #b3261e)",
    backgroundColor: "var(--late-soft, #fde8e6)",
    color: "var(--late, #b3261e)",
    fontFamily: "var(--sans, sans-serif)",
    fontWeight: "600",
    whiteSpace: "pre-wrap",
  },
  ".cm-marked-line": {
    backgroundColor: "var(--recv-soft, #fdf0e2)",
    boxShadow: "inset 3px 0 0 var(--recv, #a44f00)",
  },
  ".cm-gutterElement.cm-marked-line-number": { color: "var(--recv, #a44f00)", fontWeight: "700" },
  ".cm-matchingBracket": { outline: "1px solid var(--muted, #555d6b)" },
  // A phone zooms into a text field whose text is under 16 px when it takes focus.
  "@media (pointer: coarse)": { ".cm-scroller": { fontSize: "16px" } },
});

// Text typed or inserted over a selection is put in by the editor itself: Chrome's own
// editing would keep the style of the highlighted text it replaces in a style=""
// attribute, which the site's CSP blocks (a violation on the console). Typing with no
// selection, pasting and deleting never reach the browser's editing in this way.
const replaceSelectionOnInput = EditorView.domEventHandlers({
  beforeinput(event, view) {
    if (event.inputType !== "insertText" || event.isComposing || !event.data) return false;
    if (view.state.selection.ranges.every((range) => range.empty)) return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(event.data), { scrollIntoView: true, userEvent: "input.type" });
    return true;
  },
});

/**
 * A code editor for Python in `parent`, which must be inside a shadow root.
 * @param {HTMLElement} parent
 * @param {{ doc?: string, label: string, onChange?: (text: string) => void, onRun?: () => void }} options
 * @returns {CodeEditor}
 */
export function createEditor(parent, { doc = "", label, onChange, onRun }) {
  const root = parent.getRootNode();
  if (!(root instanceof ShadowRoot)) {
    throw new Error("The code editor must be placed inside a shadow root (the page's CSP forbids <style> elements).");
  }
  if (!python) throw new Error("Call loadPython() and wait for it before createEditor().");
  const run = () => {
    onRun?.();
    return true;
  };
  const view = new EditorView({
    parent,
    root,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        // A long line wraps (under its number) instead of running off a phone's screen,
        // and so does an error's message under it.
        EditorView.lineWrapping,
        history(),
        bracketMatching(),
        indentOnInput(),
        new LanguageSupport(python),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        indentUnit.of(INDENT),
        EditorState.tabSize.of(INDENT.length),
        Prec.highest(keymap.of([{ key: "Mod-Enter", run }])),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        // tabindex="0" adds no tab stop (the editable element is one already), but says so
        // to checkers such as axe, which otherwise take a scrolling editor (a bounded
        // height) for a scrollable region a keyboard cannot reach.
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        // While an error is shown the text is marked invalid (its message is read with the line).
        EditorView.contentAttributes.compute([errorField], (state) =>
          state.field(errorField) ? { "aria-invalid": "true" } : {}),
        replaceSelectionOnInput,
        errorField,
        marksField,
        theme,
        EditorView.updateListener.of((update) => {
          if (!onChange || !update.docChanged) return;
          if (update.transactions.every((tr) => !tr.docChanged || tr.annotation(programmatic))) return;
          onChange(update.state.doc.toString());
        }),
      ],
    }),
  });

  const lineAt = (number) => view.state.doc.line(Math.min(Math.max(1, Math.trunc(number) || 1), view.state.doc.lines));

  return {
    getText: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: programmatic.of(true),
      });
    },
    markError(line, message) {
      const at = lineAt(line);
      const error = { line: at.number, from: at.from, to: at.to, message: String(message) };
      view.dispatch({
        effects: [
          setError.of(error),
          EditorView.scrollIntoView(at.from, { y: "nearest" }),
          EditorView.announce.of(`Line ${error.line}: ${error.message}`),
        ],
      });
    },
    clearError() {
      if (view.state.field(errorField)) view.dispatch({ effects: setError.of(null) });
    },
    markLines(lines, kind = "finding", y = "nearest") {
      const count = view.state.doc.lines;
      const numbers = [...new Set(lines)].filter((n) => Number.isInteger(n) && n >= 1 && n <= count);
      const starts = numbers.map((n) => view.state.doc.line(n).from);
      /** @type {StateEffect<any>[]} */
      const effects = [setMarks.of({ kind: String(kind), starts })];
      if (starts.length) effects.push(EditorView.scrollIntoView(starts[0], { y, yMargin: SCROLL_MARGIN_PX }));
      view.dispatch({ effects });
    },
    showLine(line, y = "nearest") {
      view.dispatch({ effects: EditorView.scrollIntoView(lineAt(line).from, { y, yMargin: SCROLL_MARGIN_PX }) });
    },
    lineRect(line) {
      const at = lineAt(line);
      const start = view.coordsAtPos(at.from);
      const end = view.coordsAtPos(at.to, -1);
      if (!start || !end) return null;
      return new DOMRect(start.left, start.top, Math.max(0, end.right - start.left), end.bottom - start.top);
    },
    scroller: view.scrollDOM,
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}

// A few lines of Python, for warmUp().
const WARM_UP_TEXT = 'class Value:\n    def __mul__(self, other):\n        return Value(self.data * other.data)  # x\n';

/**
 * Builds and drops one editor on a few lines, off the page (in a shadow root of its own,
 * never attached), so that the JavaScript engine has compiled CodeMirror's parser and
 * drawing before the learner's editor is made: that first editor's creation then takes
 * half as long, and no task of either goes over 50 ms.
 */
export function warmUp() {
  const host = document.createElement("div");
  const parent = host.attachShadow({ mode: "open" }).appendChild(document.createElement("div"));
  createEditor(parent, { doc: WARM_UP_TEXT, label: "warm-up" }).destroy();
}
