// The learn-by-doing section's links: the state a permalink or an embed's options ask
// for, restored once the engine can answer (with a notice naming whatever could not be
// used), the URL kept up to date (only where the widget owns the address bar), Copy
// link, and what the Embed dialog needs. Learn (learn.js) extends this class, which is
// kept in its own file; url.js reads and writes the links themselves.

import { h, say } from "./lib/dom.js";
import { siteAddress } from "./panels/embed.js";
import { narrate } from "./actions/say.js";
import { goToLinkedPlace, loadFirstPreset, loadLinked } from "./actions/link.js";
import { ranOrder } from "./actions/order.js";
import { openInLink } from "./grouped.js";
import { whyFromParams, whyLinkParams } from "./actions/why.js";
import { codeLinkParams } from "./actions/code.js";
import { PASSES, decodeProgram, encodeProgram, formatLink, parseLink } from "./url.js";

export class LearnLinks {
  constructor() {
    // Set by Learn's constructor (learn.js), read here.
    /** @type {any} */ this.w = null; // the widget's context (widget.js)
    this.ownsAddressBar = false;
    /** @type {any} */ this.link = null;
    /** @type {any} */ this.editor = null;
    /** @type {any} */ this.saveURL = null;
    /** @type {(id: string) => HTMLElement | null} */ this.$ = () => null;
    /** @type {Map<string, {encoded: string, format: string}>} */ this.encoded = new Map();
    this.live = false; // the URL is kept up to date once the link's state is restored
    this.restored = false;
    this.replaceNext = false;
    /** @type {HTMLInputElement | null} */ this.linkField = null;
    /** @type {HTMLElement | null} */ this.linkStatus = null;
    /** @type {HTMLAnchorElement | null} */ this.openFull = null;
    /** @type {string | null} */ this.fullQuery = null;
    /** @type {(() => void) | null} */ this.stopHistory = null;
  }

  // Where "Open in Gradwalk", Copy link and the embed snippets point: this page
  // when it is Gradwalk's own, else the site's index.html.
  pageAddress() {
    return siteAddress(this.ownsAddressBar);
  }

  async copyLink() {
    await this.writeURL();
    const url = this.fullPageURL();
    this.linkField.hidden = false;
    this.linkField.value = url;
    this.linkField.select();
    try {
      await navigator.clipboard.writeText(url);
      say(this.linkStatus, "Link copied: it opens the page exactly as it is now.");
    } catch {
      say(this.linkStatus, "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.");
    }
  }

  linkState() {
    const app = this.w.state;
    const s = app.stepper;
    const src = app.source ?? {};
    const pass = s && PASSES.includes(s.pos.pass) ? s.pos.pass : "start";
    return {
      preset: src.preset ?? null,
      program: src.preset ? null : src.program ?? null,
      values: src.values ?? null,
      pass, step: pass === "start" ? null : s.pos.index,
      order: ranOrder(app),
      open: openInLink(app.answer),
      cp: this.w.state.questions.enabled ? null : false,
      embed: this.link.state.embed, hide: this.link.state.hide, start: this.link.state.start,
    };
  }

  async programParam(text) {
    if (!this.encoded.has(text)) {
      this.encoded.set(text, await encodeProgram(text));
      if (this.encoded.size > 20) this.encoded.delete(this.encoded.keys().next().value);
    }
    return this.encoded.get(text);
  }

  async writeURL() {
    if (!this.live || !this.w.state.answer) return;
    const state = this.linkState();
    const prog = state.program !== null ? await this.programParam(state.program) : null;
    const other = codeLinkParams(this.w, whyLinkParams(this.w, this.link.other)); // + Why reverse mode's, Your code's
    const query = formatLink(state, { encodedProgram: prog?.encoded ?? null, programFormat: prog?.format, other });
    const first = this.replaceNext; // the first write after a restore only tidies the address
    this.replaceNext = false;
    if (this.ownsAddressBar && query !== location.search) {
      // A new graph, a visit order run or an experiment gets its own history entry, so
      // Back undoes it; a step, a value or a switch only updates the current one. An
      // embed's frame never adds entries (they would be the lesson page's Back button's).
      const push = !first && !this.link.state.embed && newPlace(location.search, query);
      if (push) history.pushState(null, "", query + location.hash);
      else history.replaceState(history.state, "", query + location.hash);
    }
    this.fullQuery = formatLink({ ...state, embed: false },
      { encodedProgram: prog?.encoded ?? null, programFormat: prog?.format, other });
    if (this.openFull) this.openFull.href = this.pageAddress() + this.fullQuery;
  }

  fullPageURL() {
    return this.pageAddress() + (this.fullQuery ?? "");
  }

  dialogState() {
    const state = this.linkState();
    const app = this.w.state;
    const title = state.preset
      ? (app.presets.find((p) => p.id === state.preset)?.title ?? state.preset)
      : "your program";
    return { ...state, title };
  }

  // The state the page's URL asks for, restored once the engine can answer. Returns
  // false if the URL asks for nothing (the page then shows its default).
  async restore(pendingPreset = null) {
    if (this.restored) return false;
    this.restored = true;
    const link = this.link;
    const app = this.w.state;
    const fallbackId = app.presets[0].id;
    const problems = [...link.problems];
    if (pendingPreset || !link.any || link.fatal) {
      // (a link with only "Why reverse mode" parameters can still hold a broken one)
      if (link.fatal || (!link.any && problems.length)) this.showNotice(problems);
      this.finishRestore();
      return false;
    }
    const st = link.state;
    let source = null;
    let program = null;
    if (link.encodedProgram !== null) {
      try {
        program = await decodeProgram(link.encodedProgram, link.programFormat);
        source = { program };
      } catch (error) {
        problems.push(error.message);
      }
    } else if (st.preset) {
      if (app.presets.some((p) => p.id === st.preset)) source = { preset: st.preset };
      else problems.push(`there is no preset called "${st.preset}"`);
    }
    let values = st.values;
    let order = st.order;
    let open = st.open;
    if (!source) {
      source = { preset: fallbackId };
      if (values) problems.push("the input values were for that graph, so they were not used");
      if (order) problems.push("the visit order was for that graph, so it was not used");
      if (open) problems.push("the open groups were for that graph, so they were not used");
      values = null;
      order = null;
      open = null;
    }
    const loaded = await loadLinked(this.w, { source, values, order, open }, fallbackId, problems);
    if (loaded === null) {
      this.finishRestore();
      return true; // the learner already picked something else
    }
    if (!loaded.answer.ok) {
      this.showNotice(problems);
      this.finishRestore();
      return false;
    }
    if (program !== null && loaded.source.program === undefined) this.editor.setText(program);
    goToLinkedPlace(this.w, st, loaded.order, problems); // where in the trace, and the questions switch
    this.showNotice(problems);
    this.finishRestore();
    return true;
  }

  finishRestore() {
    this.live = true;
    this.replaceNext = true;
    this.saveURL();
  }

  // Back and Forward, where the widget owns the address bar (index.html): the entry's
  // URL is a permalink, restored like the one the page opened with. Elsewhere (a
  // <grad-walk> on a lesson page, a notebook) the page's history is not the widget's.
  watchHistory() {
    if (!this.ownsAddressBar) return;
    const onPop = () => this.returnTo(location.search).catch((error) =>
      narrate(this.w, `That page state could not be restored: ${error?.message ?? error}`));
    window.addEventListener("popstate", onPop);
    this.stopHistory = () => window.removeEventListener("popstate", onPop);
  }

  async returnTo(query) {
    if (!this.restored || !this.w.state.ready) return; // still opening: the first restore wins
    this.saveURL.cancel?.(); // a pending write belongs to the state being left
    this.live = false;
    this.restored = false;
    const link = (this.link = parseLink(query));
    if (this.link.any && !this.link.fatal) {
      await this.restore();
    } else {
      // An entry without a link (the address the page was opened at): the first preset.
      this.restored = true;
      await loadFirstPreset(this.w);
      this.finishRestore();
    }
    // "Why reverse mode" last: its experiment runs on the graph just restored (unless
    // another Back or Forward has overtaken this one).
    if (this.link === link) whyFromParams(this.w, new URLSearchParams(query));
  }

  showNotice(problems) {
    const box = this.$("link-notice");
    if (!box) return;
    if (!problems.length) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    const unique = [...new Set(problems)];
    box.replaceChildren(
      h("p", {},
        h("strong", {}, "Part of this link could not be used"),
        `, so the page shows the default there instead: ${unique.join("; ")}.`),
      h("button", { type: "button", class: "button quiet small", onclick: () => { box.hidden = true; } }, "Dismiss"));
    box.hidden = false;
  }
}

// Whether going from one query to another deserves a history entry: another preset,
// a program instead of a preset (or back), another visit order run, an experiment
// entered or left. (Edits of a program, new values, steps and switches do not.)
function newPlace(before, after) {
  const a = new URLSearchParams(before);
  const b = new URLSearchParams(after);
  const landmark = (p) =>
    [p.get("preset"), p.has("prog") || p.has("src") || p.has("program"), p.get("order"), p.get("run")].join("\u0000");
  return landmark(a) !== landmark(b);
}
