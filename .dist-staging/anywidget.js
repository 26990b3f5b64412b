// A Gradwalk widget as an anywidget front-end module, for hosts that render such a module
// with no kernel behind it (MyST's {anywidget} directive, in Jupyter Book 2). It puts a
// <grad-walk> element into the host's `el`, with the options the model holds, and that
// element runs on the site's in-browser engine, one for the whole page, shared with every
// other widget on it. (The notebook's module, gradwalk/static/widget.js, is another one:
// there the kernel answers.)
//
//   ```{anywidget} gradwalk/anywidget.js
//   {"site": "/assets/gradwalk/", "preset": "diamond", "hide": "editor,why", "start": "order"}
//   ```
//
// site: the URL of the folder holding gradwalk.js (what `python build.py publish` filled).
// A host may copy this module elsewhere (MyST does), so without `site` it looks in the
// folder it was loaded from. Every other key is an attribute of <grad-walk> (docs/page.md);
// `label` names the widget for a screen reader. The model is only read, never written.

const ATTRIBUTES = ["preset", "program", "values", "order", "pass", "step", "start", "hide", "questions", "exercise"];

export default {
  async render({ model, el }) {
    const site = new URL(String(model.get("site") ?? "./"), siteBase());
    await import(new URL("gradwalk.js", site).href);
    const element = document.createElement("grad-walk");
    for (const name of ATTRIBUTES) {
      const value = model.get(name);
      if (value !== undefined && value !== null) element.setAttribute(name, String(value));
    }
    const label = model.get("label");
    if (label) element.setAttribute("aria-label", String(label));
    el.append(element);
    // The host calls this when the widget goes (a page swapped out): the element takes its
    // widget down and lets go of its share of the engine.
    return () => element.remove();
  },
};

// A `site` without a host is a path on the page's own origin; a relative one is read
// against this module's own folder.
function siteBase() {
  return new URL("./", import.meta.url);
}
