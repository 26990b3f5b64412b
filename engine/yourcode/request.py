"""A run's request, checked: its size, its exercise, the learner's code, the program (by
engine.program's parser, never run) and its values; anything else is a refusal in one sentence."""

from __future__ import annotations

import ast
import json
import math

from ..presets import get_preset
from ..program import MAX_LITERAL, Program, ProgramError
from .exercises import EXERCISES

MAX_REQUEST_CHARS = 200_000

MAX_SOURCE_CHARS = 50_000


class _Refusal(Exception):
    """An answer that is an error: its kind, its sentence and where."""

    def __init__(self, kind: str, message: str, **more):
        super().__init__(message)
        self.error = {"kind": kind, "message": message, **more}


def _request(request_json) -> dict:
    if not isinstance(request_json, str):
        raise _Refusal("request", "A request must be a JSON string.")
    if len(request_json) > MAX_REQUEST_CHARS:
        raise _Refusal("request", f"The request is longer than {MAX_REQUEST_CHARS:,} characters.")
    try:
        request = json.loads(request_json)
    except (ValueError, RecursionError):
        raise _Refusal("request", "The request isn't valid JSON.") from None
    if not isinstance(request, dict):
        raise _Refusal("request", "A request must be a JSON object.")
    if request.get("exercise") not in EXERCISES:
        raise _Refusal("request", '"exercise" must be one of ' + ", ".join(EXERCISES) + ".")
    source = request.get("source")
    if not isinstance(source, str):
        raise _Refusal("request", '"source" must be your code, as a string.')
    if len(source) > MAX_SOURCE_CHARS:
        raise _Refusal("request", f"Your code is {len(source):,} characters long; the limit is {MAX_SOURCE_CHARS:,}.")
    if (request.get("program") is None) == (request.get("preset") is None):
        raise _Refusal("request", 'Give either "program" or "preset", not both or neither.')
    if request.get("preset") is not None:
        try:
            request["program"] = get_preset(request["preset"])["program"]
        except (KeyError, TypeError):
            raise _Refusal("request", "There is no such preset.") from None
    if not isinstance(request["program"], str):
        raise _Refusal("request", '"program" must be a string.')
    values = request.get("values") or {}
    if not isinstance(values, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= MAX_LITERAL
        for v in values.values()
    ):
        raise _Refusal("request", '"values" must map input names to numbers, like {"a": 3}.')
    request["values"] = {name: float(v) for name, v in values.items()}
    return request


def _checked_program(text: str, values: dict) -> ast.Module:
    """The program's syntax tree, once engine.program has accepted it (its limits and its
    subset); a program outside them is refused in engine.program's words."""
    try:
        Program.parse(text, values).release()
    except ProgramError as error:
        raise _Refusal("program", error.message, line=error.line, col=error.col) from None
    return ast.parse(text)
