"""Reading a built site: its build.json, and a file fetched from a server with the
request headers a test chooses (an HTTP error is an answer too, not an exception)."""

import json
import urllib.error
import urllib.request
from pathlib import Path


def build_info(dist: Path) -> dict:
    return json.loads((dist / "build.json").read_text())


def fetch(url: str, method: str = "GET", **headers):
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()
