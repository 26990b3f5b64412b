// A few lines that build DOM without innerHTML (and so without inline styles or
// scripts: the page runs under a strict Content Security Policy).
//
//   h("button", { type: "button", class: "button", onclick: go }, "Go")
//   h("p", { class: "muted", "aria-live": "polite" }, "text", h("code", {}, "x"))
//
// Attributes whose value is null, undefined or false are left out; true sets "".
// on<event> keys add listeners; dataset entries go in `data: {key: value}`.

import { busyUntil, markBusy } from "../boot/busy.js";

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      e.addEventListener(key.slice(2), value);
    } else if (key === "data") {
      for (const [k, v] of Object.entries(value)) e.dataset[k] = String(v);
    } else if (key === "class") {
      e.className = value;
    } else if (key === "text") {
      e.textContent = value;
    } else if (key in e && typeof value !== "string") {
      e[key] = value; // properties such as checked, value, hidden
    } else {
      e.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    e.append(child instanceof Node ? child : String(child));
  }
  return e;
}

// A sentence of the engine's with `code` in backticks (a finding quotes the learner's line):
// its parts, the quoted ones as <code>, for h(); withoutTicks() for a plain-text place.
export function withCode(text) {
  return String(text).split(/`([^`\n]+)`/).map((part, k) => (k % 2 ? h("code", {}, part) : part));
}

export function withoutTicks(text) {
  return String(text).replace(/`([^`\n]+)`/g, "$1");
}

// Set a live region's text so that the same text twice is still announced.
export function say(region, text) {
  if (region.textContent === text) region.textContent = "";
  region.textContent = text;
}

// aria-disabled keeps a button focusable, so keyboard users never lose their place.
// If the widget's stage is on screen but `element` is not wholly (a phone: it is below
// the controls and the graph that stay on top; a long choice), scroll just enough.
// Measured at the next frame, when the page is laid out anyway: measuring now would lay
// out a big graph twice (70 ms for 1,000 nodes).
export function bringIntoView(element) {
  if (!element) return;
  requestAnimationFrame(() => {
    if (!element.isConnected) return;
    const stage = element.closest(".stage")?.getBoundingClientRect();
    if (!stage || stage.bottom < 0 || stage.top > innerHeight) return;
    const box = element.getBoundingClientRect();
    if (box.top < 0 || box.bottom > innerHeight) element.scrollIntoView({ block: "nearest" });
  });
}

export function setEnabled(button, on) {
  button.setAttribute("aria-disabled", on ? "false" : "true");
}

// Only the newest request of a kind counts: the widget's one way to drop an answer
// that a newer request has overtaken (actions/requests.js). begin() returns a ticket,
// a function that is true while no newer request of the kind has begun since;
// drop() makes every ticket out so far stale (a widget taken down); begun() says
// whether any request of the kind was ever made.
export function newestOnly() {
  let latest = 0;
  return {
    begin() {
      const mine = ++latest;
      return () => mine === latest;
    },
    drop() {
      latest++;
    },
    begun() {
      return latest > 0;
    },
  };
}

// Run the latest of a burst of calls: fn runs at once if idle; calls that come while
// it runs collapse into one more run (with the newest arguments) when it is done.
export function latestOnly(fn) {
  let running = false;
  let queued = null;
  const run = async (args) => {
    running = true;
    try {
      await fn(...args);
    } finally {
      running = false;
      if (queued) {
        const next = queued;
        queued = null;
        run(next);
      }
    }
  };
  return (...args) => {
    if (running) queued = args;
    else run(args).catch(() => {});
  };
}

// Resolves in a later task (a timer of 0 ms), so that work after it is a task of its own.
export const nextTask = () => new Promise((resolve) => setTimeout(resolve));

// fn after `ms` of quiet; .now() runs a pending call at once, .cancel() drops it.
// While a call waits (and while the work it starts runs), <html data-busy> says so (boot/busy.js).
export function debounce(fn, ms) {
  let timer = null;
  let pending = null;
  const fire = () => {
    const a = pending;
    pending = null;
    try {
      busyUntil(fn(...a));
    } finally {
      markBusy(-1);
    }
  };
  const wrapped = (...args) => {
    if (!pending) markBusy(1);
    pending = args;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      fire();
    }, ms);
  };
  wrapped.now = () => {
    if (!pending) return;
    clearTimeout(timer);
    timer = null;
    fire();
  };
  wrapped.cancel = () => {
    clearTimeout(timer);
    timer = null;
    if (pending) markBusy(-1);
    pending = null;
  };
  return wrapped;
}
