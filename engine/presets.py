"""The preset graphs: one TOML file each, with a program, a short lesson and checkpoints.

Installed from the wheel, the files live inside the package (``engine/_presets``); run
from a checkout of the repository, they are read from its top-level ``presets/`` folder.

A preset may name the backward visit order its lesson walks (``visit_order``, node labels
from the output down). It is checked here, when the presets are read: a preset whose
order is not a valid backward order of its own program is an error at load time, so a
typo in a TOML file can never reach a learner as a wrong walk.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

from .graph import Graph
from .mistakes import MISTAKES, Asked
from .program import Program, ProgramError

_HERE = Path(__file__).resolve().parent
_SEARCH = (_HERE / "_presets", _HERE.parent / "presets")


class PresetError(ValueError):
    """A preset file that can't be used as it is; the message names the file."""


def presets_dir() -> Path:
    for folder in _SEARCH:
        if folder.is_dir() and any(folder.glob("*.toml")):
            return folder
    raise FileNotFoundError("no presets folder found next to the engine")


@lru_cache(maxsize=1)
def load_presets() -> tuple[dict, ...]:
    """Every preset as a dict (the TOML's keys plus ``id``), in chooser order."""
    return read_presets(presets_dir())


def read_presets(folder: Path) -> tuple[dict, ...]:
    """The presets of ``folder``, checked, in chooser order (raises PresetError)."""
    presets = []
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as file:
            preset = tomllib.load(file)
        preset["id"] = path.stem
        preset.pop("expect", None)  # what the tests hold the preset to (presets/README.md); not for the page
        preset.setdefault("checkpoint", [])
        if "visit_order" in preset:
            _check_visit_order(preset["visit_order"], preset.get("program", ""), path.name)
        for checkpoint in preset["checkpoint"]:
            _read_checkpoint(checkpoint, path.name)
        _check_asked_nodes(preset, path.name)
        presets.append(preset)
    return tuple(sorted(presets, key=lambda p: (p.get("position", 999), p["id"])))


def get_preset(preset_id: str) -> dict:
    for preset in load_presets():
        if preset["id"] == preset_id:
            return preset
    raise KeyError(preset_id)


def visit_order_ids(graph: Graph, labels: list[str]) -> list[int]:
    """A checked visit order (labels) as node ids of ``graph``, a graph of the same program."""
    ids = {graph.label(i): i for i in range(len(graph))}
    return [ids[label] for label in labels]


def _read_checkpoint(cp: dict, file_name: str) -> None:
    """Check a checkpoint's ``check`` and the mistakes its choices name; a choice written as
    ``{ text = "6", mistake = "one-path" }`` becomes its text, and its mistake goes to
    ``choice_mistakes`` (one id or None per choice)."""
    where = f"{file_name}: checkpoint {cp.get('id', '?')!r}"
    if cp.get("check"):
        try:
            Asked(cp["check"])
        except ValueError as error:
            raise PresetError(f"{where}: {error}") from None
    choices = cp.get("choices")
    if not isinstance(choices, list):
        return
    texts, mistakes = [], []
    for choice in choices:
        if isinstance(choice, dict):
            text, mistake = choice.get("text"), choice.get("mistake")
            if not isinstance(text, str) or set(choice) - {"text", "mistake"}:
                raise PresetError(f'{where}: a choice is a string or {{ text = "...", mistake = "id" }}.')
            if mistake is not None and mistake not in MISTAKES:
                raise PresetError(f"{where}: no mistake is called {mistake!r} (known: {', '.join(MISTAKES)}).")
        else:
            text, mistake = choice, None
        texts.append(text)
        mistakes.append(mistake)
    cp["choices"] = texts
    if any(mistakes):
        cp["choice_mistakes"] = mistakes


def _check_asked_nodes(preset: dict, file_name: str) -> None:
    """Refuse a ``check`` naming a node the program doesn't have, or an edge it doesn't have
    (``"e->d.local"`` with d not an operand of e): the page would have nothing to ask about."""
    asked = [(cp, Asked(cp["check"])) for cp in preset["checkpoint"] if cp.get("check")]
    if not asked:
        return
    try:
        program = Program.parse(preset.get("program", ""))
    except ProgramError as error:
        raise PresetError(
            f"{file_name}: its checks can't be read: the program doesn't parse ({error.message})"
        ) from None
    try:
        graph = Graph.of(program.output, program.nodes)
        ids = {graph.label(i): i for i in range(len(graph))}
        for cp, question in asked:
            where = f"{file_name}: checkpoint {cp.get('id', '?')!r}"
            for name in (question.child, question.node):
                if name is not None and name not in ids:
                    raise PresetError(f"{where}: check names {name!r}, which is not a node of the program.")
            if question.child is not None:
                child = ids[question.child]
                if all(graph.edges[e].parent != ids[question.node] for e in graph.parent_edges[child]):
                    raise PresetError(f"{where}: {question.node} is not an operand of {question.child}.")
    finally:
        program.release()


def _check_visit_order(order, source: str, file_name: str) -> None:
    """Refuse an order that isn't every node once, each node before the nodes it is made from."""

    def refuse(why: str):
        raise PresetError(f"{file_name}: visit_order {why}")

    if not isinstance(order, list) or not all(isinstance(label, str) for label in order):
        refuse('must be a list of node labels, like ["e", "c", "d", "a", "b"].')
    try:
        program = Program.parse(source)
    except ProgramError as error:
        refuse(f"can't be checked: the program doesn't parse ({error.message})")
    try:
        graph = Graph.of(program.output, program.nodes)
        labels = [graph.label(i) for i in range(len(graph))]
        for label in order:
            if label not in labels:
                refuse(f"names {label!r}, which is not a node of the program (nodes: {', '.join(labels)}).")
        if len(set(order)) != len(order):
            twice = next(label for label in order if order.count(label) > 1)
            refuse(f"names {twice!r} twice; every node is visited once.")
        missing = [label for label in labels if label not in order]
        if missing:
            refuse(f"leaves out {', '.join(missing)}; every node is visited once.")
        position = {label: step for step, label in enumerate(order)}
        for edge in graph.edges:
            child, parent = graph.label(edge.child), graph.label(edge.parent)
            if position[parent] < position[child]:
                refuse(
                    f"visits {parent} before {child}, but {child} is made from {parent}: "
                    f"{child} must push into {parent} before {parent} is visited."
                )
    finally:
        program.release()
