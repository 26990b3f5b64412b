"""Shared fixtures: the built site, a server for it, and headless Chromium.

    built_dist   dist/, built (or found up to date) once per session
    site_url     dist/ served on a free localhost port by buildtools.serve,
                 the same server code as `python build.py serve`
    browser      Chromium through Playwright (the Debian build at /usr/bin/chromium)
    page         a fresh browser context per test, its engine CPython's engine.api.handle
                 behind a stand-in worker (tests/support/fast_engine.py; the marker
                 real_engine keeps Pyodide), that fails the test on console
                 errors, page errors, any Content-Security-Policy violation (page,
                 frames and workers) and any request that leaves localhost or goes
                 to an origin no page of the test was opened at (or that it added to
                 request.node.page_origins: a lesson page of another origin); service workers
                 are blocked there (tests/runtime/test_service_worker.py opts in)
    blank_page   `page`, opened on an empty HTML page of the site's origin, for
                 tests that only need the site's modules (engine-client.js, ...)
    open_blank   the same for another origin, e.g. a damaged copy from serve_copy
    serve_copy   serves a copy of dist/ that a test may break on purpose

Browser tests carry the `browser` marker (select with `-m browser`); a test that
expects console errors opts out with `@pytest.mark.allow_console_errors` (CSP
violations still fail it unless it is marked `allow_csp_violations`).
"""

import functools
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import build as build_script
from buildtools import BuildError, csp, serve
from buildtools.browser import CHROMIUM, CHROMIUM_ARGS
from tests.support import fast_engine
from tests.support.page import WIDGET_HELPERS

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
BLANK_PATH = "__test__/blank.html"
# Chromium logs every CSP violation as a console error ("Refused to ...", from
# pages and workers alike); the listener makes a page's own report unmistakable.
CSP_PREFIX = "CSP violation:"
CSP_LOGGED = ("Refused to", "Content Security Policy", "Content-Security-Policy")
CSP_LISTENER = (
    "addEventListener('securitypolicyviolation', (e) => console.error("
    f"'{CSP_PREFIX} ' + e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + "
    "' in ' + e.sourceFile + ':' + e.lineNumber));"
)
BLANK_HTML = (
    "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
    + csp.META_TAG
    + "<link rel='icon' href='data:,'><title>test page</title></head><body></body></html>"
)


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: runs in headless Chromium (select with -m browser)")
    config.addinivalue_line("markers", "node: runs the pinned Pyodide under Node.js")
    config.addinivalue_line("markers", "allow_console_errors: the test expects console or page errors")
    config.addinivalue_line("markers", "allow_csp_violations: the test expects Content-Security-Policy violations")
    config.addinivalue_line(
        "markers",
        "real_engine: the `page` fixture boots the real engine worker (Pyodide) instead of "
        "tests/support/fast_engine.py's stand-in that answers with CPython",
    )


# Every page of the site runs under script-src 'self' (buildtools/csp.py), which
# forbids eval. Playwright's wait_for_function evaluates a bare expression with
# eval in the page (a CSP violation, and an error), but calls a function
# expression through the debugger, which CSP does not govern; so a bare
# expression is wrapped into a function, for every test at once.
_FUNCTION = re.compile(r"^\s*(async\s*)?(function[\s(]|\(?[^(]*?\)?\s*=>)")


def _csp_safe(original):
    @functools.wraps(original)
    def wait_for_function(self, expression, *args, **kwargs):
        if isinstance(expression, str) and not _FUNCTION.match(expression):
            expression = f"() => ({expression})"
        return original(self, expression, *args, **kwargs)

    return wait_for_function


def _patch_wait_for_function():
    from playwright.sync_api import Frame, Page

    for cls in (Page, Frame):
        if not getattr(cls.wait_for_function, "csp_safe", False):
            cls.wait_for_function = _csp_safe(cls.wait_for_function)
            cls.wait_for_function.csp_safe = True


def pytest_collection_modifyitems(items):
    # Anything that uses the browser is a browser test, marked or not.
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def built_dist() -> Path:
    """dist/, rebuilt only if an input changed since the last build."""
    try:
        build_script.build(log=lambda *args: None)
    except BuildError as e:
        pytest.fail(f"the build failed: {e}", pytrace=False)
    return build_script.ROOT / "dist"


@pytest.fixture(scope="session")
def site_url(built_dist):
    server, url = serve.serve_in_thread(built_dist)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; install it with `apt-get install chromium`.", pytrace=False)
    from playwright.sync_api import sync_playwright

    _patch_wait_for_function()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, request):
    # Blocked so that a page's registration can never serve a test from a cache
    # (and so that routes see every request).
    context = browser.new_context(service_workers="block")
    context.set_default_timeout(15_000)  # no Playwright wait may hang a test
    context.add_init_script(CSP_LISTENER)
    context.add_init_script(WIDGET_HELPERS)
    errors, strays, violations = [], [], []
    request.node.csp_violations = violations  # for tests that expect some
    origins = set()  # the origins the test opened pages at
    request.node.page_origins = origins  # a test whose page loads the site from another origin adds it

    # tests/runtime is where Pyodide is the subject: the real worker there, always.
    fast = not request.node.get_closest_marker("real_engine") and not request.node.nodeid.startswith("tests/runtime/")

    def guard(route):
        # The site must work offline: nothing may leave this machine, and a page
        # asks nothing of an origin other than its own.
        parts = urlsplit(route.request.url)
        if parts.hostname in LOCAL_HOSTS and f"{parts.scheme}://{parts.netloc}" in origins:
            if not (fast and fast_engine.answer(route)):
                route.continue_()
        else:
            strays.append(route.request.url)
            route.abort()

    def opened(req):
        # Seen before any route (a page route may answer the navigation itself).
        if req.is_navigation_request():
            parts = urlsplit(req.url)
            origins.add(f"{parts.scheme}://{parts.netloc}")

    context.on("request", opened)

    context.route("**/*", guard)
    page = context.new_page()

    def on_console(message):
        # Browsers ask for /favicon.ico on their own; a page without one is not broken.
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            errors.append(f"console error: {message.text} ({message.location.get('url')})")
        if message.text.startswith(CSP_PREFIX) or (
            message.type == "error" and any(s in message.text for s in CSP_LOGGED)
        ):
            violations.append(f"{message.text} ({message.location.get('url')})")

    def on_worker(worker):
        # A worker's violations are not logged where Playwright sees them; the
        # same listener, added as soon as the worker exists, reports them.
        try:
            worker.evaluate(CSP_LISTENER)
        except Exception:  # the worker is already gone
            pass

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("worker", on_worker)
    yield page
    context.close()

    problems = [f"request to another origin: {u}" for u in strays]
    if not request.node.get_closest_marker("allow_console_errors"):
        problems += errors
    if not request.node.get_closest_marker("allow_csp_violations"):
        problems += [f"Content-Security-Policy violation: {v}" for v in violations]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def open_blank(page):
    """A function that opens `page` on an empty document at the given site's
    origin (the document is made up by the test; the modules it imports come from
    the site) and returns the page."""

    def open_at(site_url: str, query: str = ""):
        page.route(
            lambda url: urlsplit(url).path.endswith("/" + BLANK_PATH),
            lambda route: route.fulfill(body=BLANK_HTML, content_type="text/html"),
        )
        page.goto(site_url + BLANK_PATH + query)
        return page

    return open_at


@pytest.fixture
def blank_page(open_blank, site_url):
    """`page`, opened on an empty document of the built site's origin."""
    return open_blank(site_url)


@pytest.fixture
def serve_copy(built_dist, tmp_path):
    """Serve a copy of dist/ (to break on purpose) on its own port:
    `url = serve_copy(lambda site: (site / "x").unlink())`."""
    servers = []

    def start(damage):
        site = tmp_path / "site"
        shutil.copytree(built_dist, site)
        damage(site)
        server, url = serve.serve_in_thread(site)
        servers.append(server)
        return url

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
