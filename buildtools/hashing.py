"""Small hashing helpers shared by the fetch, wheel and site steps."""

import hashlib
from pathlib import Path


def file_digest(path: Path, algorithm: str) -> bytes:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, algorithm).digest()


def sha256_hex(path: Path) -> str:
    return file_digest(path, "sha256").hex()
