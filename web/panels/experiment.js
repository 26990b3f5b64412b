// The visit-order experiment's result: the verdict first (it must be in view next to
// the Run order button) with the mistake it shows in the catalogue's words (a node visited
// too early: engine/mistakes.py), the order that ran, the engine's explanation of the other
// late contributions (the mistake's own is told by the mistake, the wrong grads and the lost
// paths), the wrong grads, the lost paths and the harmless out-of-order visits.

import { fmt } from "../lib/format.js";
import { h } from "../lib/dom.js";
import { wrongGrads } from "../modes/shared.js";
import { gradName } from "../grouped.js";

// playing: the run is still being played visit by visit (actions/play.js); its result
// waits for its last visit, so that the learner watches the grads add up first.
export function showExperiment(body, exp, answer, playing = false) {
  body.parentElement.classList.toggle("has-result", Boolean(exp) && !playing);
  if (!exp || playing) {
    body.replaceChildren(h("p", { class: "muted" }, playing
      ? "Playing the run one visit at a time: its result comes after the last visit."
      : "Run an order to see what it does to the grads."));
    return;
  }
  const label = (id) => answer.nodes[id].label;
  const wrong = wrongGrads(exp.grads, exp.correct_grads);
  const mistake = exp.mistake ?? null;
  const explanation = exp.explanation.filter((_, k) => k !== mistake?.late);
  const parts = [
    h("p", { class: `verdict ${wrong.length ? "is-wrong" : "is-right"}`, "data-mistake": mistake?.id },
      wrong.length
        ? `✗ ${wrong.length === 1 ? "1 grad is" : `${wrong.length} grads are`} wrong`
        : "✓ Every grad is right"),
    mistake
      ? h("p", { class: "mistake", "data-mistake": mistake.id },
        h("strong", { class: "mistake-tag" }, `Mistake: ${mistake.name}.`), " ", mistake.text)
      : null,
    h("p", { class: "ran-order" }, `Order run: ${exp.order.map(label).join(" → ")}`),
    explanation.length ? h("ul", { class: "explanation" }, ...explanation.map((s) => h("li", {}, s))) : null,
  ];
  if (wrong.length) {
    parts.push(h("h4", {}, "Wrong grads"), h("ul", { class: "wrong-grads" },
      ...wrong.map((i) =>
        h("li", {}, `${gradName(answer.nodes[i])}.grad = ${fmt(exp.grads[i])} `
          + `(should be ${fmt(exp.correct_grads[i])})`))));
  }
  if (exp.lost_paths.length) {
    const more = exp.lost_path_count - exp.lost_paths.length;
    parts.push(h("h4", {}, "Lost paths"), h("ul", { class: "lost-paths" },
      ...exp.lost_paths.map((path) =>
        h("li", {}, `${path.nodes.map(label).join(" → ")} (this path carries ${fmt(path.product)})`)),
      more > 0 ? h("li", { class: "muted" }, `…and ${more} more`) : null));
  }
  if (exp.harmless.length) {
    parts.push(h("h4", {}, "Out of order, but harmless"),
      h("ul", { class: "harmless" }, ...exp.harmless.map((x) => h("li", {}, x.text))));
  }
  // (With a mistake named, its sentence takes this line's room beside the list: the
  // narration still says how to replay the run.)
  if (!mistake) parts.push(h("p", { class: "muted" }, "Step back and forward to replay it visit by visit."));
  body.replaceChildren(...parts.filter(Boolean));
  // The verdict belongs next to the graph's late and lost marks, with Run order just
  // above it: bring both into view if they are not (on a phone, just below the controls
  // and the graph that stay on top; the lost paths follow right under the verdict).
  body.querySelector(".verdict").scrollIntoView({ block: "nearest" });
  body.closest(".experiment")?.querySelector(".order-buttons")?.scrollIntoView({ block: "nearest" });
}
