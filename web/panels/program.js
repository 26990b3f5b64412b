// The program being traced, one numbered line per statement, with the line of the
// current frame marked (as Python Tutor marks the line that just ran), and under
// it what that line is doing at this step:
//
//   forward     # b = a + 1 = 2 + 1 = 3
//   seed        d.grad = 1                    # seed: d.grad 0 → 1
//   visit       b.grad += c.data * d.grad     # 6 × 1 = 6, b.grad 0 → 6
//
//   const program = new ProgramView(preElement);
//   program.show(answer.program);
//   program.update(view, answer)  // mark the frame's line and fill in its numbers
//   program.mark(line)            // 1-based; null marks nothing (no notes)

import { factor, fmt } from "../lib/format.js";

function span(className, text) {
  const s = document.createElement("span");
  s.className = className;
  if (text !== undefined) s.textContent = text;
  return s;
}

export class ProgramView {
  constructor(pre) {
    this.pre = pre;
    this.lines = [];
    this.notes = null; // the annotation block under the current line
  }

  show(source) {
    const text = (source ?? "").replace(/\n$/, ""); // a notebook kernel's graph has no program
    this.notes = null;
    this.lines = text.split("\n").map((line, i) => {
      const row = span("code-line");
      row.dataset.line = String(i + 1);
      const num = span("code-num", String(i + 1));
      num.setAttribute("aria-hidden", "true");
      row.append(num, span("code-text", line), "\n");
      return row;
    });
    this.pre.replaceChildren(...this.lines);
  }

  mark(line) {
    this.notes?.remove();
    this.notes = null;
    this.lines.forEach((row, i) => {
      const on = line === i + 1;
      row.classList.toggle("is-current", on);
      if (on) row.setAttribute("aria-current", "step");
      else row.removeAttribute("aria-current");
    });
  }

  // Mark the current frame's line and put the step, with its real numbers, under it.
  update(view, answer) {
    const frame = view.frame;
    const line = frame?.line ?? null;
    this.mark(line);
    const row = line ? this.lines[line - 1] : null;
    if (!row || !frame) return;
    const notes = noteRows(view, answer);
    if (!notes.length) return;
    const block = span("code-notes");
    block.dataset.pass = view.pass;
    // Line the comments up: every code part as wide as the widest in this block.
    const width = Math.max(...notes.map((n) => n.code.length));
    for (const note of notes) {
      const r = span(`code-note${note.late ? " is-late" : ""}`);
      if (note.rule) r.dataset.rule = note.rule;
      const body = span("note-body");
      if (note.code) {
        const code = span("note-code", note.code);
        code.style.minWidth = `${width + 2}ch`;
        body.append(code);
      }
      if (note.comment) {
        if (note.code) body.append("  "); // for copying and screen readers; not drawn in the flex row
        body.append(span("note-comment", note.comment));
      }
      r.append(span("code-num", ""), body, "\n");
      block.append(r);
    }
    row.after(block);
    this.notes = block;
  }
}

// The rows under the current line: [{code, comment, rule, late}].
function noteRows(view, answer) {
  const f = view.frame;
  const nodes = answer.nodes;
  if (!f) return [];
  if (view.pass === "forward") {
    return [{ code: "", comment: `# ${f.text}` }];
  }
  if (f.kind === "seed") {
    const n = nodes[f.node];
    const label = n.box?.shown?.at(-1)?.label ?? n.label; // in a closed group's box: its output
    const comment = `# seed: ${target(label)} ${fmt(f.before)} → ${fmt(f.after)}`;
    return [{ code: `${target(label)} = ${fmt(f.after)}`, comment }];
  }
  if (!Array.isArray(f.pushes)) {
    return f.text ? [{ code: "", comment: `# ${f.text}` }] : [];
  }
  const label = nodes[f.node].label;
  if (!f.pushes.length) {
    const comment = `# ${label} is an input: nothing to pass back (${target(label)} = ${fmt(f.upstream)})`;
    return [{ code: "", comment }];
  }
  return f.pushes.map((p) => {
    const lhs = p.rule.split(" += ")[0];
    // (a closed group's push: its shares and their sum, as worked out by the engine)
    let comment = p.math
      ? `# ${p.math}, ${p.change ?? `${lhs} ${fmt(p.before)} → ${fmt(p.after)}`}`
      : `# ${factor(p.local)} × ${factor(p.upstream)} = ${fmt(p.contribution)}, `
        + `${lhs} ${fmt(p.before)} → ${fmt(p.after)}`;
    if (p.late) comment += "  ⚠ too late";
    return { code: p.rule, comment, rule: p.rule, late: Boolean(p.late) };
  });
}

// "b.grad", or "(x1*w1).grad" for a label that is not a plain name.
function target(label) {
  return /^[A-Za-z_][A-Za-z0-9_']*$/.test(label) ? `${label}.grad` : `(${label}).grad`;
}
