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
