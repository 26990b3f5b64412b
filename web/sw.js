// Gradwalk's service worker: keeps one whole build in the Cache Storage so a
// second visit starts from disk and an offline visit works.
//
// build.py replaces the placeholder below with this build's id and every file
// of the build with its sha256, so each build has its own sw.js (which is how
// the browser notices a new build) and its own cache, "gradwalk-<site key>-<build id>":
// the site key is a short hash of the site's base URL (this file's folder), the
// same name the engine's worker gives the build's cache (web/worker/caches.js), so
// that the .wasm and the memory snapshot it keeps go into this cache.
//
// * install: download every file of the build that the fast path uses and check
//   each one's sha256; a file from another build (the site changed mid-way)
//   fails the install, and the browser tries again later. Nothing is half-cached.
//   The files only the stock path (`?boot=stock`) uses, listed by build.py as
//   `on_demand` (the source standard library, micropip, the source engine
//   wheel: ~2.8 MB a learner's page never asks for), are not downloaded, nor
//   is the full precompiled standard library (the fast path boots a trimmed
//   one and asks for the full one only if an import needs a module left out).
//   The page registers this worker only once its engine is ready
//   (boot/sw-register.js), so the precache never shares the link with the boot.
// * fetch: files of the build come from its cache (cache-first), but only if
//   their bytes are still this build's (their sha256 is the manifest's): an entry
//   that is not (damaged on disk, or rewritten by a script that once ran in this
//   origin) is dropped, never served, and the file comes from the network and is
//   cached again once checked. One that is not there (an on-demand file, or one
//   the browser evicted) comes from the network; anything else goes to the
//   network untouched. (So no request is routed around this worker to the cache
//   by the browser's Static Routing API: that would serve entries unchecked.)
// * activate: caches of this site's other builds are deleted (and caches named
//   without a site, by builds from before the site key); another site's caches
//   in this origin (a site in another folder of the same host) are left alone.
//
// There is no skipWaiting and no clients.claim: a page is only ever served by
// the build it started with, and a new build takes over once every tab of the
// old one is closed. Never are two builds mixed in one page.

const MANIFEST = "__GRADWALK_MANIFEST__";
const BUILD = typeof MANIFEST === "object" ? MANIFEST : null; // null: web/ not built
const SCOPE = new URL("./", self.location.href);
// This site's caches, and this build's: "gradwalk-<site key>-<build id>".
const SITE_PREFIX = `gradwalk-${siteKey(SCOPE.href)}-`;
const CACHE = BUILD ? SITE_PREFIX + BUILD.build_id : null;
// A cache named by a build from before the site key: "gradwalk-<build id>".
const UNKEYED = /^gradwalk-[0-9a-f]+$/;
// Files of the build fetched only when asked for (the stock path's, the full stdlib), never precached.
const ON_DEMAND = new Set(BUILD?.on_demand ?? []);
const PARALLEL = 4;
// Content-hashed files (in a folder named by 16 hex digits) never change, so
// the HTTP cache may supply them; everything else is revalidated.
const HASHED = /(^|\/)[0-9a-f]{16}\//;

self.addEventListener("install", (event) => {
  if (!BUILD) throw new Error("sw.js was not filled in by build.py");
  event.waitUntil(precache());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(
        names.filter((n) => (n.startsWith(SITE_PREFIX) || UNKEYED.test(n)) && n !== CACHE).map((n) => caches.delete(n)),
      ),
    ),
  );
});

self.addEventListener("fetch", (event) => {
  if (!BUILD || event.request.method !== "GET") return;
  const rel = relativePath(event.request.url);
  if (rel === null || !(rel in BUILD.files)) return;
  event.respondWith(fromCache(rel, event.request, event));
});

// A page can ask a waiting new build to take over (after it reloads itself).
self.addEventListener("message", (event) => {
  if (event.data === "skipWaiting") self.skipWaiting();
});

// The file of this build a request is for ("index.html" for the folder itself;
// the query string does not matter), or null if it is not under this scope.
function relativePath(href) {
  const url = new URL(href);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  let rel = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length));
  if (rel === "" || rel.endsWith("/")) rel += "index.html";
  return rel;
}

async function fromCache(rel, request, event) {
  const cache = await caches.open(CACHE);
  const url = new URL(rel, SCOPE).href;
  const hit = await cache.match(url);
  if (hit) {
    const body = await hit.arrayBuffer();
    if ((await sha256Hex(body)) === BUILD.files[rel]) {
      return new Response(body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
    }
    // Not this build's bytes: dropped now, and the checked file cached again.
    await cache.delete(url);
    if (!ON_DEMAND.has(rel)) event.waitUntil(store(cache, rel, BUILD.files[rel]).catch(() => {}));
  }
  // A miss means the browser evicted part of the cache: fall back to the network.
  return fetch(request);
}

async function precache() {
  const cache = await caches.open(CACHE);
  // Entries already there (an install that failed half-way and is retried; the
  // .wasm the engine's worker put there itself, with V8's compiled code beside
  // it) are kept if they are this build's file.
  const todo = Object.entries(BUILD.files).filter(([rel]) => !ON_DEMAND.has(rel));
  try {
    const next = () => {
      const item = todo.shift();
      return item ? store(cache, ...item).then(next) : null;
    };
    await Promise.all(Array.from({ length: PARALLEL }, next));
  } catch (error) {
    await caches.delete(CACHE);
    throw error;
  }
}

async function store(cache, rel, sha256) {
  const url = new URL(rel, SCOPE).href;
  const existing = await cache.match(url);
  if (existing) {
    if ((await sha256Hex(await existing.arrayBuffer())) === sha256) return;
    await cache.delete(url);
  }
  const response = await fetch(url, { cache: HASHED.test(rel) ? "default" : "no-cache" });
  if (!response.ok) throw new Error(`${rel}: ${response.status}`);
  const body = await response.arrayBuffer();
  if ((await sha256Hex(body)) !== sha256) throw new Error(`${rel} is not the file of build ${BUILD.build_id}`);
  // The body is stored decoded, so only the type is kept (not the encoding).
  const headers = { "content-type": response.headers.get("content-type") ?? "application/octet-stream" };
  await cache.put(url, new Response(body, { status: 200, headers }));
}

async function sha256Hex(buffer) {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", buffer))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

// The site's key: 8 hex digits of FNV-1a (32 bits) over its base URL, exactly as
// web/worker/caches.js's siteKey (this worker imports nothing).
function siteKey(siteHref) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < siteHref.length; i++) {
    hash ^= siteHref.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
