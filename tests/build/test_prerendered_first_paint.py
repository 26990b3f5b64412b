"""web/boot/first-paint.js: the prerendered answers the page draws before the engine
is ready are the engine's own (CPython's here; Pyodide's in
test_pyodide_parity.py), for the preset asked for or the default one."""

import json

import pytest

from buildtools import prerender
from engine import api

pytestmark = pytest.mark.browser

PRERENDERED = """
async (ids) => {
  const { prerendered } = await import("/boot/first-paint.js");
  const out = [];
  for (const id of ids) out.push(await prerendered(id));
  return out;
}
"""


def cpython(request: dict):
    return json.loads(api.handle(json.dumps(request)))


def test_prerendered_answers_equal_the_engines(blank_page):
    presets = cpython({"cmd": "presets"})
    ids = [p["id"] for p in presets["presets"]]
    got = blank_page.evaluate(PRERENDERED, ids)
    for preset_id, first in zip(ids, got):
        assert first["id"] == preset_id
        assert first["presets"] == presets
        assert first["preset"] == cpython({"cmd": "preset", "id": preset_id})
        # (a preset with group blocks: at the level the page opens it at, buildtools/prerender.py)
        assert first["load"] == cpython(json.loads(prerender.requests_for(preset_id)["load"]))


def test_unknown_or_no_preset_gives_the_default(blank_page):
    default = cpython({"cmd": "presets"})["presets"][0]["id"]
    got = blank_page.evaluate(PRERENDERED, [None, "no-such-preset", "../build"])
    assert [first["id"] for first in got] == [default] * 3
    assert got[0]["load"] == cpython({"cmd": "load", "preset": default})


def test_one_download_serves_every_preset(blank_page, site_url):
    requests = []
    blank_page.on("request", lambda r: requests.append(r.url))
    blank_page.evaluate(PRERENDERED, ["diamond", "square", None])
    assert [u for u in requests if "/prerender/" in u] == [site_url + "prerender/all.json"]


@pytest.mark.allow_console_errors
def test_missing_file_gives_null_not_an_error(serve_copy, open_blank):
    page = open_blank(serve_copy(lambda site: (site / "prerender" / "all.json").unlink()))
    assert page.evaluate(PRERENDERED, ["diamond"]) == [None]
