#!/usr/bin/env python3
"""A static server for bench/network_visit.py: dist/ served as a good static host
serves it, through an emulated slow link.

    python bench/network_server.py --dist DIR [--port 0] [--mbit 20] [--latency-ms 40]

* Compression as a good host does it: the precompressed copy (`x.br`, else
  `x.gz`, as buildtools/serve.py picks it) when the request accepts it, else
  gzip on the fly (level 6, as nginx's and most CDNs' default) for a text or
  WebAssembly file that has no copy of its own.
* The link: one token bucket shared by every connection (the run's whole
  bandwidth, --mbit), refilled continuously and drained in 16 KB slices, so
  parallel downloads share it slice by slice as they would share a real link;
  and --latency-ms before each response (the request's round trip and the
  host's answer time), which does not use the link.
* Counting: every slice that leaves the server (headers and body, as sent) is
  logged with its wall-clock time (time.time(), the clock the page's
  performance.timeOrigin is on), its size and its path. GET /__net/log returns
  the log as JSON and GET /__net/reset clears it; neither is delayed, paced or
  counted.

Prints "Serving at http://127.0.0.1:PORT/" when ready, like build.py serve.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import threading
import time
import urllib.parse
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from buildtools import serve  # noqa: E402
from buildtools.compress import COMPRESSIBLE  # noqa: E402

SLICE = 16 * 1024
ON_THE_FLY_LEVEL = 6


class Link:
    """One token bucket for the whole run: a slice may leave once the link has
    carried every earlier slice at `bytes_per_s`. The bucket holds up to DEPTH
    bytes of unused time, so a sleep that overshoots (this machine is busy) is
    made up by the next slices instead of slowing the link down."""

    DEPTH = 4 * SLICE

    def __init__(self, bytes_per_s: float):
        self.bytes_per_s = bytes_per_s
        self._lock = threading.Lock()
        self._free_at = 0.0  # monotonic time at which the link has sent everything booked so far

    def send(self, nbytes: int) -> None:
        """Block until nbytes have crossed the link (booked after every earlier slice)."""
        with self._lock:
            start = max(time.monotonic() - self.DEPTH / self.bytes_per_s, self._free_at)
            self._free_at = start + nbytes / self.bytes_per_s
            done = self._free_at
        delay = done - time.monotonic()
        if delay > 0:
            time.sleep(delay)


class Log:
    def __init__(self):
        self._lock = threading.Lock()
        self.slices: list[tuple[float, int, str]] = []
        self.requests: list[dict] = []

    def add_slice(self, nbytes: int, path: str) -> None:
        with self._lock:
            self.slices.append((time.time(), nbytes, path))

    def add_request(self, entry: dict) -> None:
        with self._lock:
            self.requests.append(entry)

    def take(self) -> dict:
        with self._lock:
            return {"slices": list(self.slices), "requests": list(self.requests)}

    def clear(self) -> None:
        with self._lock:
            self.slices.clear()
            self.requests.clear()


class PacedWriter(io.RawIOBase):
    """The connection's writer, through the shared link: every write is cut into
    slices, each one waits its turn on the link, then goes out and is logged."""

    def __init__(self, raw, handler):
        self.raw = raw
        self.handler = handler

    def writable(self):
        return True

    def write(self, data) -> int:
        view = memoryview(data)
        for start in range(0, len(view), SLICE):
            piece = view[start : start + SLICE]
            self.handler.server.link.send(len(piece))
            self.raw.write(piece)
            self.handler.server.log.add_slice(len(piece), self.handler.log_path)
        return len(view)

    def flush(self):
        self.raw.flush()


class NetworkHandler(serve.SiteHandler):
    quiet = True
    log_path = ""

    def setup(self):
        super().setup()
        self.direct = self.wfile  # for the control endpoints: not paced, not counted
        self.wfile = PacedWriter(self.direct, self)

    def do_GET(self):
        if self._control():
            return
        self._before_response()
        super().do_GET()

    def do_HEAD(self):
        self._before_response()
        super().do_HEAD()

    def _before_response(self):
        self.log_path = urllib.parse.urlsplit(self.path).path
        self.server.log.add_request(
            {
                "t": time.time(),
                "path": self.log_path,
                "accept_encoding": self.headers.get("Accept-Encoding", ""),
            }
        )
        time.sleep(self.server.latency_s)

    def _control(self) -> bool:
        path = urllib.parse.urlsplit(self.path).path
        if path == "/__net/log":
            body = json.dumps(self.server.log.take()).encode()
        elif path == "/__net/reset":
            self.server.log.clear()
            body = b"{}"
        else:
            return False
        self.wfile = self.direct
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.direct.write(body)
        self.wfile = PacedWriter(self.direct, self)
        return True

    def send_head(self):
        """buildtools.serve's answer, except that a compressible file with no
        precompressed copy the request accepts is gzipped on the fly."""
        url_path = urllib.parse.urlsplit(self.path).path
        path = self.translate_path(self.path)
        if os.path.isdir(path) and url_path.endswith("/"):
            path = os.path.join(path, "index.html")
        accepted = serve.accepted_encodings(self.headers.get("Accept-Encoding"))
        has_copy = any(name in accepted and os.path.isfile(path + suffix) for name, suffix in serve.ENCODINGS)
        if has_copy or "gzip" not in accepted or not os.path.isfile(path) or Path(path).suffix not in COMPRESSIBLE:
            return super().send_head()
        body = self.server.gzipped(path)
        if body is None:  # not worth it (already compressed): as is
            return super().send_head()
        self._cache_control = serve.cache_control(url_path)
        self._csp = path.endswith(serve.CSP_SUFFIXES)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


class NetworkServer(serve.SiteServer):
    def __init__(self, address, handler, link: Link, latency_s: float):
        self.link = link
        self.latency_s = latency_s
        self.log = Log()
        self._gz: dict[tuple[str, int], bytes | None] = {}
        self._gz_lock = threading.Lock()
        super().__init__(address, handler)

    def gzipped(self, path: str, f=None, fs=None) -> bytes | None:
        """The on-the-fly gzip of a file (kept, so the host's CPU is not part of
        the measurement), or None if it saves under 10%. (buildtools.serve's handler
        calls it with the open file and its stat too; the path is enough here.)"""
        key = (path, os.stat(path).st_mtime_ns)
        with self._gz_lock:
            if key not in self._gz:
                data = Path(path).read_bytes()
                packed = gzip.compress(data, compresslevel=ON_THE_FLY_LEVEL, mtime=0)
                self._gz[key] = packed if len(packed) <= 0.9 * len(data) else None
            return self._gz[key]


def make_server(dist: Path, port: int, mbit: float, latency_ms: float) -> NetworkServer:
    handler = partial(NetworkHandler, directory=str(dist))
    return NetworkServer(("127.0.0.1", port), handler, Link(mbit * 1e6 / 8), latency_ms / 1000)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mbit", type=float, default=20.0)
    parser.add_argument("--latency-ms", type=float, default=40.0)
    args = parser.parse_args(argv)
    server = make_server(args.dist.resolve(), args.port, args.mbit, args.latency_ms)
    host, port = server.server_address[:2]
    print(f"Serving at http://{host}:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
