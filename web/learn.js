// Learn by doing: the parts of the widget where the learner acts, not only watches.
//
//   panels/checkpoints.js  questions asked before the step that reveals the answer
//   panels/inputs.js       edit or scrub the input values; the engine recomputes
//   panels/nudge.js        nudge an input by h: the change next to grad × h, and the
//                          central difference next to the grad
//   panels/editor.js       type a program; the graph rebuilds as you type
//   links.js, url.js       the state in the URL (restored, kept up to date); Copy link
//   panels/embed.js        ?embed=1 and <grad-walk> for lesson pages, the Embed dialog
//
// widget.js owns the engine, the stepper and the drawing; it hands this module a
// small host object and calls graphLoaded() for every new graph and rendered()
// after every render:
//
//   host = {app, call(request), load(source, options), render(message),
//           narrate(text), arrangeOrder(labels), linkParams(other), inputTip(text),
//           element, shadow, query, ownsAddressBar}
//   host.element / host.shadow: the widget's element and its shadow root (every
//             query stays inside them); host.query: the permalink it starts from;
//             host.ownsAddressBar: keep the page's URL up to date (index.html only).
//   host.inputTip(text): text added to every input node's tooltip.
//   host.load({preset, values?} | {program, values?}, {keepPlace, place, order,
//             message, kind}) resolves with the engine's answer (ok or not), or
//             null when a newer load overtook it.

import { INPUT_TIP, markEditable } from "./panels/graph-inputs.js";
import { exact, fmt } from "./lib/format.js";
import { Checkpoints } from "./panels/checkpoints.js";
import { h, debounce, latestOnly } from "./lib/dom.js";
import { Editor } from "./panels/editor.js";
import { EmbedDialog, applyEmbed, siteAddress } from "./panels/embed.js";
import { InputsPanel } from "./panels/inputs.js";
import { NudgePanel } from "./panels/nudge.js";
import { parseLink } from "./url.js";
import { linkMethods } from "./links.js";

export class Learn {
  constructor(host) {
    this.host = host;
    const $ = (id) => host.shadow.getElementById(id);
    this.$ = $;
    this.link = parseLink(host.query ?? "");
    this.live = false; // the URL is kept up to date once the link's state is restored
    this.encoded = new Map(); // program text -> {encoded, format}
    this.programOrigin = null; // a program before its input values were edited
    this.pendingEdits = new Map();
    this.stopEmbed = applyEmbed(this.link.state, { element: host.element, shadow: host.shadow, ownPage: host.ownsAddressBar });
    // Every input's tooltip, however late the graph draws it.
    host.inputTip?.(INPUT_TIP);

    this.questions = new Checkpoints($("checkpoints"), {
      onTryOrder: (labels) => this.host.arrangeOrder(labels),
      markAsked: (label) => {
        const svg = $("graph");
        const node = label === null ? null : svg.querySelector(`[data-node="${CSS.escape(label)}"]`);
        for (const g of svg.querySelectorAll(".is-asked")) if (g !== node) g.classList.remove("is-asked");
        node?.classList.add("is-asked");
      },
      onToggle: (on) => {
        this.saveURL();
        this.host.narrate(on
          ? "Questions are on: before a step that reveals something worth predicting, a question appears."
          : "Questions are off: stepping shows every number straight away.");
      },
    });
    if (this.link.state.cp === false) this.questions.enabled = false;

    this.inputs = new InputsPanel($("inputs"), {
      onChange: (name, value, options) => this.setValue(name, value, options),
      onReset: () => this.resetValues(),
    });
    this.nudge = new NudgePanel($("nudge"), {
      call: (request) => this.call(request),
      source: () => this.requestSource(),
      outputLabel: () => {
        const a = this.host.app.answer;
        return a ? a.nodes[a.output].label : "the output";
      },
    });
    this.editor = new Editor($("editor-box"), {
      pre: $("program"),
      build: (text) => this.buildProgram(text),
      backToPreset: () => this.backToPreset(),
    });
    $("code-tools")?.append(this.editor.button);

    this.runValues = latestOnly(() => this.sendValues());
    this.saveURL = debounce(() => this.writeURL(), 200);
    this.watchHistory(); // Back and Forward restore the state (links.js)
    this.buildBar();

    // A leaf in the graph: click to type its value, drag sideways to scrub it.
    const svg = $("graph");
    svg.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "touch") return; // touch scrolls the graph; a tap focuses (click)
      const id = this.leafAt(e.target);
      if (id !== null) this.inputs.fromGraph(e, id);
    });
    this.linkHover(svg, $("program"));
    svg.addEventListener("click", (e) => {
      const id = this.leafAt(e.target);
      if (id !== null && e.pointerType === "touch") this.inputs.focusLeaf(id);
    });
  }

  // Where "Open in Gradwalk", Copy link and the embed snippets point: this page
  // when it is Gradwalk's own, else the site's index.html.
  pageAddress() {
    return siteAddress(this.host.ownsAddressBar);
  }

  // The widget is going away: no URL write or value edit may run after it.
  destroy() {
    this.live = false;
    this.saveURL.cancel?.();
    this.stopEmbed?.();
    this.stopHistory?.();
    this.embedDialog?.close();
  }

  // Hovering a line of the program outlines the nodes it made, and hovering a node
  // outlines its line (a pointer aid; the step itself marks both for everyone).
  linkHover(svg, code) {
    const show = (line) => {
      if (line === this.linked) return;
      this.linked = line;
      for (const g of svg.querySelectorAll("[data-node]")) {
        g.classList.toggle("is-linked", line !== null && this.lineOf?.get(g.dataset.node) === line);
      }
      for (const row of code.querySelectorAll(".code-line")) {
        row.classList.toggle("is-linked", line !== null && Number(row.dataset.line) === line);
      }
    };
    code.addEventListener("mouseover", (e) => {
      const row = e.target.closest?.(".code-line");
      show(row ? Number(row.dataset.line) : null);
    });
    code.addEventListener("mouseleave", () => show(null));
    svg.addEventListener("mouseover", (e) => {
      const g = e.target.closest?.("[data-node]");
      show(g ? this.lineOf?.get(g.dataset.node) ?? null : null);
    });
    svg.addEventListener("mouseleave", () => show(null));
  }

  // Engine calls from here go through the widget's actions. (If Python itself fails,
  // the engine starts a fresh worker on its own: boot/engine-client.js.)
  load(source, options) {
    return this.host.load(source, options);
  }

  call(request) {
    return this.host.call(request);
  }

  leafAt(target) {
    const g = target.closest?.("[data-node]");
    const answer = this.host.app.answer;
    if (!g || !answer || this.host.element.classList.contains("hide-values")) return null;
    const id = answer.nodes.findIndex((n) => n.label === g.dataset.node);
    return id >= 0 && answer.nodes[id].is_input ? id : null;
  }

  // ---------------------------------------------------------------- the bar

  buildBar() {
    const bar = this.$("learn-bar");
    if (!bar) return;
    this.linkStatus = h("p", { class: "share-status", role: "status" });
    this.linkField = h("input", { type: "text", id: "share-link", class: "share-link", readonly: true, hidden: true, "aria-label": "Link to this state" });
    this.embedDialog = new EmbedDialog({ state: () => this.dialogState(), container: this.host.shadow });
    const share = h("div", { class: "share" });
    if (this.link.state.embed) {
      if (this.pageAddress() === null) return bar.append(this.questions.makeSwitch()); // a notebook: no site to open
      this.openFull = h("a", { class: "button small open-full", target: "_blank", rel: "noopener", href: this.pageAddress() }, "Open in Gradwalk ↗");
      share.append(this.openFull);
    } else {
      share.append(
        h("button", { type: "button", class: "button small", id: "copy-link", onclick: () => this.copyLink() }, "Copy link"),
        h("button", { type: "button", class: "button small", id: "embed-button", "aria-haspopup": "dialog", onclick: () => this.embedDialog.open() }, "Embed"));
    }
    bar.append(this.questions.makeSwitch(), share, this.linkField, this.linkStatus);
  }

  // ---------------------------------------------------------------- graphs

  // Every new graph on screen (actions/load.js calls this from loadGraph).
  graphLoaded(answer, { kind = "load" } = {}) {
    const app = this.host.app;
    const source = app.source ?? {};
    if (kind !== "values" && kind !== "reset") this.programOrigin = null;
    if (source.preset && !source.values) this.noteOriginals(answer, source.preset);
    const edited = Boolean(source.preset || source.program === undefined
      ? source.values && Object.keys(source.values).length : this.programOrigin);
    this.markCustom(!source.preset);
    if (source.preset) this.lastPreset = source.preset;
    this.inputs.build(answer, edited);
    const inputs = InputsPanel.inputsOf(answer);
    this.nudge.setGraph(answer, inputs);
    this.editor.graphLoaded(answer, kind === "editor", Boolean(source.preset));
    const detail = source.preset ? app.presetDetails?.get(source.preset) : null;
    const key = `${source.preset ?? "program"}:${JSON.stringify(source.values ?? {})}:${source.preset ? "" : answer.program}`;
    // A program gets questions made from its trace; a preset has its own (maybe none).
    this.questions.setGraph(answer, app.stepper.trace, source.preset ? detail ?? { checkpoints: [] } : null, key, edited);
    this.lineOf = new Map(answer.nodes.map((n) => [n.label, n.line]));
    this.linked = null;
    // Leaves say they can be changed (their tooltips too: see the constructor).
    markEditable(answer, (label) => this.$("graph").querySelector(`[data-node="${cssEscape(label)}"]`));
  }

  // The preset chooser says "Your program" while one is on screen (the option goes
  // away again when a preset is picked, so the list stays the list of presets).
  markCustom(on) {
    const select = this.$("preset");
    let option = select.querySelector("option[data-custom]");
    if (on && !option) {
      option = h("option", { value: "", disabled: true, data: { custom: "1" } }, "Your program");
      select.prepend(option);
    }
    if (on) option.selected = true;
    else option?.remove();
  }

  // After every render (render.js).
  rendered(view) {
    this.questions.update(view);
    const s = this.questions.summary();
    this.host.element.dataset.questions = String(s.total);
    if (this.live) this.saveURL();
  }

  // The request fields for the graph on screen: {preset, values?} or {program}.
  requestSource() {
    const src = this.host.app.source ?? {};
    if (src.preset) return src.values ? { preset: src.preset, values: { ...src.values } } : { preset: src.preset };
    if (src.program !== undefined) return { program: src.program };
    return src.values ? { values: { ...src.values } } : {}; // the engine's own graph (a notebook kernel's)
  }

  currentOrder() {
    const app = this.host.app;
    const exp = app.stepper?.trace.experiment;
    return exp ? exp.order.map((id) => app.answer.nodes[id].label) : null;
  }

  // ---------------------------------------------------------------- values

  setValue(name, value) {
    if (!this.host.app.ready) {
      this.host.narrate("Changing a value needs the engine, which is still starting. It will work in a moment.");
      return;
    }
    this.pendingEdits.set(name, value);
    this.runValues();
  }

  async sendValues() {
    const edits = new Map(this.pendingEdits);
    this.pendingEdits.clear();
    if (!edits.size) return;
    const app = this.host.app;
    const before = app.answer;
    const src = app.source ?? {};
    let source;
    if (src.preset) {
      const values = { ...(src.values ?? {}) };
      const original = this.originals?.preset === src.preset ? this.originals.values : {};
      for (const [name, value] of edits) {
        if (original[name] === value) delete values[name];
        else values[name] = value;
      }
      source = Object.keys(values).length ? { preset: src.preset, values } : { preset: src.preset };
    } else if (src.program !== undefined) {
      this.programOrigin ??= src.program;
      source = { program: src.program, values: Object.fromEntries(edits) };
    } else {
      // The engine's own graph: it recomputes from its original values and every edit so far.
      source = { values: { ...(src.values ?? {}), ...Object.fromEntries(edits) } };
    }
    let answer;
    try {
      answer = await this.load(source, {
        keepPlace: true,
        order: this.currentOrder(),
        kind: "values",
        message: (a) => changeText(before, a, edits),
      });
    } catch (error) {
      this.host.narrate(`The engine could not compute that: ${error?.message ?? error}`);
      return;
    }
    if (answer && !answer.ok) this.host.narrate(`That value could not be used: ${answer.error.message}`);
  }

  async resetValues() {
    const app = this.host.app;
    const before = app.answer;
    const src = app.source ?? {};
    const source = src.preset ? { preset: src.preset }
      : src.program !== undefined ? { program: this.programOrigin ?? src.program } : {};
    this.pendingEdits.clear();
    const answer = await this.load(source, {
      keepPlace: true, order: this.currentOrder(), kind: "reset",
      message: (a) => `Back to the original values. ${outputText(before, a)}`,
    });
    this.programOrigin = null;
    if (answer?.ok) this.inputs.build(answer, false);
  }

  // Remember a preset's own values (from a load without edits).
  noteOriginals(answer, preset) {
    const values = {};
    for (const inp of InputsPanel.inputsOf(answer)) values[inp.name] = inp.value;
    this.originals = { preset, values };
  }

  // ---------------------------------------------------------------- programs

  async buildProgram(text) {
    if (!this.host.app.ready) return { ok: false, error: { message: "The engine is still starting; your program will be built once it is ready." } };
    let answer;
    try {
      answer = await this.load({ program: text }, { keepPlace: true, kind: "editor" });
    } catch (error) {
      const restarted = /^The engine failed/.test(error?.message ?? "");
      return { ok: false, error: { message: restarted
        ? "This program was too much for the engine running in your browser, so the engine was restarted. Try a smaller program."
        : `The engine could not answer: ${error?.message ?? error}` } };
    }
    if (answer === null) return null;
    if (!answer.ok) return answer;
    return { ok: true, nodes: answer.nodes.length, output: answer.nodes[answer.output].label };
  }

  async backToPreset() {
    const id = this.lastPreset ?? this.host.app.presets[0]?.id;
    if (!id) return;
    await this.load({ preset: id }, { kind: "preset", message: "Back to the preset. Press Step forward to compute the first node." });
  }

  // ---------------------------------------------------------------- links

}

function cssEscape(text) {
  return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(text) : text.replace(/["\\]/g, "\\$&");
}

// "a is now 3 (was 2): d = 36 (was 18), a.grad = 21."
function changeText(before, after, edits) {
  const names = [...edits.keys()];
  const parts = names.map((name) => {
    const inp = InputsPanel.inputsOf(after).find((i) => i.name === name);
    const old = before ? InputsPanel.inputsOf(before).find((i) => i.name === name) : null;
    const grad = inp ? ` and ${inp.label}.grad = ${fmt(after.nodes[inp.nodeId].grad)}` : "";
    return `${name} is now ${fmt(inp?.value ?? edits.get(name))}${old ? ` (was ${fmt(old.value)})` : ""}${grad}`;
  });
  return `${parts.join("; ")}. ${outputText(before, after)}`;
}

function outputText(before, after) {
  const out = after.nodes[after.output];
  const was = before && before.nodes.length === after.nodes.length ? before.nodes[before.output].data : null;
  const changed = was !== null && exact(was) !== exact(out.data);
  return `The output ${out.label} = ${fmt(out.data)}${changed ? ` (was ${fmt(was)})` : ""}.`;
}

// Links: restoring, writing and copying them (links.js).
Object.assign(Learn.prototype, linkMethods);
