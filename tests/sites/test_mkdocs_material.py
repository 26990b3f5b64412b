"""A real MkDocs site with the Material theme and its instant navigation (examples/sites/mkdocs/,
docs/sites.md): built once, served under a base path with a strict Content-Security-Policy,
and driven in Chromium. Instant navigation swaps the page's content without a reload, so the
widgets of the page it leaves must go with their share of the engine, and the page it brings
must neither start a second engine nor find one left running for nobody."""

import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.support.generated_site import (
    EngineWorkers,
    StrictHost,
    check_lesson,
    check_neuron,
    check_swapped_in_place,
    mark_before_navigation,
    prepare,
    run,
    step_forward,
    strict_policy,
    wait_ready,
)
from tests.support.page import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser

BASE = "/course/"
IDLE_STOP_S = 3  # engine-client.js's IDLE_STOP_MS: how long an engine outlives its last widget


@pytest.fixture(scope="module")
def mkdocs_site(built_dist, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mkdocs")
    project = prepare("mkdocs", tmp, built_dist, "docs/assets/gradwalk", f"{BASE}assets/gradwalk/")
    www = tmp / "www"
    host = StrictHost(www)
    site_url = host.url + BASE.lstrip("/")
    run(
        ["python", "-m", "mkdocs", "build", "--strict", "--site-dir", str(www / BASE.strip("/"))],
        project,
        env={"SITE_URL": site_url, "NO_MKDOCS_2_WARNING": "1"},
    )
    host.set_policy(strict_policy(www))
    yield site_url
    host.stop()


def test_widgets_step_share_one_engine_and_survive_instant_navigation(page, mkdocs_site):
    workers = EngineWorkers(page)
    check_lesson(page, mkdocs_site + "lessons/diamond/", workers)

    # Material's own navigation: a link in its sidebar, and the page is swapped in place.
    mark_before_navigation(page)
    page.locator(".md-nav__link", has_text="A neuron").first.click()
    page.wait_for_url("**/lessons/neuron/", timeout=STEP_TIMEOUT_MS)
    swapped_in(page, "A neuron")
    assert page.locator("grad-walk").count() == 1
    check_neuron(page.locator("grad-walk"))
    check_swapped_in_place(page, workers, left_behind=2)

    # To a page with no widget: the engine stops once no widget uses it.
    page.locator(".md-nav__link", has_text="Home").first.click()
    page.wait_for_url(mkdocs_site, timeout=STEP_TIMEOUT_MS)
    swapped_in(page, "Backprop by hand")
    # Each engine still alive is waited for until it closes, within the idle stop and a second.
    deadline = time.monotonic() + IDLE_STOP_S + 1
    for worker in list(workers.live):
        try:
            with worker.expect_event("close", timeout=max(0.001, deadline - time.monotonic()) * 1000):
                pass
        except PlaywrightTimeoutError:
            break
    assert not workers.live, "the engine outlived every widget"
    assert page.evaluate("window.gwSamePage === true")
    # And back through the page's own link: one engine again, never two at a time.
    page.get_by_role("link", name="The diamond").first.click()
    page.wait_for_url("**/lessons/diamond/", timeout=STEP_TIMEOUT_MS)
    swapped_in(page, "The diamond")
    for i in range(2):
        wait_ready(page.locator("grad-walk").nth(i))
    assert step_forward(page.locator("grad-walk").first) == "Forward pass · node 1 of 4"
    assert len(workers.live) == 1 and workers.most == 1, workers.started


def swapped_in(page, title):
    """Wait until Material has put the page titled `title` in place (the address changes first)."""
    page.locator(".md-content h1", has_text=title).wait_for(timeout=STEP_TIMEOUT_MS)
