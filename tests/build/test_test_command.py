"""`python build.py test`: the README's one test command. It passes pytest its
arguments and PYTEST_ADDOPTS, exits with pytest's status, counts "no tests
collected" as a failure, installs nothing when every pin is there, and stops with
one sentence when Chromium cannot be found."""

import os
import subprocess
import sys
from importlib import metadata

from buildtools import run_tests

ROOT = run_tests.ROOT

ONE_FILE = "tests/engine/test_value.py"


def run(*args, env=None, timeout=240):
    return subprocess.run(
        [sys.executable, "build.py", "test", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def test_arguments_go_to_pytest_and_its_status_comes_back(tmp_path):
    passed = run(ONE_FILE, "-q", "-p", "no:cacheprovider")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert " passed" in passed.stdout
    # Every pin is already installed: a second run installs nothing.
    assert "installing" not in passed.stdout + passed.stderr

    failing = tmp_path / "test_fails.py"
    failing.write_text("def test_fails():\n    assert 1 == 2\n")
    failed = run(str(failing), "-q", "-p", "no:cacheprovider")
    assert failed.returncode == 1
    assert "1 failed" in failed.stdout


def test_no_tests_collected_is_a_failure():
    result = run(ONE_FILE, "-q", "-p", "no:cacheprovider", "-k", "no_test_has_this_name_at_all")
    assert result.returncode == 1
    assert "collected no tests" in result.stderr


def test_pytest_addopts_is_honoured():
    result = run(ONE_FILE, "-p", "no:cacheprovider", env={"PYTEST_ADDOPTS": "-q -k backward"})
    assert result.returncode == 0, result.stdout + result.stderr
    selected = int(result.stdout.strip().splitlines()[-1].split()[0])
    every = run(ONE_FILE, "-q", "-p", "no:cacheprovider")
    assert 0 < selected < int(every.stdout.strip().splitlines()[-1].split()[0])


def test_a_missing_chromium_stops_with_one_sentence_naming_the_fix():
    result = run(ONE_FILE, env={"GRADWALK_CHROMIUM": "/nonexistent/chromium"})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "GRADWALK_CHROMIUM" in lines[0] and "unset it" in lines[0]


def test_pins_are_read_exactly():
    pytest_version = metadata.version("pytest")
    assert run_tests.missing_requirements([f"pytest=={pytest_version}"]) == []
    assert run_tests.missing_requirements(["pytest==0.0.1"]) == ["pytest==0.0.1"]
    assert run_tests.missing_requirements(["no-such-package-gradwalk==1.0"]) == ["no-such-package-gradwalk==1.0"]
    # Every test pin is installed in the environment running this suite.
    assert run_tests.missing_requirements(run_tests.pinned_requirements()) == []
