// The graph's input values (panels/inputs.js, and a leaf typed or scrubbed on the graph):
// a typed value is kept (an "edit"), values typed in a burst go to the engine together,
// one load at a time, and "Reset values" loads the graph's own values again. Each new
// graph keeps the learner's place and the visit-order run on screen, and the narration
// says what changed.

import { update } from "../update.js";
import { exact, fmt } from "../lib/format.js";
import { latestOnly } from "../lib/dom.js";
import { inputsOf } from "../lib/inputs.js";
import { loadSource } from "./load.js";
import { ranOrder } from "./order.js";
import { narrate } from "./say.js";

// The learner typed or scrubbed a value: kept at once, sent with the others typed meanwhile.
export function typeValue(w, name, value) {
  if (!w.state.ready) {
    narrate(w, "Changing a value needs the engine, which is still starting. It will work in a moment.");
    return;
  }
  update(w, { type: "edit", name, value });
  w.sendValues ??= latestOnly(() => sendValues(w)); // one load at a time, the newest edits next
  w.sendValues();
}

async function sendValues(w) {
  const state = w.state;
  const edits = new Map(state.values.edits);
  if (!edits.size) return;
  const before = state.answer;
  const src = state.source ?? {};
  let source;
  let programOrigin;
  if (src.preset) {
    const values = { ...(src.values ?? {}) };
    const originals = state.values.originals;
    const original = originals?.preset === src.preset ? originals.values : {};
    for (const [name, value] of edits) {
      if (original[name] === value) delete values[name];
      else values[name] = value;
    }
    source = Object.keys(values).length ? { preset: src.preset, values } : { preset: src.preset };
  } else if (src.program !== undefined) {
    programOrigin = state.values.programOrigin ?? src.program;
    source = { program: src.program, values: Object.fromEntries(edits) };
  } else {
    // The engine's own graph: it recomputes from its original values and every edit so far.
    source = { values: { ...(src.values ?? {}), ...Object.fromEntries(edits) } };
  }
  update(w, { type: "editsSent", programOrigin });
  let answer;
  try {
    answer = await loadSource(w, source, {
      keepPlace: true,
      order: ranOrder(state),
      kind: "values",
      message: (a) => changeText(before, a, edits),
    });
  } catch (error) {
    narrate(w, `The engine could not compute that: ${error?.message ?? error}`);
    return;
  }
  if (answer && !answer.ok) narrate(w, `That value could not be used: ${answer.error.message}`);
}

// "Reset values": the graph's own values (a preset's, or the program's as first built).
export async function resetValues(w) {
  const state = w.state;
  const before = state.answer;
  const src = state.source ?? {};
  const source = src.preset ? { preset: src.preset }
    : src.program !== undefined ? { program: state.values.programOrigin ?? src.program } : {};
  update(w, { type: "editsSent" });
  await loadSource(w, source, {
    keepPlace: true, order: ranOrder(state), kind: "reset",
    message: (a) => `Back to the original values. ${outputText(before, a)}`,
  });
}

// "a is now 3 (was 2): d = 36 (was 18), a.grad = 21."
function changeText(before, after, edits) {
  const names = [...edits.keys()];
  const parts = names.map((name) => {
    const inp = inputsOf(after).find((i) => i.name === name);
    const old = before ? inputsOf(before).find((i) => i.name === name) : null;
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
