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
4. the checks, each run in turn from the repository's root, stopping before
   pytest if any finds something (a line per failed check says how to see
   and fix it): `ruff check .` and `ruff format --check .` on the Python
   (configured in pyproject.toml, ruff pinned in the test extra), then
   `npm run lint` (ESLint) and `npm run typecheck` (tsc on the JSDoc types)
   on the JavaScript, after `npm ci` when node_modules/ is missing;
   GRADWALK_SKIP_CHECKS=1 leaves them out (for a quick run of a few tests);
5. pytest on the whole suite, with the extra arguments passed through
   (PYTEST_ADDOPTS works as it does for pytest itself). The test files are
   spread over one pytest-xdist worker per core (`--dist loadfile`: a file's
   tests share their module's pages and servers in one worker); `-n N` among
   the arguments chooses otherwise, and `-n 0` runs them in this process. The
   exit status is pytest's, except that "no tests collected" (5) is a failure too.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
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
        failed = []
        if os.environ.get("GRADWALK_SKIP_CHECKS") != "1":
            ensure_node_modules()
            failed = run_checks(checks())
    except SetupError as e:
        print(f"build.py test: {e}", file=sys.stderr, flush=True)
        return 1
    if failed:
        for line in failed:
            print(f"build.py test: {line}", file=sys.stderr, flush=True)
        print("build.py test: pytest did not run, because a check above failed.", file=sys.stderr, flush=True)
        return 1
    status = subprocess.call([sys.executable, "-m", "pytest", *parallel(pytest_args), *pytest_args], cwd=ROOT)
    if status == NO_TESTS_COLLECTED:
        print("build.py test: pytest collected no tests, which counts as a failure.", file=sys.stderr, flush=True)
        return 1
    return status


def parallel(pytest_args: list[str]) -> list[str]:
    """pytest-xdist's arguments: a worker per core (the browser tests spend much of
    their time waiting on Chromium, Pyodide and servers, so two files at once finish
    sooner even on two cores), unless the arguments already say how many."""
    given = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *pytest_args]  # pytest reads both
    chosen = any(a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in given)
    if chosen or any("no:xdist" in a for a in given):
        return []
    return ["-n", str(os.cpu_count() or 1), "--dist", "loadfile"]


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
        # (a local build's label does not count, as in pip: torch==2.13.0 is met by 2.13.0+cpu)
        if version and installed.split("+", 1)[0] != version:
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


# ---------------------------------------------------------------- linters and type check

NPM_CI_TIMEOUT_S = 600
CHECK_TIMEOUT_S = 600


@dataclass(frozen=True)
class Check:
    """One linter run: `name` is the command as a person types it, `command` what is
    run (with full paths), `fix` what to do when it finds something."""

    name: str
    command: list[str]
    fix: str


def checks() -> list[Check]:
    """The checks the test command runs before pytest, Python's first."""
    ruff = [sys.executable, "-m", "ruff"]
    npm = npm_command()
    return [
        Check("ruff check .", [*ruff, "check", "."], "run `ruff check .` to see them; `ruff check --fix .` fixes some"),
        Check(
            "ruff format --check .",
            [*ruff, "format", "--check", "."],
            "run `ruff format .` to format the files it lists",
        ),
        Check("npm run lint", [npm, "run", "lint"], "run `npm run lint` to see them (ESLint, eslint.config.js)"),
        Check(
            "npm run typecheck",
            [npm, "run", "typecheck"],
            "run `npm run typecheck` to see them (tsc on the JSDoc types, jsconfig.json)",
        ),
    ]


def run_checks(to_run: list[Check], cwd: Path = ROOT) -> list[str]:
    """Run every check (their own output goes to the terminal) and return one line
    per check that found something, naming it and the fix; [] when all pass."""
    failed = []
    for check in to_run:
        print(f"build.py test: {check.name}", flush=True)
        try:
            status = subprocess.call(check.command, cwd=cwd, timeout=CHECK_TIMEOUT_S)
        except FileNotFoundError:
            raise SetupError(f"`{check.name}` could not start ({check.command[0]} not found).") from None
        except subprocess.TimeoutExpired:
            failed.append(f"`{check.name}` took over {CHECK_TIMEOUT_S} s and was stopped; run it by hand to see why.")
            continue
        if status != 0:
            failed.append(f"`{check.name}` failed (its findings are above): {check.fix}.")
    return failed


def npm_command() -> str:
    """npm's full path: on Windows it is npm.cmd, which subprocess finds only by its
    full name."""
    return shutil.which("npm") or "npm"


def ensure_node_modules() -> None:
    """`npm ci` (exactly what package-lock.json records, no install scripts) when
    node_modules/ is missing, so that ESLint and tsc are there."""
    if (ROOT / "node_modules").exists():
        return
    print("build.py test: node_modules is missing; running npm ci ...", flush=True)
    command = [npm_command(), "ci", "--ignore-scripts", "--no-audit", "--no-fund"]
    try:
        result = subprocess.run(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=NPM_CI_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise SetupError(
            f"`npm ci` did not finish within {NPM_CI_TIMEOUT_S} s; run "
            "`npm ci --ignore-scripts` by hand to see why, then this command again."
        ) from None
    if result.returncode != 0:
        print("\n".join(result.stdout.strip().splitlines()[-15:]), file=sys.stderr)
        raise SetupError(
            "`npm ci` failed (its last lines are above); run `npm ci --ignore-scripts` by hand, "
            "then this command again."
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
