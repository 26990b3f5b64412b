"""Property tests: whatever text arrives, Program.parse and engine.api end in a graph or a
clear error with a position — never another exception, never a hang, never too much output."""

import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Program, ProgramError
from engine.api import handle
from engine.presets import load_presets
from engine.program import MAX_NODES

FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Pieces of Python, valid and not, that random programs are made of.
TOKENS = [
    "a",
    "b",
    "x1",
    "=",
    " ",
    "\n",
    "+",
    "-",
    "*",
    "/",
    "**",
    "(",
    ")",
    "2",
    "0.5",
    "1e308",
    "1e999",
    "Value(",
    "label=",
    "'s'",
    ".",
    "tanh",
    "exp",
    "log",
    "relu",
    "__class__",
    "__import__",
    "import",
    "os",
    "lambda",
    ":",
    "for",
    "in",
    "[",
    "]",
    "{",
    "}",
    ",",
    "#",
    "\t",
    "\x00",
    "\ud800",
    "+=",
    ":=",
    "f'",
    "if",
    "else",
    "9" * 30,
    "open",
    "eval",
    "backward()",
    "\\",
    '"',
    ";",
    "@",
    "not",
    "yield",
]


def check(source):
    try:
        program = Program.parse(source)
    except ProgramError as error:
        assert isinstance(error.line, int) and error.line >= 1
        assert isinstance(error.col, int) and error.col >= 1
        assert error.message and "\n" not in error.message and len(error.message) < 300
        return None
    assert len(program.nodes) <= MAX_NODES
    return program


@FUZZ
@given(st.text(max_size=300))
def test_random_text_parses_or_fails_cleanly(text):
    check(text)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_token_soup_parses_or_fails_cleanly(tokens):
    check("".join(tokens))


PROGRAMS = [p["program"] for p in load_presets()]


@st.composite
def mutated_programs(draw):
    source = draw(st.sampled_from(PROGRAMS))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(source)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(TOKENS + list(string.printable)))
        if kind == "insert":
            source = source[:where] + piece + source[where:]
        elif kind == "delete":
            source = source[:where] + source[where + draw(st.integers(1, 5)) :]
        else:
            source = source[:where] + piece + source[where + len(piece) :]
    return source


@FUZZ
@given(mutated_programs())
def test_mutated_valid_programs_parse_or_fail_cleanly(source):
    program = check(source)
    if program is not None:
        program.output.backward()  # whatever built also differentiates


@FUZZ
@given(mutated_programs())
def test_the_api_answers_every_program_with_json(source):
    answer = json.loads(handle(json.dumps({"cmd": "load", "program": source})))
    if answer["ok"]:
        assert len(answer["nodes"]) == len(answer["forward"]) == len(answer["backward"]) - 1
    else:
        assert answer["error"]["kind"] == "program"
        assert answer["error"]["line"] >= 1 and answer["error"]["col"] >= 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@FUZZ
@given(
    st.fixed_dictionaries(
        {
            "cmd": st.sampled_from(
                ["load", "naive", "paths", "forward", "again", "descent", "growth", "preset", "presets", "nope"]
            )
        },
        optional={
            "preset": st.sampled_from(["diamond", "neuron", "nope"]) | JSON_VALUES,
            "program": JSON_VALUES,
            "values": JSON_VALUES,
            "order": JSON_VALUES,
            "wrt": JSON_VALUES,
            "rule": JSON_VALUES,
            "sizes": JSON_VALUES,
            "rate": JSON_VALUES,
            "steps": JSON_VALUES,
            "inputs": JSON_VALUES,
        },
    )
)
def test_random_requests_get_an_answer_never_an_internal_error(request):
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"] in (True, False)
    if not answer["ok"]:
        assert answer["error"]["kind"] != "internal", answer["error"]


def test_every_preset_program_survives_every_single_character_deletion():
    for source in PROGRAMS:
        for i in range(len(source)):
            check(source[:i] + source[i + 1 :])
