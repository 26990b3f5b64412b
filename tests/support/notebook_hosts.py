"""What the tests of every notebook host share: the widget's host element once it is ready,
stepping a pass to its end, the grads on screen, and a screenshot at a given size."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.page import STEP_TIMEOUT_MS
from tests.support.waits import after_frames

# Where the hosts' screenshots go.
SCREENSHOTS = Path(os.environ.get("GRADWALK_NOTEBOOK_SCREENSHOTS", "/tmp"))


def widget_ready(root, console_errors=(), timeout_ms: int = STEP_TIMEOUT_MS):
    """The element the widget mounted into (marked data-engine='ready' once it has its first
    answers), inside `root` (a page or a locator); fails quoting the console errors if it never is."""
    ready = root.locator("[data-engine='ready']")
    try:
        ready.first.wait_for(state="attached", timeout=timeout_ms)
    except Exception:
        logged = "\n".join(console_errors) or "(nothing)"
        pytest.fail(f"the widget was not ready in time; the page's console errors:\n{logged}", pytrace=False)
    return ready


def step_to_end(root, max_steps: int = 60) -> int:
    """Press Step forward until it is disabled (the end of the pass on screen); the steps taken."""
    forward = root.get_by_role("button", name="Step forward", exact=True)
    steps = 0
    while forward.get_attribute("aria-disabled") != "true":
        forward.click()
        steps += 1
        assert steps <= max_steps, "the pass did not end"
    return steps


def on_screen(root, field: str) -> dict[str, float]:
    """Each node's `field` ("grad" or "data") as the graph shows it, by node name."""
    return {
        g.get_attribute("data-node"): float(g.get_attribute(f"data-{field}")) for g in root.locator("[data-node]").all()
    }


def micrograd_diamond():
    """micrograd's diamond (a = 2, d = (a + 1) * (a * 3)), and the engine's answer for it."""
    from micrograd.engine import Value

    from gradwalk import kernel

    a = Value(2.0)
    d = (a + 1) * (a * 3)
    return d, json.loads(kernel.handle({"cmd": "load"}, kernel.target(d)))


def screenshot(page, name: str, width: int = 1280, height: int = 800) -> Path:
    """The page at width × height, written to SCREENSHOTS/name."""
    page.set_viewport_size({"width": width, "height": height})
    after_frames(page, 2)  # the resize's layout and repaint
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    page.screenshot(path=str(path))
    return path
