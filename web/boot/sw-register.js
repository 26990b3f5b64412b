// Registers the service worker (sw.js) that caches this build for the next
// visit and for offline use. Importing this module is enough:
//
//   import "./sw-register.js";
//
// Registration waits until the engine has settled (<html data-engine="ready"> or
// "error"), so caching the whole site never competes with this visit's boot.
// `?sw=off` in the page URL skips it. Failures (file://, a browser without
// service workers, a blocked registration) are silent: the page works without.

import { siteURL } from "../site.js";

export const registration = registerServiceWorker();

async function registerServiceWorker({
  url = siteURL("sw.js"),
  when = engineSettled(),
} = {}) {
  if (!("serviceWorker" in navigator)) return null;
  if (new URLSearchParams(location.search).get("sw") === "off") return null;
  await when;
  try {
    return await navigator.serviceWorker.register(url, { scope: new URL("./", url).pathname });
  } catch {
    return null;
  }
}

// Resolves once the page says the engine is ready or has failed.
function engineSettled(root = document.documentElement) {
  const settled = () => ["ready", "error"].includes(root.dataset.engine);
  if (settled()) return Promise.resolve();
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (settled()) {
        observer.disconnect();
        resolve();
      }
    });
    observer.observe(root, { attributes: true, attributeFilter: ["data-engine"] });
  });
}
