// The "Your code" mode's editor, fetched only when asked for.
//
// The editor itself (CodeMirror with Python: 350 kB of script, 100 kB sent) is a module of
// its own, web/code-editor-view.js, that the build bundles with its imports (Python's
// grammar in a chunk beside it: buildtools/bundle.py). The page's module holds only this
// loader, so a page that never opens the mode never requests or parses any of it. The address comes from
// site.js at run time: a literal import() would be bundled into the page's module.
//
//   const { createEditor } = await loadCodeEditor();
//   const editor = createEditor(parent, { doc, label, onChange, onRun });
//
// See code-editor-view.js for what createEditor returns.

import { siteURL } from "../site.js";
import { nextTask } from "../lib/dom.js";

/** @type {Promise<any> | null} */
let loading = null;

// Resolves to the editor's module, { createEditor }; it is fetched once, and again
// after a failure (a lost connection), not kept as failed.
/** @returns {Promise<typeof import("../code-editor-view.js")>} */
export async function loadCodeEditor() {
  loading ??= import(siteURL("code-editor-view.js").href).then(
    // Each step in a task of its own, so that none goes over 50 ms: the editor's module
    // was evaluated in this one; then Python's grammar is evaluated, then one editor is
    // made and dropped to warm the editor up (its first creation is the slowest), and the
    // caller's createEditor() comes after that.
    async (module) => {
      await nextTask();
      await module.loadPython();
      await nextTask();
      module.warmUp();
      await nextTask();
      return module;
    },
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}
