"""examples/micrograd_walkthrough.ipynb: valid nbformat 4 with no outputs, and every code cell
runs and says what the markdown around it says."""

import json
from pathlib import Path

from gradwalk import widget

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "micrograd_walkthrough.ipynb"


def test_the_example_is_a_clean_nbformat_4_notebook():
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] >= 5
    assert notebook["metadata"]["kernelspec"]["language"] == "python"
    ids = [cell["id"] for cell in notebook["cells"]]
    assert len(set(ids)) == len(ids)
    for cell in notebook["cells"]:
        assert cell["cell_type"] in ("markdown", "code") and isinstance(cell["source"], list)
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_every_code_cell_runs(tmp_path, monkeypatch, capsys):
    module = tmp_path / "widget.js"
    module.write_text("export default { render() {} };\n")
    monkeypatch.setattr(widget, "FRONT_END", module)
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    namespace = {}
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
    printed = capsys.readouterr().out
    assert printed.startswith("18.0 0 0\n")
    assert "b = a * a: its _backward overwrites a.grad (=) instead of adding to it (+=)" in printed
    assert "h = x * 2: backward() calls its _backward 2 times" in printed
    assert "n was visited before o had added its contribution to n" in printed
    report = namespace["report"]
    assert report.problems[0].startswith("o = tanh(n): its _backward gives n a local derivative of 0.2232")
    assert namespace["Value"].__mul__.__name__ == "__mul__" and namespace["Value"].backward.__name__ == "backward"
