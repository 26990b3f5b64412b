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
