// <grad-walk>: a Gradwalk widget as an HTML element, for lesson pages.
//
//   <script type="module" src="https://your.site/gradwalk/gradwalk.js"></script>
//   <grad-walk preset="diamond" hide="editor,why" start="order" questions="off"></grad-walk>
//
// Attributes (the iframe embed's options, panels/embed.js and url.js):
//   preset     a preset id                  program  a program of your own (its text)
//   values     new input values, a:3,b:-1   order    a visit order to run, d,b,c,a
//   pass, step where to start in the trace  start    forward | backward | end | order | code
//   exercise   "Your code"'s exercise (the id of a file <n>_<id>.py of engine/exercises/), with start="code"
//   hide       parts to leave out, comma-separated (presets, questions, values, nudge,
//              editor, code, table, order, why, lesson, share, exercises)
//   questions  "off" turns the checkpoint questions off
// Changing an attribute rebuilds the widget. Every <grad-walk> on a page shares one
// engine (one Python); each element carries data-engine="loading" | "ready" |
// "error", and so does <html>, for the page as a whole (the least ready widget).
// Everything is inside an open shadow root: the page's styles stay out, the
// widget's stay in.

import { mount } from "./widget.js";

// prog and src (a link's compressed and base64url program, which older Embed snippets wrote) pass through.
const ATTRIBUTES = [
  "preset", "program", "prog", "src", "values", "order", "pass", "step", "start", "hide", "questions", "exercise",
];
const SPELLED = { values: "v" }; // attribute → permalink parameter, where they differ

export class GradWalkElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  connectedCallback() {
    // A landmark that names itself, so a page of several widgets reads well to a screen reader.
    if (!this.hasAttribute("role")) this.setAttribute("role", "region");
    if (!this.hasAttribute("aria-label") && !this.hasAttribute("aria-labelledby")) {
      this.setAttribute("aria-label", "Gradwalk");
    }
    mounted.add(this); // first: mount() reports the engine's state at once
    if (!this.widget) this.widget = mount(this, { query: queryOf(this), onEngine: pageEngineState });
  }

  disconnectedCallback() {
    // Moved elsewhere in the page (disconnected and connected again in one task): keep it.
    queueMicrotask(() => {
      if (this.isConnected || !this.widget) return;
      this.widget.unmount();
      this.widget = null;
      mounted.delete(this);
      pageEngineState();
    });
  }

  attributeChangedCallback(name, before, after) {
    if (!this.widget || before === after) return;
    this.widget.unmount();
    this.widget = mount(this, { query: queryOf(this), onEngine: pageEngineState });
  }
}

// The element's attributes as a permalink query (embedded, so the page's chrome stays out).
export function queryOf(element) {
  const params = new URLSearchParams({ embed: "1" });
  for (const name of ATTRIBUTES) {
    const value = element.getAttribute(name);
    if (value === null) continue;
    if (name === "questions") {
      if (/^(off|0|false|no)$/i.test(value.trim())) params.set("cp", "0");
    } else params.set(SPELLED[name] ?? name, value);
  }
  return `?${params}`;
}


// The elements with a widget, wherever they are (a host may put one in a shadow root of its
// own, where document.querySelectorAll does not look).
const mounted = new Set();

// <html data-engine>: "error" if any widget's engine failed, else "loading" while
// any is loading, else "ready".
function pageEngineState() {
  const states = [...mounted].map((e) => /** @type {HTMLElement} */ (e).dataset.engine ?? "loading");
  const state = states.includes("error") ? "error" : states.includes("loading") ? "loading" : "ready";
  document.documentElement.dataset.engine = state;
}

if (!customElements.get("grad-walk")) customElements.define("grad-walk", GradWalkElement);
