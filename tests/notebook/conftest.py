"""Fixtures for the notebook tests that run a real JupyterLab (tests/notebook/test_jupyterlab.py).

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

Nothing here starts unless a test asks for it: the other notebook tests run without Jupyter.
"""

import atexit
from urllib.parse import urlsplit

import pytest

from tests.support import jupyterlab_harness as harness


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory):
    pytest.importorskip("jupyterlab", reason="JupyterLab is in the test extra: pip install -e '.[test]'")
    pytest.importorskip("ipykernel", reason="ipykernel is in the test extra: pip install -e '.[test]'")
    workdir = tmp_path_factory.mktemp("jupyterlab")
    try:
        server = harness.start_lab(workdir, sorted(harness.NOTEBOOKS.glob("*.ipynb")))
    except harness.LabError as e:
        pytest.fail(str(e), pytrace=False)
    atexit.register(server.stop)  # an interrupted session (Ctrl-C) still stops it
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def lab_context(browser, jupyter_lab, request):
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(15_000)  # no Playwright wait may hang a test
    strays, errors = [], []

    def guard(route):
        parts = urlsplit(route.request.url)
        if f"{parts.scheme}://{parts.netloc}" == jupyter_lab.origin:
            route.continue_()
        else:
            strays.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    context.on("weberror", lambda e: errors.append(f"page error: {e.error}"))
    # Console errors do not fail a test (JupyterLab may log its own), but a test that waits
    # for a widget says what the page logged (lab_context.console_errors).
    context.console_errors = []
    context.on("console", lambda m: m.type == "error" and context.console_errors.append(m.text))
    yield context
    context.close()
    problems = [f"request to another origin: {u}" for u in strays] + errors
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def open_notebook(lab_context, jupyter_lab):
    def open_(path: str) -> harness.Notebook:
        page = lab_context.new_page()
        return harness.open_notebook(page, jupyter_lab, path)

    return open_
