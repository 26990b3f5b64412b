// The program being traced, one numbered line per statement, with the line of the
// current frame marked (as Python Tutor marks the line that just ran).
//
//   const code = new ProgramView(preElement);
//   code.show(answer.program);
//   code.mark(line)            // 1-based; null marks nothing

export class ProgramView {
  constructor(pre) {
    this.pre = pre;
    this.lines = [];
  }

  show(source) {
    const text = source.replace(/\n$/, "");
    this.lines = text.split("\n").map((line, i) => {
      const row = document.createElement("span");
      row.className = "code-line";
      const num = document.createElement("span");
      num.className = "code-num";
      num.setAttribute("aria-hidden", "true");
      num.textContent = String(i + 1);
      const code = document.createElement("span");
      code.className = "code-text";
      code.textContent = line;
      row.append(num, code, "\n");
      return row;
    });
    this.pre.replaceChildren(...this.lines);
  }

  mark(line) {
    this.lines.forEach((row, i) => {
      const on = line === i + 1;
      row.classList.toggle("is-current", on);
      if (on) row.setAttribute("aria-current", "step");
      else row.removeAttribute("aria-current");
    });
  }
}
