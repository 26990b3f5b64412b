// Long lists (a table row per node of a 1,000-node program) put on the page a
// slice per animation frame, so that no single frame has to style and lay out
// all of them: the first rows at once, the rest a batch per frame, in order.
//
//   const filling = appendInSlices(tbody, rows, { arrived(from, to) {} });   // tbody's children become rows
//   const kept = keepInPlace(parent, children);     // drop all but the reused prefix
//   filling.cancel();                              // (a newer list replaces it)
//   await filling.done;                            // every row is on the page
//   const stop = whenNearOrIdle(element, make);     // make() when near the screen, or idle
//
// Elements not on the page yet can still be changed as usual; they arrive as
// they are.

// Above this many nodes a program is "big": its graph, table and visit-order
// list are put on the page progressively (panels/graph.js, table.js, visit-order.js).
export const BIG_GRAPH = 150;
const EAGER_ROWS = 60; // rows put on the page at once
const ROWS_PER_FRAME = 60;

// The first of `elements` that are already `parent`'s first children (reused, in
// the same order) stay where they are; every child after them goes. Returns how
// many stayed: the rest of `elements` is still to be appended.
export function keepInPlace(parent, elements) {
  const children = parent.children;
  let kept = 0;
  while (kept < elements.length && children[kept] === elements[kept]) kept++;
  if (kept === 0) parent.replaceChildren();
  else while (children.length > kept) parent.lastElementChild.remove();
  return kept;
}

// Children already in place stay (keepInPlace); the rest arrive in slices, and
// arrived(from, to) is told each time elements[from..to) are put on the page.
export function appendInSlices(parent, elements, {
  eager = EAGER_ROWS,
  perFrame = ROWS_PER_FRAME,
  arrived = (/** @type {number} */ _from, /** @type {number} */ _to) => {},
} = {}) {
  const kept = keepInPlace(parent, elements);
  let next = Math.max(kept, Math.min(eager, elements.length));
  parent.append(...elements.slice(kept, next));
  arrived(kept, next);
  let frame = null;
  let finish = () => {};
  const done = new Promise((resolve) => (finish = () => resolve(undefined)));
  const slice = () => {
    frame = null;
    parent.append(...elements.slice(next, next + perFrame));
    arrived(next, Math.min(next + perFrame, elements.length));
    next += perFrame;
    if (next < elements.length) frame = requestAnimationFrame(slice);
    else finish();
  };
  if (next < elements.length) frame = requestAnimationFrame(slice);
  else finish();
  return {
    done,
    cancel() {
      if (frame !== null) cancelAnimationFrame(frame);
      frame = null;
      finish();
    },
  };
}

// Calls make() once the element is within a screen of the viewport, or the page
// is idle (at most a few seconds from now), whichever is first; returns a
// function that cancels both.
export function whenNearOrIdle(element, make) {
  let observer = null;
  let idle = null;
  const stop = () => {
    observer?.disconnect();
    if (idle !== null) (globalThis.cancelIdleCallback ?? clearTimeout)(idle);
    observer = idle = null;
  };
  const go = () => {
    stop();
    make();
  };
  if (typeof IntersectionObserver === "function") {
    observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && go(),
      { rootMargin: "100% 0px" });
    observer.observe(element);
  }
  idle = globalThis.requestIdleCallback ? requestIdleCallback(go, { timeout: 3000 }) : setTimeout(go, 1000);
  return stop;
}
