"""The Cache Storage names of a build (web/worker/caches.js, web/sw.js), worked out here
as the browser works them out, so that tests name the caches they look at."""

import json
from pathlib import Path


def site_key(site_url: str) -> str:
    """8 hex digits of FNV-1a (32 bits) over the site's base URL, as caches.js's siteKey
    (over UTF-16 code units: a URL's characters are ASCII)."""
    value = 0x811C9DC5
    for char in site_url:
        value ^= ord(char)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def cache_name(site_url: str, build_id: str) -> str:
    """The cache of build `build_id` of the site at `site_url` ("http://host:port/path/")."""
    return f"gradwalk-{site_key(site_url)}-{build_id}"


def build_id_of(site: Path) -> str:
    return json.loads((site / "build.json").read_text())["build_id"]


# In the page: whether the engine's worker has kept its memory snapshot in any of the
# origin's caches (it does once idle after a first boot), waiting up to waitMs.
SNAPSHOT_KEPT = """
async (waitMs) => {
  const kept = async () => {
    for (const name of await caches.keys()) {
      const keys = await (await caches.open(name)).keys();
      if (keys.some((r) => new URL(r.url).pathname.endsWith("/snapshots/python.bin"))) return true;
    }
    return false;
  };
  for (let waited = 0; waited < waitMs; waited += 200) {
    if (await kept()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}
"""


# Installed before the page's scripts: the end of each engine worker's attempt to keep its
# snapshot, as the worker reports it to the page ({type: "snapshot", state}, web/worker.js).
SNAPSHOT_REPORTS = """
globalThis.gwSnapshotStates = [];
globalThis.Worker = class extends Worker {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => {
      if (e.data?.type === "snapshot") globalThis.gwSnapshotStates.push(e.data.state);
    });
  }
};
"""
