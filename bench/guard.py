#!/usr/bin/env python3
"""The regression guard: one command that runs the benchmarks behind the page's performance
budgets, one after another, and prints every budget's figure and verdict in one table.

    python bench/guard.py [--quick] [--only page_load,memory] [--dist DIR]

Each benchmark measures its figure beside its own baseline in the same run (stock Pyodide,
a floor page, the diamond preset: see each file's docstring) and prints its full report as it
goes; guard.py collects the verdicts they give (bench/common.py `check`, through the file that
$GRADWALK_BENCH_VERDICTS names) and ends with the summary. Budgets:

  page_load.py          engine ready, localhost, cold <= 0.45 x stock; first paint <= 220 ms
  network_visit.py      engine ready over 20 Mbit/s + 40 ms <= 0.42 x stock; <= 4.0 MB until ready
  network_page.py       open or close one neuron of the demo network, p95 <= 100 ms
  step_edit_latency.py  a step p95 <= 16 ms; a 1,000-node program edit p95 <= 300 ms
  code_run.py           the longest main-thread task while "Your code" opens, p95 <= 50 ms
  memory.py             memory at engine ready <= 1.3 x stock; "Your code" <= +80 MB over it

The whole run takes about 25 minutes on this 2-core machine (`--quick`, fewer rounds and
noisier figures: about 10). The machine is shared: read the figures on a quiet one, and quote
medians and p95 as the table gives them. The exit status is 1 if a budget was missed or a
benchmark failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

HERE = Path(__file__).resolve().parent

# name: (its arguments, its --quick arguments, whether it takes --dist)
BENCHES = {
    "page_load": (["--rounds", "7"], ["--rounds", "3"], True),
    "network_visit": (["--loads", "7"], ["--loads", "3"], True),
    "network_page": (["--rounds", "15"], ["--rounds", "5"], False),
    "step_edit_latency": (["--steps", "60", "--edits", "20"], ["--steps", "24", "--edits", "8"], True),
    "code_run": (["--runs", "20", "--openings", "7"], ["--runs", "8", "--openings", "3"], True),
    "memory": (["--rounds", "3"], ["--rounds", "2"], True),
}
TIMEOUT_S = 1800  # one benchmark; the slowest takes about 8 minutes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run, noisier figures")
    parser.add_argument("--only", default="", help="comma-separated benchmark names (default: all)")
    parser.add_argument("--dist", type=Path, help="a built site, served as it is (default: build dist/ once)")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)} (known: {', '.join(BENCHES)})")
    dist = (args.dist or common.build_site()).resolve()

    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = Path(tmp) / "verdicts.jsonl"
        env = {**os.environ, common.VERDICTS_ENV: str(verdicts)}
        for name in names:
            normal, quick, takes_dist = BENCHES[name]
            command = [sys.executable, str(HERE / f"{name}.py"), *(quick if args.quick else normal)]
            if takes_dist:
                command += ["--dist", str(dist)]
            print(f"\n=== {name}: {' '.join(command[1:])}", flush=True)
            started = time.monotonic()
            try:
                status = subprocess.run(command, env=env, timeout=TIMEOUT_S).returncode
            except subprocess.TimeoutExpired:
                status = "timed out"
            print(f"=== {name}: {time.monotonic() - started:.0f} s, exit status {status}", flush=True)
            if status not in (0, 1):  # 1: the benchmark's own "a target was missed"
                failed.append(f"{name} ({status})")
        lines = verdicts.read_text().splitlines() if verdicts.exists() else []

    rows = []
    for line in lines:
        check = json.loads(line)
        value = check["value"]
        shown = "—" if value is None else (f"{value:.2f}" if abs(value) < 10 else f"{value:,.0f}")
        rows.append([check["bench"].removesuffix(".py"), check["label"], shown, check["verdict"]])
    print("\nThe budgets (each figure beside its own baseline, in the benchmark's own run):\n")
    print(common.table(["benchmark", "budget", "figure", "verdict"], rows))
    for name in failed:
        print(f"FAILED {name}: see its output above")
    missed = [r for r in rows if r[3] != "ok"]
    tail = f"; {len(failed)} benchmark(s) failed" if failed else ""
    print(f"\n{len(rows) - len(missed)} of {len(rows)} budgets met{tail}")
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main())
