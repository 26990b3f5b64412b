"""buildtools/exercises.py: the "Your code" exercises the build writes into the site as
exercises.json are engine.yourcode's own, in its order, and the page's copy is not hand-made."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildtools import BuildError, exercises
from engine import yourcode

ROOT = Path(__file__).resolve().parents[2]
# engine.yourcode.run in the engine of a folder given first, on the request given second.
RUN_ONE = "import sys; sys.path.insert(0, sys.argv[1]); from engine import yourcode; print(yourcode.run(sys.argv[2]))"


def test_the_exercises_are_the_engines_in_its_order(tmp_path):
    exercises.write(tmp_path, exercises.describe(ROOT))
    written = json.loads((tmp_path / exercises.EXERCISES_JSON).read_text(encoding="utf-8"))["exercises"]
    assert [e["id"] for e in written] == list(yourcode.EXERCISES) == ["mul", "backward", "tanh", "engine"]
    for exercise in written:
        assert exercise == yourcode.exercise(exercise["id"])
        assert exercise["scaffold"] != exercise["solution"] and "# >>> write here:" in exercise["scaffold"]


def test_a_hand_made_copy_in_web_is_refused(tmp_path):
    (tmp_path / exercises.EXERCISES_JSON).write_text("{}")
    with pytest.raises(BuildError, match="written by the build"):
        exercises.write(tmp_path, [])


def test_web_holds_no_copy_of_its_own():
    assert not (ROOT / "web" / exercises.EXERCISES_JSON).exists()


def test_a_new_exercise_is_one_file(tmp_path):
    """A file engine/exercises/<n>_<id>.py is an exercise, in the place n gives it: in the
    chooser (exercises.json) and in what a run accepts."""
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "presets", tmp_path / "presets")  # found next to the engine
    folder = tmp_path / "engine" / "exercises"
    solution = (folder / "3_tanh.py").read_text(encoding="utf-8")
    (folder / "25_relu.py").write_text(solution.replace('"""', '"""Write relu\n\n', 1), encoding="utf-8")
    listed = exercises.describe(tmp_path)
    assert [e["id"] for e in listed] == ["mul", "backward", "tanh", "engine", "relu"]
    assert listed[-1]["title"] == "Write relu"
    # ... and a run of that copy's engine accepts it (its solution, on the tanh preset).
    request = json.dumps({"exercise": "relu", "source": listed[-1]["solution"], "preset": "neuron"})
    ran = subprocess.run(
        [sys.executable, "-I", "-c", RUN_ONE, str(tmp_path), request], capture_output=True, text=True, timeout=120
    )
    answer = json.loads(ran.stdout)
    assert answer["ok"] and answer["exercise"] == "relu" and answer["findings"] == [], ran.stdout + ran.stderr
