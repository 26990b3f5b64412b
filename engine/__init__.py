"""Gradwalk's engine: reverse-mode automatic differentiation that explains itself.

``Value`` is a micrograd-compatible scalar; ``Program`` turns a tiny straight-line subset of
Python into a graph of Values; ``engine.trace`` records every step of the passes as data and
``engine.api`` serves it all to the web page as JSON.

Besides those, the engine exports every function of its operation table
(:data:`engine.ops.FUNCTIONS`: ``tanh``, ``relu``, ``exp``, ``log``, ``sin``, ``cos``,
``sigmoid``, and any function the table gains) as a free function: ``tanh(n)`` is
``n.tanh()``.
"""

from . import value as _value
from .ops import FUNCTIONS
from .program import Program, ProgramError
from .value import Value, topological_order

globals().update({name: getattr(_value, name) for name in FUNCTIONS})

__all__ = ["Value", "Program", "ProgramError", "topological_order", *FUNCTIONS]
__version__ = "0.1.0"
