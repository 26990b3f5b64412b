// index.html carries its default preset's graph, drawn by the build, so that it is
// painted with the page (buildtools/graph_svg.py). It is that preset at its start,
// which is what the page shows only when its query asks for nothing else: the same
// rule as actions/load.js's firstPaintFits (the "preset" parameter and the boot
// parameters of url.js). For any other query this hides it before the first paint
// (<html data-prerendered="off">: page.css and style.css), and the script draws
// what was asked for instead.
//
// A classic script in the head, before the widget's markup: it runs before the body
// is parsed, so the wrong graph is never painted. It must stay tiny and import nothing.
(() => {
  const shown = document.querySelector('meta[name="gw-prerendered"]')?.content;
  if (!shown) return;
  const boot = ["preset", "boot", "sw", "boottimeout", "calltimeout"];
  const query = new URLSearchParams(location.search);
  const fits = [...query.keys()].every((k) => boot.includes(k)) && (query.get("preset") ?? shown) === shown;
  if (!fits) document.documentElement.dataset.prerendered = "off";
})();
