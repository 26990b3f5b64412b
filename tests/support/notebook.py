"""Helpers for the notebook tests: a learner's graph's exact state, and answers compared by their numbers."""

import json

from engine.api import handle as api_handle
from gradwalk.kernel import handle


def graph_objects(root) -> list:
    """Every node of a micrograd-style graph (by identity), whatever its shape."""
    seen, stack, found = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        parents = getattr(node, "_children", None)
        if parents is None:
            parents = node._prev
        stack.extend(parents)
    return found


def snapshot(root) -> list:
    """Each node's every attribute (its __dict__ and its slots), as (name, the object itself),
    and each node's class's own _backward: compared with `is`, nothing may have changed."""
    state = []
    for node in graph_objects(root):
        attrs = dict(getattr(node, "__dict__", {}))
        for cls in type(node).__mro__:
            slots = cls.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in ("__dict__", "__weakref__") and hasattr(node, name):
                    attrs["slot:" + name] = getattr(node, name)
        state.append((node, attrs, type(node).__dict__.get("_backward")))
    return state


def unchanged(before: list, root) -> bool:
    after = snapshot(root)
    if [node for node, _, _ in before] != [node for node, _, _ in after]:
        return False
    for (_, old, old_cls), (_, new, new_cls) in zip(before, after):
        if old.keys() != new.keys() or old_cls is not new_cls:
            return False
        # The same objects (grads compare by value and type: 0 stays the int 0).
        for key in old:
            a, b = old[key], new[key]
            if a is not b and not (type(a) is type(b) and a == b):
                return False
    return True


def ask(request: dict, graph=None) -> dict:
    return json.loads(handle(request, graph))


def ask_api(request: dict) -> dict:
    return json.loads(api_handle(json.dumps(request)))


TEXT_KEYS = {"line", "col", "program", "preset", "graph", "unused"}


def numbers_of(answer, rename=None):
    """An answer with every text left out (names differ between a program and a learner's
    graph), keeping its every number and its shape; ``rename`` maps names used as keys."""
    rename = rename or {}
    if isinstance(answer, dict):
        return {rename.get(k, k): numbers_of(v, rename) for k, v in answer.items() if k not in TEXT_KEYS}
    if isinstance(answer, list):
        return [numbers_of(v, rename) for v in answer]
    if isinstance(answer, str):
        return "<text>"
    return answer
