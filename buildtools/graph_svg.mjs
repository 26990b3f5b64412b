// The graph's SVG as the page's script draws it at a preset's start, drawn at build
// time by the page's own modules (web/panels/graph.js, stepper.js, view.js) under
// Node, so that index.html can carry it and be painted before any script has run.
//
//   node buildtools/graph_svg.mjs <site folder> <preset id>...
//   -> {"<id>": {"attributes": {...}, "markup": "<defs>…</defs><g …>…</g>…", "shortened": bool}
//       or {"skipped": "why"}, ...} on stdout
//
// Node has no DOM: linkedom (pinned in package-lock.json) is the one the modules draw
// into. The markup is written out here, the way a browser's innerHTML serializes SVG in
// an HTML document, rather than by linkedom's own serializer, which writes childless
// elements as <path/>, a no-break space as &#160; and attributes in another order.
//
// Text widths are the one thing Node cannot know: the browser measures them with a
// canvas in the fonts it has (panels/graph-text.js), and uses them for one decision
// at a preset's start, whether a node's name must be shortened with "…". Here every
// character counts as 1 em of its text's font size (FONT_PX, the sizes style.css and
// panels.css give them), which no glyph of the graph's fonts exceeds: the widths are
// upper bounds, so a name that fits here fits in every browser, and then the
// markup is the browser's, byte for byte. A name that does not fit here is
// shortened for the bound ("shortened": true in the output); a browser whose fonts
// are narrower may show more of it, and the script's adoption then writes its own
// (labelNode() fits every adopted node's name again), so that the graph the page
// keeps is the script's in every case; only those few characters can change.
// tests/page/test_prerendered_graph.py checks the equality in a real browser.

import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { parseHTML } from "linkedom";

// The font size of each measured text's class (style.css, panels.css); the parity
// test checks these against the browser's computed styles.
export const FONT_PX = { "node-label": 14, "node-op": 12, "group-name": 12 };
const ELEMENT = 1;
const TEXT = 3;

// What a browser's innerHTML gives for SVG content in an HTML document.
const escapeText = (s) =>
  s.replace(/&/g, "&amp;").replace(/\u00a0/g, "&nbsp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s) => escapeText(s).replace(/"/g, "&quot;");

// A browser keeps an element's attributes in the order they were first set; linkedom
// keeps them newest first, so its list is read backwards.
const attributesOf = (el) => el.getAttributeNames().reverse().map((name) => [name, el.getAttribute(name)]);

// The declarations of an element's style that have a value. A browser removes a
// property set to "" (and writes no style attribute for it); linkedom keeps it as
// "stroke-width:", which is no declaration at all.
const declarations = (el) =>
  (el.getAttribute("style") ?? "").split(";").filter((d) => d.split(":").slice(1).join(":").trim());

function serialize(node) {
  if (node.nodeType === TEXT) return escapeText(node.data);
  if (node.nodeType !== ELEMENT) throw new Error(`a node of type ${node.nodeType} in the graph`);
  if (declarations(node).length) {
    // The page's CSP allows no style attribute in markup: such a graph cannot be inlined.
    throw new Error(`<${node.localName}> has an inline style (${node.getAttribute("style")})`);
  }
  const attrs = attributesOf(node).filter(([k]) => k !== "style").map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("");
  return `<${node.localName}${attrs}>${[...node.childNodes].map(serialize).join("")}</${node.localName}>`;
}

// The page's globals that the drawing modules use, on linkedom's document.
function installDom() {
  const { window, document, HTMLCanvasElement } = parseHTML("<!doctype html><html><head></head><body></body></html>");
  // 1 em per character: measureText's font is "<style> <weight> <size>px <family>".
  const context = {
    font: "",
    measureText: (text) => ({ width: [...text].length * parseFloat(context.font.split(" ")[2]) }),
  };
  HTMLCanvasElement.prototype.getContext = () => context;
  window.matchMedia = () => ({ matches: true });
  globalThis.window = window;
  globalThis.document = document;
  globalThis.getComputedStyle = (el) => {
    const px = FONT_PX[el.getAttribute("class")];
    if (!px) throw new Error(`no font size known for the graph's text class ${el.getAttribute("class")}`);
    return {
      fontStyle: "normal",
      fontWeight: "400",
      fontSize: `${px}px`,
      fontFamily: "bound",
      letterSpacing: "normal",
    };
  };
  globalThis.requestAnimationFrame = () => 0;
  globalThis.cancelAnimationFrame = () => {};
  return document;
}

// Did any of the graph's names get shortened? Then a browser might not shorten it.
function shortened(svg) {
  return [...svg.querySelectorAll("text.node-label")].some((text) => text.textContent.endsWith("…"));
}

// The graph at a preset's start, laid out one way.
function drawStart(answer, direction, m) {
  // As in the page (widget.html's <svg id="graph"> in #graph-scroll; actions/load.js's
  // loadGraph, then render.js's first render at the start of the trace). The scroller
  // stays out of the document: nothing is measured, as nothing can be here.
  const scroller = m.document.createElement("div");
  const svg = scroller.appendChild(m.document.createElementNS("http://www.w3.org/2000/svg", "svg"));
  svg.setAttribute("data-graph", answer.preset ?? "program");
  const graph = new m.GraphView(svg);
  graph.direction = direction;
  graph.inputTip = m.INPUT_TIP; // learn.js: every input's tooltip says how to change it
  graph.build(m.decodeAnswer(answer)); // (a grouped answer is read at its level first: web/grouped.js)
  const groups = new Map(graph.nodes.map((n) => [n.node.label, n.g]));
  m.markEditable(answer, (label) => groups.get(label)); // learn.js's graphLoaded, before the first render
  const view = new m.Stepper(m.buildTrace(m.decodeAnswer(answer))).view();
  graph.update(view, m.marksFor(view, answer, null));
  // Not its style: the viewport's size, which the script sets through the CSSOM
  // once it runs (markup may carry no style attribute).
  const attributes = Object.fromEntries(attributesOf(svg).filter(([name]) => name !== "style"));
  return { attributes, markup: [...svg.childNodes].map(serialize).join(""), shortened: shortened(svg) };
}

async function main() {
  const [site, ...ids] = process.argv.slice(2);
  const document = installDom();
  const web = (rel) => import(pathToFileURL(path.join(site, rel)).href);
  const { GraphView } = await web("panels/graph.js");
  const { Stepper, buildTrace, decodeAnswer } = await web("stepper.js");
  const { marksFor } = await web("view.js");
  const { INPUT_TIP, markEditable } = await web("panels/graph-inputs.js");
  const all = JSON.parse(await readFile(path.join(site, "prerender", "all.json"), "utf8"));
  const out = {};
  for (const id of ids) {
    const answer = all.answers[id]?.load;
    if (!answer?.ok) {
      out[id] = { skipped: `no prerendered answer for ${id}` };
      continue;
    }
    // Each way the engine laid it out (across, and down for a small graph): the page's
    // gate picks one for the box it has before the first paint (boot/prerendered-gate.js).
    const modules = { document, GraphView, Stepper, buildTrace, decodeAnswer, marksFor, INPUT_TIP, markEditable };
    const across = drawStart(answer, "across", modules);
    const down = answer.layout.down && drawStart(answer, "down", modules);
    out[id] = down ? { ...across, down } : across;
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
