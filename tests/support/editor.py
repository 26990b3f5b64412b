"""The page's program editor, driven as a learner drives it: a program typed in and
submitted, and what the page then shows (the editor's status and the graph's nodes)."""

import json

from tests.support.page_state import settle

# Put the text in the editor (JSON, so lone surrogates and NULs arrive as they are), press
# Done (which builds at once instead of after the 300 ms pause), and open the editor again.
SUBMIT_JS = """(src) => {
  const area = gwRoot().querySelector('#program-editor');
  area.value = JSON.parse(src);
  area.dispatchEvent(new Event('input', {bubbles: true}));
  [...gwRoot().querySelectorAll('#editor button')].find((b) => b.textContent === 'Done').click();
  gwRoot().querySelector('#edit-program').click();
}"""

READ_JS = """() => {
  const status = gwRoot().querySelector('#editor-status');
  return {
    text: status.innerText,
    line: status.dataset.line ?? null,
    col: status.dataset.col ?? null,
    error: gwRoot().querySelector('#editor').classList.contains('has-error'),
    graph: gwRoot().querySelector('#graph').dataset.graph,
    nodes: [...gwRoot().querySelectorAll('#graph [data-node]')]
      .map((g) => [g.dataset.node, g.dataset.data, g.dataset.grad]),
  };
}"""


def submit(page, text):
    page.evaluate(SUBMIT_JS, json.dumps(text))
    settle(page, timeout=25, what=f"the editor with {text[:60]!r}")
    return page.evaluate(READ_JS)
