"""`python build.py test [pytest arguments]`: set up what the tests need, then run them all.

A newcomer runs one command on a fresh machine, with or without a virtual
environment active, and this does the rest:

1. the `test` extra from pyproject.toml (pinned), installed with pip into the
   Python that runs this, only if a pin is missing or differs (a second run
   checks installed versions and installs nothing);
2. Chromium for the browser tests: found ($GRADWALK_CHROMIUM, /usr/bin/chromium,
   or on PATH), else installed with apt on Debian when run as root, else a
   one-sentence stop that names the command to run;
3. Node.js and npm, which the build needs (checked, never installed: a stop
   with the command instead);
4. pytest on the whole suite, with the extra arguments passed through
   (PYTEST_ADDOPTS works as it does for pytest itself). The exit status is
   pytest's, except that "no tests collected" (5) is a failure too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from .browser import find_chromium

ROOT = Path(__file__).resolve().parents[1]
NO_TESTS_COLLECTED = 5


class SetupError(Exception):
    """A set-up step that cannot go on; the message is one sentence with the fix."""


def main(pytest_args: list[str]) -> int:
    try:
        ensure_node()  # first: installing the project builds its notebook front end with Node
        ensure_test_packages()
        ensure_chromium()
    except SetupError as e:
        print(f"build.py test: {e}", file=sys.stderr, flush=True)
        return 1
    status = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT)
    if status == NO_TESTS_COLLECTED:
        print("build.py test: pytest collected no tests, which counts as a failure.", file=sys.stderr, flush=True)
        return 1
    return status


# ---------------------------------------------------------------- Python packages


def pinned_requirements() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return project["optional-dependencies"]["test"]


def missing_requirements(requirements: list[str]) -> list[str]:
    """The pins that are not installed at exactly their version (`name==version`);
    a requirement that is not a plain pin only needs to be installed."""
    missing = []
    for requirement in requirements:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(?:==\s*([^;\s]+))?\s*", requirement)
        if not match:
            missing.append(requirement)  # a form this check does not read: let pip decide
            continue
        name, version = match.groups()
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(requirement)
            continue
        if version and installed != version:
            missing.append(requirement)
    return missing


def project_installed() -> bool:
    """The project itself (editable or not), so the notebook tests' kernel can import it."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        name = tomllib.load(f)["project"]["name"]
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


def ensure_test_packages() -> None:
    missing = missing_requirements(pinned_requirements())
    if not missing and project_installed():
        return
    what = ", ".join(missing) if missing else "the project itself"
    print(f"build.py test: installing the test dependencies ({what}) into {sys.prefix} ...", flush=True)
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-e", f"{ROOT}[test]"]
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        tail = "\n".join(result.stdout.strip().splitlines()[-15:])
        print(tail, file=sys.stderr)
        if "externally-managed-environment" in result.stdout:
            raise SetupError(
                "this Python is managed by the system and pip may not install into it; run "
                "`python3 -m venv .venv && . .venv/bin/activate` and then this command again."
            )
        raise SetupError(
            "pip could not install the test dependencies (its last lines are above); "
            "`python -m pip install -e '.[test]'` shows the whole error."
        )
    still = missing_requirements(pinned_requirements())
    if still:
        raise SetupError(
            f"pip finished but {', '.join(still)} is still not installed; "
            "run `python -m pip install -e '.[test]'` to see why."
        )


# ---------------------------------------------------------------- Chromium

APT_COMMAND = "apt-get update && apt-get install -y chromium"


def ensure_chromium() -> None:
    if find_chromium():
        return
    if os.environ.get("GRADWALK_CHROMIUM"):
        raise SetupError(
            f"GRADWALK_CHROMIUM names {os.environ['GRADWALK_CHROMIUM']}, which is not an "
            "executable; point it at Chromium or unset it."
        )
    can_apt = Path("/etc/debian_version").exists() and shutil.which("apt-get") and os.geteuid() == 0
    if not can_apt:
        how = (
            f"`sudo sh -c '{APT_COMMAND}'`"
            if Path("/etc/debian_version").exists()
            else ("your system's package manager (or set GRADWALK_CHROMIUM to a Chromium executable)")
        )
        raise SetupError(
            f"the browser tests need Chromium, which is not installed: install it with {how}, "
            "then run this command again."
        )
    print("build.py test: Chromium is missing; installing Debian's chromium with apt ...", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for step in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        result = subprocess.run(step, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            print("\n".join(result.stdout.strip().splitlines()[-15:]), file=sys.stderr)
            raise SetupError(
                f"`{' '.join(step)}` failed (its last lines are above); run "
                f"`{APT_COMMAND}` by hand, then this command again."
            )
    if not find_chromium():
        raise SetupError(f"apt installed chromium but no executable was found; run `{APT_COMMAND}` and check.")


# ---------------------------------------------------------------- Node.js


def ensure_node() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        raise SetupError(
            f"the build needs Node.js and npm ({' and '.join(missing)} not found): install them "
            "(Debian: `apt-get install -y nodejs npm`), then run this command again."
        )
