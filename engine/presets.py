"""The preset graphs: one TOML file each, with a program, a short lesson and checkpoints.

Installed from the wheel, the files live inside the package (``engine/_presets``); run
from a checkout of the repository, they are read from its top-level ``presets/`` folder.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_SEARCH = (_HERE / "_presets", _HERE.parent / "presets")


def presets_dir() -> Path:
    for folder in _SEARCH:
        if folder.is_dir() and any(folder.glob("*.toml")):
            return folder
    raise FileNotFoundError("no presets folder found next to the engine")


@lru_cache(maxsize=1)
def load_presets() -> tuple[dict, ...]:
    """Every preset as a dict (the TOML's keys plus ``id``), in chooser order."""
    presets = []
    for path in sorted(presets_dir().glob("*.toml")):
        with path.open("rb") as file:
            preset = tomllib.load(file)
        preset["id"] = path.stem
        preset.setdefault("checkpoint", [])
        presets.append(preset)
    return tuple(sorted(presets, key=lambda p: (p.get("position", 999), p["id"])))


def get_preset(preset_id: str) -> dict:
    for preset in load_presets():
        if preset["id"] == preset_id:
            return preset
    raise KeyError(preset_id)
