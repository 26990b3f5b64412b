// The site's own files, wherever the site is served from (a domain's root or a
// folder). This module sits at the site's root, so that its import.meta.url names
// that root whether it is loaded as it is or bundled into a page's one module
// (the build writes each page's bundle at the root too: buildtools/bundle.py),
// while a module in a folder would see a different address once bundled.
//
//   siteURL("worker.js")  // URL of the site's worker.js
//
// Called, never run at load: in a notebook's module (a blob: URL) there is no site,
// and the call throws where it is made.

export function siteURL(path) {
  return new URL(path, import.meta.url);
}
