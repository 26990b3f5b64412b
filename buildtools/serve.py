"""Serve dist/ on localhost with the MIME types Pyodide needs.

Used by `python build.py serve` and by the test fixtures, so tests exercise the
same server a developer uses.
"""

import errno
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import BuildError

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


class SiteHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    quiet = False

    def end_headers(self):
        # Revalidate every time (cheap: the handler answers If-Modified-Since with
        # 304), so a rebuilt dist/ is picked up on the next reload.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format, *args):
        if not self.quiet:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True  # a browser's keep-alive connection must not block exit

    def handle_error(self, request, client_address):
        # A browser that navigates away mid-download closes the socket; that is
        # normal and not worth a traceback.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def make_server(directory: Path, port: int = 0, host: str = "127.0.0.1",
                quiet: bool = False) -> SiteServer:
    """A server for `directory` bound to host:port (port 0 picks a free one)."""
    handler = partial(type("Handler", (SiteHandler,), {"quiet": quiet}), directory=str(directory))
    try:
        return SiteServer((host, port), handler)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BuildError(
                f"Port {port} is already in use; stop the other server or choose another "
                "port with --port."
            ) from e
        raise BuildError(f"Could not listen on {host}:{port} ({e.strerror}).") from e


def url_of(server: SiteServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/"


def serve_in_thread(directory: Path, port: int = 0) -> tuple[SiteServer, str]:
    """Start a quiet server in a daemon thread (for tests); stop it with .shutdown()."""
    server = make_server(directory, port, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url_of(server)
