"""The step budget their code runs under: jumps back (a loop's turns) counted by
sys.monitoring (Python 3.12 and later, so Pyodide), else instructions counted by tracing."""

from __future__ import annotations

import sys

# How much of their code one run may execute before it is stopped as endless: jumps back (a
# loop's turns) where sys.monitoring can count them (Python 3.12 and later, so Pyodide), else
# instructions (Python 3.11's tracing; a loop on one line makes no line events to count).
MAX_JUMPS = 1_000_000

MAX_INSTRUCTIONS = 5_000_000

_MONITORING = getattr(sys, "monitoring", None)

_TOOL_NAME = "gradwalk: your code"


class _OutOfSteps(BaseException):
    """Raised inside their code when it runs past the budget (a BaseException, so that an
    ``except Exception`` of theirs doesn't swallow it)."""


def _start_counting_jumps(callback) -> int | None:
    """Have sys.monitoring call ``callback`` on every jump back, with a free tool id (None
    where there is no sys.monitoring, or no free id)."""
    if _MONITORING is None:
        return None
    for tool in (4, 3):
        if _MONITORING.get_tool(tool) is None:
            _MONITORING.use_tool_id(tool, _TOOL_NAME)
            _MONITORING.register_callback(tool, _MONITORING.events.JUMP, callback)
            _MONITORING.set_events(tool, _MONITORING.events.JUMP)
            return tool
    return None


def _stop_counting_jumps(tool: int | None):
    if tool is not None:
        _MONITORING.set_events(tool, 0)
        _MONITORING.register_callback(tool, _MONITORING.events.JUMP, None)
        _MONITORING.free_tool_id(tool)
