"""The pinned Pyodide of a built site, run under Node.js by tests/runtime/pyodide_parity.mjs
the way the page's worker boots it, answering a batch of engine requests."""

import json
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "runtime" / "pyodide_parity.mjs"
NODE_TIMEOUT_S = 180  # Pyodide boots in ~3 s; a hang must not stall the suite


def run_in_pyodide(
    node,
    dist: Path,
    tmp_path: Path,
    requests: list[str],
    mode: str,
    node_args: tuple[str, ...] = (),
    script_args: tuple[str, ...] = (),
) -> dict:
    requests_file = tmp_path / f"requests-{mode}.json"
    answers_file = tmp_path / f"answers-{mode}.json"
    requests_file.write_text(json.dumps(requests))
    done = subprocess.run(
        [node, *node_args, str(SCRIPT), str(dist), str(requests_file), str(answers_file), mode, *script_args],
        capture_output=True,
        text=True,
        timeout=NODE_TIMEOUT_S,
    )
    # (Node prints the minified line an error was thrown from: left out, it is noise.)
    readable = "\n".join(line for line in done.stderr.splitlines() if len(line) < 400)
    assert done.returncode == 0, f"node failed:\n{readable[-3000:]}"
    result = json.loads(answers_file.read_text())
    assert len(result["answers"]) == len(requests)
    return result
