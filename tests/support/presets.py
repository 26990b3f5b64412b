"""What each preset must show, read from its own file: the ``[expect]`` table of
presets/<id>.toml (presets/README.md describes it), and the rule its numbers are
compared by: an integer exactly, a decimal as the value rounded to the places written."""

import json
import tomllib
from pathlib import Path

from buildtools import prerender
from engine import api
from tests.support.frames import is_matrix

PRESETS_DIR = Path(__file__).resolve().parents[2] / "presets"
PRESET_IDS = sorted(path.stem for path in PRESETS_DIR.glob("*.toml"))


def read(preset_id: str) -> dict:
    """The preset's file as TOML, ``[expect]`` included (the engine leaves that out)."""
    with open(PRESETS_DIR / f"{preset_id}.toml", "rb") as f:
        return tomllib.load(f)


def expected_nodes(preset_id: str) -> dict[str, tuple[int | float, int | float]]:
    """{label: (data, grad)} for every node once the preset's backward pass is done."""
    return {label: tuple(pair) for label, pair in read(preset_id)["expect"]["nodes"].items()}


def expected_with_values(preset_id: str) -> list[tuple[dict, dict]]:
    """(input values, {label: (data, grad)}) for each run with changed inputs the preset names."""
    return [
        (run["values"], {label: tuple(pair) for label, pair in run["nodes"].items()})
        for run in read(preset_id)["expect"].get("with_values", [])
    ]


def decimals(number: float) -> int:
    """The places a decimal is written with (``0.7071`` → 4), read off its shortest
    repr: the digits the file has."""
    text = repr(float(number))
    if "e" in text or "n" in text:
        raise ValueError(f"{number!r}: write expected numbers as plain decimals")
    return len(text.split(".")[1])


def agrees(expected: int | float, actual: float) -> bool:
    """An integer must be the value exactly; a decimal, the value rounded to its places."""
    if isinstance(expected, int):
        return actual == expected
    return round(actual, decimals(expected)) == expected


def expected_on_screen(preset_id: str) -> dict[str, tuple[int | float, int | float] | None]:
    """{label: (data, grad)} for what the page first draws of the preset once its backward
    pass is done: every node, or for a preset with groups (drawn with its innermost groups
    closed: web/grouped.js) each unit of that view, a closed group's box by its name with its
    one output's numbers; a tensor's box of more than one number its matrices (data rows, grad
    rows: web/panels/graph-matrix.js); None for another box of several outputs, which shows
    none of its own (its outputs' numbers are in its frames' sentences)."""
    nodes = expected_nodes(preset_id)
    answer = json.loads(api.handle(prerender.requests_for(preset_id)["load"]))
    if not answer.get("grouped"):
        return nodes
    labels = {n["id"]: n["label"] for n in answer["nodes"]}
    boxes = {g["id"]: g for g in answer["groups"]}
    out = {}
    for unit in answer["units"]:
        if isinstance(unit, str):
            # its shown output, by the label the engine's whole answer gives it
            box = boxes[unit]
            one = len(box["outputs"]) == 1
            out[box["name"]] = (
                (box["values"], box["grads"])
                if is_matrix(box)
                else nodes[_labels(preset_id)[box["outputs"][-1]]]
                if one
                else None
            )
        else:
            out[labels[unit]] = nodes[labels[unit]]
    return out


def _labels(preset_id: str) -> dict[int, str]:
    """Every node's label by its id, from the preset's whole (ungrouped) answer."""
    answer = json.loads(api.handle(json.dumps({"cmd": "load", "preset": preset_id})))
    return {n["id"]: n["label"] for n in answer["nodes"]}
