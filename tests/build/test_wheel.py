"""The notebook package's wheel: `python -m build --wheel` in a fresh copy of the project
makes a `py3-none-any` wheel that carries the built front end, and that wheel installs in
a fresh virtual environment with no Node.js anywhere on PATH, where `gradwalk.show` works.

The copy holds what a commit of this working tree would hold (git's tracked files and the
new ones it does not ignore), so no node_modules/, dist/, .cache/ or built widget.js: the
build has to install the npm packages and bundle the front end itself, as in a clone.
Building, installing (pip fetches anywidget and its dependencies, from its cache when it
can) and the check take about half a minute.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import build as build_script

pytestmark = pytest.mark.node  # the build bundles the front end with Node

ROOT = build_script.ROOT
FRONT_END = "gradwalk/static/widget.js"

# Run by the fresh environment's Python: what gradwalk.show("diamond") gives there.
CHECK = """
import json, shutil, sys
import gradwalk

widget = gradwalk.show("diamond")
reply = widget.answer({"id": 1, "request": {"cmd": "load", "preset": "diamond"}})
print(json.dumps({
    "gradwalk": gradwalk.__file__,
    "node": shutil.which("node"),
    "npm": shutil.which("npm"),
    "esm": widget._esm,
    "source": widget.source,
    "reply_id": reply["id"],
    "answer": json.loads(reply["response"]),
}))
"""


def fresh_copy(to: Path) -> Path:
    """The files a commit of this working tree would hold, copied to `to`."""
    if shutil.which("git") is None:
        pytest.fail("git is not on PATH; the wheel test copies the project as git sees it.", pytrace=False)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file() and not source.is_symlink():  # (a file deleted but not yet committed is gone)
            (to / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / rel)
    return to


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs)
    assert done.returncode == 0, f"{command[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_wheel_from_a_fresh_copy_works_without_node(tmp_path):
    project = fresh_copy(tmp_path / "gradwalk")
    assert not (project / "node_modules").exists() and not (project / FRONT_END).exists()

    # `python -m build` in the project folder, as the README says (build.py hands over to PyPA's build).
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "wheels")], cwd=project, timeout=600)
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as whl:
        front_end = whl.read(FRONT_END).decode("utf-8")
        assert "Tag: py3-none-any" in whl.read(f"{wheel.name.split('-')[0]}-0.1.0.dist-info/WHEEL").decode()
        assert {"engine/api.py", "engine/_presets/diamond.toml", "gradwalk/widget.py"} <= set(whl.namelist())
        # gradwalk.export's nbconvert template, with the script that shows the saved widgets.
        template = {
            f"gradwalk/templates/gradwalk/{name}" for name in ("conf.json", "index.html.j2", "saved-widgets.js")
        }
        assert {"gradwalk/export.py", *template} <= set(whl.namelist())
    assert front_end == (project / FRONT_END).read_text(encoding="utf-8")  # what the build bundled

    # A new environment, and a PATH with nothing on it but that environment's own scripts.
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=300)
    scripts = venv / ("Scripts" if os.name == "nt" else "bin")
    python = next(p for p in (scripts / "python", scripts / "python.exe") if p.exists())
    env = {**os.environ, "PATH": str(scripts)}
    env.pop("PYTHONPATH", None)
    assert shutil.which("node", path=env["PATH"]) is None and shutil.which("npm", path=env["PATH"]) is None
    run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], env=env, timeout=600)

    done = run([str(python), "-I", "-c", CHECK], env=env, cwd=tmp_path, timeout=120)
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["gradwalk"].startswith(str(venv)), shown["gradwalk"]  # not this checkout's gradwalk
    assert shown["node"] is None and shown["npm"] is None
    # The widget hands the wheel's front end to anywidget: web/notebook.js's module (its
    # render as the default export), bundled with nothing left to import.
    assert shown["esm"] == front_end
    exported = re.search(r"export\s*\{([^}]*)\}\s*;?\s*$", front_end)
    assert exported and {"default", "kernelEngine"} <= set(re.findall(r"\bas\s+(\w+)", exported.group(1)))
    assert not re.search(r"\bimport\s*(?:\(|[^;]*?from\s*)[\"']", front_end)
    assert shown["source"] == {"preset": "diamond"}
    # The engine, in that kernel, answers the diamond with its known numbers.
    answer = shown["answer"]
    assert shown["reply_id"] == 1 and answer["ok"] and answer["preset"] == "diamond"
    values = {node["label"]: (node["data"], node["grad"]) for node in answer["nodes"]}
    assert values == {"a": (2.0, 15.0), "b": (3.0, 6.0), "c": (6.0, 3.0), "d": (18.0, 1.0)}
