"""What the tests share, imported by name (`from tests.support.page import open_page`):

fast_engine         the page fixture's engine: CPython's engine.api.handle behind a
                    stand-in for the engine's worker (no Pyodide boot; real_engine opts out)
code_standin        a stand-in for the code worker's entry, for the sandbox's tests
overlaps.js         the overlap test's measure of every text-carrying box, in the page
page                opening a page at a size (new_sized_page, sized_page) and waiting for
                    the engine, reading its nodes, choosing presets and tabs, waiting
                    for a run's or a mode's result, the accessibility audit
waits               waits on conditions instead of fixed moments: animation frames
                    rendered, a measure gone still, events collected by listeners
caches              the site's caches as the engine worker fills them, and its own
                    reports of each snapshot it stored or could not store
page_state          waiting until the page has settled, reading its state back from
                    its permalink, checking every node against the CPython engine
editor              typing a program into the page's editor and reading what it shows
links               permalinks made by hand: deflated programs, seeded random links
frames              reading a graph answer's frames as the page's stepper reads them
hostile_programs    malformed programs with the position and message a learner sees
presets             what each preset must show (its file's [expect] table), and how its
                    numbers are compared
sentences           the sentence checker: a message's arithmetic, repeats, digits and
                    group names, read as shown (tests/engine/test_sentences.py runs it)
built_site          a built site's build.json, and files fetched from a server
cross_origin        a lesson page on a second origin that loads the widget from the
                    site, under the Content-Security-Policy docs/page.md lists
pyodide             the built site's Pyodide run under Node.js on a batch of requests
notebook            a learner's graph's exact state, and kernel answers by their numbers
learner_engines     micrograd-style engines a learner writes, right and wrong
demo_mlp            micrograd's demo loss (65,818 nodes) built deterministically, the
                    lecture's MLP classes and a microgpt-style model
jupyterlab_harness  a real JupyterLab or Notebook 7, offline, driven in Chromium
                    (lab_offline.py is the script its server runs under)
marimo_harness      a served marimo notebook (`marimo run`), offline, under lab_offline.py
notebook_hosts      what every notebook host's test reads: the widget once ready, a pass
                    stepped to its end, the numbers on screen, a screenshot
generated_site      a site made by MkDocs, Sphinx or mystmd from examples/sites/, served
                    with a strict CSP; its engine workers; its lessons driven
"""
