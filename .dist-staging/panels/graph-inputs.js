// How the graph says its inputs can be changed (learn.js, where the inputs panel
// lives): a tooltip ending and the is-editable class on every input's group. One
// module, so that the build's drawing of the first graph (buildtools/graph_svg.mjs)
// is the page's, byte for byte.

export const INPUT_TIP = ". Click to type a new value, or drag sideways.";

// groupOf(label) -> the node's <g> (or null if it is not drawn).
export function markEditable(answer, groupOf) {
  for (const id of answer.inputs) groupOf(answer.nodes[id].label)?.classList.add("is-editable");
}
