// Starts the engine's worker (Pyodide boots in it) as early as the page can:
// a classic async script at the top of <head>, with no imports, so it runs as
// soon as its own 1 KB have arrived, before the stylesheets, the first layout
// and the widget's ~30 modules. The widget's engine (boot/engine-client.js) then takes
// this worker over, with everything it has said so far, instead of starting a
// second one:
//
//   <script async src="boot-early.js"></script>
//
// The hand-over is globalThis.gradwalkEarly = {prestarted, claimed}:
//   prestarted  {href, worker, buffered: [[kind, event]...], timer}, or null
//   claimed     true once an engine has started; a late run of this script
//               then starts nothing (the engine has its own worker)
// A worker nobody adopts within 30 s is stopped.
//
// It also loads sw-register.js, which registers the service worker once the
// engine has settled. (The prerendered first paint is downloaded early by a
// <link rel="preload"> in the head; first-paint.js picks that response up.)

(function startEngineEarly() {
  const early = (globalThis.gradwalkEarly ??= { prestarted: null, claimed: false });
  const base = /** @type {HTMLScriptElement | null} */ (document.currentScript)?.src ?? location.href;
  import(new URL("boot/sw-register.js", base).href).catch(() => {});
  if (early.claimed || early.prestarted || typeof Worker !== "function") return;

  // The same URL engine-client.js asks for: ?boot=stock|fast is passed on.
  const url = new URL("worker.js", base);
  const boot = new URLSearchParams(location.search).get("boot");
  if (boot === "stock" || boot === "fast") url.searchParams.set("boot", boot);

  globalThis.performance?.mark?.("gw:worker-start");
  const worker = new Worker(url, { type: "module" });
  const buffered = [];
  worker.onmessage = (event) => buffered.push(["message", event]);
  worker.onerror = (event) => {
    event.preventDefault();
    buffered.push(["error", event]);
  };
  const timer = setTimeout(() => {
    if (early.prestarted?.worker !== worker) return;
    early.prestarted = null;
    worker.terminate();
  }, 30000);
  early.prestarted = { href: url.href, worker, buffered, timer };
})();
