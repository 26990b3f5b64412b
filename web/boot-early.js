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
// soon as it and engine-client.js have arrived (the rest is imported after the
// worker has started):
//
//   <script type="module" async src="boot-early.js"></script>

import { prestartEngine } from "./engine-client.js";

prestartEngine();
import("./first-paint.js").then(({ prerendered, presetFromURL }) => prerendered(presetFromURL()));
import("./sw-register.js");
