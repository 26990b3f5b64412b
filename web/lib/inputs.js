// A graph's inputs as the learner edits them: [{name, label, nodeId, value}] in source
// order. Values are set by variable name (the name its program assigns, usually the
// node's label); a graph with no program (a notebook's kernel) sets them by label.

/** @param {any} answer a graph answer (engine/api.py's load) */
export function inputsOf(answer) {
  const lines = (answer.program ?? "").split("\n");
  return answer.inputs.map((id) => {
    const node = answer.nodes[id];
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(lines[node.line - 1] ?? "");
    return { name: m ? m[1] : node.label, label: node.label, nodeId: id, value: node.data };
  });
}
