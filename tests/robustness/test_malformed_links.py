"""Random and malformed permalinks never break the page.

Every link below ends with the engine ready, a graph on screen whose every node equals
the CPython engine's trace at the state the page shows (read back from the URL the page
rewrote), a visible notice naming what was ignored, and no console error.

Booting a page costs seconds (Pyodide starts afresh on every load), so:
  - every link (the hand-written ones and GRADWALK_URL_RANDOM random ones, default 300)
    goes through the page's own link reader (web/url.js: parseLink, and
    decodeProgram for programs) in one page: it never throws, and a damaged link
    reports a problem;
  - a representative set of the hand-written links and a few seeded random ones
    (GRADWALK_URL_PAGES=all: every one of them) are opened as real pages.
The seed (GRADWALK_URL_SEED) is printed and repeated in every failure message.
"""

import os
import random

from tests.support.links import b64, deflate, random_link
from tests.support.page_state import check_against_engine, open_settled

SEED = int(os.environ.get("GRADWALK_URL_SEED", "20261123"))
RANDOM_COUNT = int(os.environ.get("GRADWALK_URL_RANDOM", "300"))
ALL_PAGES = os.environ.get("GRADWALK_URL_PAGES", "") == "all"
RANDOM_PAGES = 2


# (query, a fragment the notice must contain, or None for no notice; page=True: also
# opened as a real page in the default run)
LINKS = [
    ("gw=1&preset=nope", 'no preset called "nope"', True),
    ("preset=../../etc/passwd", "is not a preset name", False),
    ("preset=javascript:alert(1)", "is not a preset name", False),
    ("preset=%E0%A4%A&v=%FF%FE", "is not a preset name", False),
    ("preset=diamond&v=a:abc", "input values", False),
    ("preset=diamond&v=a:NaN", "input values", False),
    ("preset=diamond&v=a:Infinity", "input values", False),
    ("preset=diamond&v=a:-Infinity", "input values", False),
    ("preset=diamond&v=a:1e999", "input values", False),
    ("preset=diamond&v=a:1e13", "input values", False),
    ("preset=diamond&v=a:1,b", "input values", False),
    ("preset=diamond&v=a:1:2", "input values", False),
    ("preset=diamond&v=zz:3", "input values could not be used", True),
    ("preset=diamond&v=constructor:1", "input values could not be used", False),
    ("preset=diamond&pass=backward&step=999", "has no step 999", True),
    ("preset=diamond&pass=forward&step=-1", "is not a step number", False),
    ("preset=diamond&pass=forward&step=1e3", "is not a step number", False),
    ("preset=diamond&pass=forward&step=99999999999", "is not a step number", False),
    ("preset=diamond&step=3", "a step was given without a pass", False),
    ("preset=diamond&pass=sideways&step=1", "pass=sideways is not one of", False),
    ("preset=diamond&pass=experiment&step=1", "needs a visit order", False),
    ("preset=diamond&order=d,c,b,a,a&pass=experiment&step=2", "visit order could not be used", True),
    ("preset=diamond&order=zz", "visit order could not be used", False),
    ("preset=diamond&order=d", "visit order could not be used", False),
    ("preset=diamond&order=,,,", "visit order in the link is damaged", False),
    ("preset=diamond&order=" + ",".join(["d"] * 2001), "visit order in the link is damaged", False),
    ("preset=small-network&open=g0,<script>", "open groups in the link are damaged", False),
    ("preset=small-network&open=" + ",".join(["g1"] * 2001), "open groups in the link are damaged", False),
    ("preset=small-network&open=g77&pass=backward&step=2", "open groups could not be used", False),
    ("prog=!!!!", "damaged", False),
    ("prog=AAAA", "damaged", False),
    ("prog=A", "damaged", False),
    ("prog=" + deflate("a = 2 +"), "does not run", True),
    ("src=" + b64(b"import os"), "does not run", False),
    ("src=" + b64(b"a = 2\n\xff\xfe"), "damaged", False),
    ("prog=" + deflate("a = 1\n" * 10_001), "too long", False),
    ("prog=" + deflate(b"\0" * 10_000_000), "too long", True),  # a decompression bomb
    ("prog=" + "A" * 100_001, "too long", False),
    ("prog=" + deflate("a = 2\nb = a * a") + "&v=zz:1", "input values could not be used", False),
    ("gw=2&preset=diamond", "format version 2", True),
    ("gw=%00&preset=diamond", "format version", False),
    ("preset=diamond&prog=" + deflate("a = 1"), "names both", False),
    # program= (the Embed dialog's readable form) is checked as prog= is.
    ("program=" + "a" * 50_001, "too long", False),
    ("preset=diamond&program=a+%3D+1", "names both", False),
    ("program=a+%3D+2+%2B", "does not run", False),
    ("cp=maybe", "cp=maybe is not 0 or 1", False),
    ("embed=yes", "embed=yes is not 0 or 1", False),
    ("embed=1&hide=everything", 'no part called "everything"', False),
    ("embed=1&start=middle", "start=middle is not one of", False),
    ("preset=diamond&v=a:1e308", "input values", False),
    # The modes' parameters, checked by what their engine modules declare (engine/modes/).
    ("why=sideways", 'no experiment called "sideways"', True),
    ("preset=diamond&run=nope", 'no experiment called "nope"', False),
    ("preset=diamond&why=again&zero=2", "zero=2 is not 0 or 1", False),
    ("preset=diamond&why=paths&family=trees", "family=trees is not one of diamonds, neuron", False),
    ("preset=cos&why=descent&lr=11&moves=dd", "lr=11 is not a number above 0 and at most 10", True),
    ("preset=cos&why=descent&moves=dxd", "moves=dxd is not a list of at most 200 moves", False),
    ("preset=diamond&wstep=-1", "wstep=-1 is not a step number", False),
    ("preset=diamond&rule=sideways", "rule=sideways is not one of push, pull", False),
    # Passed through or harmless: the page shows what was asked, with no notice.
    ("preset=diamond&preset=neuron", None, False),  # the first one counts
    ("foo=bar&boot=&sw=&%00=%00", None, False),
    ("preset=diamond#%3Cscript%3Ealert(1)%3C/script%3E", None, False),
    ("preset=diamond&v=a:-0&pass=backward&step=2", None, True),
    ("preset=neuron&v=x1:1e-300,w1:-1e12&pass=backward&step=4", None, False),
    ("preset=double-diamond&order=y,f,e,d,c,b,a&pass=experiment&step=99", "has no step 99", False),
]


def random_links(count=RANDOM_COUNT, seed=SEED):
    rng = random.Random(seed)
    return [random_link(rng) for _ in range(count)]


# Problems the link reader finds by itself (the others need the engine: is there such a
# preset, such an input, such a step).
PARSE_LEVEL = (
    "is not a preset name",
    "are not name:number",
    "is not a step number",
    "without a pass",
    "is not one of",
    "damaged",
    "too long",
    "format version",
    "names both",
    "is not 0 or 1",
    "no part called",
)


def read_by_the_link_reader(fragment):
    return any(f in fragment for f in PARSE_LEVEL) or fragment == "input values"


READ_LINKS_JS = """async ({links}) => {
  const { parseLink, decodeProgram } = await import("/url.js");
  const out = [];
  for (const q of links) {
    try {
      const r = parseLink(q);
      const problems = [...r.problems];
      if (r.encodedProgram !== null) {
        try { await decodeProgram(r.encodedProgram, r.programFormat); }
        catch (e) { problems.push(e.message); }
      }
      out.push({ok: true, problems, fatal: Boolean(r.fatal), any: r.any});
    } catch (e) {
      out.push({ok: false, error: String(e && e.stack || e)});
    }
  }
  return out;
}"""


def test_the_link_reader_never_throws(blank_page):
    print(f"\nGRADWALK_URL_SEED={SEED}")
    randoms = random_links()
    queries = ["?" + q for q, _, _ in LINKS] + ["?" + q for q in randoms]
    results = blank_page.evaluate(READ_LINKS_JS, {"links": queries})
    failures = []
    for q, r in zip(queries, results):
        if not r["ok"]:
            failures.append(f"{q[:120]}: threw {r['error']}")
    for (q, fragment, _), r in zip(LINKS, results):
        if fragment and r["ok"] and not r["problems"] and read_by_the_link_reader(fragment):
            failures.append(f"?{q[:120]}: no problem reported (expected {fragment!r})")
    reported = sum(1 for r in results[len(LINKS) :] if r["ok"] and r["problems"])
    print(
        f"link reader: {len(LINKS)} hand-written + {len(randoms)} random links, "
        f"{reported} random ones with a problem reported, {len(failures)} failures"
    )
    assert not failures, f"GRADWALK_URL_SEED={SEED}\n" + "\n".join(failures)


def open_link(page, site_url, query, fragment, seed_note=""):
    page.goto("about:blank")
    open_settled(page, site_url + "index.html?" + query)
    shown = page.evaluate("""() => ({
      nodes: gwRoot().querySelectorAll('#graph [data-node]').length,
      notice: gwRoot().querySelector('#link-notice').hidden ? null : gwRoot().querySelector('#link-notice').innerText,
      error: gwRoot().querySelector('#engine-error').hidden ? null : gwRoot().querySelector('#engine-error').innerText,
    })""")
    where = f"{seed_note}?{query[:200]}"
    assert shown["error"] is None, f"{where}: the engine error is showing: {shown['error']}"
    assert shown["nodes"] > 0, f"{where}: no graph on screen"
    _, problems = check_against_engine(page)
    assert not problems, f"{where}: the graph disagrees with the engine:\n" + "\n".join(problems)
    if fragment is None:
        assert shown["notice"] is None, f"{where}: an unexpected notice: {shown['notice']}"
    elif fragment != "?":
        assert shown["notice"] and fragment in shown["notice"], (
            f"{where}: the notice should name {fragment!r}; it says {shown['notice']!r}"
        )
    return shown


PAGE_LINKS = [(q, f) for q, f, on in LINKS if on or ALL_PAGES]


def test_malformed_links_open_the_default_with_a_notice(page, site_url):
    for query, fragment in PAGE_LINKS:
        open_link(page, site_url, query, fragment)
    print(f"\n{len(PAGE_LINKS)} malformed links opened as pages: each ready, consistent, with its notice")


def test_random_links_open_a_working_page(page, site_url):
    print(f"\nGRADWALK_URL_SEED={SEED}")
    links = random_links()
    chosen = links if ALL_PAGES else random.Random(SEED).sample(links, RANDOM_PAGES)
    notices = 0
    for query in chosen:
        shown = open_link(page, site_url, query, "?", seed_note=f"GRADWALK_URL_SEED={SEED} ")
        notices += shown["notice"] is not None
    print(f"{len(chosen)} random links opened as pages ({notices} with a notice): each ready and consistent")
