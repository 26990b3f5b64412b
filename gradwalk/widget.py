"""The notebook widget's Python side: an anywidget whose front end is the page's widget.

The front end is one ES module, ``gradwalk/static/widget.js``, written by the build (it is
the same component as the page's ``<grad-walk>``). It talks to the kernel with anywidget's
custom messages, in the same shape the page's engine worker uses:

    front end → kernel   {"id": 7, "request": {"cmd": "load", ...}}   (or the request as a JSON string)
    kernel → front end   {"id": 7, "response": "<the answer, a JSON string>"}
                         {"id": 7, "error": "..."}                    (only if Python itself failed)

The synced trait ``source`` says what to load first: ``{"preset": "diamond"}``,
``{"program": "a = 2\\n..."}``, or ``{"kernel": {...}}`` for a graph read in the kernel
(then the front end sends requests without ``preset``/``program`` and the kernel answers
for that graph; ``kernel.editable`` says whether input edits can be recomputed). A widget
for a check's report also has ``"check"``: the report as data (``Report.as_dict``), to
open on its first problem.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from engine import check as engine_check
from engine.foreign import Foreign
from engine.network import Network

from . import kernel

try:
    import anywidget
    import traitlets
except ImportError:  # gradwalk.check works without them; show() says what is missing
    anywidget = traitlets = None

FRONT_END = Path(__file__).resolve().parent / "static" / "widget.js"


class FrontEndMissing(FileNotFoundError):
    """This copy of gradwalk has no built front end (gradwalk/static/widget.js)."""


def front_end() -> str:
    """The widget's ES module; a clear error when the build has not written it."""
    try:
        return FRONT_END.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FrontEndMissing(
            f"gradwalk's notebook front end ({FRONT_END}) is missing: this copy was installed without running "
            "the build. Run `python build.py` in a clone of the repository (it needs Node.js), then "
            "`pip install .` again."
        ) from None


def show(x, model=None) -> Widget:
    """A widget that steps through the graph of ``x``: a preset id, a program's text, a
    Gradwalk Value or Program, any micrograd-style value (read without changing it), or a
    report from :func:`check` (the checked graph, with its problems).

    ``model`` is the learner's network (micrograd's ``MLP``, or any object with
    ``parameters()``): the graph is then grouped by its layers and neurons, and drawn
    collapsed (docs/notebook.md). A graph too big to draw node by node is grouped without it."""
    __tracebackhide__ = True  # IPython: the cell shows its own line and the sentence, not this frame
    try:
        shown = kernel.target(x, model)  # a value Gradwalk can't read raises ForeignGraphError here
    except ValueError as error:  # ForeignGraphError, ShowError: one sentence, no frames of ours
        raise error.with_traceback(None) from None
    report = x if isinstance(x, engine_check.Report) else None
    if anywidget is None:
        raise ModuleNotFoundError("gradwalk.show needs anywidget; install it with `pip install anywidget`.")
    return Widget(shown, report)


def source_of(shown, report=None) -> dict:
    """The synced ``source`` trait for what the widget shows (with a check's report, if any)."""
    if isinstance(shown, (Foreign, Network)):
        source = {"kernel": kernel.about(shown)}
        if report is not None:
            source["check"] = report.as_dict()
        return source
    return dict(shown)


class CheckReport(engine_check.Report):
    """check's report; in a notebook it shows as the widget on the checked graph, opened on
    the first problem (as text when the front end is missing)."""

    def _repr_mimebundle_(self, **kwargs):
        try:
            shown = show(self)
        except (FrontEndMissing, ModuleNotFoundError):
            return {"text/plain": str(self)}
        bundle = shown._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**data, "text/plain": str(self)}, metadata


def check(loss) -> CheckReport:
    """Test the engine that built ``loss`` (see engine/check.py): ``report.ok``,
    ``report.problems`` (sentences, each naming its node) and ``report.notes``."""
    __tracebackhide__ = True  # IPython: the cell shows its own line and the sentence, not this frame
    try:
        report = engine_check.check(loss)
    except ValueError as error:  # ForeignGraphError: one sentence, no frames of ours
        raise error.with_traceback(None) from None
    return CheckReport(**{f.name: getattr(report, f.name) for f in fields(report)})


if anywidget is not None:

    class Widget(anywidget.AnyWidget):
        """Gradwalk's widget; the engine runs in this kernel (see the module's doc)."""

        source = traitlets.Dict().tag(sync=True)

        def __init__(self, shown, report=None, **kwargs):
            super().__init__(_esm=front_end(), **kwargs)
            self._shown = shown
            self.source = source_of(shown, report)
            self.on_msg(self._on_message)

        def answer(self, message) -> dict | None:
            """The reply to one message from the front end, or None if it isn't a request."""
            if not (isinstance(message, dict) and "id" in message and "request" in message):
                return None
            try:
                return {"id": message["id"], "response": kernel.handle(message["request"], self._shown)}
            except Exception as error:  # handle() answers errors as data; this is Python itself failing
                return {"id": message["id"], "error": f"{type(error).__name__}: {error}"}

        def _on_message(self, _widget, message, _buffers):
            reply = self.answer(message)
            if reply is not None:
                self.send(reply)

else:
    Widget = None

__all__ = ["show", "check", "CheckReport", "Widget", "FrontEndMissing", "front_end", "FRONT_END"]
