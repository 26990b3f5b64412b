#!/usr/bin/env python3
"""A cold visit under a realistic network: the fast path against the stock path.

    python bench/network_visit.py [--loads 7] [--dist DIR] [--compare DIR]
                                  [--mbit 20] [--latency-ms 40] [--port 0]

The site is served by bench/network_server.py, as a good static host serves it
(the precompressed .br/.gz copy the request accepts, else gzip on the fly)
through an emulated link: one 20 Mbit/s token bucket shared by every connection
of the run, and 40 ms before each response. The stock path is served the same way.

Every load is cold: a fresh headless-Chromium context (empty HTTP cache,
service workers blocked). The variants alternate load by load in a rotating
order, in one run:

  fast    index.html             the precompiled stdlib and engine (the default)
  stock   index.html?boot=stock  Pyodide as shipped, micropip installs the engine

With --compare DIR a second built site (say, main's dist/) is served by a
second server of the same kind and its two variants join the rotation, so two
builds are measured side by side.

Measured:
  engine ready   <html data-engine="ready">, ms after navigation start (an init
                 script's MutationObserver; the page's gw:worker-ready mark too)
  bytes          everything the server sent for the load (headers and bodies of
                 every request of the page and its workers, as sent: compressed)
                 until engine ready, by the server's clock (the same wall clock
                 as the page's performance.timeOrigin)

Prints medians (with min and max), the ratios to the same build's stock path,
and the network targets: engine ready <= 0.42x stock under this network, bytes
until ready <= 4.0 MB (MB = 10^6 bytes). The exit status is 1 if any load failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SERVER = Path(__file__).resolve().parent / "network_server.py"
TARGET_READY_RATIO = 0.42
TARGET_BYTES = 4.0e6

# Installed before any of the page's scripts run.
PROBE = """
(() => {
  const m = (window.__gwNet = { ready: null, error: null, said: false });
  const check = () => {
    const state = document.documentElement?.dataset.engine;
    if (m.ready === null && state === "ready") m.ready = performance.now();
    if (m.error === null && state === "error") m.error = performance.now();
    if (!m.said && (m.ready !== null || m.error !== null)) {
      m.said = true;
      console.debug("__gwNet:done");
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-engine"],
  });
})();
"""

COLLECT = """
() => ({
  ready: window.__gwNet.ready, error: window.__gwNet.error, origin: performance.timeOrigin,
  marks: Object.fromEntries(performance.getEntriesByType("mark")
    .filter((e) => e.name.startsWith("gw:")).map((e) => [e.name, e.startTime])),
})
"""


class Site:
    """One built site behind its own emulated link (bench/network_server.py)."""

    def __init__(self, label: str, dist: Path, port: int, mbit: float, latency_ms: float):
        self.label = label
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(SERVER),
                "--dist",
                str(dist),
                "--port",
                str(port),
                "--mbit",
                str(mbit),
                "--latency-ms",
                str(latency_ms),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        line = self.proc.stdout.readline()
        if "http://" not in line:
            self.close()
            raise RuntimeError(f"bench/network_server.py did not start for {dist}")
        self.url = line[line.index("http://") :].split()[0]

    def control(self, what: str) -> dict:
        with urllib.request.urlopen(self.url + "__net/" + what, timeout=30) as response:
            return json.load(response)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def load(browser, site: Site, query: str, timeout_s: float) -> dict:
    """One cold load; returns its figures, or {"failed": why}."""
    site.control("reset")
    context = browser.new_context(service_workers="block")
    context.add_init_script(PROBE)
    page = context.new_page()
    result = {}
    try:
        with page.expect_console_message(lambda m: m.text == "__gwNet:done", timeout=timeout_s * 1000):
            page.goto(site.url + query, wait_until="commit", timeout=timeout_s * 1000)
        result = page.evaluate(COLLECT)
    except Exception as e:  # a timeout or a crash: reported, not measured
        result = {"failed": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
    finally:
        context.close()
    if "failed" not in result and result["error"] is not None:
        result = {"failed": "the engine reported an error", "marks": result["marks"]}
    time.sleep(0.2)  # let the server notice the closed connections
    log = site.control("log")
    if "failed" in result:
        return result
    until = (result["origin"] + result["ready"]) / 1000
    by_path = defaultdict(int)
    for t, nbytes, path in log["slices"]:
        if t <= until:
            by_path[path] += nbytes
    result["bytes"] = sum(by_path.values())
    result["by_path"] = dict(by_path)
    result["requests"] = sum(1 for r in log["requests"] if r["t"] <= until)
    result["accept_encoding"] = sorted({r["accept_encoding"] for r in log["requests"]})
    return result


def fmt_mb(value) -> str:
    return "—" if value is None else f"{value / 1e6:.2f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--loads", type=int, default=7, help="cold loads of each variant (default 7; at least 7 for the targets)"
    )
    parser.add_argument(
        "--dist", type=Path, default=None, help="serve this built copy of the site instead of building dist/"
    )
    parser.add_argument("--label", default=None, help="its name in the table (default: the folder)")
    parser.add_argument(
        "--compare", type=Path, default=None, help="a second built site measured side by side (say, main's dist/)"
    )
    parser.add_argument("--compare-label", default=None, help="its name in the table (default: the folder)")
    parser.add_argument("--mbit", type=float, default=20.0, help="the shared link, Mbit/s (default 20)")
    parser.add_argument("--latency-ms", type=float, default=40.0, help="delay before each response, ms (default 40)")
    parser.add_argument(
        "--port", type=int, default=0, help="the first server's port (the second gets the next one; default: any free)"
    )
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds a load may take (default 90)")
    args = parser.parse_args(argv)

    dist = args.dist
    if dist is None:
        dist = common.build_site()
    dists = [(args.label or dist.resolve().name, dist.resolve())]
    if args.compare is not None:
        dists.append((args.compare_label or str(args.compare), args.compare.resolve()))

    sites = []
    try:
        for i, (label, folder) in enumerate(dists):
            port = args.port + i if args.port else 0
            sites.append(Site(label, folder, port, args.mbit, args.latency_ms))
        variants = [
            (site, path, query)
            for site in sites
            for path, query in (("fast", "index.html"), ("stock", "index.html?boot=stock"))
        ]
        runs = {(site.label, path): [] for site, path, _ in variants}
        failures = []
        started = time.monotonic()
        with common.chromium() as browser:
            # One unmeasured load warms the OS file cache, the servers and Chromium.
            load(browser, sites[0], "index.html", args.timeout)
            for i in range(args.loads):
                order = variants[i % len(variants) :] + variants[: i % len(variants)]
                for site, path, query in order:
                    result = load(browser, site, query, args.timeout)
                    if "failed" in result:
                        failures.append((site.label, path, i + 1, result))
                    else:
                        runs[(site.label, path)].append(result)
                last = {f"{label} {path}": round(rs[-1]["ready"]) for (label, path), rs in runs.items() if rs}
                print(
                    f"round {i + 1}/{args.loads} ({time.monotonic() - started:.0f} s): engine ready {last}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        for site in sites:
            site.close()

    med = {
        key: {
            "ready": common.median([r["ready"] for r in rs]),
            "worker": common.median([r["marks"].get("gw:worker-ready") for r in rs]),
            "bytes": common.median([r["bytes"] for r in rs]),
            "requests": common.median([r["requests"] for r in rs]),
        }
        for key, rs in runs.items()
    }
    rows = []
    for (label, path), rs in runs.items():
        m = med[(label, path)]
        stock = med[(label, "stock")]
        span = (
            f"{common.fmt_ms(min(r['ready'] for r in rs))}–{common.fmt_ms(max(r['ready'] for r in rs))}" if rs else "—"
        )
        rows.append(
            [
                f"{label}: {path}",
                str(len(rs)),
                common.fmt_ms(m["ready"]),
                span,
                common.fmt_ms(m["worker"]),
                common.fmt_ratio(common.ratio(m["ready"], stock["ready"])),
                fmt_mb(m["bytes"]),
                common.fmt_ratio(common.ratio(m["bytes"], stock["bytes"])),
                common.fmt_ms(m["requests"]),
            ]
        )

    print(
        f"\nCold visit under a {args.mbit:g} Mbit/s shared link with {args.latency_ms:g} ms before each "
        f"response: medians of {args.loads} loads per variant, ms after navigation start "
        "(headless Chromium, service workers blocked)\n"
    )
    print(
        common.table(
            [
                "variant",
                "loads",
                "engine ready",
                "min–max",
                "gw:worker-ready",
                "× stock",
                "MB until ready",
                "× stock",
                "requests",
            ],
            rows,
        )
    )

    encodings = sorted({e for rs in runs.values() for r in rs for e in r["accept_encoding"]})
    print(f"\nAccept-Encoding sent by the browser: {' | '.join(encodings) or '—'}")
    for (label, path), rs in runs.items():
        if path != "fast" or not rs:
            continue
        typical = sorted(rs, key=lambda r: r["bytes"])[len(rs) // 2]
        biggest = sorted(typical["by_path"].items(), key=lambda kv: -kv[1])[:6]
        print(
            f"{label}: fast, the biggest downloads until ready (the median load, kB as sent): "
            + ", ".join(f"{p.rsplit('/', 1)[-1]} {n / 1e3:,.0f}" for p, n in biggest)
        )
    for label, path, n, result in failures:
        reached = ", ".join(f"{k} {v:.0f}" for k, v in (result.get("marks") or {}).items())
        print(f"FAILED {label}: {path}, load {n}: {result['failed']}" + (f" (marks: {reached})" if reached else ""))

    print()
    for site in sites:
        fast, stock = med[(site.label, "fast")], med[(site.label, "stock")]
        ready_ratio = common.ratio(fast["ready"], stock["ready"])
        common.check(
            f"{site.label}: engine ready, cold, this network <= {TARGET_READY_RATIO} x stock",
            ready_ratio,
            TARGET_READY_RATIO,
            f"{common.fmt_ratio(ready_ratio)} "
            f"({common.fmt_ms(fast['ready'])} against {common.fmt_ms(stock['ready'])} ms)",
        )
        common.check(
            f"{site.label}: bytes until engine ready <= {TARGET_BYTES / 1e6:g} MB",
            fast["bytes"],
            TARGET_BYTES,
            f"{fmt_mb(fast['bytes'])} MB",
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
