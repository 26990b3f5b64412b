// A program typed in the editor (panels/editor.js): built into a graph as it is typed,
// keeping the learner's place; and "Back to the preset", the last preset on screen again.

import { loadSource } from "./load.js";

// Build the program typed: what the editor shows under it (its graph's size, or why not),
// or null when a newer load has overtaken it. (If Python itself fails, the engine starts
// a fresh worker on its own: boot/engine-client.js.)
export async function buildProgram(w, text) {
  if (!w.state.ready) {
    const message = "The engine is still starting; your program will be built once it is ready.";
    return { ok: false, error: { message } };
  }
  let answer;
  try {
    answer = await loadSource(w, { program: text }, { keepPlace: true, kind: "editor" });
  } catch (error) {
    const restarted = /^The engine failed/.test(error?.message ?? "");
    return { ok: false, error: { message: restarted
      ? "This program was too much for the engine running in your browser, so the engine was restarted. "
        + "Try a smaller program."
      : `The engine could not answer: ${error?.message ?? error}` } };
  }
  if (answer === null) return null;
  if (!answer.ok) return answer;
  return { ok: true, nodes: answer.nodes.length, output: answer.nodes[answer.output].label };
}

export async function backToPreset(w) {
  const id = w.state.values.lastPreset ?? w.state.presets[0]?.id;
  if (!id) return;
  const message = "Back to the preset. Press Step forward to compute the first node.";
  await loadSource(w, { preset: id }, { kind: "preset", message });
}
