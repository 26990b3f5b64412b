"""<grad-walk> on a lesson page of another origin, which loads gradwalk.js from the
site, as an author's page loads it from the Gradwalk site (docs/page.md, "From another
site"): the site's server sends Access-Control-Allow-Origin, the workers start from a
blob: URL of the lesson's origin, and the lesson page runs under exactly the
Content-Security-Policy the docs list. Taking any one source out of that policy stops
the widget, and it says so in its box within seconds, with a link to its iframe form."""

import re
import time

import pytest

from tests.support.cross_origin import LessonServer, documented_policy, lesson_html, origin_of, without
from tests.support.page import BOOT_TIMEOUT_MS, axe_audit, axe_report
from tests.support.presets import agrees, expected_nodes
from tests.support.waits import wait_seen

pytestmark = [pytest.mark.browser, pytest.mark.real_engine]  # Pyodide itself is tested here

FAILS_WITHIN_MS = 5_000  # "within seconds": each failure below is said in about one
RUN_TIMEOUT_MS = 60_000  # the code worker boots a Python of its own first


@pytest.fixture(scope="module")
def lesson():
    server = LessonServer()
    yield server
    server.stop()


@pytest.fixture
def cross_origin(page, site_url, request):
    """`page`, allowed to reach the site from the lesson page's origin."""
    request.node.page_origins.add(origin_of(site_url))
    return page


def fallback(site_url, preset):
    """What an author puts inside the element for when gradwalk.js cannot load (docs/page.md)."""
    return (
        "<p class='fallback'>This interactive graph needs a script from the Gradwalk site. "
        f"<a href='{site_url}index.html?embed=1&amp;preset={preset}'>Open it on the Gradwalk site</a>.</p>"
    )


def workers_of(page):
    started = []
    page.on("worker", lambda worker: started.append(worker.url))
    return started


def step_to_the_end(widget):
    """Step forward until the Step forward button says there is nothing left; the
    position line after each step."""
    forward = widget.get_by_role("button", name="Step forward", exact=True)
    seen = []
    for _ in range(60):
        if forward.get_attribute("aria-disabled") == "true":
            return seen
        forward.click()
        seen.append(widget.locator("#position").inner_text())
    raise AssertionError(f"Step forward never reached the end: {seen}")


def grads(widget):
    return {
        label: (float(data), float(grad))
        for label, data, grad in widget.locator("#graph [data-node]").evaluate_all(
            "gs => gs.map(g => [g.dataset.node, g.dataset.data, g.dataset.grad])"
        )
    }


def test_two_widgets_from_another_origin_share_one_engine_under_the_documented_policy(cross_origin, site_url, lesson):
    page = cross_origin
    policy = documented_policy(origin_of(site_url))
    url = lesson.put(
        "/lesson.html",
        lesson_html(
            site_url,
            f"<grad-walk id='one' preset='diamond' questions='off'>{fallback(site_url, 'diamond')}</grad-walk>"
            "<grad-walk id='two' program='x = 2&#10;y = x * x + 3 * x'></grad-walk>",
        ),
        policy,
    )
    workers = workers_of(page)
    page.goto(url)
    assert origin_of(page.url) != origin_of(site_url)
    one, two = page.locator("#one"), page.locator("#two")
    for widget in (one, two):
        page.locator(f"#{widget.get_attribute('id')}[data-engine='ready']").wait_for(
            state="attached", timeout=BOOT_TIMEOUT_MS
        )
    assert page.evaluate("document.documentElement.dataset.engine") == "ready"
    # One engine for both: one worker, started from a blob: URL of the lesson's origin.
    assert len(workers) == 1 and workers[0].startswith(f"blob:{origin_of(url)}/"), workers
    # Once the element is defined, the author's fallback content is not on screen.
    assert one.locator(".fallback a").is_hidden()

    # The first widget steps both passes, to every grad the diamond must show.
    assert one.locator("#graph").get_attribute("data-graph") == "diamond"
    seen = step_to_the_end(one)
    assert seen[0] == "Forward pass · node 1 of 4" and "Forward pass · node 4 of 4" in seen, seen
    assert re.fullmatch(r"Backward pass · visit (\d+) of \1", seen[-1]), seen
    shown = grads(one)
    for label, (data, grad) in expected_nodes("diamond").items():
        assert agrees(data, shown[label][0]) and agrees(grad, shown[label][1]), (label, shown[label])

    # The second, the author's own program from its attribute, steps on its own.
    assert two.locator("#graph").get_attribute("data-graph") == "program"
    assert two.locator("#position").inner_text().startswith("Not started")
    two.get_by_role("button", name="Step forward", exact=True).click()
    assert two.locator("#position").inner_text().startswith("Forward pass · node 1 of")
    assert re.fullmatch(r"Backward pass · visit (\d+) of \1", one.locator("#position").inner_text())
    assert len(workers) == 1


def test_your_code_runs_in_its_own_worker_from_another_origin(cross_origin, site_url, lesson):
    # The code worker starts the way the engine's does, and the code editor and the
    # exercises come from the site too.
    page = cross_origin
    url = lesson.put(
        "/code.html",
        lesson_html(
            site_url, "<grad-walk id='one' preset='diamond' start='code' exercise='mul' questions='off'></grad-walk>"
        ),
        documented_policy(origin_of(site_url)),
    )
    workers = workers_of(page)
    page.goto(url)
    one = page.locator("#one")
    page.locator("#one[data-engine='ready']").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
    one.get_by_role("button", name="Show a solution", exact=True).click()
    one.locator("#stage-code").get_by_role("button", name="Run my code", exact=True).click()
    page.wait_for_function(
        "() => ['done', 'error'].includes(document.querySelector('#one').dataset.code)", timeout=RUN_TIMEOUT_MS
    )
    assert one.get_attribute("data-code") == "done", one.locator("#stage-code").inner_text()
    assert one.locator("[data-findings] [data-finding]").count() == 0
    assert one.locator("#graph [data-node].is-wrong").count() == 0
    # The engine's worker starts from a blob: URL of the lesson's origin; the code worker
    # from one of the code sandbox's opaque origin ("null"), in a frame of the site's.
    engine = [w for w in workers if w.startswith(f"blob:{origin_of(url)}/")]
    code = [w for w in workers if w.startswith("blob:null/")]
    assert len(engine) == 1 and len(code) == 1 and len(workers) == 2, workers


def open_failing(page, lesson, site_url, policy, name):
    url = lesson.put(
        f"/{name}.html",
        lesson_html(site_url, f"<grad-walk id='one' preset='diamond'>{fallback(site_url, 'diamond')}</grad-walk>"),
        policy,
    )
    started = time.monotonic()
    page.goto(url)
    return started


def says_it_failed(page, site_url, started, reason):
    """The widget's box says the engine could not start, and why, within seconds, with
    a link to its iframe form on the site; the graph's box says there is no graph."""
    one = page.locator("#one")
    page.locator("#one[data-engine='error']").wait_for(state="attached", timeout=FAILS_WITHIN_MS)
    seconds = time.monotonic() - started
    assert seconds * 1000 < FAILS_WITHIN_MS, seconds
    box = one.locator("#engine-error")
    assert box.is_visible() and "The engine could not start." in box.inner_text()
    assert re.search(reason, one.locator("#engine-error-text").inner_text()), box.inner_text()
    link = one.get_by_role("link", name="Open it on the Gradwalk site ↗")
    assert link.is_visible()
    assert link.get_attribute("href") == f"{site_url}index.html?embed=1&preset=diamond"
    assert "could not start" in one.locator("#graph-placeholder").inner_text()
    assert page.evaluate("document.documentElement.dataset.engine") == "error"


# Each source of the documented policy, and what its absence does.
SITE = "https://example.org"  # the docs' name for the site's origin
NEEDED = [
    ("script-src", SITE, "fallback"),
    ("script-src", "'wasm-unsafe-eval'", r"Content-Security-Policy does not allow WebAssembly"),
    ("worker-src", "blob:", r"worker\.js from 127\.0\.0\.1:\d+ could not be loaded"),
    ("worker-src", SITE, r"worker\.js from 127\.0\.0\.1:\d+ could not be loaded"),
    ("connect-src", SITE, r"Could not download build\.json \(network error\)"),
    ("style-src", SITE, "unstyled"),
    ("frame-src", SITE, "no code sandbox"),
]

# "Your code"'s runner starting on the lesson page: its error message, or "started".
START_CODE_RUNNER = """
async (site) => {
  const { createCodeRunner } = await import(site + "boot/code-runner.js");
  const runner = createCodeRunner({});
  try {
    await runner.start();
    return "started";
  } catch (error) {
    return error.message;
  } finally {
    runner.terminate();
  }
}
"""


@pytest.mark.allow_console_errors
@pytest.mark.allow_csp_violations
@pytest.mark.parametrize(("directive", "source", "outcome"), NEEDED, ids=[f"{d} {s}" for d, s, _ in NEEDED])
def test_every_source_of_the_documented_policy_is_needed(
    cross_origin, site_url, lesson, request, directive, source, outcome
):
    page = cross_origin
    site = origin_of(site_url)
    policy = without(documented_policy(SITE), directive, source).replace(SITE, site)
    started = open_failing(page, lesson, site_url, policy, f"without-{directive}-{len(source)}")
    if outcome == "fallback":
        # gradwalk.js never runs: the element is never defined, and the author's content shows.
        assert page.evaluate("customElements.get('grad-walk') === undefined")
        link = page.get_by_role("link", name="Open it on the Gradwalk site")
        assert link.is_visible() and link.get_attribute("href") == f"{site_url}index.html?embed=1&preset=diamond"
    elif outcome == "no code sandbox":
        # The widget works; only "Your code"'s sandbox, a frame of the site's, is refused, at once.
        page.locator("#one[data-engine='ready']").wait_for(state="attached", timeout=BOOT_TIMEOUT_MS)
        started = time.monotonic()
        said = page.evaluate(START_CODE_RUNNER, site_url)
        assert "does not allow frames from" in said and "frame-src" in said, said
        assert time.monotonic() - started < FAILS_WITHIN_MS / 1000
    elif outcome == "unstyled":
        # The widget's stylesheets are refused (and the policy says which directive).
        # (Reported as console messages, which the `page` fixture collects: woken by each.)
        wait_seen(page, lambda: any("style-src" in v for v in request.node.csp_violations), FAILS_WITHIN_MS / 1000)
        assert any("style-src" in v for v in request.node.csp_violations), request.node.csp_violations
    else:
        says_it_failed(page, site_url, started, outcome)


@pytest.mark.allow_console_errors
def test_engine_files_out_of_reach_are_said_within_seconds(cross_origin, site_url, lesson):
    # gradwalk.js and its stylesheets arrive; the engine's own files do not (a network error).
    page = cross_origin
    out_of_reach = re.compile(re.escape(site_url) + r"(build\.json|pyodide/)")
    page.context.route(out_of_reach, lambda route: route.abort())
    started = open_failing(page, lesson, site_url, documented_policy(origin_of(site_url)), "unreachable")
    says_it_failed(page, site_url, started, r"Could not download build\.json \(network error\)")
    results = axe_audit(page)  # the message, Retry and the link, as assistive technology finds them
    assert results.violations_count == 0, axe_report(results)
    # Retry tries again, and fails again as fast (nothing is left waiting at "downloading 0%").
    page.evaluate("""() => {
      const host = document.querySelector('#one');
      window.engineStates = [];
      new MutationObserver(() => window.engineStates.push(host.dataset.engine))
        .observe(host, { attributes: true, attributeFilter: ['data-engine'] });
    }""")
    page.locator("#one").get_by_role("button", name="Retry", exact=True).click()
    page.wait_for_function("() => window.engineStates.join() === 'loading,error'", timeout=FAILS_WITHIN_MS)
