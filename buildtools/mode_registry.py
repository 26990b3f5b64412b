"""The page's side of the mode registry, written into the site's copy of web/ by the build.

Every mode declares itself once, in its engine module (engine/registry.py). The build asks
the repository's engine for that declaration ({"cmd": "modes"}, in a fresh CPython) and
writes what the page needs from it:

* modes/registry.js: the declaration as data (each mode's id, tab, commands, parameters
  with their kinds and defaults, and per-node fields), for web/url.js (which link keys
  exist and what they may hold), the "Why reverse mode" section's defaults and the Stepper
  (which fields a frame may change); it imports nothing, so every module can read it;
* modes/index.js: each mode's web module, web/modes/<id>.js, imported by its id and given
  its ``id``, ``tab`` and whole declaration (``declared``), in the order of the tabs;
* the number of experiments in the section's introduction (widget.html's placeholder).

So adding a mode is its engine module and its web module: nothing lists the modes by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import BuildError, fresh_python

REGISTRY_JS = "modes/registry.js"
INDEX_JS = "modes/index.js"
COUNT_PLACEHOLDER = "<!-- gw:experiment-count -->"
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]


def describe(root: Path) -> list[dict]:
    """Every mode, as the repository's engine describes it (in a fresh CPython)."""
    code = 'import sys; sys.path.insert(0, sys.argv[1]); from engine import api; print(api.handle({"cmd": "modes"}))'
    done = fresh_python(root, code, timeout=120)
    answer = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else {}
    if not answer.get("ok"):
        raise BuildError(
            'The engine could not describe its modes (engine/modes/); run `python -c "from engine import api; '
            "print(api.handle({'cmd': 'modes'}))\"` to see why."
        ) from RuntimeError(done.stderr)
    return answer["modes"]


def write(site: Path, modes: list[dict]) -> None:
    """Write modes/registry.js and modes/index.js into `site` (a copy of web/), and the
    number of experiments into its widget.html."""
    for rel in (REGISTRY_JS, INDEX_JS):
        if (site / rel).exists():
            raise BuildError(f"web/{rel} is written by the build from engine/modes/; delete it and build again.")
    for mode in modes:
        if not (site / "modes" / f"{mode['id']}.js").is_file():
            raise BuildError(
                f"engine/modes/{mode['id']}.py declares the mode {mode['id']!r}, but web/modes/{mode['id']}.js "
                "is missing; add its web module (its panel, marks, position and details)."
            )
    header = "// Written by the build (buildtools/mode_registry.py) from engine/modes/; edit a mode there.\n"
    (site / REGISTRY_JS).write_text(
        header + '// Every mode as its engine module declares it ({cmd: "modes"}), in the order of its tab.\n'
        "export const MODES = [\n" + "".join(f"  {json.dumps(mode, ensure_ascii=False)},\n" for mode in modes) + "];\n",
        encoding="utf-8",
    )
    names = [f"mode{i}" for i in range(len(modes))]
    imports = "".join(f'import {name} from "./{mode["id"]}.js";\n' for name, mode in zip(names, modes, strict=True))
    (site / INDEX_JS).write_text(
        header + "// Each mode's web module (modes/<id>.js), given its id, its tab and its whole declaration.\n"
        'import { MODES as DECLARED } from "./registry.js";\n'
        f"{imports}\n"
        f"const MODULES = [{', '.join(names)}];\n"
        "export const MODES = DECLARED.map((declared, i) =>\n"
        "  Object.assign(MODULES[i], { id: declared.id, tab: declared.tab, declared }));\n",
        encoding="utf-8",
    )
    widget = site / "widget.html"
    if widget.is_file():
        text = widget.read_text(encoding="utf-8")
        if COUNT_PLACEHOLDER not in text:
            raise BuildError(f"web/widget.html lacks its {COUNT_PLACEHOLDER} placeholder; restore it.")
        widget.write_text(text.replace(COUNT_PLACEHOLDER, experiments(len(modes))), encoding="utf-8")


def experiments(n: int) -> str:
    """ "Six experiments", "One experiment": how the introduction counts the modes."""
    number = _WORDS[n] if n < len(_WORDS) else str(n)
    return f"{number[:1].upper()}{number[1:]} experiment{'' if n == 1 else 's'}"
