"""The "Your code" exercises, written into the site as data by the build.

Each exercise is a module in engine/exercises/, <n>_<id>.py (its solution, the part to
write marked); engine.yourcode.exercise(id) makes its scaffold. The page needs them as text, and
must get them without asking Python: the engine's worker never reaches engine.yourcode,
and the code worker runs learner code. So the build asks the repository's engine once,
in a fresh CPython (reading the files runs none of a learner's code), and writes
exercises.json: ``{"exercises": [{"id", "title", "scaffold", "solution"}, ...]}`` in
the order of engine.yourcode.EXERCISES, which web/modes/your-code.js fetches when the
mode opens.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import BuildError, engine_list

EXERCISES_JSON = "exercises.json"


def describe(root: Path) -> list[dict]:
    """Every exercise, as the repository's engine makes it (in a fresh CPython)."""
    return engine_list(
        root,
        "(lambda yourcode: [yourcode.exercise(i) for i in yourcode.EXERCISES])(__import__('engine.yourcode').yourcode)",
        'The engine could not read its exercises (engine/exercises/); run `python -c "from engine import '
        "yourcode; print(yourcode.exercise('mul'))\"` to see why.",
    )


def write(site: Path, exercises: list[dict]) -> None:
    """Write exercises.json into `site` (a copy of web/)."""
    if (site / EXERCISES_JSON).exists():
        raise BuildError(f"web/{EXERCISES_JSON} is written by the build from engine/exercises/; delete it.")
    text = json.dumps({"exercises": exercises}, ensure_ascii=False, separators=(",", ":"))
    (site / EXERCISES_JSON).write_text(text + "\n", encoding="utf-8")
