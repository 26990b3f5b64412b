// ESLint's flat config: @eslint/js's recommended rules on every JavaScript file of the
// project, with the globals of where each one runs (the page, a worker, Node).
import js from "@eslint/js";
import globals from "globals";

export default [
  // The build's output and staging, downloads, and the notebook package's bundle.
  { ignores: ["node_modules/", "dist/", ".dist-*/", ".cache/", "gradwalk/static/", "build/"] },
  js.configs.recommended,
  {
    // A parameter named _x is there for its place or its type, not to be read.
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_" }] },
  },
  {
    files: ["web/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The engine's worker and the service worker run in a worker's global scope.
    files: ["web/worker.js", "web/worker/**/*.js", "web/sw.js"],
    languageOptions: { globals: { ...globals.worker, ...globals.serviceworker } },
  },
  {
    files: ["buildtools/**/*.mjs", "bench/**/*.mjs", "tests/**/*.mjs", "eslint.config.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
