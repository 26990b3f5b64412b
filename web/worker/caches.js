// The Cache Storage caches of a build, one build per site in every origin.
//
// A build keeps its files (the .wasm, streaming-cache.js), and the memory snapshot
// (web/boot/snapshot.js), in the Cache Storage of the origin its engine runs in: the
// site's own, or a lesson page's of another site. Its cache is named by the site and
// the build, "gradwalk-<site key>-<build id>", where the site key is a short hash of
// the site's base URL (siteKey below; sw.js, the service worker, names its cache the
// same way, so that on the site's own origin both share one). So two Gradwalk sites
// used by one lesson page have caches of their own, and never delete each other's.
//
// When an engine starts from build B it deletes the caches of the builds of the same
// site that came before B in that origin (forgetEarlierBuilds): a lesson origin keeps
// one build of each site however often the site is deployed. "Before" is the order
// the caches were made in (CacheStorage.keys() lists them so), so an engine of an
// older build, still running in another tab or served by the site's old service worker
// while the new one installs, never deletes a newer build's cache. A cache named the
// way builds before the site key were ("gradwalk-<build id>") names no site, and is
// deleted too.
//
// Storage is the learner's browser's to refuse (a full or small quota, a private
// window, an opaque origin): nothing here ever throws, and a build that could not keep
// its files simply fetches them again, as a first visit does.

const PREFIX = "gradwalk-";

// A cache name of a build from before the site key: the build id alone.
const UNKEYED = /^gradwalk-[0-9a-f]+$/;

// The site's key: 8 hex digits of FNV-1a (32 bits) over its base URL, e.g.
// "https://example.org/gradwalk/". sw.js computes the same (its own copy, as it
// imports nothing; a test compares the two).
export function siteKey(siteHref) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < siteHref.length; i++) {
    hash ^= siteHref.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

// The name of a build's cache: "gradwalk-<site key>-<build id>".
export function cacheName(siteHref, buildId) {
  return `${PREFIX}${siteKey(siteHref)}-${buildId}`;
}

// Deletes, in this origin's Cache Storage, the caches of the site's builds made before
// this build's own (which it opens first, so that it is listed), and the caches named
// without a site. Resolves with the names deleted; never rejects.
export async function forgetEarlierBuilds(siteHref, buildId) {
  try {
    if (!globalThis.caches) return [];
    const own = cacheName(siteHref, buildId);
    await caches.open(own);
    const names = await caches.keys();
    const at = names.indexOf(own);
    if (at < 0) return [];
    const site = `${PREFIX}${siteKey(siteHref)}-`;
    const earlier = names.slice(0, at).filter((n) => n.startsWith(site) || UNKEYED.test(n));
    await Promise.all(earlier.map((n) => caches.delete(n).catch(() => false)));
    return earlier;
  } catch {
    return []; // no Cache Storage here (an opaque origin, storage refused): nothing to delete
  }
}
