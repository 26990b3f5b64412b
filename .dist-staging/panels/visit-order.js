// The reorderable "Visit order" list for the visit-order experiment.
//
//   const list = new VisitOrder(olElement, { onChange(order), announce(text) });
//   list.setNodes(nodes, correct)  // every node; `correct`: the labels in the order
//                             // the default backward pass visits them (else ids descending)
//   list.order                // labels, top to bottom
//   list.restore()            // back to the correct order
//
// Reordering works three ways:
//   mouse     drag an item anywhere; touch / pen: drag it by its grip (⠿)
//   keyboard  Alt+ArrowUp / Alt+ArrowDown moves the focused item; or Space (or
//             Enter) picks it up, ArrowUp / ArrowDown move it, Space drops it,
//             Escape puts it back; ArrowUp / ArrowDown alone move the focus
//   buttons   the small ▲ / ▼ buttons on each item
// Every move is announced through `announce` (the page's live region).

import { BIG_GRAPH, whenNearOrIdle } from "../lib/slices.js";

export class VisitOrder {
  /**
   * @param {HTMLOListElement} ol
   * @param {{onChange?: (order: string[]) => void, announce?: (text: string) => void}} [callbacks]
   */
  constructor(ol, { onChange = () => {}, announce = () => {} } = {}) {
    this.ol = ol;
    this.onChange = onChange;
    this.announce = announce;
    this.items = [];
    this.grabbed = null; // {li, from} while picked up by keyboard
    this.drag = null; // pointer drag state
    ol.addEventListener("keydown", (e) => this.onKey(e));
    ol.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    ol.addEventListener("click", (e) => this.onClick(e));
  }

  // A big program's list (a thousand items, each with two buttons) is made only
  // when it comes near the screen, or when the page is idle, whichever is first;
  // until then order, arrange, restore and mark work on what it will show.
  setNodes(nodes, correct = null) {
    this.nodes = nodes;
    this.correct = correct?.length === nodes.length ? [...correct] : nodes.map((n) => n.label).reverse();
    this.grabbed = null;
    this.items = [];
    this.byLabel = new Map();
    this.built = false;
    this.wanted = this.correct;
    this.marked = [null, ""];
    this.stopWaiting?.();
    if (nodes.length <= BIG_GRAPH) this.build();
    else {
      this.ol.replaceChildren();
      this.stopWaiting = whenNearOrIdle(this.ol, () => this.build());
    }
  }

  build() {
    if (this.built) return;
    this.stopWaiting?.();
    this.stopWaiting = null;
    this.built = true;
    this.items = this.nodes.map((node) => this.makeItem(node));
    this.byLabel = new Map(this.items.map((li) => [li.dataset.label, li]));
    this.arrange(this.wanted);
    this.mark(...this.marked);
  }

  get order() {
    return this.built ? this.lis().map((li) => li.dataset.label) : [...this.wanted];
  }

  restore() {
    this.arrange(this.correct);
  }

  // Put the items in this order (labels). A list already in that order is left as it
  // is, so the item the learner just moved keeps the focus.
  arrange(labels) {
    if (this.built && this.order.join("\u0000") === labels.join("\u0000")) return;
    this.wanted = [...labels];
    if (!this.built) return;
    this.ol.replaceChildren(...labels.map((l) => this.byLabel.get(l)));
    this.refresh();
  }

  isCorrectOrder() {
    return this.order.join("\u0000") === this.correct.join("\u0000");
  }

  // Mark one item (e.g. the node the experiment is visiting), or none.
  mark(label, text = "") {
    this.marked = [label, text];
    for (const li of this.items) {
      const on = li.dataset.label === label;
      li.classList.toggle("is-marked", on);
      li.querySelector(".vo-mark").textContent = on ? text : "";
    }
  }

  makeItem(node) {
    const li = document.createElement("li");
    li.className = "vo-item";
    li.dataset.label = node.label;
    li.tabIndex = 0;
    li.setAttribute("aria-describedby", "visit-order-help");
    const grip = document.createElement("span");
    grip.className = "vo-grip";
    grip.setAttribute("aria-hidden", "true");
    grip.textContent = "⠿";
    const pos = document.createElement("span");
    pos.className = "vo-pos";
    pos.setAttribute("aria-hidden", "true");
    const name = document.createElement("span");
    name.className = "vo-label";
    name.textContent = node.label;
    const expr = document.createElement("span");
    expr.className = "vo-expr";
    expr.textContent = node.is_input ? "input" : `= ${node.expr}`;
    const mark = document.createElement("span");
    mark.className = "vo-mark";
    const up = moveButton(-1, "▲", `Move ${node.label} earlier`);
    const down = moveButton(1, "▼", `Move ${node.label} later`);
    li.append(grip, pos, name, expr, mark, up, down);
    return li;
  }

  refresh() {
    const lis = this.lis();
    lis.forEach((li, i) => {
      li.querySelector(".vo-pos").textContent = String(i + 1);
      /** @type {HTMLButtonElement} */ (li.querySelector('[data-move="-1"]')).disabled = i === 0;
      /** @type {HTMLButtonElement} */ (li.querySelector('[data-move="1"]')).disabled = i === lis.length - 1;
    });
  }

  // The items in the order they are on screen.
  /** @returns {HTMLElement[]} */
  lis() {
    return /** @type {HTMLElement[]} */ ([...this.ol.children]);
  }

  position(li) {
    return [...this.ol.children].indexOf(li);
  }

  // Move li by delta places; returns true if it moved.
  move(li, delta) {
    const lis = [...this.ol.children];
    const from = lis.indexOf(li);
    const to = Math.max(0, Math.min(lis.length - 1, from + delta));
    if (to === from) return false;
    this.placeAt(li, to);
    return true;
  }

  placeAt(li, to) {
    const others = [...this.ol.children].filter((x) => x !== li);
    this.ol.insertBefore(li, others[to] ?? null);
    this.refresh();
  }

  where(li) {
    return `position ${this.position(li) + 1} of ${this.ol.children.length}`;
  }

  changed() {
    this.onChange(this.order);
  }

  onClick(e) {
    const button = e.target.closest("button[data-move]");
    if (!button) return;
    const li = button.closest("li");
    if (this.move(li, Number(button.dataset.move))) {
      this.announce(`${li.dataset.label} moved to ${this.where(li)}.`);
      this.changed();
    }
    // Keep the focus on something that still makes sense after the move.
    (button.disabled ? li : button).focus();
  }

  onKey(e) {
    const li = e.target.closest?.("li.vo-item");
    if (!li || e.target !== li) return;
    const label = li.dataset.label;
    const up = e.key === "ArrowUp";
    const down = e.key === "ArrowDown";
    if (this.grabbed && this.grabbed.li !== li) this.grabbed = null;

    if ((up || down) && (e.altKey || this.grabbed)) {
      e.preventDefault();
      if (this.move(li, up ? -1 : 1)) {
        li.focus();
        this.announce(`${label} moved to ${this.where(li)}.`);
        if (!this.grabbed) this.changed();
      } else {
        this.announce(`${label} is already ${up ? "first" : "last"}.`);
      }
    } else if (up || down || e.key === "Home" || e.key === "End") {
      e.preventDefault();
      const lis = this.lis();
      const i = lis.indexOf(li);
      const target = e.key === "Home" ? 0 : e.key === "End" ? lis.length - 1 : i + (up ? -1 : 1);
      lis[Math.max(0, Math.min(lis.length - 1, target))].focus();
    } else if (e.key === " " || e.key === "Enter") {
      e.preventDefault();
      if (this.grabbed) {
        this.grabbed = null;
        li.classList.remove("is-grabbed");
        this.announce(`${label} dropped at ${this.where(li)}.`);
        this.changed();
      } else {
        this.grabbed = { li, from: this.position(li) };
        li.classList.add("is-grabbed");
        this.announce(
          `${label} picked up at ${this.where(li)}. Arrow keys move it, Space drops it, Escape cancels.`,
        );
      }
    } else if (e.key === "Escape" && this.grabbed) {
      e.preventDefault();
      this.placeAt(li, this.grabbed.from);
      this.grabbed = null;
      li.classList.remove("is-grabbed");
      li.focus();
      this.announce(`Move cancelled: ${label} is back at ${this.where(li)}.`);
    }
  }

  onPointerDown(e) {
    const li = e.target.closest("li.vo-item");
    if (!li || e.target.closest("button") || e.button !== 0) return;
    // Touch and pen drag by the grip, so the rest of the list still scrolls.
    if (e.pointerType !== "mouse" && !e.target.closest(".vo-grip")) return;
    e.preventDefault();
    li.focus();
    this.drag = { li, id: e.pointerId, startY: e.clientY, from: this.position(li), moving: false };
    // Listen on the window: moving the item in the list drops any pointer capture.
    const move = (ev) => this.onPointerMove(ev);
    const end = (ev) => {
      if (ev.pointerId !== this.drag?.id) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", end);
      window.removeEventListener("pointercancel", end);
      this.onPointerEnd(ev);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);
  }

  onPointerMove(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    if (!d.moving) {
      if (Math.abs(e.clientY - d.startY) < 4) return;
      d.moving = true;
      d.li.classList.add("is-dragging");
      this.ol.classList.add("is-dragging");
    }
    // The slot under the pointer: how many other items' middles lie above it.
    const others = [...this.ol.children].filter((x) => x !== d.li);
    let to = 0;
    for (const other of others) {
      const rect = other.getBoundingClientRect();
      if (e.clientY > rect.top + rect.height / 2) to += 1;
    }
    if (to !== this.position(d.li)) this.placeAt(d.li, to);
  }

  onPointerEnd(_event) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    d.li.classList.remove("is-dragging");
    this.ol.classList.remove("is-dragging");
    if (d.moving && this.position(d.li) !== d.from) {
      this.announce(`${d.li.dataset.label} dropped at ${this.where(d.li)}.`);
      this.changed();
    }
  }
}

// A small ▲/▼ button that moves its item one place (the list handles the click).
function moveButton(step, symbol, label) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "vo-move";
  button.dataset.move = String(step);
  button.tabIndex = -1;
  button.textContent = symbol;
  button.setAttribute("aria-label", label);
  return button;
}
