"""The browser's Back and Forward on Gradwalk's own page (web/links.js): a new preset,
a visit order run, an experiment entered each get a history entry, so Back undoes
them and never leaves the site; steps only update the current entry. A <grad-walk>
on a lesson page never touches the page's history. And the Embed dialog's iframe
snippet carries the resize script that docs/page.md shows, and a learner's program as
its readable text.

The diamond (presets/diamond.toml): a = 2, b = 3, c = 6, d = 18, a.grad 15 (9 when b is visited
before d). The square: a = 3, b = a·a = 9, a.grad 6."""

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from tests.support.page import (
    BOOT_TIMEOUT_MS,
    STEP_TIMEOUT_MS,
    button,
    choose,
    nodes,
    open_page,
    order,
    run_order,
    show_tab,
    wait_for_why,
    why_result,
)

ROOT = Path(__file__).resolve().parents[2]


def entries(page):
    return page.evaluate("history.length")


def wait_for_url(page, *parts):
    """Wait until the address bar holds every part (the URL is written 200 ms after a change)."""
    page.wait_for_function(
        "(parts) => parts.every((p) => location.search.includes(p))", arg=list(parts), timeout=STEP_TIMEOUT_MS
    )


def settled(page):
    """Wait until no debounced work is pending (the link's 200 ms debounce among it: the
    page counts it as busy, web/boot/busy.js) and no engine call is in flight."""
    page.wait_for_function("() => !document.documentElement.dataset.busy", timeout=STEP_TIMEOUT_MS)


def wait_for_graph(page, graph, pass_, step):
    page.wait_for_function(
        "([g, p, s]) => gwRoot().getElementById('graph').dataset.graph === g"
        " && gwHost().dataset.pass === p && gwHost().dataset.step === s",
        arg=[graph, pass_, step],
        timeout=STEP_TIMEOUT_MS,
    )


def test_back_undoes_a_preset_a_run_and_an_experiment_and_stays_on_the_site(page, site_url):
    open_page(page, site_url)
    wait_for_url(page, "preset=add-mul")  # the first preset, written over the bare address
    start = entries(page)
    choose(page, "diamond")
    wait_for_url(page, "preset=diamond")
    assert entries(page) == start + 1
    for _ in range(3):
        button(page, "Step forward").click()
    wait_for_url(page, "pass=forward", "step=2")
    settled(page)
    assert entries(page) == start + 1  # steps replace the entry

    choose(page, "square")
    wait_for_url(page, "preset=square")
    button(page, "Step forward").click()
    wait_for_url(page, "preset=square", "pass=forward", "step=0")
    assert entries(page) == start + 2

    show_tab(page, "Visit order")
    page.locator("#visit-order li[data-label='a']").focus()
    page.keyboard.press("Alt+ArrowUp")
    assert order(page) == ["a", "b"]
    run_order(page)
    wait_for_url(page, "order=a,b", "pass=experiment", "step=2")  # the run's last visit (it plays)
    assert entries(page) == start + 3
    assert nodes(page)["a"] == ("3", "6")

    # Back: the run is undone, at the place the square was left.
    page.go_back()
    wait_for_graph(page, "square", "forward", "0")
    assert "order=" not in page.evaluate("location.search")
    assert order(page) == ["b", "a"]
    assert nodes(page) == {"a": ("3", ""), "b": ("", "")}
    assert page.locator("#experiment-body .verdict").count() == 0

    # Back again: the diamond, two forward steps in.
    page.go_back()
    wait_for_graph(page, "diamond", "forward", "2")
    assert nodes(page) == {"a": ("2", ""), "b": ("3", ""), "c": ("6", ""), "d": ("", "")}
    assert page.get_by_label("Preset", exact=True).input_value() == "diamond"
    # And again: the first preset as the page opened, still on the site.
    page.go_back()
    wait_for_graph(page, "add-mul", "start", "-1")
    assert page.url == site_url + "?gw=1&preset=add-mul"

    # Forward three times: the diamond, the square, then its run, redone.
    page.go_forward()
    wait_for_graph(page, "diamond", "forward", "2")
    page.go_forward()
    wait_for_graph(page, "square", "forward", "0")
    page.go_forward()
    wait_for_graph(page, "square", "experiment", "2")
    assert nodes(page)["a"] == ("3", "6")
    assert order(page) == ["a", "b"]
    settled(page)
    assert entries(page) == start + 3  # restoring an entry adds none

    # An experiment entered is an entry too; Back leaves it, Forward brings it back at its step.
    show_tab(page, "Why reverse mode")
    page.get_by_role("tab", name="Path sums", exact=True).click()
    page.locator("#paths-wrt").select_option("a")
    before = why_result(page)
    button(page, "Walk its paths").click()
    wait_for_why(page, before)
    wait_for_url(page, "run=paths")
    assert entries(page) == start + 4
    page.go_back()
    wait_for_graph(page, "square", "experiment", "2")
    assert page.locator("#why-active").is_hidden()
    page.go_forward()
    wait_for_graph(page, "square", "mode", "0")
    assert page.inner_text("#position").startswith("Path sums for a")


def test_a_widget_on_a_lesson_page_leaves_the_pages_history_alone(page, site_url):
    page.goto(site_url + "lesson.html")
    page.wait_for_function("document.querySelector('#widget-order')?.dataset.engine === 'ready'", timeout=90_000)
    start = entries(page)
    address = page.url
    widget = page.locator("#widget-order")
    item = widget.locator("#visit-order li[data-label='b']")
    item.focus()
    item.press("Alt+ArrowUp")
    item.press("Alt+ArrowUp")
    widget.get_by_role("button", name="Run order").click()
    widget.locator(".verdict.is-wrong").wait_for(timeout=STEP_TIMEOUT_MS)
    widget.get_by_role("button", name="Step back", exact=True).click()
    settled(page)
    assert entries(page) == start
    assert page.url == address


def test_embed_dialog_iframe_snippet_includes_the_resize_script_of_the_docs(page, site_url):
    open_page(page, site_url, "diamond")
    page.get_by_role("button", name="Embed", exact=True).click()
    dialog = page.get_by_role("dialog", name="Embed this widget")
    dialog.get_by_label("Embed as").select_option("iframe")
    lines = dialog.get_by_label("Snippet").input_value().split("\n")
    assert lines[0].startswith('<iframe src="') and len(lines) == 2
    # The docs' snippet, with this site's address for theirs.
    docs = (ROOT / "docs" / "page.md").read_text()
    documented = next(line for line in docs.splitlines() if "embed-resize.js" in line and line.startswith("<script"))
    assert lines[1] == documented.replace("https://example.org/gradwalk/", site_url)
    # And the script is there to load.
    response = page.request.get(site_url + "embed-resize.js")
    assert response.ok and "gradwalk:height" in response.text()
    # The element form needs none (it sizes itself).
    dialog.get_by_label("Embed as").select_option("element")
    assert "embed-resize" not in dialog.get_by_label("Snippet").input_value()


class _GradWalkAttributes(HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag == "grad-walk":
            self.attributes = dict(attrs)


def test_embed_dialog_writes_a_learners_program_as_its_readable_text(page, site_url):
    program = "a = 2\nb = a * a + 3"
    page.goto(site_url + "?program=" + quote(program), timeout=STEP_TIMEOUT_MS)
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
    assert page.get_attribute("#graph", "data-graph") == "program" and "b" in nodes(page)
    page.get_by_role("button", name="Embed", exact=True).click()
    dialog = page.get_by_role("dialog", name="Embed this widget")
    dialog.get_by_label("Embed as").select_option("iframe")
    snippet = dialog.get_by_label("Snippet").input_value()
    src = snippet.split('src="')[1].split('"')[0].replace("&amp;", "&")
    # In the iframe's address: the program's words, not a compressed blob.
    assert "program=a+=+2%0Ab+=+a+*+a+%2B+3" in src and "prog=" not in src, src
    # The element takes it as an attribute, line breaks as &#10;, which reads back as the program.
    dialog.get_by_label("Embed as").select_option("element")
    snippet = dialog.get_by_label("Snippet").input_value()
    assert 'program="a = 2&#10;b = a * a + 3"' in snippet, snippet
    parser = _GradWalkAttributes()
    parser.feed(snippet)
    assert parser.attributes["program"] == program
    # And the iframe's address opens that program.
    page.goto(src, timeout=STEP_TIMEOUT_MS)
    page.wait_for_function("document.documentElement.dataset.engine === 'ready'", timeout=BOOT_TIMEOUT_MS)
    assert page.get_attribute("#graph", "data-graph") == "program" and "b" in nodes(page)
    assert "b = a * a + 3" in page.inner_text("#program") and page.locator("#link-notice").is_hidden()
