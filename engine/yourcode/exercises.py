"""The exercises of "Your code": each a file of engine/exercises/ (``<n>_<id>.py``, listed in
the order of n), shown as a scaffold with the part to write left as ``pass``."""

from __future__ import annotations

import re
from pathlib import Path

_EXERCISE_DIR = Path(__file__).resolve().parents[1] / "exercises"

# The exercises, found in engine/exercises/ (one file each, <n>_<id>.py) and listed in the
# order of n (then of the name): a new exercise is one new file. Other files are not exercises.
_NAMED = re.compile(r"(\d+)_([a-z][a-z0-9_]*)")


def _exercise_files(folder: Path) -> dict[str, Path]:
    found = sorted(
        (int(m.group(1)), m.group(2), path) for path in folder.glob("*.py") if (m := _NAMED.fullmatch(path.stem))
    )
    files: dict[str, Path] = {}
    for _, exercise_id, path in found:
        if exercise_id in files:
            raise ValueError(
                f"engine/exercises/ has two exercises called {exercise_id}: {files[exercise_id].name}, {path.name}"
            )
        files[exercise_id] = path
    return files


_EXERCISE_FILES = _exercise_files(_EXERCISE_DIR)

EXERCISES = tuple(_EXERCISE_FILES)

_WRITE_HERE = "# >>> write here:"

_END = "# <<<"


def exercise(exercise_id: str) -> dict:
    """One exercise as the page shows it: its title, the scaffold (the part to write left
    as ``pass``) and the solution, both whole modules."""
    if exercise_id not in EXERCISES:
        raise KeyError(exercise_id)
    solution = _EXERCISE_FILES[exercise_id].read_text(encoding="utf-8")
    title = solution.split('"""', 2)[1].strip().splitlines()[0] if solution.startswith('"""') else exercise_id
    return {"id": exercise_id, "title": title, "scaffold": scaffold_of(solution), "solution": solution}


def scaffold_of(solution: str) -> str:
    """``solution`` with the lines between each ``# >>> write here:`` and ``# <<<`` replaced
    by ``pass`` at the marker's indentation (the markers stay, so the hint does)."""
    out, inside = [], False
    for line in solution.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(_WRITE_HERE):
            out.append(line)
            out.append(line[: len(line) - len(line.lstrip())] + "pass\n")
            inside = True
        elif stripped == _END:
            out.append(line)
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)
