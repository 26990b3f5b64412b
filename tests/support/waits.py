"""Waits on what a test needs instead of a fixed moment, each with a timeout:

after_frames(page, n)        n more animation frames have been rendered (a frame's
                             ResizeObserver callbacks and the requestAnimationFrame
                             callbacks the page had asked for by then have run)
wait_still(page, js, ...)    what `js` measures has stopped changing for a few frames
                             (a smooth scroll or pan has ended), and that measure
wait_seen(page, check, ...)  a condition over what Python-side listeners collected
                             (console messages, ...) holds, woken by each new event
"""

import json
import time

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

FRAMES_JS = """([n, ms]) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`${n} animation frames did not come within ${ms} ms`)), ms);
  const tick = (k) => (k ? requestAnimationFrame(() => tick(k - 1)) : (clearTimeout(timer), resolve(true)));
  tick(n);
})"""


def after_frames(page, n=3, timeout_ms=5_000):
    """Wait until `page` (a page or a frame) has rendered `n` more frames."""
    page.evaluate(FRAMES_JS, [n, timeout_ms])


def wait_still(page, measure_js, arg=None, frames=5, timeout_ms=5_000):
    """What `measure_js` (a function of `arg`, returning JSON-able data) gives once it has
    stayed the same for `frames` animation frames in a row (polled once a frame)."""
    page.evaluate("() => { globalThis.__gwStill = { last: undefined, same: 0 }; }")
    predicate = f"""(arg) => {{
      const now = JSON.stringify(({measure_js})(arg));
      const s = globalThis.__gwStill;
      if (s.last === now) s.same += 1;
      else Object.assign(s, {{ last: now, same: 0 }});
      return s.same >= {int(frames)} ? now : false;
    }}"""
    return json.loads(page.wait_for_function(predicate, arg=arg, timeout=timeout_ms).json_value())


def wait_seen(page, check, timeout_s, event="console"):
    """Wait until `check()` holds, where what it looks at is filled by the page's own
    listeners (for `event`): woken by each such event, until `timeout_s` have passed.
    Returns check()'s last answer (the caller asserts it)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            page.wait_for_event(event, timeout=left * 1000)
        except PlaywrightTimeoutError:
            break
    return check()
