#!/usr/bin/env python3
"""Memory: how much a learner's browser grows from a blank page to the engine ready, beside
stock Pyodide (`?boot=stock`: loadPyodide and micropip installing the engine wheel) measured
in the same run, and how much more "Your code" costs once its sandboxed worker has run code.

    python bench/memory.py [--rounds 3] [--dist DIR] [--settle-ms 3000]

Each sample is a fresh headless Chromium (nothing shared with another sample: no HTTP cache,
no service worker, no snapshot kept), a fresh context with the page's own service worker
allowed, as a learner's first visit. The variants alternate in a rotating order. For one
sample, the browser's whole process tree (the browser, its renderers, GPU and utility
processes) is read from /proc twice: on about:blank, and once the page says
`data-engine="ready"` and `--settle-ms` have passed (the first visit's snapshot is stored
once the worker is idle, and the service worker precaches meanwhile). Printed:

rss    the growth of the summed resident set (what the issue's budget is written in; shared
       pages count once per process)
pss    the growth of the summed proportional set (shared pages split between processes: the
       closer to what the machine really gives)

and, for "Your code", the growth from the engine ready to its first run drawn (its tab, the
solution shown, Run my code, `data-code="done"`). The median and the lowest of the rounds;
the verdicts use the lowest, as the fresh browsers' scatter is upward (a GC that has not run
yet): engine ready ≤ 1.3× stock, "Your code" ≤ +80 MB over engine ready.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

TIMEOUT_MS = 120_000
MB = 1024 * 1024


def descendants(root_pid: int) -> list[int]:
    """Every live process under root_pid (Playwright's driver, then Chromium's tree)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The command name is in parentheses and may hold spaces: split after it.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root_pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def chromium_memory() -> dict[str, int]:
    """Summed rss and pss, in bytes, of the Chromium processes this script started, and the
    pss of each kind of process ("pss renderer", "pss gpu-process", "pss browser", ...)."""
    total = {"rss": 0, "pss": 0}
    for pid in descendants(os.getpid()):
        try:
            if "chrom" not in Path(f"/proc/{pid}/comm").read_text():
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                key, _, rest = line.partition(":")
                if key in ("Rss", "Pss"):
                    total[key.lower()] += int(rest.split()[0]) * 1024
                if key == "Pss":
                    args = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").split()
                    kind = next((a.split("=", 1)[1] for a in args if a.startswith("--type=")), "browser")
                    total[f"pss {kind}"] = total.get(f"pss {kind}", 0) + int(rest.split()[0]) * 1024
        except OSError:  # the process ended meanwhile
            continue
    return total


def settle(page, ms: int):
    """Wait `ms`, then let the page collect its garbage as a long-lived tab would have by
    then (a GC is not forced on the browser: only asked of the page's V8 through CDP)."""
    page.wait_for_timeout(ms)
    session = page.context.new_cdp_session(page)
    try:
        session.send("HeapProfiler.collectGarbage")
    finally:
        session.detach()
    page.wait_for_timeout(300)


def sample(playwright, url: str, variant: str, settle_ms: int, service_workers: str) -> dict[str, float]:
    browser = playwright.chromium.launch(executable_path=common.CHROMIUM, args=common.CHROMIUM_ARGS)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers=service_workers)
        page = context.new_page()
        page.goto("about:blank")
        page.wait_for_timeout(1000)
        blank = chromium_memory()
        query = "?boot=stock" if variant == "stock" else ""
        page.goto(url + query, timeout=TIMEOUT_MS)
        page.wait_for_function(
            "() => ['ready', 'error'].includes(document.documentElement.dataset.engine)", timeout=TIMEOUT_MS
        )
        if page.evaluate("document.documentElement.dataset.engine") != "ready":
            raise RuntimeError(f"{variant}: the engine failed to start")
        settle(page, settle_ms)
        ready = chromium_memory()
        out = {k: (ready[k] - blank.get(k, 0)) / MB for k in ready}
        if variant == "gradwalk":
            root = page.locator("#gradwalk")
            root.get_by_role("tab", name="Your code", exact=True).click()
            root.get_by_role("button", name="Show a solution", exact=True).click(timeout=TIMEOUT_MS)
            root.get_by_role("button", name="Run my code", exact=True).click()
            done = "() => document.getElementById('gradwalk').dataset.code === 'done'"
            page.wait_for_function(done, timeout=TIMEOUT_MS)
            settle(page, settle_ms)
            code = chromium_memory()
            out.update({f"code {k}": (code[k] - ready.get(k, 0)) / MB for k in code})
        context.close()
        return out
    finally:
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="fresh browsers per variant")
    parser.add_argument("--dist", type=Path, help="a built site to serve as it is (default: build dist/)")
    parser.add_argument(
        "--block-service-workers", action="store_true", help="no service worker (no precache): the engine alone"
    )
    parser.add_argument("--settle-ms", type=int, default=3000, help="wait after ready before reading memory")
    args = parser.parse_args()
    dist = args.dist or common.build_site()
    from playwright.sync_api import sync_playwright

    variants = ["gradwalk", "stock"]
    service_workers = "block" if args.block_service_workers else "allow"
    results: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
    with common.serve(dist=dist) as url, sync_playwright() as playwright:
        for round_no in range(args.rounds):
            order = variants[round_no % 2 :] + variants[: round_no % 2]
            for variant in order:
                started = time.monotonic()
                results[variant].append(sample(playwright, url, variant, args.settle_ms, service_workers))
                print(
                    f"  round {round_no + 1} {variant}: "
                    + ", ".join(f"{k} {v:+.0f}" for k, v in results[variant][-1].items())
                    + " MB"
                    + f" ({time.monotonic() - started:.0f} s)",
                    flush=True,
                )

    def column(variant, key, pick):
        return pick([r[key] for r in results[variant] if key in r])

    rows = []
    for variant, key in [
        ("gradwalk", "rss"),
        ("gradwalk", "pss"),
        ("stock", "rss"),
        ("stock", "pss"),
        ("gradwalk", "code rss"),
        ("gradwalk", "code pss"),
    ]:
        label = f"{variant}: {'Your code, over engine ready' if key.startswith('code') else 'engine ready'}"
        rows.append(
            [label, key.split()[-1], f"{column(variant, key, common.median):.0f}", f"{column(variant, key, min):.0f}"]
        )
    print()
    print(common.table(["variant", "kind", "median MB", "lowest MB"], rows))
    print("\n(each round's line above splits pss by process kind: the renderer holds the page and its")
    print('workers; "code pss renderer" includes the code sandbox\'s own process)')
    print()
    ok = True
    for kind in ("rss", "pss"):
        ratio = column("gradwalk", kind, min) / column("stock", kind, min)
        # The budget is written in rss; pss (shared pages split) is told beside it.
        word = common.check(f"memory at engine ready ({kind}) <= 1.3 x stock", ratio, 1.3, f"{ratio:.2f}×")
        ok &= word == "ok" or kind == "pss"
    growth = column("gradwalk", "code rss", min)
    word = common.check('"Your code" open and run (rss) <= +80 MB over engine ready', growth, 80, f"+{growth:.0f} MB")
    ok &= word == "ok"
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
