"""A new mode is one engine module and one web module, and nothing else changes.

The recipe of docs/architecture.md ("Adding a mode"), followed in a copy of the repository:
a small mode, "scaled" (every grad times a factor, one node per step), written as
engine/modes/scaled.py and web/modes/scaled.js and nothing else. The copy is built, and then

* git in the copy lists exactly those two files as changed, before and after the build;
* the engine (CPython) answers the mode's command, checks its parameter and describes it;
* in Chromium, on the copy's site, it is a tab of "Why reverse mode" (whose introduction
  now counts seven experiments), a ?why=scaled&run=scaled&factor=3 link opens it on the
  stepper with its parameter (the engine in Pyodide answers), its per-node field fills the
  table's column, the page's own link keeps the parameter, and a broken value is reported;
* the notebook's bundle, built with it, carries it too.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildtools import serve
from tests.support.page import BOOT_TIMEOUT_MS, button, show_tab, wait_ready

# The new mode lives in a copy of the site's own engine: its Pyodide answers, not this CPython's.
pytestmark = pytest.mark.real_engine

ROOT = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 900

ENGINE_MODULE = '''"""Scaled grads: every grad times a factor, one node per step."""

from __future__ import annotations

from ..registry import Command, Mode, Param, Whole

FACTOR = Param("factor", Whole(1, 5), 2)


def _scaled(subject, factor: int) -> dict:
    graph, grads = subject.graph, subject.grads
    frames = [
        {
            "kind": "scaled",
            "node": i,
            "line": graph.values[i].line,
            "text": f"{graph.label(i)}.grad × {factor} = {grads[i] * factor:g}.",
            "pushes": [],
            "changes": [{"node": i, "field": "scaled", "before": None, "after": grads[i] * factor}],
        }
        for i in range(len(graph))
    ]
    return {"factor": factor, "frames": frames}


MODE = Mode(
    id="scaled",
    tab="Scaled grads",
    place=70,
    commands=(Command("scaled", (FACTOR,), _scaled),),
    params=(FACTOR,),
    fields=("scaled",),
    samples=lambda inputs, labels: [{"cmd": "scaled", "factor": 3}],
)
'''

WEB_MODULE = """// Scaled grads: every grad times a factor ({cmd: "scaled", factor}), one node per step.

import { h } from "./shared.js";

export default {
  panel(ctx) {
    return [
      h("p", {}, "Every grad times a factor, one node per step."),
      h("button", { type: "button", id: "scaled-run", class: "button primary",
        onclick: () => ctx.start(this).catch(ctx.failed) }, "Scale the grads"),
      h("div", { id: "scaled-result", class: "why-result" }),
    ];
  },

  request(ctx) {
    return { request: { cmd: "scaled", factor: ctx.state.factor }, what: "Scaled grads" };
  },

  result(ctx, reply) {
    const n = ctx.answer().nodes.length;
    return {
      message: `Every grad times ${reply.factor}.`,
      mode: {
        title: `Grads times ${reply.factor}`,
        frames: reply.frames,
        start: { scaled: new Array(n).fill(null) },
        column: { title: "scaled", field: "scaled" },
      },
    };
  },

  marks(view, marks) {
    marks.current = view.frame.node;
  },

  position(view) {
    return `${view.mode.title} · node ${view.index + 1} of ${view.total}`;
  },

  details() {
    return null;
  },
};
"""

ADDED = ["engine/modes/scaled.py", "web/modes/scaled.js"]


def git(copy: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@localhost"}
    env |= {"GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@localhost"}
    done = subprocess.run(["git", *args], cwd=copy, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def changed(copy: Path) -> list[str]:
    """Every path git sees changed in the copy (ignored build output aside)."""
    lines = git(copy, "status", "--porcelain", "--untracked-files=all").splitlines()
    return sorted(line[3:] for line in lines)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The repository's tracked files in a fresh git repository, the mode added, built."""
    copy = tmp_path_factory.mktemp("repo")
    for rel in git(ROOT, "ls-files", "-z").split("\0"):
        if rel and (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "the repository as it is")
    # The download and compile cache, and npm's packages, are the checkout's (both ignored by git).
    for shared in (".cache", "node_modules"):
        if (ROOT / shared).exists():
            (copy / shared).symlink_to((ROOT / shared).resolve(), target_is_directory=True)
    (copy / ADDED[0]).write_text(ENGINE_MODULE, encoding="utf-8")
    (copy / ADDED[1]).write_text(WEB_MODULE, encoding="utf-8")
    assert changed(copy) == ADDED
    built = subprocess.run(
        [sys.executable, "build.py"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert built.returncode == 0, f"the copy did not build:\n{built.stdout[-2000:]}\n{built.stderr[-2000:]}"
    return copy


def ask(copy: Path, request: dict) -> dict:
    """The copy's engine, in a fresh CPython, answering one request."""
    code = (
        "import sys, json; sys.path.insert(0, '.'); from engine import api; print(api.handle(json.loads(sys.argv[1])))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, json.dumps(request)], cwd=copy, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_only_the_two_files_of_the_mode_changed_even_after_the_build(copy):
    assert changed(copy) == ADDED
    assert (copy / "dist" / "modes" / "scaled.js").is_file()


def test_the_engine_answers_the_new_command_and_checks_its_parameter(copy):
    answer = ask(copy, {"cmd": "scaled", "preset": "diamond", "factor": 3})
    assert answer["ok"] and answer["factor"] == 3
    loaded = ask(copy, {"cmd": "load", "preset": "diamond"})
    grads = [node["grad"] for node in loaded["nodes"]]
    assert [f["changes"][0]["after"] for f in answer["frames"]] == [3 * g for g in grads]
    assert ask(copy, {"cmd": "scaled", "preset": "diamond"})["frames"][0]["changes"][0]["after"] == 2 * grads[0]
    bad = ask(copy, {"cmd": "scaled", "preset": "diamond", "factor": 9})
    assert not bad["ok"] and bad["error"]["message"] == '"factor" must be a whole number from 1 to 5.'
    described = {mode["id"]: mode for mode in ask(copy, {"cmd": "modes"})["modes"]}
    assert list(described)[-1] == "scaled"
    assert described["scaled"]["fields"] == ["scaled"] and described["scaled"]["tab"] == "Scaled grads"


@pytest.fixture(scope="module")
def copy_url(copy):
    server, url = serve.serve_in_thread(copy / "dist")
    yield url
    server.shutdown()
    server.server_close()


def wait_active(page, mode_id):
    page.wait_for_function(
        f"gwRoot().getElementById('why-reverse').dataset.active === '{mode_id}'", timeout=BOOT_TIMEOUT_MS
    )


def test_the_new_mode_is_a_tab_and_a_link_opens_it_with_its_parameter(copy, copy_url, page):
    page.goto(copy_url + "?preset=diamond")
    wait_ready(page)
    show_tab(page, "Why reverse mode")
    assert page.get_by_role("tab", name="Scaled grads", exact=True).is_visible()
    assert page.get_by_role("tab").filter(has_text="Scaled grads").count() == 1
    assert page.inner_text("#why-reverse .why-intro").startswith("Seven experiments on this graph")

    page.goto(copy_url + "?preset=diamond&why=scaled&run=scaled&factor=3&wstep=3")
    wait_active(page, "scaled")  # the engine in Pyodide answered {cmd: "scaled", factor: 3}
    page.wait_for_function("gwRoot().getElementById('position').innerText === 'Grads times 3 · node 4 of 4'")
    column = dict(
        page.eval_on_selector_all(
            "#node-rows tr", "rows => rows.map(r => [r.dataset.row, r.querySelector('.row-extra').dataset.value])"
        )
    )
    grads = {node["label"]: node["grad"] for node in ask(copy, {"cmd": "load", "preset": "diamond"})["nodes"]}
    assert column == {label: f"{3 * grad:g}" for label, grad in grads.items()}  # the diamond's grads are whole
    assert page.get_by_role("tab", name="Scaled grads", exact=True).get_attribute("aria-selected") == "true"
    page.wait_for_function("location.search.includes('run=scaled') && location.search.includes('factor=3')")

    # Its tab and a run of it by hand use the declared default factor, 2, which a link leaves out.
    page.goto(copy_url + "?preset=diamond&why=scaled")
    wait_ready(page)
    assert page.get_by_role("tab", name="Scaled grads", exact=True).get_attribute("aria-selected") == "true"
    button(page, "Scale the grads").click()
    wait_active(page, "scaled")
    page.wait_for_function("gwRoot().getElementById('position').innerText === 'Grads times 2 · node 1 of 4'")
    page.wait_for_function("location.search.includes('run=scaled')")
    assert "factor=" not in page.evaluate("location.search")


def test_a_broken_parameter_of_the_new_mode_is_reported(copy_url, page):
    page.goto(copy_url + "?preset=diamond&why=scaled&run=scaled&factor=9")
    notice = page.locator("#link-notice")
    page.wait_for_function("!gwRoot().getElementById('link-notice').hidden", timeout=BOOT_TIMEOUT_MS)
    assert "factor=9 is not a whole number from 1 to 5" in notice.inner_text()
    wait_active(page, "scaled")  # it still runs, with the default factor
    page.wait_for_function("gwRoot().getElementById('position').innerText.startsWith('Grads times 2')")


def test_the_notebook_bundle_carries_the_new_mode(copy):
    bundle = (copy / "gradwalk" / "static" / "widget.js").read_text(encoding="utf-8")
    assert "Scaled grads" in bundle and "Seven experiments" in bundle and '"scaled"' in bundle
