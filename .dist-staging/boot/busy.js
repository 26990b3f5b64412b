// "Is the page still working on something?" as one attribute, for tests and tools:
// <html data-busy="2"> while engine calls are in flight or debounced work (a typed
// value, an edited program, the URL rewrite) is waiting; no attribute when settled.
//
//   markBusy(+1) when work starts, markBusy(-1) when it is done.

let count = 0;

export function markBusy(delta) {
  count = Math.max(0, count + delta);
  if (typeof document === "undefined") return;
  const root = document.documentElement;
  if (count) root.dataset.busy = String(count);
  else delete root.dataset.busy;
}

// Mark the page busy until `value` (a promise, or anything else) settles.
export function busyUntil(value) {
  if (value && typeof value.then === "function") {
    markBusy(1);
    Promise.resolve(value).finally(() => markBusy(-1)).catch(() => {});
  }
  return value;
}
