// The graph's SVG as the page's script draws it at a preset's start, drawn at build
// time by the page's own modules (web/panels/graph.js, stepper.js, view.js) under
// Node, so that index.html can carry it and be painted before any script has run.
//
//   node buildtools/graph_svg.mjs <site folder> <preset id>...
//   -> {"<id>": {"attributes": {...}, "markup": "<defs>…</defs><g …>…</g>…", "shortened": bool}
//       or {"skipped": "why"}, ...} on stdout
//
// Node has no DOM, so a small one is set up here with just what those modules use
// (createElementNS, attributes in insertion order, classList, textContent, style),
// serialized the way a browser's innerHTML serializes SVG in an HTML document.
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

// The font size of each measured text's class (style.css, panels.css); the parity
// test checks these against the browser's computed styles.
export const FONT_PX = { "node-label": 14, "node-op": 12 };
const SVG_NS = "http://www.w3.org/2000/svg";

class Text {
  constructor(data) {
    this.data = String(data);
    this.parentNode = null;
  }
}

class Style {
  constructor() {
    return new Proxy(this, {
      set(target, key, value) {
        // As the CSSOM: setting "" removes the property (no style attribute is made).
        if (value === "" || value === null) delete target[key];
        else target[key] = String(value);
        return true;
      },
    });
  }
}

class Element {
  constructor(name) {
    this.localName = name;
    this.attributes = new Map(); // in the order they were first set, as the DOM keeps them
    this.childNodes = [];
    this.parentNode = null;
    this.style = new Style();
    this.isConnected = false;
    const el = this;
    this.classList = {
      contains: (t) => el.classTokens().includes(t),
      toggle(t, force) {
        const tokens = el.classTokens();
        const has = tokens.includes(t);
        const want = force === undefined ? !has : Boolean(force);
        if (want === has) return has; // the DOM leaves the attribute alone
        el.setAttribute("class", (want ? [...tokens, t] : tokens.filter((x) => x !== t)).join(" "));
        return want;
      },
      add: (t) => el.classList.toggle(t, true),
      remove: (t) => el.classList.toggle(t, false),
    };
  }

  classTokens() {
    return [...new Set((this.getAttribute("class") ?? "").split(/\s+/).filter(Boolean))];
  }

  get children() {
    return this.childNodes.filter((n) => n instanceof Element);
  }

  get parentElement() {
    return this.parentNode;
  }

  get lastElementChild() {
    return this.children.at(-1) ?? null;
  }

  setAttribute(name, value) {
    this.attributes.set(name, String(value));
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  removeAttribute(name) {
    this.attributes.delete(name);
  }

  appendChild(child) {
    child.parentNode?.removeChild(child);
    child.parentNode = this;
    this.childNodes.push(child);
    return child;
  }

  removeChild(child) {
    this.childNodes = this.childNodes.filter((n) => n !== child);
    child.parentNode = null;
    return child;
  }

  remove() {
    this.parentNode?.removeChild(this);
  }

  append(...nodes) {
    for (const n of nodes) this.appendChild(typeof n === "string" ? new Text(n) : n);
  }

  replaceChildren(...nodes) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = [];
    this.append(...nodes);
  }

  get textContent() {
    return this.childNodes.map((n) => (n instanceof Text ? n.data : n.textContent)).join("");
  }

  set textContent(value) {
    this.replaceChildren(...(value === "" || value === null ? [] : [String(value)]));
  }

  addEventListener() {}
  removeEventListener() {}
  getRootNode() {
    return this;
  }
}

// What a browser's innerHTML gives for SVG content in an HTML document.
const escapeText = (s) => s.replace(/&/g, "&amp;").replace(/\u00a0/g, "&nbsp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s) => escapeText(s).replace(/"/g, "&quot;");

function serialize(node) {
  if (node instanceof Text) return escapeText(node.data);
  if (Object.keys(node.style).length) {
    // The page's CSP allows no style attribute in markup: such a graph cannot be inlined.
    throw new Error(`<${node.localName}> has an inline style (${JSON.stringify({ ...node.style })})`);
  }
  const attrs = [...node.attributes].map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join("");
  return `<${node.localName}${attrs}>${node.childNodes.map(serialize).join("")}</${node.localName}>`;
}

function installDom() {
  globalThis.document = {
    createElementNS: (ns, name) => {
      if (ns !== SVG_NS) throw new Error(`only SVG elements are drawn here, not ${ns} ${name}`);
      return new Element(name);
    },
    createElement: (name) => {
      if (name !== "canvas") throw new Error(`only a canvas is made here, not <${name}>`);
      // 1 em per character: measureText's font is "<style> <weight> <size>px <family>".
      const context = { font: "", measureText: (text) => ({ width: [...text].length * parseFloat(context.font.split(" ")[2]) }) };
      return { getContext: () => context };
    },
    documentElement: { dataset: {} },
  };
  globalThis.window = { matchMedia: () => ({ matches: true }) };
  globalThis.getComputedStyle = (el) => {
    const px = FONT_PX[el.getAttribute("class")];
    if (!px) throw new Error(`no font size known for the graph's text class ${el.getAttribute("class")}`);
    return { fontStyle: "normal", fontWeight: "400", fontSize: `${px}px`, fontFamily: "bound", letterSpacing: "normal" };
  };
  globalThis.requestAnimationFrame = () => 0;
  globalThis.cancelAnimationFrame = () => {};
}

// Did any of the graph's names get shortened? Then a browser might not shorten it.
function shortened(svg) {
  const texts = [];
  const walk = (n) => {
    if (!(n instanceof Element)) return;
    if (n.getAttribute("class") === "node-label") texts.push(n.textContent);
    n.childNodes.forEach(walk);
  };
  walk(svg);
  return texts.some((t) => t.endsWith("…"));
}

async function main() {
  const [site, ...ids] = process.argv.slice(2);
  installDom();
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
    // As in the page (widget.html's <svg id="graph"> in #graph-scroll; actions/load.js's
    // loadGraph, then render.js's first render at the start of the trace).
    const scroller = new Element("div");
    const svg = scroller.appendChild(new Element("svg"));
    svg.setAttribute("data-graph", answer.preset ?? "program");
    const graph = new GraphView(svg);
    graph.inputTip = INPUT_TIP; // learn.js: every input's tooltip says how to change it
    graph.build(answer);
    const groups = new Map(graph.nodes.map((n) => [n.node.label, n.g]));
    markEditable(answer, (label) => groups.get(label)); // learn.js's graphLoaded, before the first render
    const view = new Stepper(buildTrace(decodeAnswer(answer))).view();
    graph.update(view, marksFor(view, answer, null));
    const attributes = Object.fromEntries(svg.attributes);
    out[id] = { attributes, markup: svg.childNodes.map(serialize).join(""), shortened: shortened(svg) };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
