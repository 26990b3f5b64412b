// The notebook's front end (anywidget): the page's widget, with the kernel as its engine.
//
// build.py bundles this module, the widget and its stylesheets into one file,
// gradwalk/static/widget.js (buildtools/bundle.py); gradwalk.show() hands it to
// anywidget. It is never served by the site: it imports CSS as text, which only
// the bundler understands.
//
// The kernel answers the same JSON requests as the page's Pyodide worker, over
// anywidget's custom messages (gradwalk/widget.py):
//   widget → kernel   {id, request}
//   kernel → widget   {id, response: "<answer JSON>"}   or {id, error} if Python failed
// The synced `source` trait says what to show: {preset}, {program}, or {kernel: {...}}
// for a graph that lives in the kernel (a learner's micrograd value), with "check"
// when the widget shows a check's report.

import { mount } from "./widget.js";
import { toBase64url } from "./url.js";
import styleCss from "./style.css";
import panelsCss from "./panels/panels.css";
import modesCss from "./modes/modes.css";

const CSS = [styleCss, panelsCss, modesCss].join("\n");
const CALL_TIMEOUT_MS = 120000; // a kernel can be busy with the learner's own cell

// The kernel's answers are kept in the model's `answers` attribute, keyed by request, so
// that the notebook's saved widget state carries them: a saved copy of the notebook (an
// HTML export, gradwalk/export.py) steps through everything the widget was answered, with
// no kernel. Only the front end writes it; it is never synced
// back to the kernel. Past this many characters nothing more is kept.
const ANSWERS = "answers";
const ANSWERS_MAX_CHARS = 2_000_000;

const NO_KERNEL = "this is a saved copy of the notebook with no kernel running, and computing anything new "
  + "needs one: open the notebook in Jupyter and run its cells.";
// A widget brought back from a notebook's saved state in Jupyter, with no kernel behind it.
const KERNEL_GONE = "this widget was saved with the notebook and its kernel is gone, so computing anything new "
  + "needs a running kernel: run the notebook's cells again.";

// The host's own model behind anywidget's (in Jupyter, ipywidgets' WidgetModel), or null
// where it cannot be found. anywidget hands a widget only get, set, on, off and send; a
// Backbone model hands itself to a change listener, so a key of the front end's own is
// set and taken away again (never saved: nothing here calls save_changes, and an unset
// key is not in the model's state).
const PROBE = "_gradwalk_probe";
function hostModel(model) {
  /** @type {any} */
  let found = null;
  const seen = (host) => {
    found = host;
  };
  try {
    model.on(`change:${PROBE}`, seen);
    model.set(PROBE, true);
    model.set(PROBE, undefined, { unset: true });
  } catch {
    // a host whose model takes no such key: it cannot be asked
  } finally {
    model.off?.(`change:${PROBE}`, seen);
  }
  return found !== null && typeof found === "object" && typeof found.comm_live === "boolean" ? found : null;
}

// One text per request, whatever the order of its keys: the key of a kept answer.
function requestKey(request) {
  const sorted = (value) => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  };
  return JSON.stringify(sorted(request));
}

function keepAnswer(model, key, response) {
  const kept = model.get(ANSWERS) ?? {};
  if (key in kept) return;
  const size = Object.values(kept).reduce((total, text) => total + text.length, 0);
  if (size + response.length > ANSWERS_MAX_CHARS) return;
  model.set(ANSWERS, { ...kept, [key]: response });
}

export function kernelEngine(model, { callTimeoutMs = CALL_TIMEOUT_MS } = {}) {
  // In Jupyter a model brought back from the notebook's saved widget state (the notebook
  // opened again, its cells not run), or whose kernel restarted or stopped, has no live
  // comm: its send() sends nothing, silently, and a request would wait out the timeout.
  // Asked at every request (a comm may come back).
  const host = hostModel(model);
  const kernelGone = () => host !== null && host.comm_live === false;
  const pending = new Map();
  let nextId = 0;
  const status = { state: "ready", stage: "ready", fraction: 1, message: null };
  const onMessage = (message) => {
    const call = pending.get(message?.id);
    if (!call) return;
    pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error !== undefined) {
      call.reject(new Error(`The engine failed: ${message.error}`));
      return;
    }
    let answer;
    try {
      answer = JSON.parse(message.response);
    } catch {
      call.reject(new Error("The kernel's answer was not valid JSON."));
      return;
    }
    call.resolve(answer);
    keepAnswer(model, call.key, message.response);
  };
  model.on("msg:custom", onMessage);
  return {
    status,
    ready: Promise.resolve(),
    call(request) {
      const key = requestKey(request);
      const kept = model.get(ANSWERS)?.[key];
      if (kept !== undefined) return Promise.resolve(JSON.parse(kept)); // the same request, the same answer
      if (kernelGone()) return Promise.reject(new Error(KERNEL_GONE));
      return new Promise((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`The kernel did not answer within ${callTimeoutMs / 1000} s: is it busy, or stopped? `
            + "Run the cell again once it is idle."));
        }, callTimeoutMs);
        pending.set(id, { resolve, reject, timer, key });
        try {
          model.send({ id, request });
        } catch {
          // A host with no kernel behind the model (a saved notebook) refuses to send.
          pending.delete(id);
          clearTimeout(timer);
          reject(new Error(NO_KERNEL));
        }
      });
    },
    subscribe(fn) {
      fn(status);
      return () => {};
    },
    restart: () => Promise.resolve(), // the kernel is the learner's to restart
    close() {
      model.off("msg:custom", onMessage);
      for (const call of pending.values()) {
        clearTimeout(call.timer);
        call.reject(new Error("The widget was closed."));
      }
      pending.clear();
    },
  };
}

// What the widget shows, as the page's link vocabulary, and which parts it leaves out:
// no links to share (there is no page to link to), and for a graph from the kernel no
// program listing or editor (it was built by Python code, not by a program).
function queryFor(source) {
  const params = new URLSearchParams({ embed: "1" });
  if (source.preset) {
    params.set("preset", source.preset);
    params.set("hide", "share");
  } else if (source.program !== undefined) {
    params.set("src", toBase64url(new TextEncoder().encode(source.program)));
    params.set("hide", "share");
  } else {
    // A graph with an operation Gradwalk does not know cannot be recomputed at new values.
    const fixed = source.kernel?.editable === false ? ",values,nudge" : "";
    params.set("hide", `presets,editor,code,share${fixed}`);
  }
  return `?${params}`;
}


export default {
  render({ model, el }) {
    const source = model.get("source") ?? {};
    const engine = kernelEngine(model);
    const widget = mount(el, {
      query: queryFor(source),
      engine,
      css: CSS,
      firstPaint: false,
      graph: Boolean(source.kernel),
      report: source.check ?? null,
    });
    return () => {
      widget.unmount();
      engine.close();
    };
  },
};
