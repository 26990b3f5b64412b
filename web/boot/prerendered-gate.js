// index.html carries every preset's graph at its start, drawn by the build, so that
// the graph the page's query asks for is painted with the page
// (buildtools/graph_svg.py): the default preset's in the widget's <svg id="graph">,
// each other one in a <template id="gw-graph-<preset>"> in the head. A query
// asks for a preset's start only with the "preset" parameter and the boot
// parameters of url.js (the rule of actions/load.js's firstPaintFits); for any
// other query the script draws what was asked for.
//
// This classic script runs twice, and must stay tiny and import nothing:
// - last in the head, before the widget's markup is parsed: when the query asks
//   for anything but the default preset's start it hides that graph before the
//   first paint, with its texts (<html data-prerendered="off">: page.css and
//   style.css), and on its second run empties that graph when no template fits;
// - right after the widget (the same URL, from the memory cache): when the query
//   asks for another preset's start that has a template, it swaps that preset's
//   <svg> in for the default's, writes its title and summary (the template's
//   data-*) in place of the default's and shows them, still before the
//   first paint; the script adopts the graph just as it adopts the default's
//   (panels/graph.js).
(() => {
  const root = document.documentElement;
  const shown = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="gw-prerendered"]'))?.content;
  if (!shown) return;
  const boot = ["preset", "boot", "sw", "boottimeout", "calltimeout"];
  const query = new URLSearchParams(location.search);
  const start = [...query.keys()].every((k) => boot.includes(k));
  const asked = query.get("preset") ?? shown;
  if (!document.body) {
    if (!start || asked !== shown) root.dataset.prerendered = "off";
    return;
  }
  const template = start && asked !== shown
    && /** @type {HTMLTemplateElement | null} */ (document.getElementById(`gw-graph-${asked}`));
  const widget = document.getElementById("gradwalk")?.shadowRoot;
  const svg = widget?.getElementById("graph");
  if (svg && !template && root.dataset.prerendered === "off") {
    // Hidden is not enough: its nodes would still be in the DOM (the DOM contract's
    // `svg [data-node]`) as if they were the graph asked for, until the script draws.
    svg.replaceChildren();
    return;
  }
  if (!template || !svg) return;
  svg.replaceWith(template.content.cloneNode(true));
  // The texts above the graph, as actions/load.js's showPresetText writes them.
  // The lesson's text, in a closed <details>, moves nothing: the script writes it.
  const { title, summary, lesson } = template.dataset;
  widget.getElementById("preset-title").textContent = title;
  widget.getElementById("preset-summary").textContent = summary;
  widget.getElementById("preset-lesson").textContent = "";
  widget.getElementById("lesson-more").hidden = lesson === undefined;
  delete root.dataset.prerendered;
})();
