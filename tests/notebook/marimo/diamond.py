# A marimo notebook for tests/notebook/test_marimo.py: micrograd's diamond in Gradwalk's widget,
# through mo.ui.anywidget (marimo's way to show an anywidget). At marimo's default width
# ("compact") the widget's graph gets a narrow column; "medium" gives it room (docs/notebook.md).
import marimo

app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    from micrograd.engine import Value

    import gradwalk

    return Value, gradwalk, mo


@app.cell
def _(Value, gradwalk, mo):
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    widget = mo.ui.anywidget(gradwalk.show(d))
    widget  # noqa: B018 - marimo shows a cell's last expression
    return


if __name__ == "__main__":
    app.run()
