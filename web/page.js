// index.html: one widget that fills the page and owns the address bar. The page's
// URL is the widget's state (url.js): it starts from it and keeps it
// up to date, and <html data-engine> follows the widget's engine.

import { mount } from "./widget.js";

const root = document.documentElement;
// index.html came with its graph drawn (buildtools/graph_svg.py): let the browser paint
// it before the widget's setup takes the main thread (at most a frame, or 100 ms in a
// tab that paints no frames).
if (document.querySelector('meta[name="gw-prerendered"]') && root.dataset.prerendered !== "off") {
  await new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}
// The stage takes the rest of the screen (boot/prerendered-gate.js's fitStage, which
// ran before the first paint), again whenever the window changes size.
const host = document.getElementById("gradwalk");
const fitStage = () => globalThis.gradwalkFitStage?.();
addEventListener("resize", fitStage);
fitStage();
// And whenever what is above the graph changes height (a longer title, the controls).
if (typeof ResizeObserver === "function" && host?.shadowRoot) {
  const above = new ResizeObserver(fitStage);
  for (const part of host.shadowRoot.querySelectorAll(".lesson, .stage-tabs, .controls")) above.observe(part);
}
mount(host, {
  query: location.search,
  ownsAddressBar: true,
  keys: "page",
  onEngine: (state) => {
    root.dataset.engine = state;
  },
});
