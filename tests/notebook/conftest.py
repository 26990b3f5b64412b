"""Fixtures for the notebook tests that run a real JupyterLab (tests/notebook/test_jupyterlab.py,
test_exported_notebook.py) or Notebook 7 (test_notebook7.py).

    jupyter_lab     one JupyterLab server per session (tests.support.jupyterlab_harness.LabServer: url,
                    token, root_dir, outbound(), log_tail()), started on a free localhost port
                    with every notebook of tests/notebook/notebooks/ copied into its root,
                    offline and quiet; stopped at the end (killed if the session is cut short)
    lab_context     a fresh browser context per test that may reach the server's origin
                    only (the test fails on any other request, or on a page error);
                    lab_context.console_errors lists what the page logged as errors
    open_notebook   open_notebook("smoke.ipynb") -> tests.support.jupyterlab_harness.Notebook, open in a
                    new page of lab_context with its kernel idle: run_cell(n) runs cell n and
                    returns a locator for its output area
    jupyter_notebook, notebook7_context, open_notebook7
                    the same three for Notebook 7 (its own server, started once per session)
    marimo_server, marimo_context
                    tests/notebook/marimo/diamond.py served by `marimo run` (once per session,
                    tests.support.marimo_harness), and a browser context that may reach it only
    front_end       the widget's front end replaced by a stub module (its path), for the tests
                    that make widgets without a built dist/

Nothing here starts unless a test asks for it: the other notebook tests run without Jupyter.
"""

import atexit
from urllib.parse import urlsplit

import pytest

from tests.support import jupyterlab_harness as harness
from tests.support import marimo_harness


def _server(tmp_path_factory, app: str, module: str):
    pytest.importorskip(module, reason=f"{module} is in the test extra: pip install -e '.[test]'")
    pytest.importorskip("ipykernel", reason="ipykernel is in the test extra: pip install -e '.[test]'")
    workdir = tmp_path_factory.mktemp(f"jupyter-{app}")
    try:
        server = harness.start_lab(workdir, sorted(harness.NOTEBOOKS.glob("*.ipynb")), app=app)
    except harness.LabError as e:
        pytest.fail(str(e), pytrace=False)
    atexit.register(server.stop)  # an interrupted session (Ctrl-C) still stops it
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory):
    yield from _server(tmp_path_factory, "lab", "jupyterlab")


@pytest.fixture(scope="session")
def jupyter_notebook(tmp_path_factory):
    yield from _server(tmp_path_factory, "notebook", "notebook")


# Notebook 7.6.5's own front end throws this while it loads its settings, in every notebook,
# whether or not a widget extension is installed (its shortcuts plugin reads the schema of a
# plugin it has not got). It is Notebook's, from its own bundle, so it does not fail a test.
NOTEBOOK7_OWN_ERRORS = [("Cannot read properties of undefined (reading 'schema')", "/static/notebook/")]


def _offline_context(browser, server, tolerated=(), service_workers="block"):
    """A browser context that may reach `server` only; it fails the test on anything else,
    and on any page error but the `tolerated` ones ((message, where in the stack) pairs)."""
    context = browser.new_context(service_workers=service_workers, viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(15_000)  # no Playwright wait may hang a test
    strays, errors = [], []

    def guard(route):
        parts = urlsplit(route.request.url)
        if f"{parts.scheme}://{parts.netloc}" == server.origin:
            route.continue_()
        else:
            strays.append(route.request.url)
            route.abort()

    context.route("**/*", guard)

    def page_error(error):
        known = any(message in str(error.error) and where in (error.error.stack or "") for message, where in tolerated)
        if not known:
            errors.append(f"page error: {error.error}")

    context.on("weberror", page_error)
    # Console errors do not fail a test (JupyterLab may log its own), but a test that waits
    # for a widget says what the page logged (lab_context.console_errors).
    context.console_errors = []
    context.on("console", lambda m: m.type == "error" and context.console_errors.append(m.text))
    yield context
    context.close()
    problems = [f"request to another origin: {u}" for u in strays] + errors
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture(scope="session")
def marimo_server(tmp_path_factory):
    pytest.importorskip("marimo", reason="marimo is in the test extra: pip install -e '.[test]'")
    server = None
    try:
        server = marimo_harness.start_marimo(tmp_path_factory.mktemp("marimo"), marimo_harness.NOTEBOOK)
    except harness.LabError as e:
        pytest.fail(str(e), pytrace=False)
    atexit.register(server.stop)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def marimo_context(browser, marimo_server):
    # marimo's page registers a service worker of its own, and logs an error if it cannot.
    yield from _offline_context(browser, marimo_server, service_workers="allow")


@pytest.fixture
def lab_context(browser, jupyter_lab):
    yield from _offline_context(browser, jupyter_lab)


@pytest.fixture
def notebook7_context(browser, jupyter_notebook):
    yield from _offline_context(browser, jupyter_notebook, tolerated=NOTEBOOK7_OWN_ERRORS)


@pytest.fixture
def open_notebook(lab_context, jupyter_lab):
    def open_(path: str) -> harness.Notebook:
        page = lab_context.new_page()
        return harness.open_notebook(page, jupyter_lab, path)

    return open_


@pytest.fixture
def open_notebook7(notebook7_context, jupyter_notebook):
    def open_(path: str) -> harness.Notebook:
        page = notebook7_context.new_page()
        return harness.open_notebook(page, jupyter_notebook, path)

    return open_


@pytest.fixture
def front_end(tmp_path, monkeypatch):
    from gradwalk import widget  # (here: the tests that run a server don't need it)

    module = tmp_path / "widget.js"
    module.write_text("export default { render() {} };\n")
    monkeypatch.setattr(widget, "FRONT_END", module)
    return module
