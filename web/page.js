// index.html: one widget that fills the page and owns the address bar. The page's
// URL is the widget's state (url.js): it starts from it and keeps it
// up to date, and <html data-engine> follows the widget's engine.

import { mount } from "./widget.js";

const root = document.documentElement;
mount(document.getElementById("gradwalk"), {
  query: location.search,
  ownsAddressBar: true,
  keys: "page",
  onEngine: (state) => {
    root.dataset.engine = state;
  },
});
