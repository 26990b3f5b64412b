"""A real Sphinx site (examples/sites/sphinx/, docs/sites.md): built once, served under a
base path with a strict Content-Security-Policy, and driven in Chromium; a lesson in a
subfolder, reached through the toctree in the theme's sidebar."""

import pytest

from tests.support.generated_site import (
    EngineWorkers,
    StrictHost,
    check_lesson,
    check_neuron,
    prepare,
    run,
    strict_policy,
)
from tests.support.page import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser

BASE = "/docs/"


@pytest.fixture(scope="module")
def sphinx_site(built_dist, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sphinx")
    project = prepare("sphinx", tmp, built_dist, "_static/gradwalk", f"{BASE}_static/gradwalk/")
    www = tmp / "www"
    run(["python", "-m", "sphinx", "-W", "-q", "-b", "html", ".", str(www / BASE.strip("/"))], project)
    host = StrictHost(www)
    host.set_policy(strict_policy(www))
    yield host.url + BASE.lstrip("/")
    host.stop()


def test_widgets_step_on_one_engine_and_the_next_lesson_works(page, sphinx_site):
    workers = EngineWorkers(page)
    check_lesson(page, sphinx_site + "lessons/diamond.html", workers)
    # The theme's own navigation: the lesson's entry in the sidebar's toctree (a new page, loaded).
    page.locator(".sphinxsidebar .toctree-l1 a", has_text="A neuron").click()
    page.wait_for_url("**/lessons/neuron.html", timeout=STEP_TIMEOUT_MS)
    assert page.locator("grad-walk").count() == 1
    check_neuron(page.locator("grad-walk"))
    assert len(workers.started) == 2 and workers.most == 1, "one engine per page, one page at a time"
