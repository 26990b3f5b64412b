"""Write a pure-Python wheel with zipfile, byte for byte reproducible.

We write the wheel ourselves instead of calling a build backend so that the
build needs nothing but the stdlib and gives the same bytes every time: entries
in sorted order, one fixed timestamp, fixed permissions, and a RECORD with the
sha256 of every file (micropip and pip check it on install).
"""

import base64
import hashlib
import zipfile
from pathlib import Path

# The earliest date a zip file can hold; any fixed date works.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
TAG = "py3-none-any"


def wheel_name(name: str, version: str) -> str:
    return f"{_normalize(name)}-{version}-{TAG}.whl"


def write_wheel(
    out_dir: Path,
    *,
    name: str,
    version: str,
    summary: str,
    requires_python: str,
    files: dict[str, bytes],
    stored: bool = False,
) -> Path:
    """Write `files` (archive path -> content) plus the .dist-info metadata into
    out_dir/<name>-<version>-py3-none-any.whl and return its path. `stored`:
    members are not deflated (for a wheel the host sends brotli-compressed whole)."""
    dist_info = f"{_normalize(name)}-{version}.dist-info"
    metadata = (
        "Metadata-Version: 2.1\n"
        f"Name: {name}\n"
        f"Version: {version}\n"
        f"Summary: {summary}\n"
        f"Requires-Python: {requires_python}\n"
    )
    wheel = f"Wheel-Version: 1.0\nGenerator: gradwalk build.py\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    entries = sorted(files.items())
    entries += [
        (f"{dist_info}/METADATA", metadata.encode()),
        (f"{dist_info}/WHEEL", wheel.encode()),
    ]
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / wheel_name(name, version)
    with zipfile.ZipFile(path, "w") as zf:
        for arcname, data in entries:
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16  # a regular file, rw-r--r--
            zf.writestr(info, data, compresslevel=9)
    return path


def _normalize(name: str) -> str:
    """Wheel file names use underscores where the project name has - or ."""
    return name.replace("-", "_").replace(".", "_")


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
