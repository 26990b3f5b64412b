// Modules the build makes, which the type check cannot find in web/.

// web/widget-template.js: widget.html's markup as a string (buildtools/widget_markup.py).
declare module "*/widget-template.js" {
  export const WIDGET_HTML: string;
}

// A stylesheet imported by notebook.js: esbuild bundles its text (buildtools/bundle.py).
declare module "*.css" {
  const text: string;
  export default text;
}

// web/modes/registry.js: every mode's declaration, as engine/modes/ makes it
// (buildtools/mode_registry.py).
declare module "*/modes/registry.js" {
  export const MODES: import("../web/state.js").ModeDeclaration[];
}

// web/modes/index.js: each mode's web module (web/modes/<id>.js) with its id, tab and
// declaration, in the order of the tabs (buildtools/mode_registry.py).
declare module "*/modes/index.js" {
  export const MODES: import("../web/state.js").Mode[];
}

// web/ops.js: every operation of the engine's table, engine/ops.py (buildtools/op_registry.py).
declare module "*/ops.js" {
  export const OPS: { name: string, arity: number, written: string, symbol: string }[];
}
