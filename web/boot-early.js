// Starts what the page needs from the network and from Python as early as
// possible, while app.js and its modules are still loading:
//
//   * the engine's worker (Pyodide boots in it), which app.js's createEngine()
//     then takes over (engine-client.js, prestartEngine);
//   * the download of the prerendered first paint, which app.js then gets
//     from the same module (first-paint.js);
//   * the service worker, registered once the engine has settled (sw-register.js).
//
// index.html loads it before app.js, as an async module so that it runs as
// soon as it and its two small imports have arrived:
//
//   <script type="module" async src="boot-early.js"></script>
//
// (A <link rel="preload" href="prerender/all.json" as="fetch" crossorigin> in
// the head starts that download even sooner; first-paint.js's fetch then
// takes the preloaded response.)

import { prestartEngine } from "./engine-client.js";
import { prerendered, presetFromURL } from "./first-paint.js";

prestartEngine();
prerendered(presetFromURL());
import("./sw-register.js");
