"""Prerendered answers for the page's first paint.

At build time the engine (in CPython) answers the requests the page makes when
it opens a preset: the presets list, and for every preset its text and its
graph. They go to one file, prerender/all.json:

    {"presets": <answer to {"cmd": "presets"}>,
     "answers": {"<id>": {"preset": <answer to {"cmd": "preset", "id": id}>,
                          "load": <answer to {"cmd": "load", "preset": id}>}, ...}}

where each <answer> is *exactly* the string engine.api.handle returned, spliced
in unchanged. The page draws from it at once (web/boot/first-paint.js) and hands
over to the engine in Pyodide when it is ready; tests/runtime/test_pyodide_parity.py
checks that Pyodide's answers give the same file, byte for byte.
"""

import json
import subprocess
import sys
from pathlib import Path

from engine.graph import Graph
from engine.groups import GroupError
from engine.level import grouped_graph
from engine.presets import get_preset
from engine.program import Program, ProgramError

from . import BuildError

DIR = "prerender"
FILE = f"{DIR}/all.json"
PRESETS_REQUEST = json.dumps({"cmd": "presets"})


def requests_for(preset_id: str) -> dict[str, str]:
    """The requests behind one preset's entry, by key, in file order. A preset with group
    blocks is drawn first at the level the page opens it at (web/grouped.js's
    defaultExpanded: its outermost groups that hold other groups open), so that is what is
    prerendered."""
    load = {"cmd": "load", "preset": preset_id}
    outer = outer_groups(get_preset(preset_id)["program"])
    if outer is not None:
        load["expanded"] = outer
    return {"preset": json.dumps({"cmd": "preset", "id": preset_id}), "load": json.dumps(load)}


def outer_groups(program: str) -> list[str] | None:
    """The level the page first draws a program at (web/grouped.js's defaultExpanded): None
    for a program without groups (drawn whole), else the names of its outermost groups that
    hold another one, open (so [] for groups side by side: a tensor program's lines)."""
    try:
        parsed = Program.parse(program)
        if not parsed.groups:
            return None
        # the groups as engine/groups.py nests them, which is what the page reads
        grouped = grouped_graph(Graph.of(parsed.output, parsed.nodes), parsed.groups, parsed.group_kinds)
    except (ProgramError, GroupError):
        return None  # the engine says what is wrong, drawn whole or not
    return [g.name for g in grouped.groups.groups.values() if g.parent is None and g.children]


def preset_ids(presets_answer: str) -> list[str]:
    return [p["id"] for p in json.loads(presets_answer)["presets"]]


def assemble(presets_answer: str, answers: dict[str, dict[str, str]]) -> bytes:
    """The file from the engine's answer strings: {id: {key: answer}}, in the
    chooser's order."""
    entries = ",".join(
        json.dumps(preset_id)
        + ":{"
        + ",".join(f'"{key}":{answers[preset_id][key]}' for key in ("preset", "load"))
        + "}"
        for preset_id in preset_ids(presets_answer)
    )
    return ('{"presets":' + presets_answer + ',"answers":{' + entries + "}}\n").encode("utf-8")


def compute(handle) -> bytes:
    """The whole file, from `handle` (engine.api.handle, in whichever Python)."""
    presets_answer = handle(PRESETS_REQUEST)
    presets = json.loads(presets_answer)
    if not presets.get("ok") or not presets.get("presets"):
        raise ValueError(f"the engine listed no presets: {presets_answer[:300]}")
    answers = {}
    for preset_id in preset_ids(presets_answer):
        answers[preset_id] = {key: handle(request) for key, request in requests_for(preset_id).items()}
        for key, answer in answers[preset_id].items():
            if not json.loads(answer).get("ok"):
                raise ValueError(f"the engine could not answer {key} for {preset_id}: {answer[:300]}")
    return assemble(presets_answer, answers)


def write(site: Path, handle) -> dict:
    """Write prerender/all.json into site and return build.json's "prerender" entry."""
    data = compute(handle)
    (site / FILE).parent.mkdir(parents=True, exist_ok=True)
    (site / FILE).write_bytes(data)
    ids = preset_ids(json.dumps(json.loads(data)["presets"]))
    return {"file": FILE, "presets": ids}


def run(root: Path, site: Path) -> dict:
    """Prerender with the repository's engine in a fresh CPython (so nothing
    imported earlier in this process can leak in) and return build.json's entry."""
    code = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from buildtools import prerender; from engine import api; "
        "assert Path(api.__file__).resolve().parents[1] == Path(sys.argv[1]).resolve(), api.__file__; "
        "print(json.dumps(prerender.write(Path(sys.argv[2]), api.handle)))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(root), str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise BuildError(
            "The engine could not prerender the presets; run the build again with -v to see why."
        ) from RuntimeError(done.stderr)
    return json.loads(done.stdout)
