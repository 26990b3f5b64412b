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

export function kernelEngine(model, { callTimeoutMs = CALL_TIMEOUT_MS } = {}) {
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
    try {
      call.resolve(JSON.parse(message.response));
    } catch {
      call.reject(new Error("The kernel's answer was not valid JSON."));
    }
  };
  model.on("msg:custom", onMessage);
  return {
    status,
    ready: Promise.resolve(),
    call(request) {
      return new Promise((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`The kernel did not answer within ${callTimeoutMs / 1000} s: is it busy, or stopped? `
            + "Run the cell again once it is idle."));
        }, callTimeoutMs);
        pending.set(id, { resolve, reject, timer });
        model.send({ id, request });
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
