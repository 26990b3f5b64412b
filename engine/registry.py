"""The mode registry: every "Why reverse mode" experiment, declared once, by its own module.

A *mode* is one experiment the page offers on the graph on screen (path sums, forward
mode, backward twice, ...). Each is one module of ``engine/modes/`` that computes it and
declares, in a module-level ``MODE``:

* its ``id``: the name of its engine command, of its web module (``web/modes/<id>.js``)
  and of it in links (``?why=<id>``, ``?run=<id>``);
* its ``tab``: the label of its tab, and ``place``, where that tab goes (lowest first);
* its ``params``: what the page keeps of it (its state and its link), each with a kind,
  a default and, when a link spells it shorter, its ``link`` key;
* its ``commands``: the requests it answers (the first is named ``id``; a mode may have
  helpers, like the path sums' ``growth``), each with the parameters a request may carry;
* its ``fields``: the per-node values its frames change besides ``data`` and ``grad``
  (the Stepper keeps one array for each);
* its ``samples``: requests it answers on a graph, for the build's request corpus.

Nothing else lists the modes. ``engine.api`` answers their commands and describes them all
as data (``{"cmd": "modes"}``); the build writes that description into the site, where the
page, its links and the Stepper read it, and imports each mode's web module by its id.
A module in ``engine/modes/`` is found by its file name; its tab follows ``place``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class RequestError(Exception):
    """A request the engine can't answer; its message is a sentence for the learner."""

    def __init__(self, message: str, kind: str = "request"):
        super().__init__(message)
        self.message = message
        self.kind = kind


# -- kinds of parameters: how a request's value is checked and what a link may hold ----------


class Kind:
    """What values a parameter takes. ``read`` checks a request's value (raising
    RequestError with a sentence that names the parameter); ``describe`` says what a link
    may hold, for the page (web/url.js checks links by it)."""

    name = ""

    def read(self, param: Param, value, subject):
        return value

    def missing(self, param: Param, subject):
        """What a request that leaves the parameter out gets."""
        return param.default

    def describe(self) -> dict:
        return {"kind": self.name}


class Flag(Kind):
    """true or false (in a link: 1 or 0)."""

    name = "flag"

    def read(self, param, value, subject):
        if not isinstance(value, bool):
            raise RequestError(f'"{param.name}" must be true or false.')
        return value


@dataclass(frozen=True)
class Choice(Kind):
    """One of a few words."""

    values: tuple[str, ...]
    name = "choice"

    def read(self, param, value, subject):
        if value not in self.values:
            raise RequestError(f'"{param.name}" must be one of ' + ", ".join(self.values) + ".")
        return value

    def describe(self) -> dict:
        return {"kind": self.name, "values": list(self.values)}


@dataclass(frozen=True)
class Number(Kind):
    """A number above ``above`` and at most ``at_most``; ``problem`` is the sentence for any other."""

    above: float
    at_most: float
    problem: str = ""
    name = "number"

    def read(self, param, value, subject):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not self.above < value <= self.at_most:
            raise RequestError(
                self.problem or f'"{param.name}" must be a number above {self.above:g} and at most {self.at_most:g}.'
            )
        return float(value)

    def describe(self) -> dict:
        return {"kind": self.name, "above": self.above, "at_most": self.at_most}


@dataclass(frozen=True)
class Whole(Kind):
    """A whole number from ``low`` to ``high``."""

    low: int
    high: int
    name = "whole"

    def read(self, param, value, subject):
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            raise RequestError(f'"{param.name}" must be a whole number from {self.low} to {self.high}.')
        return value

    def describe(self) -> dict:
        return {"kind": self.name, "low": self.low, "high": self.high}


class Input(Kind):
    """One input of the graph, by its label (a request answers with its node id)."""

    name = "input"

    def missing(self, param, subject):
        return self.read(param, param.default, subject)  # there is no default input

    def read(self, param, value, subject):
        graph = subject.graph
        for node in graph.inputs:
            if graph.label(node) == value:
                return node
        names = ", ".join(graph.label(n) for n in graph.inputs)
        raise RequestError(f'"{param.name}" must name an input of this graph: {names}.')


class Inputs(Kind):
    """Some inputs of the graph, by name (default: every input); in a link, comma-separated."""

    name = "inputs"

    def missing(self, param, subject):
        return list(subject.inputs)

    def read(self, param, value, subject):
        if not isinstance(value, list) or not value or not all(name in subject.inputs for name in value):
            raise RequestError(f'"{param.name}" must list input names of this {subject.what}, like ["x1", "x2"].')
        return value


@dataclass(frozen=True)
class Param:
    """One parameter of a mode: its ``name`` in a request and in the page's state, its kind,
    its default (a request without it gets this; so does the page's state), and its key in a
    link: ``link`` when that is shorter, ``None`` when a link never keeps it."""

    name: str
    kind: Kind
    default: Any = None
    link: str | None = ""  # "": the same as name

    @property
    def link_key(self) -> str | None:
        return self.name if self.link == "" else self.link

    def read(self, request: dict, subject):
        if self.name not in request:
            return self.kind.missing(self, subject)
        return self.kind.read(self, request[self.name], subject)

    def describe(self) -> dict:
        return {"name": self.name, "link": self.link_key, "default": self.default, **self.kind.describe()}


@dataclass(frozen=True)
class Command:
    """A request a mode answers: ``answer(subject, **params)`` gives the answer's fields.
    ``subject`` is the graph the request names (see engine.api), or None when ``graph`` is
    False (an answer about graphs of its own, like the path sums' growth table). ``check``,
    if given, looks at the request as a whole before its parameters are read (parameters
    that exclude each other)."""

    name: str
    params: tuple[Param, ...]
    answer: Callable[..., dict]
    graph: bool = True
    check: Callable[[dict], None] | None = None


@dataclass(frozen=True)
class Mode:
    id: str
    tab: str
    place: int
    commands: tuple[Command, ...] = ()
    params: tuple[Param, ...] = ()
    fields: tuple[str, ...] = ()
    samples: Callable[[list[str], list[str]], list[dict]] = field(default=lambda inputs, labels: [])

    def describe(self) -> dict:
        return {
            "id": self.id,
            "tab": self.tab,
            "commands": [c.name for c in self.commands],
            "params": [p.describe() for p in self.params],
            "fields": list(self.fields),
        }


_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "modes")
_FOUND: list[Mode] = []


def modes() -> list[Mode]:
    """Every mode of engine/modes/, in the order of their tabs."""
    if not _FOUND:
        # A source, or (in the page's engine wheel: buildtools/engine_split.py) its bytecode alone.
        files = os.listdir(_FOLDER)
        names = sorted({n.rsplit(".", 1)[0] for n in files if n.endswith((".py", ".pyc")) and not n.startswith("_")})
        found = [importlib.import_module(f"{__package__}.modes.{name}").MODE for name in names]
        for name, mode in zip(names, found, strict=True):
            if mode.id != name:
                raise ValueError(f"engine/modes/{name}.py declares the mode {mode.id!r}; name the file after it.")
            if mode.commands and mode.commands[0].name != mode.id:
                raise ValueError(f"the first command of the mode {mode.id!r} must be named {mode.id!r}.")
        _FOUND.extend(sorted(found, key=lambda mode: (mode.place, mode.id)))
    return _FOUND
