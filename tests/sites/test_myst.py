"""A Jupyter Book 2 (MyST) book with Gradwalk's anywidget module in its {anywidget} directive
(examples/sites/myst/, docs/sites.md), built by the real `myst build` and driven in Chromium.

MyST's book theme cannot be installed from the package registries (mystmd downloads it from
its own server), so the book is built with `myst build --site`, which writes every page's
content, its {anywidget} nodes and the module it copied, with a local stand-in for the
theme's template; myst_host.js then shows that content and hosts each widget's module as the
theme's renderer does, and navigates between pages without a reload, as the theme does."""

import shutil
import sys
from pathlib import Path

import pytest

from tests.support.generated_site import (
    EngineWorkers,
    StrictHost,
    check_lesson,
    check_neuron,
    check_swapped_in_place,
    mark_before_navigation,
    prepare,
    run,
    strict_policy,
)
from tests.support.page import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser

BASE = "/book/"
HOST_JS = Path(__file__).with_name("myst_host.js")
SHELL = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Backprop by hand</title><link rel="icon" href="data:,">
<script type="module" src="{base}myst-host.js"></script></head>
<body><nav id="toc" aria-label="Lessons"></nav><main id="article"></main></body></html>
"""


def myst() -> list[str]:
    """The `myst` command of the Python that runs the tests (mystmd's launcher runs it in Node)."""
    return [sys.executable, "-c", "from mystmd_py.main import main; main()"]


@pytest.fixture(scope="module")
def myst_book(built_dist, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("myst")
    project = prepare("myst", tmp, built_dist, "gradwalk", f"{BASE}gradwalk/")
    # The theme's template, which `myst build` would download, replaced by a local one that
    # declares nothing: the content is built all the same.
    (project / "stand-in-theme").mkdir()
    (project / "stand-in-theme" / "template.yml").write_text("myst: v1\nkind: site\n")
    config = project / "myst.yml"
    config.write_text(config.read_text().replace("template: book-theme", "template: ./stand-in-theme"))
    run([*myst(), "build", "--site"], project)

    site = project / "_build" / "site"
    book = tmp / "www" / BASE.strip("/")
    shutil.copytree(site / "public", book)  # the theme serves these at the book's root
    shutil.copytree(site / "content", book / "content")
    shutil.copy(site / "config.json", book / "config.json")
    shutil.copy(HOST_JS, book / "myst-host.js")
    for slug in ("", "diamond/", "neuron/"):
        (book / slug).mkdir(exist_ok=True)
        (book / slug / "index.html").write_text(SHELL.format(base=BASE))
    # The widget's files in the built book too, at the path the directive's model names.
    run(
        [
            "python",
            "build.py",
            "publish",
            str(book / "gradwalk"),
            "--base",
            f"{BASE}gradwalk/",
            "--dist",
            str(built_dist),
        ],
        Path(__file__).parents[2],
    )
    host = StrictHost(tmp / "www")
    host.set_policy(strict_policy(tmp / "www"))
    yield host.url + BASE.lstrip("/")
    host.stop()


WIDGETS = "() => [...document.querySelectorAll('.myst-anywidget')].map((d) => d.shadowRoot.querySelector('grad-walk'))"


def test_the_directives_module_renders_steps_and_follows_the_books_navigation(page, myst_book):
    workers = EngineWorkers(page)
    # Every value <html data-engine> takes: the widgets are in the host's shadow roots, where
    # a document-wide query does not find them, and they must count all the same.
    page.add_init_script(
        "window.gwPageStates = []; new MutationObserver((changes) => { for (const c of changes)"
        " if (c.target === document.documentElement) window.gwPageStates.push(c.target.dataset.engine); })"
        ".observe(document, {subtree: true, attributes: true, attributeFilter: ['data-engine']});"
    )
    modules = []
    page.on("request", lambda r: modules.append(r.url) if r.resource_type == "script" else None)
    check_lesson(page, myst_book + "diamond/", workers)
    # The module the directive named was copied by mystmd and loaded from the book; it found
    # gradwalk.js through the model's `site`.
    assert any("/book/anywidget-" in url for url in modules), modules
    assert any(url.endswith("/book/gradwalk/gradwalk.js") for url in modules), modules
    # The model's other keys became the element's attributes.
    first = page.locator("grad-walk").first
    assert first.get_attribute("aria-label") == "Gradwalk: the diamond, stepped"
    assert first.get_attribute("hide") == "presets,editor,why,share"
    states = page.evaluate("window.gwPageStates")
    assert states[0] == "loading" and states[-1] == "ready", states

    # The book's own navigation: a link, and the page's content is swapped without a reload.
    mark_before_navigation(page, f"({WIDGETS})()")
    page.locator("#toc a", has_text="A neuron").click()
    page.wait_for_url("**/book/neuron/", timeout=STEP_TIMEOUT_MS)
    page.locator("#article h1", has_text="A neuron").wait_for(timeout=STEP_TIMEOUT_MS)
    page.locator("grad-walk").first.wait_for(state="attached", timeout=STEP_TIMEOUT_MS)
    assert page.locator("grad-walk").count() == 1
    check_neuron(page.locator("grad-walk"))
    check_swapped_in_place(page, workers, left_behind=2)
