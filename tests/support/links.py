"""Permalinks made by hand: a program deflated as the page's links carry it, and random
links, well-formed or not, from a seeded generator."""

import base64
import random
import zlib
from urllib.parse import quote


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def deflate(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return b64(c.compress(raw) + c.flush())


KEYS = [
    "gw",
    "preset",
    "prog",
    "src",
    "v",
    "pass",
    "step",
    "order",
    "cp",
    "embed",
    "hide",
    "start",
    "boot",
    "rule",
    "x",
    "",
    "PRESET",
    "v[]",
    "step ",
]
PRESETS = [
    "add-mul",
    "lesson-graph",
    "checkpoint",
    "relu",
    "neuron",
    "square",
    "reuse",
    "xx-xy",
    "diamond",
    "double-diamond",
    "cos",
]
LABELS = ["a", "b", "c", "d", "e", "f", "x", "y", "n", "o", "x1", "w1", "zz", "", "a'", "__proto__"]
NUMBERS = [
    "0",
    "-0",
    "1",
    "-1.5",
    "1e12",
    "-1e12",
    "1e13",
    "NaN",
    "Infinity",
    "1e-320",
    ".5",
    "5.",
    "+3",
    "0x10",
    "1_000",
    "",
    "abc",
    "1e",
    "٣",
]
PASSES = ["start", "forward", "backward", "experiment", "mode", "", "Forward"]
JUNK = [
    "%",
    "%%",
    "%E0%A4%A",
    "%00",
    "%FF",
    "<script>",
    "javascript:alert(1)",
    "💥",
    "\u202e",
    "a" * 300,
    "../",
    "&&",
    "==",
    "+",
    "%2B",
    "null",
    "undefined",
    "[]",
    "{}",
]


def random_link(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 7)):
        key = rng.choice(KEYS)
        if key == "preset":
            value = rng.choice(PRESETS + JUNK)
        elif key in ("prog", "src"):
            prog = rng.choice(
                ["a = 2\nb = a * a", "x = 1\ny = tanh(x)", "a = 2 +", "", "import os", "a = 1\n" * rng.randint(1, 50)]
            )
            value = deflate(prog) if key == "prog" else b64(prog.encode())
            if rng.random() < 0.4:
                i = rng.randrange(len(value) + 1)
                value = value[:i] + rng.choice(["A", "-", "_", "!", "%", "=="]) + value[i + 1 :]
        elif key == "v":
            value = ",".join(f"{rng.choice(LABELS)}:{rng.choice(NUMBERS)}" for _ in range(rng.randint(0, 3)))
        elif key == "pass":
            value = rng.choice(PASSES)
        elif key == "step":
            value = rng.choice(["0", "1", "3", "7", "-1", "99", "1.5", "", "٣", "00002"])
        elif key == "order":
            value = ",".join(rng.choice(LABELS) for _ in range(rng.randint(0, 8)))
        elif key in ("cp", "embed"):
            value = rng.choice(["0", "1", "2", "", "true"])
        elif key == "gw":
            value = rng.choice(["1", "1", "1", "2", "", "01"])
        else:
            value = rng.choice(JUNK + PRESETS)
        if rng.random() < 0.1:
            value = rng.choice(JUNK)
        safe = "" if rng.random() < 0.3 else ":,"
        parts.append(f"{quote(key, safe='')}={value if rng.random() < 0.2 else quote(value, safe=safe)}")
    link = "&".join(parts)
    if rng.random() < 0.1:
        link += "#" + rng.choice(JUNK)
    return link
