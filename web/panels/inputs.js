// Edit the inputs: one field per leaf of the graph, under the graph.
//
// Type a new value (it is used 300 ms after the last key, or at once on Enter),
// press ↑ / ↓ in a field (±1; with Shift ±10, with Alt ±0.1), or scrub: drag a
// field's name — or the leaf itself in the graph — sideways. Clicking a leaf in
// the graph puts the cursor in its field. The engine recomputes; the graph, the
// table and the narration update and the learner keeps their place in the trace.
// "Reset values" goes back to the preset's (or the program's) own numbers.
//
// A value the engine can't take (1e300, NaN, inf, a word) is refused where it was typed:
// the field is marked aria-invalid, a sentence right under it says why (and is named by
// the field's aria-describedby), and the graph keeps the last good value. Leaving the
// field puts that value back in it; the sentence stays, saying which value was kept,
// until the next edit.

import { fmt, parseNumber } from "../lib/format.js";
import { h, debounce } from "../lib/dom.js";
import { inputsOf } from "../lib/inputs.js";

const MAX_VALUE = 1e12; // the engine's limit for a number in a program (engine/program.py)
const RANGE = "between -1e12 and 1e12";
const SCRUB_PX = 8; // pixels of drag per step

export class InputsPanel {
  // onChange(name, value, {immediate}) asks for a new value; onReset() for the originals.
  constructor(box, { onChange, onReset }) {
    this.box = box;
    this.onChange = onChange;
    this.onReset = onReset;
    this.fields = new Map(); // name -> {input, label, nodeId}
    this.typed = debounce((name, value) => this.onChange(name, value, { immediate: false }), 300);
    box.classList.add("inputs-box");
    this.list = h("div", { class: "inputs-list", role: "group", "aria-labelledby": "inputs-heading" });
    this.resetButton = h("button", {
      type: "button", class: "button quiet small", id: "reset-values",
      onclick: () => this.onReset(),
    }, "Reset values");
    const touch = window.matchMedia?.("(pointer: coarse)").matches;
    this.help = h("p", { class: "inputs-help", id: "inputs-help" }, touch
      ? "Type a number, or drag a name sideways."
      : "Type a number, press ↑/↓, or drag a name (or the leaf in the graph) sideways.");
    box.append(
      h("div", { class: "inputs-head" },
        h("h3", { id: "inputs-heading", class: "inputs-heading" }, "Inputs"),
        this.resetButton),
      this.list, this.help);
    box.hidden = true;
  }


  build(answer, edited) {
    const inputs = inputsOf(answer);
    const names = inputs.map((i) => i.name).join(",");
    this.resetButton.hidden = !edited;
    this.box.hidden = inputs.length === 0;
    if (names === this.names) {
      // Same inputs: refresh the numbers, but never under a learner's cursor.
      for (const inp of inputs) {
        const f = this.fields.get(inp.name);
        f.nodeId = inp.nodeId;
        f.value = inp.value;
        if (document.activeElement !== f.input || f.scrubbing) {
          setField(f.input, inp.value);
          showRefusal(f, null);
        }
      }
      return;
    }
    this.names = names;
    this.fields.clear();
    this.list.replaceChildren(...inputs.map((inp) => this.field(inp)));
  }

  field(inp) {
    const id = `value-${inp.name}`;
    const input = h("input", {
      type: "text", id, class: "value-input", inputmode: "decimal", autocomplete: "off",
      spellcheck: "false", role: "spinbutton", "aria-describedby": "inputs-help",
      data: { input: inp.name },
    });
    setField(input, inp.value);
    const label = h("label", { for: id, class: "value-label", title: `Drag sideways to change ${inp.name}` }, inp.name);
    const error = h("p", { class: "value-error", id: `${id}-error`, hidden: true });
    const f = { input, label, error, nodeId: inp.nodeId, value: inp.value, name: inp.name };
    this.fields.set(inp.name, f);
    input.addEventListener("input", () => {
      const why = refusal(input.value, { typing: true });
      if (why) {
        this.typed.cancel();
        showRefusal(f, why);
        return;
      }
      showRefusal(f, null);
      const x = parseNumber(input.value);
      if (x !== null) this.typed(inp.name, x);
    });
    input.addEventListener("keydown", (e) => this.onKey(e, f));
    input.addEventListener("blur", () => {
      this.typed.now();
      if (!input.value.trim()) {
        setField(input, f.value); // an emptied field: nothing was asked for
        showRefusal(f, null);
        return;
      }
      const why = refusal(input.value);
      if (why) {
        setField(input, f.value);
        showRefusal(f, `${why} Kept ${f.name} = ${fmt(f.value)}.`, { kept: true });
      }
    });
    input.addEventListener("focus", () => input.select());
    label.addEventListener("pointerdown", (e) => this.scrub(e, f));
    return h("div", { class: "value-field", data: { name: inp.name } }, label, input, error);
  }

  onKey(e, f) {
    if (e.key === "Enter") {
      e.preventDefault();
      const why = refusal(f.input.value);
      if (why) {
        showRefusal(f, why);
        return;
      }
      const x = parseNumber(f.input.value);
      this.typed.cancel();
      this.onChange(f.name, x, { immediate: true });
      return;
    }
    if (e.key === "Escape") {
      this.typed.cancel();
      setField(f.input, f.value);
      showRefusal(f, null);
      return;
    }
    if (e.key !== "ArrowUp" && e.key !== "ArrowDown") return;
    e.preventDefault();
    const base = parseNumber(f.input.value) ?? f.value;
    const step = e.shiftKey ? 10 : e.altKey ? 0.1 : 1;
    const x = clamp(roundTo(base + (e.key === "ArrowUp" ? step : -step)));
    setField(f.input, x);
    this.typed.cancel();
    this.onChange(f.name, x, { immediate: true });
  }

  // A drag sideways that started with pointerdown `e`: one step per SCRUB_PX
  // pixels (Shift: 0.1). No drag at all is a click: onClick, or focus the field.
  scrub(e, f, onClick = null) {
    if (e.button !== 0) return;
    e.preventDefault();
    const start = { x: e.clientX, value: parseNumber(f.input.value) ?? f.value };
    let moved = false;
    // Listen on the window: the graph is redrawn under the pointer as the value changes.
    const move = (ev) => {
      if (ev.pointerId !== e.pointerId) return;
      const dx = ev.clientX - start.x;
      if (!moved && Math.abs(dx) < 3) return;
      if (!moved) {
        moved = true;
        f.scrubbing = true;
        document.documentElement.classList.add("is-scrubbing");
      }
      const step = ev.shiftKey ? 0.1 : 1;
      const x = clamp(roundTo(start.value + Math.round(dx / SCRUB_PX) * step));
      if (x !== parseNumber(f.input.value)) {
        setField(f.input, x);
        this.onChange(f.name, x, { immediate: true, scrub: true });
      }
    };
    const end = (ev) => {
      if (ev.pointerId !== e.pointerId) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      f.scrubbing = false;
      document.documentElement.classList.remove("is-scrubbing");
      if (!moved && ev.type === "pointerup") (onClick ?? (() => f.input.focus()))();
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  }

  // Put the cursor in a leaf's field (a tap on the leaf in the graph).
  focusLeaf(nodeId) {
    const f = [...this.fields.values()].find((x) => x.nodeId === nodeId);
    if (!f || this.box.hidden) return;
    f.input.focus();
    f.input.select();
  }

  // A pointer went down on a graph node: leaves scrub, and a click focuses the field.
  fromGraph(e, nodeId) {
    const f = [...this.fields.values()].find((x) => x.nodeId === nodeId);
    if (!f || this.box.hidden) return false;
    this.scrub(e, f, () => {
      f.input.focus();
      f.input.select();
      f.input.closest(".value-field")?.classList.add("is-flash");
      setTimeout(() => f.input.closest(".value-field")?.classList.remove("is-flash"), 700);
    });
    return true;
  }
}

// Why the text typed in a value field can't be used, in a sentence; null if it can.
// While typing, an empty field or the start of a number ("-", "1e", "3/") is not refused:
// the learner is about to finish it.
export function refusal(text, { typing = false } = {}) {
  const t = String(text).trim();
  if (!t) return typing ? null : "Type a number, like 2 or -0.5.";
  if (typing && /^([+-]?(\d+\.?\d*|\.\d*)?(e[+-]?)?|[+-]?\d+(\.\d+)?\/)$/i.test(t)) return null;
  const x = parseNumber(t);
  if (x !== null) {
    return Math.abs(x) > MAX_VALUE ? `${t} is too large: a value must be ${RANGE}.` : null;
  }
  const word = t.replace(/^[+-]/, "").toLowerCase();
  if (word === "nan") return "NaN (not a number) can't be a value: type a number " + RANGE + ".";
  if (["inf", "infinity", "∞"].includes(word)) return `${t} is not a finite number: a value must be ${RANGE}.`;
  // A number too big for a float (1e999) reads as infinity.
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t.replace(/\s+/g, ""))) {
    return `${t} is too large: a value must be ${RANGE}.`;
  }
  if (/^[+-]?\d+(\.\d+)?\s*\/\s*0+(\.0*)?$/.test(t)) return `${t} divides by zero: type a number ${RANGE}.`;
  return `"${t.length > 20 ? `${t.slice(0, 20)}…` : t}" is not a number: type one like 2, -0.5 or 1e-3.`;
}

// Mark a field refused and say why under it, or (why = null) clear both. A kept value
// (after leaving the field) is valid again: only the sentence stays.
function showRefusal(f, why, { kept = false } = {}) {
  const described = ["inputs-help"];
  if (why) described.push(f.error.id);
  f.input.setAttribute("aria-describedby", described.join(" "));
  if (why && !kept) f.input.setAttribute("aria-invalid", "true");
  else f.input.removeAttribute("aria-invalid");
  f.error.hidden = !why;
  f.error.textContent = why ?? "";
  f.error.classList.toggle("is-kept", kept);
}

function setField(input, value) {
  input.value = String(Number(value));
  input.setAttribute("aria-valuenow", String(Number(value)));
  input.setAttribute("aria-valuetext", fmt(value));
}

function clamp(x) {
  return Math.max(-MAX_VALUE, Math.min(MAX_VALUE, x));
}

// Keep stepped values tidy: 2.1, not 2.1000000000000005.
function roundTo(x) {
  return x === 0 ? 0 : Number(x.toPrecision(15));
}
