"""Gradwalk in the notebook: step through your own micrograd graph, and check your engine.

    import gradwalk
    gradwalk.show(loss)      # the widget, on the graph your own Value class built
    gradwalk.check(loss)     # does your engine differentiate the way it should?

``show`` takes a preset id ("diamond"), a program's text, a Gradwalk ``Value`` or
``Program``, or any micrograd-style value (karpathy's micrograd, the lecture's version with
labels, the microgpt style with ``_children`` and ``_local_grads``, or your own class). The
engine runs in the kernel's own Python; ``gradwalk.kernel.handle`` answers the widget's
requests with the same JSON as the page's engine (docs/notebook.md).
"""

from engine import Program, ProgramError, Value
from engine.check import Problem, Report
from engine.foreign import ForeignGraphError, read

from .kernel import ShowError
from .widget import CheckReport, FrontEndMissing, Widget, check, show

__all__ = [
    "show",
    "check",
    "read",
    "Value",
    "Program",
    "ProgramError",
    "Report",
    "CheckReport",
    "Problem",
    "ForeignGraphError",
    "ShowError",
    "FrontEndMissing",
    "Widget",
]
__version__ = "0.1.0"
