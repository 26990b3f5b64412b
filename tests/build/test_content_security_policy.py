"""The Content-Security-Policy (buildtools/csp.py): every built HTML page
declares it, `serve` sends it as a header with pages and scripts (a worker takes
its policy from its own script's header), the page has nothing the policy would
block, and the `page` fixture really notices a violation (conftest.py fails any
browser test that causes one, in the page, a frame or the worker)."""

import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest

from buildtools import csp
from tests.support.waits import wait_seen

# The page tests below check the real worker's policy (its script's header).
pytestmark = pytest.mark.real_engine


class Audit(HTMLParser):
    """What a strict policy would block in a page: inline scripts, inline
    event handlers, style attributes, <style> blocks, javascript: links."""

    def __init__(self):
        super().__init__()
        self.metas, self.problems, self.in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.metas.append(a.get("content"))
        if tag == "script":
            if not a.get("src"):
                self.problems.append("inline <script>")
            self.in_script = True
        if tag == "style":
            self.problems.append("<style> block")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name == "style":
                self.problems.append(f"<{tag} style=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}=javascript:...>")
            if name in ("href", "src") and "://" in (value or ""):
                self.problems.append(f"<{tag} {name}={value}> (another origin)")

    def handle_endtag(self, tag):
        if tag == "script":
            self.in_script = False


def test_policy_is_strict():
    policy = dict(d.split(" ", 1) for d in csp.HEADER_POLICY.split("; "))
    assert policy["script-src"] == "'self' 'wasm-unsafe-eval'"  # no 'unsafe-eval', no inline
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert "frame-ancestors" not in csp.META_POLICY  # ignored (with an error) in <meta>
    for value in policy.values():
        assert "unsafe-inline" not in value and "unsafe-eval'" not in value.replace("wasm-unsafe-eval'", "")
        assert "http" not in value and "blob:" not in value


def test_every_built_page_declares_the_policy_and_has_nothing_it_blocks(built_dist):
    # The code sandbox has a policy of its own (below).
    pages = sorted(p for p in built_dist.rglob("*.html") if p.name != csp.SANDBOX_FILE)
    assert {p.name for p in pages} >= {"index.html", "lesson.html"}
    for path in pages:
        audit = Audit()
        audit.feed(path.read_text())
        rel = path.relative_to(built_dist)
        assert audit.metas == [csp.META_POLICY], f"{rel}: {audit.metas}"
        assert audit.problems == [], f"{rel}: {audit.problems}"
        # The meta must come before anything it governs.
        text = path.read_text()
        assert text.index(csp.META_TAG) < text.index("<script") if "<script" in text else True


def _headers(url):
    with urllib.request.urlopen(url) as response:
        return response.headers


@pytest.mark.parametrize(
    "path, expected",
    [
        ("", True),
        ("index.html", True),
        ("lesson.html", True),
        ("worker.js", True),
        ("widget.js", True),
        ("build.json", False),
        ("style.css", False),
    ],
)
def test_serve_sends_the_policy_with_pages_and_scripts(site_url, path, expected):
    headers = _headers(site_url + path)
    assert (headers.get("Content-Security-Policy") == csp.HEADER_POLICY) is expected, headers


def test_serve_sends_the_policy_with_the_pyodide_runtime_script(site_url, built_dist):
    import json

    index = json.loads((built_dist / "build.json").read_text())["pyodide_index"]
    assert _headers(site_url + index + "pyodide.mjs")["Content-Security-Policy"] == csp.HEADER_POLICY


@pytest.mark.allow_console_errors
@pytest.mark.allow_csp_violations
def test_an_inline_script_is_blocked_and_reported(page, serve_copy, request):
    """Proves the check works: a page with an inline script added loads, the
    script does not run, and the fixture records the violation."""

    def add_inline_script(site):
        index = site / "index.html"
        text = index.read_text()
        index.write_text(text.replace("</head>", "<script>document.title = 'injected';</script></head>", 1))
        (site / "index.html.gz").unlink(missing_ok=True)
        (site / "index.html.br").unlink(missing_ok=True)

    url = serve_copy(add_inline_script)
    page.goto(url)
    page.locator("html[data-engine='ready']").wait_for(state="attached", timeout=60_000)
    assert page.title() != "injected"
    violations = request.node.csp_violations
    assert any("script-src" in v for v in violations), violations


@pytest.mark.allow_console_errors
@pytest.mark.allow_csp_violations
def test_a_violation_inside_a_worker_is_reported(page, serve_copy, request):
    """The engine's worker runs under the header's policy: eval there is refused,
    and the refusal reaches the fixture (as a console error from the worker)."""

    def add_worker(site):
        (site / "evil-worker.js").write_text(
            # (A moment's wait: the fixture's listener arrives as the worker starts.)
            "setTimeout(() => {\n  let outcome;\n"
            "  try { outcome = String(eval('1 + 1')); } catch (e) { outcome = e.name; }\n"
            "  postMessage(outcome);\n}, 300);\n"
        )

    url = serve_copy(add_worker)
    page.goto(url + "lesson.html")
    outcome = page.evaluate("""() => new Promise((resolve) => {
        const w = new Worker('evil-worker.js', { type: 'module' });
        w.onmessage = (e) => resolve(e.data);
        w.onerror = (e) => resolve('error: ' + e.message);
    })""")
    assert outcome == "EvalError"
    # The worker's report comes as a console message, which can trail its answer
    # on a busy machine: wait for it (up to 20 s: 5 s once missed it in a whole run on
    # two cores) rather than a fixed moment.
    violations = request.node.csp_violations
    reported = lambda: any("evil-worker.js" in v or "eval" in v for v in violations)  # noqa: E731
    wait_seen(page, reported, 20)  # woken by each console message the fixture collects
    assert reported(), violations


@pytest.mark.allow_console_errors
@pytest.mark.allow_csp_violations
def test_a_request_to_another_origin_is_refused_by_the_policy(page, site_url, request):
    """The policy itself refuses what the fixture's route guard would also
    catch: a fetch to another origin never leaves the page."""
    page.goto(site_url + "lesson.html")
    outcome = page.evaluate("""() => fetch('https://example.com/x').then(() => 'fetched', (e) => e.name)""")
    assert outcome == "TypeError"
    # The violation event is dispatched as a separate task, and reported as a console message.
    refused = lambda: any("connect-src blocked https://example.com/x" in v for v in request.node.csp_violations)  # noqa: E731
    wait_seen(page, refused, 5)
    assert refused(), request.node.csp_violations


def test_the_code_sandbox_allows_no_network_and_only_its_own_script(built_dist, site_url):
    # web/code-sandbox.html, where "Your code" runs: its policy names its one inline
    # script by hash, allows scripts and workers from blob: only, and no connection at all;
    # the header adds the sandbox, for a page that frames it without the attribute.
    html = (built_dist / csp.SANDBOX_FILE).read_text()
    audit = Audit()
    audit.feed(html)
    assert audit.metas == [csp.sandbox_policy(html)]
    policy = dict(d.split(" ", 1) for d in csp.sandbox_policy(html).split("; "))
    assert policy["connect-src"] == "'none'" and policy["default-src"] == "'none'"
    assert policy["script-src"] == f"'{csp.inline_script_hash(html)}' blob: 'wasm-unsafe-eval'"
    assert policy["worker-src"] == "blob:"
    assert "unsafe-inline" not in html and "'self'" not in csp.sandbox_policy(html)
    header = _headers(site_url + csp.SANDBOX_FILE)["Content-Security-Policy"]
    assert header == csp.sandbox_policy(html) + "; sandbox allow-scripts"
    # The frame is made sandboxed, and never given the site's origin.
    source = (Path(__file__).resolve().parents[2] / "web" / "boot" / "code-sandbox.js").read_text()
    assert 'setAttribute("sandbox", "allow-scripts")' in source
    assert "allow-same-origin" not in source.replace("never allow-same-origin", "")
