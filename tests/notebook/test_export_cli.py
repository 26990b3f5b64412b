"""gradwalk.export without a browser: what it warns about, and what the page it writes holds.
(tests/notebook/test_exported_notebook.py opens a real export, saved by JupyterLab.)"""

import pytest

from gradwalk import export

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbconvert")


def notebook_with(views: list[str], models: dict | None) -> dict:
    outputs = [
        nbformat.v4.new_output("display_data", data={"text/plain": "Widget", export.VIEW: {"model_id": view}})
        for view in views
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("gradwalk.show(d)", outputs=outputs)])
    if models is not None:
        notebook.metadata["widgets"] = {export.STATE: {"version_major": 2, "version_minor": 0, "state": models}}
    return notebook


def gradwalk_model(**state) -> dict:
    return {
        "model_name": "AnyModel",
        "model_module": "anywidget",
        "state": {"_anywidget_id": export.GRADWALK_WIDGET, "_esm": "export default {}", **state},
    }


def test_a_notebook_saved_without_its_widget_state_is_warned_about(tmp_path, capsys):
    path = tmp_path / "lesson.ipynb"
    nbformat.write(notebook_with(["m1"], None), path)
    assert export.main([str(path)]) == 0
    said = capsys.readouterr()
    assert said.out.strip() == str(tmp_path / "lesson.html")
    assert "1 of the notebook's 1 widget outputs have no saved state" in said.err
    assert "Save Widget State Automatically" in said.err
    page = (tmp_path / "lesson.html").read_text(encoding="utf-8")
    assert "saved-widgets" not in page and "html-manager" not in page  # no widget state, no script for it


def test_a_gradwalk_widget_never_shown_is_warned_about_and_the_page_holds_the_state(tmp_path, capsys):
    path = tmp_path / "lesson.ipynb"
    models = {"m1": gradwalk_model(answers={'{"cmd":"load"}': "{}"}), "m2": gradwalk_model()}
    nbformat.write(notebook_with(["m1", "m2"], models), path)
    assert export.main([str(path), "-o", str(tmp_path / "out.html")]) == 0
    said = capsys.readouterr().err
    assert "1 Gradwalk widget(s) were saved before a browser showed them" in said
    assert "no saved state" not in said
    page = (tmp_path / "out.html").read_text(encoding="utf-8")
    # The saved state and one view placeholder per output, and the script that shows them;
    # nothing from a CDN.
    assert page.count(f'<script type="{export.VIEW}">') == 2
    assert f'<script type="{export.STATE}">' in page
    # The script whole, as written (the template includes it through Jinja, which must leave it be).
    assert (export.TEMPLATES / "gradwalk" / "saved-widgets.js").read_text(encoding="utf-8") in page
    assert "cdnjs" not in page and "unpkg" not in page and "jsdelivr" not in page and "require.js" not in page


def test_what_is_not_a_notebook_is_said_in_one_line(tmp_path, capsys):
    path = tmp_path / "lesson.ipynb"
    path.write_text("not json", encoding="utf-8")
    assert export.main([str(path)]) == 1
    assert capsys.readouterr().err.startswith(f"gradwalk.export: {path} could not be read as a notebook")
