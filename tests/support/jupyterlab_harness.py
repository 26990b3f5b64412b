"""A real JupyterLab (or Notebook 7, built on the same server and front end) for the tests:
a server that never touches the network, and a notebook driven in Chromium through Playwright.

    server = start_lab(workdir, notebooks=[...])   # LabServer: url, token, root_dir, log, ...
    server = start_lab(workdir, notebooks=[...], app="notebook")   # Notebook 7
    notebook = open_notebook(context, server, "smoke.ipynb")
    output = notebook.run_cell(0)                  # a locator for cell 0's output area
    server.stop()

tests/notebook/conftest.py wraps these into fixtures (`jupyter_lab`, `lab_context`,
`open_notebook`, and `jupyter_notebook`, `notebook7_context`, `open_notebook7` for Notebook 7).
Every wait here is bounded and fails with what it was waiting for.

Offline and quiet, at every level where JupyterLab could reach out:
- the server: no news feed (LabApp.news_url=None), no update check
  (LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate), the read-only extension
  manager (LabApp.extension_manager=readonly: no PyPI search); it runs under lab_offline.py,
  whose audit hook logs and refuses any name lookup or connection off this machine
  (`LabServer.outbound()` lists them: the tests expect none);
- the front end: the announcements plugin disabled (labconfig/page_config.json), and the
  notification settings say no to news and update checks and keep toasts away
  (doNotDisturbMode); the extension manager's panel is off;
- the browser context (conftest.py) lets requests reach the server's origin only.
Private config, data, runtime, settings, workspaces and IPython folders keep the user's own
Jupyter set-up out; the one kernel spec, `python3`, runs this very Python with this checkout
first on sys.path. The notebook is rendered without windowing (every cell in the DOM) and is
never autosaved; when a test saves one, the widgets' state is saved with it (as JupyterLab's
"Save Widget State Automatically" setting does).
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NOTEBOOKS = ROOT / "tests" / "notebook" / "notebooks"
LAUNCHER = HERE / "lab_offline.py"

START_TIMEOUT_S = 60  # it starts in a few seconds here
STOP_TIMEOUT_S = 10
KERNEL_TIMEOUT_MS = 60_000  # a kernel's start (importing anywidget, gradwalk)
CELL_TIMEOUT_MS = 60_000
UI_TIMEOUT_MS = 30_000  # JupyterLab's own page and the notebook's panel

# User settings (JUPYTERLAB_SETTINGS_DIR): plugin id -> settings.
SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
    "@jupyterlab/extensionmanager-extension:plugin": {"enabled": False},
    # Every cell in the DOM, whatever the window's height, so a cell's output is always there.
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    # The notebooks copied into the root stay as they are (no "save?" state between tests).
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    # A notebook saved by a test carries its widgets' state (what gradwalk.export reads).
    "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True},
}
DISABLED_PLUGINS = ["@jupyterlab/apputils-extension:announcements"]


class LabError(RuntimeError):
    """JupyterLab did not start, or a notebook did not do what a test waited for."""


@dataclass
class LabServer:
    url: str  # base URL, ending in "/"
    token: str
    root_dir: Path
    log_path: Path
    outbound_log: Path
    process: subprocess.Popen
    app: str = "lab"  # "lab" (JupyterLab) or "notebook" (Notebook 7)
    start_seconds: float = 0.0
    _stopped: bool = field(default=False, repr=False)

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")

    def lab_url(self, path: str = "", workspace: str | None = None) -> str:
        """/lab[/workspaces/W]/tree/PATH?token=T&reset (a fresh layout: no other tab reopens)."""
        base = f"{self.url}lab/workspaces/{workspace}" if workspace else f"{self.url}lab"
        return f"{base}/tree/{path}?token={self.token}&reset" if path else f"{base}?token={self.token}&reset"

    def document_url(self, path: str) -> str:
        """Where the app opens the notebook at `path`: JupyterLab in a fresh workspace of its
        own, Notebook 7 in its page for one notebook."""
        if self.app == "notebook":
            return f"{self.url}notebooks/{path}?token={self.token}"
        return self.lab_url(path, workspace=f"t{secrets.token_hex(6)}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def outbound(self) -> list[str]:
        """Every lookup or connection off this machine the server tried (and was refused)."""
        try:
            return self.outbound_log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []

    def api(self, path: str, timeout: float = 5):
        request = urllib.request.Request(self.url + path, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        """Ask the server to stop (it shuts its kernels down), then kill whatever is left."""
        if self._stopped:
            return
        self._stopped = True
        # Kernels run in sessions of their own: found now, killed below if still there.
        children = _descendants(self.process.pid)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # jupyter_server: a clean shutdown, kernels too
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        # The server leads its own process group; anything still in it (a kernel) goes now.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pass


def _descendants(pid: int) -> list[int]:
    """Every process below pid (Linux /proc; empty elsewhere)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for children in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                pids = [int(p) for p in children.read_text().split()]
            except (OSError, ValueError):
                continue
            found += pids
            todo += pids
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def prepare(workdir: Path, notebooks) -> dict:
    """The server's folders, settings and kernel spec under workdir; the environment to run it in."""
    dirs = {name: workdir / name for name in ("root", "config", "data", "runtime", "settings", "workspaces", "ipython")}
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    for notebook in notebooks:
        shutil.copy2(notebook, dirs["root"] / Path(notebook).name)
    for plugin, settings in SETTINGS.items():
        package, _, name = plugin.partition(":")
        _write_json(dirs["settings"] / package / f"{name}.jupyterlab-settings", settings)
    _write_json(
        dirs["config"] / "labconfig" / "page_config.json",
        {"disabledExtensions": {plugin: True for plugin in DISABLED_PLUGINS}},
    )
    # The only kernel: this Python, with this checkout importable whatever is installed.
    _write_json(
        dirs["data"] / "kernels" / "python3" / "kernel.json",
        {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (the tests' Python)",
            "language": "python",
            "env": {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
            "metadata": {"debugger": False},
        },
    )
    env = dict(os.environ)
    for var in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "JUPYTER_TOKEN", "JUPYTER_PORT"):
        env.pop(var, None)
    env.update(
        {
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),
            "JUPYTER_DATA_DIR": str(dirs["data"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
            "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
            "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
            "IPYTHONDIR": str(dirs["ipython"]),
            "JUPYTER_PLATFORM_DIRS": "1",  # no deprecation warning about it in the log
            # In a virtual environment jupyter_core looks in the environment's own share/jupyter
            # first, where ipykernel installs a python3 spec that runs plain `python`; ours wins.
            "JUPYTER_PREFER_ENV_PATH": "0",
            "GRADWALK_LAB_OUTBOUND_LOG": str(workdir / "outbound.log"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    return {"dirs": dirs, "env": env}


def _die_with_parent() -> None:
    # If pytest itself is killed (no teardown at all), Linux kills the server too (SIGKILL: a
    # server told to stop while a kernel is starting can hang); its kernels, orphaned, exit
    # on their own (ipykernel's parent poller).
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def start_offline(args: list[str], cwd: Path, env: dict, log) -> subprocess.Popen:
    """Start `python -P lab_offline.py ARGS` (a notebook server, offline) in its own session,
    writing to `log`, and killed with pytest if pytest dies. -P: the script's folder is not
    put on sys.path, where the helpers beside it could hide a real package of the same name."""
    return subprocess.Popen(
        [sys.executable, "-P", str(LAUNCHER), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )


def server_args(port: int, token: str, root_dir: Path, app: str = "lab") -> list[str]:
    # Notebook 7 also loads JupyterLab's server extension, so the LabApp settings hold for it too.
    exposed = ["--JupyterNotebookApp.expose_app_in_browser=True"] if app == "notebook" else []
    return [
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--allow-root",
        f"--ServerApp.root_dir={root_dir}",
        # Offline: no news feed, no update check, no PyPI behind the extension manager.
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
        # window.jupyterapp, for running cells through JupyterLab's own commands.
        "--LabApp.expose_app_in_browser=True",
        "--KernelSpecManager.ensure_native_kernel=False",
        "--ServerApp.terminals_enabled=False",
        *exposed,
    ]


def start_lab(
    workdir: Path, notebooks=(), timeout: float = START_TIMEOUT_S, attempts: int = 3, app: str = "lab"
) -> LabServer:
    """Start JupyterLab (app="lab") or Notebook 7 (app="notebook") on a free localhost port and
    wait (bounded) until its API answers."""
    setup = prepare(Path(workdir), notebooks)
    root_dir, env = setup["dirs"]["root"], setup["env"]
    log_path = Path(workdir) / f"jupyter-{app}.log"
    for attempt in range(attempts):
        port, token = free_port(), secrets.token_hex(24)
        started = time.monotonic()
        with open(log_path, "ab") as log:
            process = start_offline([app, *server_args(port, token, root_dir, app)], root_dir, env, log)
        server = LabServer(
            f"http://127.0.0.1:{port}/",
            token,
            root_dir,
            log_path,
            Path(env["GRADWALK_LAB_OUTBOUND_LOG"]),
            process,
            app,
        )
        deadline = started + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                server.api("api/status", timeout=2)
                server.api("lab/api/settings", timeout=5)  # the lab extension is loaded too
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                time.sleep(0.1)
                continue
            server.start_seconds = time.monotonic() - started
            return server
        code = process.poll()
        server.stop()
        if code is not None and "address already in use" in server.log_tail().lower() and attempt + 1 < attempts:
            continue  # the free port was taken in between: another one
        what = f"exited with status {code}" if code is not None else f"did not answer within {timeout:.0f} s"
        name = "Notebook 7" if app == "notebook" else "JupyterLab"
        raise LabError(f"{name} {what} ({server.url}); the end of its log ({log_path}):\n{server.log_tail()}")
    raise LabError("unreachable")


# ---------------------------------------------------------------------------------------------
# Driving a notebook in the browser. The JavaScript below reaches JupyterLab through
# window.jupyterapp (LabApp.expose_app_in_browser) and finds the notebook by its path.

PANEL_JS = """(path) => {
  const app = window.jupyterapp;
  if (!app) return null;
  for (const w of app.shell.widgets('main')) {
    if (w.context && w.context.path === path && w.content && w.content.widgets) return w;
  }
  return null;
}"""

STATE_JS = f"""(path) => {{
  const panel = ({PANEL_JS})(path);
  if (!panel) return {{ panel: null }};
  const session = panel.sessionContext;
  const kernel = session.session && session.session.kernel;
  return {{
    panel: panel.id,
    ready: session.isReady,
    kernel: kernel ? kernel.status : null,
    connection: kernel ? kernel.connectionStatus : null,
    cells: panel.content.widgets.length,
  }};
}}"""

# Runs one cell with JupyterLab's own command (the same as Shift+Enter without moving on)
# and answers when it is done, with its outputs; a bounded wait inside the page too.
RUN_JS = f"""async ([path, index, timeoutMs]) => {{
  const app = window.jupyterapp;
  const panel = ({PANEL_JS})(path);
  app.shell.activateById(panel.id);
  const notebook = panel.content;
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  const cell = notebook.widgets[index];
  const run = app.commands.execute('notebook:run-cell');
  const timer = new Promise((_, reject) => setTimeout(
    () => reject(new Error('cell ' + index + ' did not finish within ' + timeoutMs / 1000 + ' s')), timeoutMs));
  await Promise.race([run, timer]);
  return {{ count: cell.model.executionCount, outputs: cell.model.outputs.toJSON() }};
}}"""

CELL_JS = f"""([path, index]) => {{
  const cell = ({PANEL_JS})(path).content.widgets[index];
  return {{ count: cell.model.executionCount, outputs: cell.model.outputs.toJSON(), type: cell.model.type }};
}}"""


def _errors(outputs: list) -> list[str]:
    found = []
    for output in outputs:
        if output.get("output_type") == "error":
            found.append(f"{output.get('ename')}: {output.get('evalue')}")
    return found


class Notebook:
    """One notebook open in JupyterLab, in `page`."""

    def __init__(self, page, server: LabServer, path: str):
        self.page, self.server, self.path = page, server, path
        self.panel_id = None

    def open(self, timeout_ms: int = UI_TIMEOUT_MS) -> Notebook:
        page = self.page
        page.goto(self.server.document_url(self.path), wait_until="domcontentloaded", timeout=timeout_ms)
        try:
            page.wait_for_function(f"(path) => ({PANEL_JS})(path) !== null", arg=self.path, timeout=timeout_ms)
        except Exception as e:  # Playwright's TimeoutError
            raise LabError(f"JupyterLab did not open {self.path} within {timeout_ms / 1000:.0f} s: {e}") from None
        self.panel_id = page.evaluate(STATE_JS, self.path)["panel"]
        self.wait_idle()
        return self

    @property
    def panel(self):
        return self.page.locator(f"[id='{self.panel_id}']")

    def state(self) -> dict:
        return self.page.evaluate(STATE_JS, self.path)

    def wait_idle(self, timeout_ms: int = KERNEL_TIMEOUT_MS) -> None:
        """Until the notebook's kernel has started and is idle."""
        try:
            self.page.wait_for_function(
                f"(path) => {{ const s = ({STATE_JS})(path); return s.ready && s.kernel === 'idle' "
                "&& s.connection === 'connected'; }",
                arg=self.path,
                timeout=timeout_ms,
            )
        except Exception:
            raise LabError(
                f"the kernel of {self.path} was not idle within {timeout_ms / 1000:.0f} s "
                f"(state: {self.state()}); the server's log:\n{self.server.log_tail(15)}"
            ) from None

    def cell(self, index: int):
        return self.panel.locator(".jp-Cell").nth(index)

    def output(self, index: int):
        """The output area of cell `index` (a locator)."""
        return self.cell(index).locator(".jp-OutputArea")

    def run_cell(
        self, index: int, timeout_ms: int = CELL_TIMEOUT_MS, keyboard: bool = False, allow_errors: bool = False
    ):
        """Run cell `index` and wait until it is done and the kernel idle; its output area.

        keyboard=True clicks the cell and presses Shift+Enter, as a learner does; else
        JupyterLab's own `notebook:run-cell` command runs it. A cell that raises fails
        the test with the exception (unless allow_errors)."""
        if keyboard:
            before = self.page.evaluate(CELL_JS, [self.path, index])["count"]
            self.cell(index).locator(".jp-InputArea-prompt").click()
            self.page.keyboard.press("Shift+Enter")
            try:
                self.page.wait_for_function(
                    f"([path, index, before]) => {{ const c = ({PANEL_JS})(path).content.widgets[index].model;"
                    " return c.executionCount !== null && c.executionCount !== before; }",
                    arg=[self.path, index, before],
                    timeout=timeout_ms,
                )
            except Exception:
                raise LabError(
                    f"cell {index} of {self.path} did not run within {timeout_ms / 1000:.0f} s after Shift+Enter"
                ) from None
            result = self.page.evaluate(CELL_JS, [self.path, index])
        else:
            try:
                result = self.page.evaluate(RUN_JS, [self.path, index, timeout_ms])
            except Exception as e:
                raise LabError(f"running cell {index} of {self.path}: {e}") from None
        errors = _errors(result["outputs"])
        if errors and not allow_errors:
            raise LabError(f"cell {index} of {self.path} raised: {'; '.join(errors)}")
        self.wait_idle()
        return self.output(index)

    def outputs(self, index: int) -> list:
        """Cell `index`'s outputs as nbformat JSON (what the kernel sent)."""
        return self.page.evaluate(CELL_JS, [self.path, index])["outputs"]


def open_notebook(page, server: LabServer, path: str) -> Notebook:
    return Notebook(page, server, path).open()
