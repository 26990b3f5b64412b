// The "Your code" mode's editor, fetched only when asked for.
//
// The editor itself (CodeMirror with Python: 350 kB of script, 100 kB sent) is a module of
// its own, web/code-editor-view.js, that the build bundles into one file (like the
// workers: buildtools/bundle.py). The page's module holds only this loader, so a page
// that never opens the mode never requests or parses any of it. The address comes from
// site.js at run time: a literal import() would be bundled into the page's module.
//
//   const { createEditor } = await loadCodeEditor();
//   const editor = createEditor(parent, { doc, label, onChange, onRun });
//
// See code-editor-view.js for what createEditor returns.

import { siteURL } from "../site.js";

/** @type {Promise<any> | null} */
let loading = null;

// Resolves to the editor's module, { createEditor }; it is fetched once, and again
// after a failure (a lost connection), not kept as failed.
/** @returns {Promise<typeof import("../code-editor-view.js")>} */
export async function loadCodeEditor() {
  loading ??= import(siteURL("code-editor-view.js").href).then(
    // Resolved in a task of its own, so that the caller's createEditor() does not run in
    // the task that evaluated the module, after a task that warms the editor up (its
    // first creation is the slowest): each stays well under 50 ms.
    (module) => new Promise((resolve) => setTimeout(() => {
      module.warmUp();
      setTimeout(() => resolve(module));
    })),
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}
