"""Hostile programs typed into the page's program editor (their engine half is
tests/robustness/test_hostile_programs_engine.py).

Every entry of tests.support.hostile_programs.BAD_PROGRAMS (already run in CPython by
tests/engine/test_program_subset.py) is put into the editor in one go (as a paste would): the editor
must show the expected message at the expected line and column, and the last good graph
must stay on screen. Then GRADWALK_HOSTILE_RANDOM (default 100) seeded random texts —
mutations of the presets' programs and plain garbage — go the same way: each ends in a
graph that equals the CPython engine's, or in an error with a line and column (the same
as CPython's), never a console error (the `page` fixture) and never a hang (every wait
has a limit). The seed (GRADWALK_HOSTILE_SEED) is printed and repeated on failure.
"""

import json
import os
import random

from engine.api import handle
from tests.support.editor import submit
from tests.support.hostile_programs import BAD_PROGRAMS
from tests.support.page_state import check_against_engine, open_settled

SEED = int(os.environ.get("GRADWALK_HOSTILE_SEED", "1123"))
RANDOM_COUNT = int(os.environ.get("GRADWALK_HOSTILE_RANDOM", "100"))
GOOD = "a = 2\nb = -3\nc = a * b\nd = c + a"


def open_editor(page, site_url):
    open_settled(page, site_url + "index.html?gw=1&preset=diamond&pass=forward&step=2")
    page.click("#edit-program")
    shown = submit(page, GOOD)
    assert not shown["error"] and shown["graph"] == "program", shown["text"]
    return shown


def check_hostile(page, site_url, programs):
    good = open_editor(page, site_url)
    failures = []
    for source, line, col, message in programs:
        shown = submit(page, source)
        name = repr(source[:50])
        if not shown["error"]:
            failures.append(f"{name}: no error shown ({shown['text'][:100]!r})")
            continue
        if message not in shown["text"]:
            failures.append(f"{name}: the message should contain {message!r}; it is {shown['text'][:200]!r}")
        if (shown["line"], shown["col"]) != (str(line), str(col)):
            failures.append(f"{name}: shown at line {shown['line']}, column {shown['col']}; expected {line}, {col}")
        if f"Line {line}, column {col}" not in shown["text"]:
            failures.append(f"{name}: the text does not say 'Line {line}, column {col}'")
        if shown["nodes"] != good["nodes"] or shown["graph"] != "program":
            failures.append(f"{name}: the last good graph is gone")
    print(f"\n{len(programs)} hostile programs in the page editor: {len(failures)} failures")
    assert not failures, "\n".join(failures)


def test_every_hostile_program_in_the_page_editor(page, site_url):
    # Including the deep ones that once overflowed Pyodide's stack: the engine now refuses
    # a statement with hundreds of operators before Python's parser recurses into it.
    check_hostile(page, site_url, BAD_PROGRAMS)


def preset_programs():
    answer = json.loads(handle(json.dumps({"cmd": "presets"})))
    return [p["program"] for p in answer["presets"]]


PIECES = [
    "a",
    "b",
    "x1",
    "w",
    "=",
    " = ",
    "+",
    "-",
    "*",
    "/",
    "**",
    "(",
    ")",
    "tanh(",
    "relu(",
    "exp(",
    "log(",
    "sin(",
    ".tanh()",
    "Value(",
    ", label='q')",
    "0",
    "1",
    "2.5",
    "1e308",
    "1e-320",
    "-0",
    "\n",
    "\n\n",
    "  ",
    "\t",
    "#",
    "'",
    '"',
    "import os",
    "__class__",
    ".grad",
    ":",
    ";",
    "[",
    "]",
    "{",
    "lambda",
    "é",
    "λ",
    "\u200b",
    "\x00",
    "\r\n",
    "\\",
    "@",
    "...",
]


def random_text(rng, presets):
    if rng.random() < 0.7:
        chars = list(rng.choice(presets))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(chars) + 1)
            op = rng.random()
            digits = [i for i, c in enumerate(chars) if c.isdigit()]
            if op < 0.45 and digits:  # a number changes: usually still a program
                chars[rng.choice(digits)] = rng.choice("0123456789")
            elif op < 0.6 and chars:
                del chars[min(at, len(chars) - 1) : min(at, len(chars) - 1) + rng.randint(1, 4)]
            elif op < 0.8:
                chars[at:at] = list(rng.choice(PIECES))
            elif chars:
                j = min(at, len(chars) - 1)
                chars[j] = rng.choice("abcxyz0123456789+-*/()=. \n")
        return "".join(chars)
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))


def test_random_programs_in_the_page_editor(page, site_url):
    print(f"\nGRADWALK_HOSTILE_SEED={SEED}")
    rng = random.Random(SEED)
    presets = preset_programs()
    good = open_editor(page, site_url)
    outcomes = {"graph": 0, "error": 0}
    for i in range(RANDOM_COUNT):
        text = random_text(rng, presets)
        where = f"GRADWALK_HOSTILE_SEED={SEED} text #{i} {text!r:.200}"
        shown = submit(page, text)
        cpython = json.loads(handle(json.dumps({"cmd": "load", "program": text})))
        if shown["error"]:
            outcomes["error"] += 1
            assert shown["line"] is not None, f"{where}: an error without a position: {shown['text']!r}"
            assert shown["nodes"] == good["nodes"], f"{where}: the last good graph is gone"
            assert not cpython["ok"], f"{where}: the page refused a program CPython builds: {shown['text']!r}"
            err = cpython["error"]
            assert (shown["line"], shown["col"]) == (str(err["line"]), str(err.get("col", 1))), (
                f"{where}: the page says line {shown['line']} col {shown['col']}, CPython {err}"
            )
            assert err["message"] in shown["text"], f"{where}: {shown['text']!r} lacks {err['message']!r}"
        else:
            outcomes["graph"] += 1
            assert cpython["ok"], f"{where}: CPython refuses ({cpython['error']}) but the page built a graph"
            assert "Graph rebuilt" in shown["text"], f"{where}: {shown['text']!r}"
            _, problems = check_against_engine(page)
            assert not problems, f"{where}:\n" + "\n".join(problems)
            good = shown
    print(
        f"{RANDOM_COUNT} random programs: {outcomes['graph']} built a graph, {outcomes['error']} showed "
        f"an error at its line and column"
    )
