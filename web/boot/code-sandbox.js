// The code sandbox: where the code worker (code-worker.js), which runs a learner's
// own Python, is started, so that nothing it runs can reach the network, any site's
// storage or cookies, or any origin's authority.
//
//   const worker = startSandboxedWorker({ memoryMB, entry, module });  // never throws
//   worker.onmessage = ({ data }) => ...;  worker.onerror = (event) => ...;
//   worker.postMessage(message);  worker.terminate();
//
// It answers like a Worker (boot/code-runner.js drives it as one), but the worker runs
// in a hidden <iframe sandbox="allow-scripts"> of the site's code-sandbox.html:
//
// * an opaque origin (never allow-same-origin): no cookies, no Cache Storage, no
//   IndexedDB, no localStorage, and no same-origin authority of the site or of the
//   lesson page it is on, whichever origin that is;
// * a Content-Security-Policy with connect-src 'none' and scripts from blob: only
//   (buildtools/csp.py): no fetch, no XMLHttpRequest, no WebSocket, no import from
//   any host; the worker, started from a blob: URL in the frame, inherits it;
// * so it is handed everything it needs instead: the page reads the worker's script,
//   Pyodide's files, the standard library, the engine and the engine worker's memory
//   snapshot from the site (its caches) and transfers them, with the run's options,
//   in the first message.
//
// Messages go page -> MessagePort -> the frame's one script -> the worker, and back
// the same way; the frame wraps what the worker says as {message} and its errors as
// {error}. Terminating removes the frame, and with it the worker.

import { siteURL } from "../site.js";
import { fetchBuildInfo } from "../worker/downloads.js";
import { cacheName } from "../worker/caches.js";
import { snapshotStore } from "./snapshot.js";

const FRAME_TIMEOUT_MS = 15000;

export function startSandboxedWorker(options) {
  return new SandboxedWorker(options);
}

class SandboxedWorker {
  constructor({ memoryMB, entry = null, module = null }) {
    this.onmessage = null;
    this.onerror = null;
    this.frame = null;
    this.port = null;
    this.pending = []; // messages posted before the worker was started
    this.stopped = false;
    this.start({ memoryMB, entry, module }).catch((error) => this.fail(String(error?.message ?? error)));
  }

  postMessage(message) {
    if (this.stopped) return;
    if (this.pending) this.pending.push(message);
    else this.port.postMessage(message);
  }

  terminate() {
    this.stopped = true;
    this.port?.close();
    this.frame?.remove();
    this.onmessage = null;
    this.onerror = null;
  }

  async start(options) {
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.hidden = true;
    frame.tabIndex = -1;
    frame.title = "Gradwalk's code runner";
    frame.setAttribute("aria-hidden", "true");
    frame.src = siteURL("code-sandbox.html").href;
    const listening = frameListening(frame);
    (document.body ?? document.documentElement).append(frame);
    this.frame = frame;
    const [boot] = await Promise.all([gatherBoot(options), listening]);
    if (this.stopped) return;
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.port.onmessage = ({ data }) => this.received(data);
    frame.contentWindow?.postMessage({ type: "gradwalk-code-sandbox" }, "*", [channel.port2]);
    this.port.postMessage({ script: boot.script, boot: boot.message }, boot.transfer);
    for (const message of this.pending) this.port.postMessage(message);
    this.pending = null;
  }

  received(data) {
    if (this.stopped) return;
    if (data !== null && typeof data === "object" && Object.hasOwn(data, "message")) {
      this.onmessage?.({ data: data.message });
    } else {
      this.fail(typeof data?.error === "string" ? data.error : "the code sandbox sent a message it never sends");
    }
  }

  fail(message) {
    if (this.stopped) return;
    const onerror = this.onerror;
    this.terminate();
    onerror?.({ message, preventDefault() {} });
  }
}

// Resolves once the frame's script is listening (it says so to its parent), or
// rejects when it never will: a lesson page whose policy refuses frames from the site
// (docs/page.md: frame-src), said at once, or a frame that stays silent.
function frameListening(frame) {
  return new Promise((resolve, reject) => {
    const site = siteURL("./").origin;
    const done = (error) => {
      clearTimeout(timer);
      removeEventListener("message", heard);
      document.removeEventListener("securitypolicyviolation", refused);
      if (error) reject(error);
      else resolve();
    };
    const silent = new Error(`code-sandbox.html did not start within ${FRAME_TIMEOUT_MS / 1000} s`);
    const timer = setTimeout(() => done(silent), FRAME_TIMEOUT_MS);
    const heard = (event) => {
      if (event.source === frame.contentWindow && event.data?.type === "gradwalk-code-sandbox-ready") done(null);
    };
    const refused = (event) => {
      if (event.effectiveDirective !== "frame-src" && event.effectiveDirective !== "child-src") return;
      if (!String(event.blockedURI).startsWith(site)) return;
      done(new Error(`this page's Content-Security-Policy does not allow frames from ${site} (frame-src)`));
    };
    addEventListener("message", heard);
    document.addEventListener("securitypolicyviolation", refused);
  });
}

// The first message: the worker's script, the files it boots from and the run's
// options, with the buffers to transfer.
async function gatherBoot({ memoryMB, entry, module }) {
  const build = await fetchBuildInfo();
  const index = build.pyodide_index;
  const cache = cacheName(siteURL("./").href, build.build_id);
  const store = snapshotStore(build, siteURL(build.stdlib_pyc).href, cache, siteURL("./"));
  const [script, loader, runtime, wasm, lock, stdlib, stdlibFull, wheel, snapshot, moduleText] = await Promise.all([
    download("code-worker.js", "text"),
    download(`${index}pyodide.mjs`, "text"),
    download(`${index}pyodide.asm.mjs`, "text"),
    download(`${index}pyodide.asm.wasm`),
    download(`${index}pyodide-lock.json`, "text"),
    download(build.stdlib_pyc),
    download(build.stdlib_pyc_full),
    download(build.engine_wheel_pyc_full), // every engine module: "Your code" runs engine.yourcode
    store ? store.read().catch(() => null) : null,
    module ? download(siteModule(module), "text") : null,
  ]);
  const files = { loader, runtime, wasm, lock, stdlib, stdlibFull, wheel, sitePackages: build.site_packages };
  const given = module ? { name: siteModule(module).split("/").pop(), text: moduleText } : null;
  const options = { memoryMB, entry, module: given };
  return {
    script,
    message: { type: "boot", files, snapshot, options },
    transfer: [wasm, stdlib, stdlibFull, wheel, ...(snapshot ? [snapshot] : [])],
  };
}

async function download(rel, as = "arrayBuffer") {
  const name = rel.split("/").pop();
  const response = await fetch(siteURL(rel)).catch(() => {
    throw new Error(`Could not download ${name} (network error).`);
  });
  if (!response.ok) throw new Error(`Could not download ${name} (${response.status}).`);
  return as === "text" ? response.text() : response.arrayBuffer();
}

// Tests and benchmarks: a .py module of this site, handed to the worker to import.
function siteModule(path) {
  const url = siteURL(path);
  const name = url.pathname.split("/").pop() ?? "";
  if (url.origin !== siteURL("./").origin || !/^[A-Za-z_]\w*\.py$/.test(name)) {
    throw new Error(`${path} is not a Python module of this site.`);
  }
  return url.pathname.slice(siteURL("./").pathname.length);
}
