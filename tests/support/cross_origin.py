"""A lesson page on a second origin of this machine that loads the widget from the
built site, as an author's page loads it from the Gradwalk site
(tests/page/test_cross_origin.py, and the screenshots of it).

The site is served at 127.0.0.1 (tests/conftest.py's site_url); the lesson page at
localhost, another origin, by a server of its own that sends the page with the
Content-Security-Policy the test gives. The policy a lesson page needs is the one
docs/page.md lists, read from there, so that the docs say what is tested.
"""

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

DOCS = Path(__file__).resolve().parents[2] / "docs" / "page.md"
DOCS_ORIGIN = "https://example.org"  # the site's origin in the docs' examples
LESSON_HOST = "localhost"  # the site is at 127.0.0.1: the same machine, another origin


def documented_policy(site_origin: str) -> str:
    """The lesson page's policy as docs/page.md lists it (its one `Content-Security-Policy:`
    line in a code block), for a site at `site_origin`."""
    found = re.findall(r"^Content-Security-Policy: (.+)$", DOCS.read_text(), re.MULTILINE)
    assert len(found) == 1, f"docs/page.md should list one lesson-page policy, not {len(found)}"
    return found[0].replace(DOCS_ORIGIN, site_origin)


def without(policy: str, directive: str, source: str) -> str:
    """`policy` with one source left out of one directive (a directive left with none
    allows nothing, as 'none')."""
    parts = []
    for part in policy.split(";"):
        name, *sources = part.split()
        if name == directive:
            assert source in sources, (directive, source, policy)
            sources.remove(source)
        parts.append(" ".join([name, *sources]))
    return "; ".join(parts)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def lesson_html(site_url: str, body: str) -> str:
    """A lesson page that loads gradwalk.js from the site, as docs/page.md shows."""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>A lesson on another site</title>"
        f"<script type='module' src='{site_url}gradwalk.js'></script>"
        f"</head><body><main><h1>A lesson on another site</h1>{body}</main></body></html>"
    )


class _LessonHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        page = self.server.pages.get(urlsplit(self.path).path)
        if page is None:
            self.send_error(404)
            return
        html, policy = page
        body = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Security-Policy", policy)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


class LessonServer:
    """Serves the pages a test puts in it: `server.put("/a.html", html, policy)`, then
    `server.url("/a.html")` (at localhost)."""

    def __init__(self):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _LessonHandler)
        self._server.daemon_threads = True
        self._server.pages = {}
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def put(self, path: str, html: str, policy: str) -> str:
        self._server.pages[path] = (html, policy)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"http://{LESSON_HOST}:{self._server.server_address[1]}{path}"

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
