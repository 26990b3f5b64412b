#!/usr/bin/env python3
"""A newcomer's first command, timed: `python build.py serve` on a fresh clone.

    python bench/first_serve.py [--ref HEAD] [--baseline REF] [--rounds 1] [--limit 30]

Each run clones the repository at a commit (git clone of this checkout: only what
is committed, no .cache/, no dist/, no node_modules/) into a folder of its own,
starts `python build.py serve --port P` there and asks for http://127.0.0.1:P/
every 0.2 s (each request with a 2 s time limit) until the page comes back. It
prints how many seconds that took, each line the build printed with the second
it came at (where a fresh build's time goes), and, if the run waits for it
(--until-compressed), when the last compressed copy was in place. With --baseline
another commit is measured the same way, in turn with the first (a baseline
first when --rounds is even, so neither always runs on a warmer machine).

What a fresh clone still shares with this machine: npm's and pip's own download
caches (~/.npm, ~/.cache/pip), so the downloads are as fast as a warm registry
cache makes them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.2
DONE_LINE = "every compressed copy is in place"
BACKGROUND_LINE = "in the background"  # serve compresses after it serves (else before)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers_with_the_page(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            body = response.read()
    except (urllib.error.URLError, OSError):
        return False
    return response.status == 200 and b'<svg id="graph"' in body


def run_once(ref: str, until_compressed: bool, timeout_s: float) -> dict:
    """Clone `ref` afresh, serve it, and time the first answer with the page."""
    with tempfile.TemporaryDirectory(prefix="fresh-serve-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", ref], check=True)
        commit = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        lines: list[tuple[float, str]] = []
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "build.py", "serve", "--port", str(port)],
            cwd=clone,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each line as it is printed
        )

        def read_output():
            for line in proc.stdout:
                if line.strip() and "HTTP/1.1" not in line:  # the build's lines, not the request log
                    lines.append((time.monotonic() - started, line.rstrip()))

        reader = threading.Thread(target=read_output, daemon=True)
        reader.start()
        page_s = compressed_s = None
        try:
            while time.monotonic() - started < timeout_s and proc.poll() is None:
                if answers_with_the_page(url):
                    page_s = time.monotonic() - started
                    break
                time.sleep(POLL_S)
            while until_compressed and page_s is not None and time.monotonic() - started < timeout_s:
                done = [t for t, line in lines if DONE_LINE in line]
                if not any(BACKGROUND_LINE in line for _, line in lines):  # compressed before it served
                    done = [t for t, line in lines if "Serving" in line]
                if done:
                    compressed_s = done[0]
                    break
                if proc.poll() is not None:
                    break
                time.sleep(POLL_S)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            reader.join(timeout=5)
        return {"ref": ref, "commit": commit, "page_s": page_s, "compressed_s": compressed_s, "lines": lines}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="HEAD", help="the commit to measure (default: HEAD)")
    parser.add_argument("--baseline", help="another commit, measured in turn (e.g. main)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--limit", type=float, default=30.0, help="the target, seconds to the page (default 30)")
    parser.add_argument(
        "--until-compressed", action="store_true", help="also wait for every compressed copy (serve's background)"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="give up on a run after this many seconds")
    args = parser.parse_args(argv)
    if shutil.which("git") is None:
        raise SystemExit("git is needed to make the fresh clones")

    refs = [args.ref] + ([args.baseline] if args.baseline else [])
    runs: dict[str, list[dict]] = {ref: [] for ref in refs}
    for round_no in range(args.rounds):
        order = refs if round_no % 2 == 0 else refs[::-1]
        for ref in order:
            run = run_once(ref, args.until_compressed, args.timeout)
            runs[ref].append(run)
            shown = f"{run['page_s']:.1f} s" if run["page_s"] is not None else "no answer"
            print(f"\nround {round_no + 1}, {ref} ({run['commit']}): the page after {shown}")
            for t, line in run["lines"]:
                print(f"  {t:7.1f} s  {line}")

    print("\nfirst answer with the page, fresh clone, `python build.py serve` (median of the rounds):\n")
    print("| commit | page (s) | every compressed copy (s) | runs |")
    print("|---|---|---|---|")
    verdicts = []
    for ref, done in runs.items():
        pages = [r["page_s"] for r in done if r["page_s"] is not None]
        copies = [r["compressed_s"] for r in done if r["compressed_s"] is not None]
        page = f"{statistics.median(pages):.1f}" if pages else "—"
        copy = f"{statistics.median(copies):.1f}" if copies else "—"
        print(f"| {ref} ({done[0]['commit']}) | {page} | {copy} | {', '.join(f'{p:.1f}' for p in pages)} |")
        if ref == args.ref:
            ok = len(pages) == len(done) and statistics.median(pages) <= args.limit
            verdicts.append(f"{'ok' if ok else 'MISSED'}: {ref} serves the page within {args.limit:.0f} s")
    print()
    for line in verdicts:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
