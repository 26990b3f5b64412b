// Embedding: the widget inside a lesson's iframe.
//
//   index.html?embed=1&preset=diamond&hide=editor,nudge&start=order
//
// embed=1 drops the page's header and footer and folds the notes; `hide` removes
// whole parts (presets fixes the preset; see permalink.HIDEABLE), as the
// TensorFlow Playground lets an instructor hide each control; `start` picks where
// the learner begins (forward: the first step, backward: the seeded backward pass,
// end: every grad filled in, order: the visit-order experiment first).
// The same options work as attributes of <grad-walk> (gradwalk.js). An embedded
// page tells its parent how tall it is ({type: "gradwalk:height"}, which
// embed-resize.js turns into the iframe's height).
//
// The Embed button opens a dialog that writes a snippet for the graph on screen,
// with those options as checkboxes: a <grad-walk> element (for pages that can load
// a script from this site) or an iframe (for hosts that allow nothing else).

import { siteURL } from "../site.js";
import { h, say } from "../lib/dom.js";
import { HIDEABLE, formatLink } from "../url.js";

const PART_NAMES = {
  presets: "Preset chooser (off fixes the preset)",
  questions: "Checkpoint questions",
  values: "Input values (edit and scrub)",
  nudge: "Nudge check",
  editor: "Program editor",
  code: "Program listing",
  table: "Nodes table",
  order: "Visit-order experiment",
  why: "Why reverse mode experiments",
  lesson: "Title and notes",
  share: "Link buttons",
  exercises: "Your code's exercise chooser",
};

const START_NAMES = {
  forward: "Before the first step",
  backward: "At the seed of the backward pass",
  end: "With every grad filled in",
  order: "In the visit-order experiment",
  code: "In Your code",
};

// Mark the widget's element with the embedding classes (its stylesheet hides the
// parts); inside an iframe, also report the page's height to the parent. Returns
// a function that stops the reports.
export function applyEmbed(state, { element, shadow, ownPage }) {
  element.classList.toggle("is-embed", Boolean(state.embed));
  for (const part of HIDEABLE) {
    element.classList.toggle(`hide-${part}`, Boolean(state.embed) && state.hide.includes(part));
  }
  element.classList.toggle("start-order", Boolean(state.embed) && state.start === "order");
  if (!state.embed) return () => {};
  // Minimal chrome: the notes and the legend start folded.
  for (const id of ["lesson-more", "legend-box"]) {
    const box = shadow.getElementById(id);
    if (box) box.open = false;
  }
  if (ownPage) document.documentElement.classList.add("is-embed"); // the page's own chrome goes too
  return ownPage ? reportHeight() : () => {};
}

// Tell the parent page our height whenever it changes (only inside a frame).
function reportHeight() {
  if (window.parent === window || typeof ResizeObserver !== "function") return () => {};
  let last = 0;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (Math.abs(height - last) < 2) return;
    last = height;
    window.parent.postMessage({ type: "gradwalk:height", height }, "*");
  };
  const observer = new ResizeObserver(send);
  observer.observe(document.documentElement);
  send();
  return () => observer.disconnect();
}

// Where links and snippets point: this page's own address (without query or
// hash) when the widget is Gradwalk's own page, else the site's index.html.
export function siteAddress(ownPage) {
  let url;
  try {
    url = ownPage ? new URL(location.href) : siteURL("index.html");
  } catch {
    return null; // bundled into a notebook (a blob: URL): there is no site to point at
  }
  url.search = "";
  url.hash = "";
  return url.href;
}

export class EmbedDialog {
  // state() is the page's link state (as for formatLink, with the program's text) plus {title}.
  constructor({ state, container }) {
    this.state = state;
    this.container = container; // the widget's shadow root: the dialog's styles live there
    this.dialog = null;
  }

  close() {
    if (this.dialog?.open) this.dialog.close();
  }

  build() {
    const checks = HIDEABLE.map((part) => {
      const id = `embed-show-${part}`;
      return h("div", { class: "embed-check" },
        h("input", { type: "checkbox", id, checked: !["editor", "share", "why"].includes(part), data: { part } }),
        h("label", { for: id }, PART_NAMES[part]));
    });
    this.start = h("select", { id: "embed-start" },
      ...Object.entries(START_NAMES).map(([value, text]) => h("option", { value }, text)));
    this.keep = h("input", { type: "checkbox", id: "embed-keep", checked: false });
    // The iframe works on any host (many course platforms strip scripts); the
    // element is lighter where scripts are allowed (widgets share one engine).
    this.kind = h("select", { id: "embed-kind" },
      h("option", { value: "iframe" }, "iframe (works on any host)"),
      h("option", { value: "element" }, "<grad-walk> element (a script from this site)"));
    this.height = h("input", {
      type: "number", id: "embed-height", min: "300", max: "3000", step: "10", value: "760", class: "embed-height",
    });
    this.snippet = h("textarea", {
      id: "embed-snippet", class: "embed-snippet", readonly: true, rows: "4", spellcheck: "false",
    });
    this.status = h("p", { class: "embed-status", role: "status" });
    this.preview = h("a", { class: "embed-preview", target: "_blank", rel: "noopener" }, "Preview in a new tab");
    const form = h("form", { method: "dialog", class: "embed-form" },
      h("div", { class: "embed-head" },
        h("h2", { id: "embed-title" }, "Embed this widget"),
        h("button", { type: "submit", class: "button quiet small", value: "close" }, "Close")),
      h("p", { class: "muted" }, "Paste the snippet into your lesson page. "
        + "The widget shows the graph on screen now; the learner's steps stay inside it."),
      h("fieldset", { class: "embed-parts" }, h("legend", {}, "Show"), ...checks),
      h("div", { class: "embed-row" },
        h("label", { for: "embed-kind" }, "Embed as"), this.kind),
      h("div", { class: "embed-row" },
        h("label", { for: "embed-start" }, "Start"), this.start),
      h("div", { class: "embed-row" },
        this.keep,
        h("label", { for: "embed-keep" }, "Start at the current step (not only the current graph and values)")),
      this.heightRow = h("div", { class: "embed-row" },
        h("label", { for: "embed-height" }, "Height (px)"), this.height),
      h("label", { for: "embed-snippet", class: "embed-snippet-label" }, "Snippet"),
      this.snippet,
      h("div", { class: "embed-row" },
        h("button", { type: "button", class: "button primary small", onclick: () => this.copy() }, "Copy snippet"),
        this.preview),
      this.status,
      h("p", { class: "muted small-print" },
        "The element sizes itself to its content. The iframe snippet loads embed-resize.js from this site, "
          + "which makes the frame grow to fit the widget."));
    form.addEventListener("input", () => this.refresh());
    form.addEventListener("change", () => this.refresh());
    this.dialog = h("dialog", { class: "embed-dialog", id: "embed-dialog", "aria-labelledby": "embed-title" }, form);
    this.container.append(this.dialog);
  }

  open() {
    if (!this.dialog) this.build();
    this.refresh();
    say(this.status, "");
    this.dialog.showModal();
  }

  url() {
    const s = this.state();
    const hide = [...this.dialog.querySelectorAll("input[data-part]")]
      .filter((c) => !c.checked).map((c) => c.dataset.part);
    const keep = this.keep.checked;
    const state = {
      ...s, embed: true, hide, start: this.start.value === "forward" ? null : this.start.value,
      pass: keep ? s.pass : null, step: keep ? s.step : null, order: keep ? s.order : null,
    };
    // A learner's program goes as its text (program=), which an author can read and change.
    return siteAddress(false) + formatLink(state, { encodedProgram: s.program, programFormat: "text" });
  }

  snippetText() {
    const src = this.url();
    const height = Math.max(300, Math.min(3000, Number(this.height.value) || 760));
    const title = `Gradwalk: ${this.state().title}`;
    const site = new URL("./", siteAddress(false)).href;
    if (this.kind.value === "iframe") {
      return `<iframe src="${escapeAttr(src)}" title="${escapeAttr(title)}" `
        + `width="100%" height="${height}" loading="lazy"></iframe>\n`
        + `<script src="${escapeAttr(new URL("embed-resize.js", site).href)}" defer></script>`;
    }
    // The element takes the link's parameters as attributes (gradwalk.js), with
    // v spelled values and cp=0 spelled questions="off".
    const attrs = [...new URL(src).searchParams].filter(([key]) => !["gw", "embed"].includes(key))
      .map(([key, value]) =>
        (key === "cp" ? ' questions="off"' : ` ${key === "v" ? "values" : key}="${escapeAttr(value)}"`))
      .join("");
    return `<script type="module" src="${escapeAttr(new URL("gradwalk.js", site).href)}"></script>\n`
      + `<grad-walk${attrs} aria-label="${escapeAttr(title)}"></grad-walk>`;
  }

  refresh() {
    this.heightRow.hidden = this.kind.value !== "iframe"; // an element sizes itself
    this.snippet.value = this.snippetText();
    this.preview.href = this.url();
  }

  async copy() {
    this.snippet.select();
    try {
      await navigator.clipboard.writeText(this.snippet.value);
      say(this.status, "Copied the snippet.");
    } catch {
      say(this.status, "Selected: press Ctrl+C (⌘C on a Mac) to copy.");
    }
  }
}

// An attribute's value, with its line breaks as &#10; so that it stays on one line.
function escapeAttr(text) {
  return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")
    .replace(/\r?\n/g, "&#10;");
}
