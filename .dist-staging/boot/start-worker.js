// Starting one of the site's module workers (the engine's, worker.js, and the code
// worker, code-worker.js) from whatever page the widget is on.
//
//   const worker = startWorker(siteURL("worker.js"));   // never throws
//
// A page may start a worker only from a script of its own origin. On the site's own
// pages the worker starts from its URL, as it always has, and runs under the policy
// its response carries (the site's Content-Security-Policy header). On a lesson page
// of another origin, which loaded gradwalk.js from the site, it starts from a blob:
// URL of the page's own origin whose one line imports the site's worker script: the
// standard way to start a worker across origins. That script reads its options from
// its own URL (import.meta.url) and resolves every file it fetches against it, so it
// runs as it does at home; the blob's worker runs under the lesson page's policy,
// which must allow `worker-src blob:` (docs/page.md lists the rest).
//
// When the worker cannot be made at all (a policy refuses it, a browser without
// module workers), the constructor's exception becomes the worker's error event, one
// task later: the caller sees a worker that failed to start, through the same
// onerror as one whose script did not load, and says so on the widget.

export function startWorker(url) {
  try {
    const script = new URL(url, location.href);
    if (script.origin === location.origin) return new Worker(url, { type: "module" });
    const source = new Blob([`import ${JSON.stringify(script.href)};\n`], { type: "text/javascript" });
    const blobURL = URL.createObjectURL(source);
    try {
      return new Worker(blobURL, { type: "module" });
    } finally {
      URL.revokeObjectURL(blobURL); // the worker has resolved it; nothing else may use it
    }
  } catch (error) {
    return new UnstartedWorker(`${scriptName(url)} could not be started on this page (${error?.message ?? error})`);
  }
}

// The worker script's name for a message: "worker.js", or "worker.js from
// gradwalk.example.org" on a page of another origin.
export function scriptName(url) {
  let script;
  try {
    script = new URL(url, location.href);
  } catch {
    return String(url); // not a URL at all: said as it was given
  }
  const name = script.pathname.split("/").pop();
  return script.origin === location.origin ? name : `${name} from ${script.host}`;
}

// A worker that could not be made: it reports why as an error event (with
// preventDefault, like a worker's ErrorEvent), and ignores what it is sent.
class UnstartedWorker {
  constructor(message) {
    this.onmessage = null;
    this.onerror = null;
    setTimeout(() => this.onerror?.({ message, preventDefault() {} }), 0);
  }

  postMessage() {}

  terminate() {
    this.onerror = null;
  }
}
