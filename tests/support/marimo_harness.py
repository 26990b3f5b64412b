"""A served marimo notebook for the tests (`marimo run`, headless), offline.

    server = start_marimo(workdir, notebook)   # MarimoServer: url, log_path, outbound(), stop()

It runs under lab_offline.py, like the Jupyter servers (tests/support/jupyterlab_harness.py):
an audit hook logs and refuses any lookup or connection off this machine, and marimo's own
update check is off (MARIMO_SKIP_UPDATE_CHECK). Its config, cache and state folders are
private (XDG_*), so the user's marimo settings stay out; the notebook runs in this Python
with this checkout first on sys.path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.support.jupyterlab_harness import ROOT, STOP_TIMEOUT_S, LabError, free_port, start_offline

START_TIMEOUT_S = 60  # a few seconds here
NOTEBOOK = ROOT / "tests" / "notebook" / "marimo" / "diamond.py"


@dataclass
class MarimoServer:
    url: str  # ending in "/"
    log_path: Path
    outbound_log: Path
    process: subprocess.Popen
    start_seconds: float = 0.0

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")

    def outbound(self) -> list[str]:
        """Every lookup or connection off this machine the server tried (and was refused)."""
        try:
            return self.outbound_log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # anything left in its process group
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass


def start_marimo(workdir: Path, notebook: Path, timeout: float = START_TIMEOUT_S) -> MarimoServer:
    """`marimo run notebook --headless` on a free localhost port; waits (bounded) until it answers."""
    workdir = Path(workdir)
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "XDG_CONFIG_HOME": str(workdir / "config"),
            "XDG_CACHE_HOME": str(workdir / "cache"),
            "XDG_STATE_HOME": str(workdir / "state"),
            "MARIMO_SKIP_UPDATE_CHECK": "1",
            "GRADWALK_LAB_OUTBOUND_LOG": str(workdir / "outbound.log"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    port = free_port()
    log_path = workdir / "marimo.log"
    started = time.monotonic()
    with open(log_path, "ab") as log:
        process = start_offline(
            # -y: no prompt ever waits for an answer.
            ["marimo", "-y", "run", str(notebook), "--headless"]
            + ["--host", "127.0.0.1", "--port", str(port), "--no-token", "--no-sandbox"],
            workdir,
            env,
            log,
        )
    server = MarimoServer(f"http://127.0.0.1:{port}/", log_path, workdir / "outbound.log", process)
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(server.url, timeout=2):
                server.start_seconds = time.monotonic() - started
                return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    server.stop()
    raise LabError(f"marimo did not start within {timeout:.0f} s; the end of its log:\n{server.log_tail()}")
