"""Reading a graph answer's frames as docs/api.md says, the way web/stepper.js reads them.

A graph answer sends each number once: its forward steps, seed and push visits leave
their ``changes`` out (they change what the frame says), and a push visit's pushes leave
out what their edge (parent, local, rule) and their frame (upstream) say.
"""


def changes(frame: dict, answer: dict) -> list[dict]:
    """The {node, field, before, after} a frame changes: listed, or read off the frame."""
    if "changes" in frame:
        return frame["changes"]
    if "kind" not in frame:  # a forward step
        return [{"node": frame["node"], "field": "data", "before": None, "after": frame["data"]}]
    if frame["kind"] == "seed":
        return [{"node": frame["node"], "field": "grad", "before": frame["before"], "after": frame["after"]}]
    return [
        {"node": p["parent"], "field": "grad", "before": p["before"], "after": p["after"]}
        for p in pushes(frame, answer)
    ]


def pushes(frame: dict, answer: dict) -> list[dict]:
    """A frame's pushes, whole: with their edge's parent, local and rule, and the frame's upstream."""
    if frame.get("kind") != "visit":
        return frame.get("pushes", [])
    edges = answer["edges"]
    return [
        {
            "parent": edges[p["edge"]]["parent"],
            "local": edges[p["edge"]]["local"],
            "upstream": frame["upstream"],
            "rule": edges[p["edge"]]["rule"],
            **p,
        }
        for p in frame["pushes"]
    ]


def is_matrix(box: dict) -> bool:
    """A tensor's box the page draws as a matrix: one of more than one number (web/grouped.js's isMatrix)."""
    shape = box.get("shape")
    return bool(shape) and shape[0] * shape[1] > 1
