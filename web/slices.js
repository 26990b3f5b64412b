// Long lists (a table row per node of a 1,000-node program) put on the page a
// slice per animation frame, so that no single frame has to style and lay out
// all of them: the first rows at once, the rest a batch per frame, in order.
//
//   const filling = appendInSlices(tbody, rows);   // replaces tbody's children
//   filling.cancel();                              // (a newer list replaces it)
//   await filling.done;                            // every row is on the page
//
// Elements not on the page yet can still be changed as usual; they arrive as
// they are.

export const EAGER_ROWS = 60; // rows put on the page at once
export const ROWS_PER_FRAME = 60;

export function appendInSlices(parent, elements, { eager = EAGER_ROWS, perFrame = ROWS_PER_FRAME } = {}) {
  parent.replaceChildren(...elements.slice(0, eager));
  let next = eager;
  let frame = null;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));
  const slice = () => {
    frame = null;
    parent.append(...elements.slice(next, next + perFrame));
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
