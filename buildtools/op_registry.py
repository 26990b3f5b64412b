"""The page's side of the operation table, written into the site's copy of web/ by the build.

Every operation is one entry in engine/ops.py. The build asks the repository's engine for
the table (in a fresh CPython) and writes ops.js: each operation's name, operand count, how
it is written (``infix`` ``a + b``, ``prefix`` ``-a`` or ``function`` ``tanh(a)``) and its
symbol. The program editor's help (web/panels/editor.js) lists the operations from it, so
the page never names an operation by hand: a new entry in the table is in the help at the
next build.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import BuildError, engine_list

OPS_JS = "ops.js"
FIELDS = ("name", "arity", "written", "symbol")


def describe(root: Path) -> list[dict]:
    """Every operation of engine/ops.py's table, in its order (in a fresh CPython)."""
    return engine_list(
        root,
        f"[{{k: getattr(op, k) for k in {FIELDS!r}}} for op in __import__('engine.ops').ops.OPS.values()]",
        'The engine could not list its operations (engine/ops.py); run `python -c "from engine.ops '
        'import OPS; print(OPS)"` to see why.',
    )


def write(site: Path, ops: list[dict]) -> None:
    """Write ops.js into `site` (a copy of web/)."""
    if (site / OPS_JS).exists():
        raise BuildError(f"web/{OPS_JS} is written by the build from engine/ops.py; delete it and build again.")
    (site / OPS_JS).write_text(
        "// Written by the build (buildtools/op_registry.py) from engine/ops.py; edit an operation there.\n"
        "// Every operation of the engine's table, in its order: name, operands, how it is written, symbol.\n"
        "export const OPS = [\n" + "".join(f"  {json.dumps(op, ensure_ascii=False)},\n" for op in ops) + "];\n",
        encoding="utf-8",
    )
