"""Gradwalk's engine: reverse-mode automatic differentiation that explains itself.

``Value`` is a micrograd-compatible scalar; ``Program`` turns a tiny straight-line subset of
Python into a graph of Values; ``engine.trace`` records every step of the passes as data and
``engine.api`` serves it all to the web page as JSON.
"""

from .program import Program, ProgramError
from .value import Value, cos, exp, log, relu, sigmoid, sin, tanh, topological_order

__all__ = [
    "Value",
    "Program",
    "ProgramError",
    "topological_order",
    "tanh",
    "relu",
    "exp",
    "log",
    "sin",
    "cos",
    "sigmoid",
]
__version__ = "0.1.0"
