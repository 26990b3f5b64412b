// What the Node tests of the front end share: the built site's modules (GRADWALK_SITE,
// dist/: modes/registry.js is written by the build) and the engine's answers that the
// pytest wrapper wrote with CPython's engine.api.handle (GRADWALK_ANSWERS).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export function site(path) {
  const root = process.env.GRADWALK_SITE;
  if (!root) throw new Error("GRADWALK_SITE is not set: run these through tests/web/test_node_units.py");
  return pathToFileURL(join(root, path)).href;
}

// {name: answer}, as engine.api.handle answered each request the wrapper made.
export function answers() {
  const dir = process.env.GRADWALK_ANSWERS;
  if (!dir) throw new Error("GRADWALK_ANSWERS is not set: run these through tests/web/test_node_units.py");
  return JSON.parse(readFileSync(join(dir, "answers.json"), "utf8"));
}
