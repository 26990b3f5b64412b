// Keeping the step in progress in view: the graph's box scrolls (never the page) so
// that the nodes being computed or visited are visible.

// Scroll the graph's container (never the page) so that the given nodes (the one
// being computed or visited, and the parents receiving from it) are in view.
//
// The sizes come from a ResizeObserver and a scroll listener, not from reading the
// layout on every step (which would force one after each DOM update); they are
// read directly only once after a new graph, before the observer has reported.
const metricsOf = new WeakMap();

function scrollMetrics(scroller, svg, layout) {
  let m = metricsOf.get(scroller);
  if (!m) {
    m = { layout: null, fresh: false, svgWidth: 0, clientWidth: 0, scrollWidth: 0, left: 0 };
    metricsOf.set(scroller, m);
    const measure = () => {
      m.svgWidth = svg.getBoundingClientRect().width;
      m.clientWidth = scroller.clientWidth;
      m.scrollWidth = scroller.scrollWidth;
      m.left = scroller.scrollLeft;
    };
    m.measure = measure;
    if (typeof ResizeObserver === "function") {
      m.observer = new ResizeObserver(() => measure());
      m.observer.observe(scroller);
      m.observer.observe(svg);
    }
    scroller.addEventListener("scroll", () => { m.left = scroller.scrollLeft; }, { passive: true });
  }
  if (m.layout !== layout) {
    m.layout = layout;
    m.measure();
  }
  return m;
}

export function keepInView(scroller, svg, nodeIds, layout) {
  const ids = nodeIds.filter((i) => i !== null && i !== undefined);
  if (!ids.length) return;
  let m = metricsOf.get(scroller);
  if (!m || m.layout !== layout) {
    // A new graph: its size is known only after a layout. Measure at the next
    // frame, where that layout is due anyway, rather than forcing one now in the
    // middle of drawing (with a big graph, a second whole layout of the page).
    cancelAnimationFrame(m?.frame);
    const frame = requestAnimationFrame(() => {
      if (!scroller.isConnected) return; // the widget was taken down meanwhile
      scrollMetrics(scroller, svg, layout);
      keepInView(scroller, svg, ids, layout);
    });
    if (m) m.frame = frame;
    return;
  }
  m = scrollMetrics(scroller, svg, layout);
  if (m.scrollWidth <= m.clientWidth + 1) return;
  const scale = m.svgWidth / layout.width;
  const half = (layout.node_width / 2 + 12) * scale;
  const xs = ids.map((i) => layout.nodes[i].x * scale);
  let lo = Math.min(...xs) - half;
  let hi = Math.max(...xs) + half;
  const width = m.clientWidth;
  const left = m.left;
  if (lo >= left && hi <= left + width) return;
  // If everything cannot fit, keep the first node (the focus) in view.
  if (hi - lo > width) {
    const x = xs[0];
    lo = Math.max(lo, x - width + half);
    hi = lo + width;
  }
  const target = lo < left ? lo : hi - width;
  const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  scroller.scrollTo({ left: Math.max(0, target), behavior: reduce ? "auto" : "smooth" });
}

// The graph is going away: stop measuring its box.
export function forgetScroller(scroller) {
  const m = metricsOf.get(scroller);
  m?.observer?.disconnect();
  if (m?.frame) cancelAnimationFrame(m.frame);
  metricsOf.delete(scroller);
}

// What was last measured of the graph's box ({clientWidth, left, ...}), if anything.
export function measuredScroller(scroller) {
  return metricsOf.get(scroller);
}
