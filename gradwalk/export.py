"""A notebook as one HTML file whose Gradwalk widgets keep stepping with no kernel.

    python -m gradwalk.export lesson.ipynb              # writes lesson.html beside it
    python -m gradwalk.export lesson.ipynb -o out.html

The notebook must carry its widget state, as JupyterLab saves it (Settings → Save Widget
State Automatically, then save the notebook): ``metadata.widgets`` holds
``application/vnd.jupyter.widget-state+json``, every widget model's attributes. A Gradwalk
widget's attributes are its whole front end (anywidget's ``_esm``) and every answer the
kernel gave it while it was on screen (``answers``, kept by the front end, web/notebook.js),
so the page can show it and step through both passes, and replay what was run in it,
without a kernel.

nbconvert's own HTML loads a widget manager, require.js and MathJax from a CDN. This uses
nbconvert with the template in gradwalk/templates/gradwalk/, which loads nothing: its
saved-widgets.js shows each anywidget from the saved state alone. Anything else the page
needs (its styles) is in the file. nbconvert is not one of gradwalk's dependencies:
``pip install nbconvert`` first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE = "gradwalk"
STATE = "application/vnd.jupyter.widget-state+json"
VIEW = "application/vnd.jupyter.widget-view+json"
GRADWALK_WIDGET = "gradwalk.widget.Widget"  # anywidget's _anywidget_id for gradwalk.widget.Widget


class ExportError(RuntimeError):
    """The notebook could not be read, or nbconvert is missing."""


def saved_widgets(notebook: dict) -> dict:
    """The notebook's saved widget models: model id -> {model_name, model_module, state, ...}."""
    return notebook.get("metadata", {}).get("widgets", {}).get(STATE, {}).get("state", {})


def widget_views(notebook: dict) -> list[str]:
    """The model id of every widget output of the notebook, in order."""
    found = []
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(VIEW)
            if isinstance(view, dict) and "model_id" in view:
                found.append(view["model_id"])
    return found


def warnings(notebook: dict) -> list[str]:
    """What the page will not be able to show, in sentences."""
    views, models = widget_views(notebook), saved_widgets(notebook)
    said = []
    missing = [view for view in views if view not in models]
    if missing:
        said.append(
            f"{len(missing)} of the notebook's {len(views)} widget outputs have no saved state, so the page cannot "
            "show them: in JupyterLab, turn on Settings → Save Widget State Automatically, run the cells, and save "
            "the notebook."
        )
    unanswered = [
        view
        for view in views
        if models.get(view, {}).get("state", {}).get("_anywidget_id") == GRADWALK_WIDGET
        and not models[view]["state"].get("answers")
    ]
    if unanswered:
        said.append(
            f"{len(unanswered)} Gradwalk widget(s) were saved before a browser showed them, so no answer of the "
            "kernel was saved with them: the page will say they need a running kernel. Show them in JupyterLab "
            "(run the cells), then save."
        )
    return said


def export(notebook_path: Path, output: Path | None = None) -> Path:
    """Write the notebook as one HTML file (by default beside it, .html); returns its path."""
    try:
        import nbformat
        from nbconvert import HTMLExporter
    except ImportError:
        raise ExportError("gradwalk.export needs nbconvert: pip install nbconvert") from None
    notebook_path = Path(notebook_path)
    output = Path(output) if output else notebook_path.with_suffix(".html")
    try:
        notebook = nbformat.read(notebook_path, as_version=4)
    except (OSError, ValueError, nbformat.reader.NotJSONError) as error:
        raise ExportError(f"{notebook_path} could not be read as a notebook: {error}") from None
    exporter = HTMLExporter(template_name=TEMPLATE, extra_template_basedirs=[str(TEMPLATES)])
    body, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": notebook_path.stem}})
    output.write_text(body, encoding="utf-8")
    return output


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gradwalk.export",
        description="Export a notebook to one HTML file whose Gradwalk widgets step with no kernel and no network.",
    )
    parser.add_argument("notebook", type=Path, help="the .ipynb, saved with its widget state")
    parser.add_argument("-o", "--output", type=Path, help="the HTML file to write (default: beside the notebook)")
    args = parser.parse_args(argv)
    try:
        written = export(args.notebook, args.output)
        said = warnings(json.loads(args.notebook.read_text(encoding="utf-8")))
    except ExportError as error:
        print(f"gradwalk.export: {error}", file=sys.stderr)
        return 1
    for sentence in said:
        print(f"gradwalk.export: warning: {sentence}", file=sys.stderr)
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
