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
//   (panels/graph.js). It also measures the graph's box and, where the graph laid out
//   down the page shows bigger there (a phone, a lesson's column), swaps in that
//   drawing (<template id="gw-graph-<preset>-down">), and sizes the graph as the script
//   will: the rule of panels/graph-scroll.js's pickLayout and autoScale.
(() => {
  const root = document.documentElement;
  // The stage takes the rest of the screen below what is above it, so that the graph's
  // box, as tall as the graph up to that room (style.css), ends on the screen: above a
  // phone's width the stage's height, on a phone the graph box's limit (the controls and
  // the graph stay on top of the screen while the page scrolls). Not in an
  // embed, whose frame grows with the widget instead. page.js calls it on resizes.
  globalThis.gradwalkFitStage = () => {
    const host = document.getElementById("gradwalk");
    const widget = host?.shadowRoot;
    if (!widget || new URLSearchParams(location.search).get("embed") === "1") return;
    const below = (selector) => {
      const el = widget.querySelector(selector);
      return el ? Math.floor(innerHeight - (el.getBoundingClientRect().top + scrollY) - 8) : 0;
    };
    if (innerWidth > 760) {
      host.style.setProperty("--gw-stage-height", `${Math.max(384, below(".stage-body"))}px`);
    } else {
      // About half the screen (what just happened and the question go below it), but
      // room enough for a preset's graph drawn whole (440 px: the neuron).
      const room = Math.max(208, Math.min(Math.max(0.53 * innerHeight, 440), below(".graph-scroll")));
      host.style.setProperty("--gw-stage-graph-height", `${room}px`);
    }
  };
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
  const byId = (id) => /** @type {HTMLTemplateElement | null} */ (document.getElementById(id));
  const template = start && asked !== shown && byId(`gw-graph-${asked}`);
  const widget = document.getElementById("gradwalk")?.shadowRoot;
  const svg = widget?.getElementById("graph");
  if (svg && !template && root.dataset.prerendered === "off") {
    // Hidden is not enough: its nodes would still be in the DOM (the DOM contract's
    // `svg [data-node]`) as if they were the graph asked for, until the script draws.
    svg.replaceChildren();
    return;
  }
  if (!svg || !start || (asked !== shown && !template)) return;
  globalThis.gradwalkFitStage();
  // Across or down, and how big: panels/graph-scroll.js's pickLayout and autoScale, on
  // the graph's box as it is now (its style is in place once it scrolls).
  const scroller = widget.getElementById("graph-scroll");
  const style = scroller && getComputedStyle(scroller);
  const down = byId(`gw-graph-${asked}-down`);
  let chosen = template || null; // null: the widget's own <svg>
  let drawn = template ? /** @type {Element} */ (template.content.firstElementChild) : svg;
  let scale = 0; // 0: not measured (the stylesheet's rule sizes the graph)
  if (style?.overflowY === "auto") {
    const max = parseFloat(style.maxHeight);
    const box = { width: scroller.clientWidth, height: Number.isFinite(max) ? max : scroller.clientHeight || Infinity };
    const room = (el) => Math.min(box.width / +el.getAttribute("width"), box.height / +el.getAttribute("height"));
    const readable = 11 / 12;
    const downSvg = down?.content.firstElementChild;
    const bigger = downSvg && Math.min(1, room(downSvg)) > Math.min(1, room(drawn)) + 1e-9;
    if (bigger && (room(downSvg) >= readable || room(drawn) < readable)) [chosen, drawn] = [down, downSvg];
    const most = drawn.getAttribute("data-direction") === "down" ? 1 : 1.3;
    scale = room(drawn) >= readable ? Math.min(room(drawn), most) : 1;
  }
  if (chosen) svg.replaceWith(chosen.content.cloneNode(true));
  const shownSvg = /** @type {HTMLElement} */ (widget.getElementById("graph"));
  if (scale) {
    shownSvg.style.width = `${Math.round(+drawn.getAttribute("width") * scale)}px`;
    shownSvg.style.height = `${Math.round(+drawn.getAttribute("height") * scale)}px`;
  }
  if (!chosen || asked === shown) return;
  // The texts above the graph, as actions/load.js's showPresetText writes them.
  // The lesson's text, in a closed <details>, moves nothing: the script writes it.
  const { title, summary, lesson } = chosen.dataset;
  widget.getElementById("preset-title").textContent = title;
  const waiting = widget.querySelector("#preset option");
  if (waiting) waiting.textContent = title;
  widget.getElementById("preset-summary").textContent = summary;
  widget.getElementById("preset-lesson").textContent = "";
  widget.getElementById("lesson-more").hidden = lesson === undefined;
  delete root.dataset.prerendered;
})();
