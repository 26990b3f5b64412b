"""Serve dist/ on localhost with the MIME types Pyodide needs, the caching
headers a static host should send, and precompressed copies.

* Cache-Control: files in a content-hashed folder (a path segment of 16 hex
  digits, like pyodide/654b27293c8dd218/) never change, so they are sent with
  `public, max-age=31536000, immutable`; everything else (index.html,
  build.json, sw.js, the page's scripts) with `no-cache`: the browser may keep
  it but must revalidate (a cheap 304) on every use.
* Content-Encoding: when the browser accepts it and build.py wrote `x.br` or
  `x.gz` next to `x`, that copy is sent instead, with the type of `x`,
  `Content-Encoding` and `Vary: Accept-Encoding`. A file that should have a copy
  but has none the browser accepts (`serve` makes brotli's after it starts:
  buildtools/compress.py) is gzipped on the fly at gzip's default level, once
  per version of the file, so what is sent is always compressed.
* Access-Control-Allow-Origin: *, on every response, so that a lesson page on
  another origin can load gradwalk.js and every file it needs (module scripts,
  and everything the widget and its workers fetch, are requested in CORS mode).
  Nothing is sent with credentials, so no other CORS header is needed.

Used by `python build.py serve` and by the test fixtures, so tests exercise the
same server a developer uses.
"""

import datetime
import email.utils
import errno
import gzip
import io
import os
import re
import socket
import sys
import threading
import urllib.parse
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import BuildError, csp
from .compress import COMPRESSIBLE, MIN_SIZE, WORTH_IT
from .csp import HEADER_POLICY

# WebAssembly.instantiateStreaming insists on application/wasm, and module
# scripts and workers must come as JavaScript; the rest keeps browsers from guessing.
MIME_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".map": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".toml": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}


# Responses that carry the Content-Security-Policy header (buildtools/csp.py):
# documents, and scripts (a worker's policy is its script's header).
CSP_SUFFIXES = (".html", ".js", ".mjs")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_HASHED = re.compile(r"(^|/)[0-9a-f]{16}/")
# Preferred first; the suffix of the precompressed copy for each encoding.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
ON_THE_FLY_LEVEL = 6  # gzip's default (nginx's and most CDNs' too): fast, near level 9's size


def cache_control(url_path: str) -> str:
    """The Cache-Control for a path of the site."""
    return IMMUTABLE if _HASHED.search(url_path) else REVALIDATE


def accepted_encodings(header: str | None) -> set[str]:
    """The codings an Accept-Encoding header allows (q > 0), lower-cased."""
    accepted, refused = set(), set()
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        name = name.strip().lower()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        (accepted if q > 0 else refused).add(name)
    if "*" in accepted:
        accepted |= {name for name, _ in ENCODINGS} - refused
    return accepted


def _sandbox_policy(path: str) -> str | None:
    """The code sandbox's header policy (its own, sandboxed: buildtools/csp.py) for that
    file, else None."""
    if os.path.basename(path) != csp.SANDBOX_FILE or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return csp.sandbox_header_policy(f.read())


class SiteHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    # Keep-alive: a page loads some 40 files through a browser's six connections
    # per host; a new TCP connection and thread for each would cost more than the file.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm the body then
    # waits for the client's delayed ACK of the headers (tens of ms per small
    # file on a kept-alive connection), which serialises a page's 30 modules.
    disable_nagle_algorithm = True
    quiet = False
    _cache_control = REVALIDATE
    _csp = False
    _sandbox_policy = None  # the code sandbox's own policy, for that one file

    def end_headers(self):
        # Revalidated files are cheap to check (ETag/If-Modified-Since give a 304),
        # so a rebuilt dist/ is picked up on the next reload.
        self.send_header("Cache-Control", self._cache_control)
        # Any page may load the widget's files: they are public and never read cookies.
        self.send_header("Access-Control-Allow-Origin", "*")
        if self._sandbox_policy:
            self.send_header("Content-Security-Policy", self._sandbox_policy)
        elif self._csp:
            # Pages get the policy from their <meta> too; a worker only from here.
            self.send_header("Content-Security-Policy", HEADER_POLICY)
        super().end_headers()

    def send_head(self):
        """As SimpleHTTPRequestHandler.send_head, plus precompressed copies,
        Cache-Control by path and an ETag."""
        url_path = urllib.parse.urlsplit(self.path).path
        self._cache_control = cache_control(url_path)
        self._csp = False  # one handler serves every request of a keep-alive connection
        self._sandbox_policy = None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not url_path.endswith("/") or not os.path.isfile(index):
                return super().send_head()  # redirect to "dir/", or a listing
            path = index
        self._csp = path.endswith(CSP_SUFFIXES)
        self._sandbox_policy = _sandbox_policy(path)
        if path.endswith("/") or not os.path.isfile(path):
            self._cache_control = REVALIDATE
            return super().send_head()  # 404

        accepted = accepted_encodings(self.headers.get("Accept-Encoding"))
        variants = [(name, path + suffix) for name, suffix in ENCODINGS if os.path.isfile(path + suffix)]
        encoding, chosen = next(((n, p) for n, p in variants if n in accepted), (None, path))
        try:
            f = open(chosen, "rb")  # noqa: SIM115 - send_head returns it open; the handler closes it
        except OSError:
            self.send_error(404, "File not found")
            return None
        try:
            fs = os.fstat(f.fileno())
            should_have_copies = os.path.splitext(path)[1] in COMPRESSIBLE and fs.st_size >= MIN_SIZE
            varies = bool(variants) or should_have_copies
            body = None  # the gzip made here, when there is no copy to send
            if encoding is None and should_have_copies and "gzip" in accepted:
                body = self.server.gzipped(path, f, fs)
            # A gzip made here is not the bytes of a .gz the build writes later: its own tag.
            variant = "gzip-live" if body is not None else encoding
            etag = f'"{fs.st_mtime_ns:x}-{fs.st_size:x}{"-" + variant if variant else ""}"'
            if body is not None:
                encoding = "gzip"
            if self._not_modified(etag, fs.st_mtime):
                self.send_response(304)
                self.send_header("ETag", etag)
                if varies:
                    self.send_header("Vary", "Accept-Encoding")
                self.end_headers()
                f.close()
                return None
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            if encoding:
                self.send_header("Content-Encoding", encoding)
            if varies:
                self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(fs.st_size if body is None else len(body)))
            self.send_header("Last-Modified", self.date_time_string(fs.st_mtime))
            self.send_header("ETag", etag)
            self.end_headers()
            if body is None:
                return f
            f.close()
            return io.BytesIO(body)
        except BaseException:
            f.close()
            raise

    def _not_modified(self, etag: str, mtime: float) -> bool:
        if "If-None-Match" in self.headers:
            tags = [t.strip() for t in self.headers["If-None-Match"].split(",")]
            return etag in tags or "*" in tags
        if "If-Modified-Since" in self.headers:
            try:
                since = email.utils.parsedate_to_datetime(self.headers["If-Modified-Since"])
            except (TypeError, IndexError, OverflowError, ValueError):
                return False
            if since.tzinfo is None:
                since = since.replace(tzinfo=datetime.UTC)
            modified = datetime.datetime.fromtimestamp(int(mtime), datetime.UTC)
            return modified <= since
        return False

    def log_message(self, format, *args):
        if not self.quiet:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True  # a browser's keep-alive connection must not block exit

    def __init__(self, *args, **kwargs):
        self._connections = set()
        self._lock = threading.Lock()
        self._gzipped = {}  # path -> ((mtime, size), its gzip or None when not worth it)
        super().__init__(*args, **kwargs)

    def gzipped(self, path: str, f, fs) -> bytes | None:
        """The gzip of the open file f (at path, with stat fs), made once per version
        of the file; None when it would not save enough to be worth sending."""
        version = (fs.st_mtime_ns, fs.st_size)
        with self._lock:
            kept = self._gzipped.get(path)
        if kept is not None and kept[0] == version:
            return kept[1]
        data = f.read()
        f.seek(0)
        packed = gzip.compress(data, compresslevel=ON_THE_FLY_LEVEL, mtime=0)
        body = packed if len(packed) <= WORTH_IT * len(data) else None
        with self._lock:
            self._gzipped[path] = (version, body)
        return body

    def process_request(self, request, client_address):
        with self._lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def stop(self):
        """Stop completely: no new connections, and the open ones (a browser keeps
        spare connections it has not used yet) are cut, so the site is really gone."""
        self.shutdown()
        self.server_close()
        with self._lock:
            open_now = list(self._connections)
        for connection in open_now:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request, client_address):
        # A browser that navigates away mid-download closes the socket; that is
        # normal and not worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def make_server(directory: Path, port: int = 0, host: str = "127.0.0.1", quiet: bool = False) -> SiteServer:
    """A server for `directory` bound to host:port (port 0 picks a free one)."""
    handler = partial(type("Handler", (SiteHandler,), {"quiet": quiet}), directory=str(directory))
    try:
        return SiteServer((host, port), handler)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BuildError(
                f"Port {port} is already in use; stop the other server or choose another port with --port."
            ) from e
        raise BuildError(f"Could not listen on {host}:{port} ({e.strerror}).") from e


def url_of(server: SiteServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"


def serve_in_thread(directory: Path, port: int = 0) -> tuple[SiteServer, str]:
    """Start a quiet server in a daemon thread (for tests); stop it with .stop()
    (or .shutdown() and .server_close(), which leave open connections be)."""
    server = make_server(directory, port, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server)
