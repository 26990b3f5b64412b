// Run the pinned esbuild through its JavaScript API, the way its package supports on
// every platform however node_modules/ was installed.
//
//   node buildtools/esbuild.mjs <root> <options as JSON>
//
// <root> is the folder whose node_modules/ holds esbuild; the options are esbuild's
// build() options (entryPoints, outfile, minify, ...). esbuild's own messages go to
// stderr at the options' logLevel; the exit status is 0 when it built, 1 when not.
//
// Not its bin/esbuild: that file is a JavaScript launcher after `npm ci --ignore-scripts`
// but esbuild's install script (a plain `npm ci`) replaces it with the native binary of
// the machine, which Node cannot run. The API finds the binary in the platform's package
// (@esbuild/<os>-<cpu>, the optional dependency npm picked) either way.
//
// `node buildtools/esbuild.mjs <root> --version` prints the version of the binary the
// API runs.

import { createRequire } from "node:module";
import path from "node:path";

const [root, spec] = process.argv.slice(2);
if (!root || !spec) {
  console.error("usage: node buildtools/esbuild.mjs <root> <options as JSON | --version>");
  process.exit(2);
}
// Resolved from <root>, not from this file: the project being built may be elsewhere.
const esbuild = createRequire(path.join(path.resolve(root), "package.json"))("esbuild");
if (spec === "--version") {
  // The binary's own answer: the API starts it to transform nothing.
  await esbuild.transform("");
  console.log(esbuild.version);
  process.exit(0);
}
try {
  await esbuild.build(JSON.parse(spec));
} catch (error) {
  // With a logLevel that shows errors esbuild has printed them already.
  if (!error || !Array.isArray(error.errors)) console.error(String(error && error.message ? error.message : error));
  process.exit(1);
}
