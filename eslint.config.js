// ESLint's flat config: @eslint/js's recommended rules and a 120-character line limit on
// every JavaScript file of the project, with the globals of where each one runs (the page, a
// worker, Node).
import js from "@eslint/js";
import globals from "globals";
import stylistic from "@stylistic/eslint-plugin";

export default [
  // The build's output and staging, downloads, and the notebook package's bundle.
  { ignores: ["node_modules/", "dist/", ".dist-*/", ".cache/", "gradwalk/static/", "build/"] },
  js.configs.recommended,
  {
    // A parameter named _x is there for its place or its type, not to be read.
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }] },
  },
  {
    // No line of code or comment runs over 120 characters, so every file reads without
    // sideways scrolling; a tab counts as two columns, as the code indents by two.
    plugins: { "@stylistic": stylistic },
    rules: { "@stylistic/max-len": ["error", { code: 120, tabWidth: 2 }] },
  },
  {
    // The page's modules, and the script an exported notebook's page runs (gradwalk/export.py).
    files: ["web/**/*.js", "gradwalk/templates/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The engine's worker and the service worker run in a worker's global scope.
    files: ["web/worker.js", "web/worker/**/*.js", "web/sw.js"],
    languageOptions: { globals: { ...globals.worker, ...globals.serviceworker } },
  },
  {
    // A test's stand-in for a host's page script (tests/sites/myst_host.js) runs in the page.
    files: ["tests/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["buildtools/**/*.mjs", "bench/**/*.mjs", "tests/**/*.mjs", "eslint.config.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
