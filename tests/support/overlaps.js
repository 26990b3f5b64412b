// Run in a page by tests/page/test_nothing_covers.py (and by hand: tests/support/overlaps.py):
// walks the widget's whole trace in one go and says, frame by frame, which two things that
// carry text in the graph cover each other. A function expression for page.evaluate, given
// nothing: from the start (Reset) it steps to the end with "Step forward" (the passes, or
// after a run of the visit order, that run), and at each
// frame compares the on-screen boxes of every node, edge label, tag, note, open group's name
// and flying chip, and the graph panel's heading with its tools. Returns
// {frames, problems: [{frame, a, b}]}.
() => {
  const root = globalThis.gwRoot();
  const svg = root.getElementById("graph");
  const host = globalThis.gwHost();
  const SLACK = 0.5; // px two boxes may share (anti-aliased edges)

  const shown = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? r : null;
  };
  // What carries text in the graph, each as {what, r}.
  function things() {
    const out = [];
    const add = (what, e) => {
      const r = e && shown(e);
      if (r) out.push({ what, r });
    };
    for (const g of svg.querySelectorAll("g[data-node]")) add(`node ${g.dataset.node}`, g.querySelector(".node-box"));
    for (const g of svg.querySelectorAll(".edge-label")) add(`edge label "${g.textContent}"`, g.querySelector("rect"));
    for (const g of svg.querySelectorAll(".node-tag")) {
      add(`tag "${g.textContent}" of ${g.closest("[data-node]")?.dataset.node}`, g.querySelector("rect"));
    }
    for (const g of svg.querySelectorAll(".node-note")) {
      add(`note "${g.textContent}" of ${g.closest("[data-node]")?.dataset.node}`, g.querySelector("rect"));
    }
    for (const g of svg.querySelectorAll(".group-tab")) {
      const box = g.querySelector("rect");
      const text = g.querySelector("text");
      const a = box && shown(box);
      const b = text && shown(text);
      if (a || b) {
        const r = a && b ? union(a, b) : a || b;
        out.push({ what: `group name "${text?.textContent}"`, r });
      }
    }
    for (const g of svg.querySelectorAll(".pulse")) add(`chip "${g.textContent}"`, g.querySelector("rect"));
    return out;
  }
  function union(a, b) {
    const left = Math.min(a.left, b.left);
    const top = Math.min(a.top, b.top);
    return { left, top, right: Math.max(a.right, b.right), bottom: Math.max(a.bottom, b.bottom) };
  }
  const cover = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > SLACK
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > SLACK;
  // The graph panel's heading and its tools (zoom buttons, readout) beside it.
  function head() {
    const out = [];
    const heading = root.getElementById("graph-heading");
    const r = heading && shown(heading);
    if (r && r.width > 2 && r.height > 2) { // (a phone's is for screen readers only: 1 px, clipped)
      // the heading's text, not its block: a range around its contents
      const range = document.createRange();
      range.selectNodeContents(heading);
      out.push({ what: "the graph's heading", r: range.getBoundingClientRect() });
    }
    for (const e of root.getElementById("graph-tools")?.children ?? []) {
      const box = shown(e);
      if (box) out.push({ what: `tool "${e.textContent.trim() || e.getAttribute("aria-label")}"`, r: box });
    }
    return out;
  }
  const problems = [];
  let frames = 0;
  function check() {
    const where = `${host.dataset.pass}:${host.dataset.step}`;
    for (const list of [things(), head()]) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          if (cover(list[i].r, list[j].r)) problems.push({ frame: where, a: list[i].what, b: list[j].what });
        }
      }
    }
    frames += 1;
  }
  const forward = root.getElementById("step-forward");
  const done = () => forward.getAttribute("aria-disabled") === "true";
  root.getElementById("reset").click(); // (in the experiment: back to its start, its order kept)
  check();
  for (let k = 0; k < 2000 && !done(); k++) {
    forward.click();
    check();
  }
  return { frames, problems };
}
