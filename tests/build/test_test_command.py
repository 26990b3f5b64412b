"""`python build.py test`: the README's one test command. It passes pytest its
arguments and PYTEST_ADDOPTS, exits with pytest's status, counts "no tests
collected" as a failure, installs nothing when every pin is there, stops with
one sentence when Chromium cannot be found, and runs its checks (the linters and
the type check) before pytest, which does not run when one finds something.

The runs of the whole command leave the checks out (GRADWALK_SKIP_CHECKS=1):
they are about what happens around pytest, and the checks are tested on their
own, on files made to fail."""

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from buildtools import run_tests

ROOT = run_tests.ROOT

ONE_FILE = "tests/engine/test_value.py"


def run(*args, env=None, timeout=240):
    # In one process (-n 0): these runs are about what happens around pytest, and starting
    # a worker per core for one small file costs more than the file (the default's own
    # arguments are test_the_files_are_spread_over_a_worker_per_core's).
    return subprocess.run(
        [sys.executable, "build.py", "test", "-n", "0", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "GRADWALK_SKIP_CHECKS": "1", **(env or {})},
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


def test_the_files_are_spread_over_a_worker_per_core(monkeypatch):
    monkeypatch.setattr(run_tests.os, "cpu_count", lambda: 2)
    assert run_tests.parallel([]) == ["-n", "2", "--dist", "loadfile"]
    assert run_tests.parallel(["-k", "diamond"]) == ["-n", "2", "--dist", "loadfile"]
    for chosen in (["-n", "0"], ["-n4"], ["--numprocesses=3"], ["--numprocesses", "1"], ["-p", "no:xdist"]):
        assert run_tests.parallel(chosen) == [], chosen
    ran = []
    for name in ("ensure_node", "ensure_test_packages", "ensure_chromium", "ensure_node_modules"):
        monkeypatch.setattr(run_tests, name, lambda: None)
    monkeypatch.setenv("GRADWALK_SKIP_CHECKS", "1")
    monkeypatch.setattr(run_tests.subprocess, "call", lambda command, **kw: ran.append(command) or 0)
    assert run_tests.main(["-q"]) == 0
    assert ran == [[sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadfile", "-q"]]


def test_pins_are_read_exactly():
    pytest_version = metadata.version("pytest")
    assert run_tests.missing_requirements([f"pytest=={pytest_version}"]) == []
    assert run_tests.missing_requirements(["pytest==0.0.1"]) == ["pytest==0.0.1"]
    assert run_tests.missing_requirements(["no-such-package-gradwalk==1.0"]) == ["no-such-package-gradwalk==1.0"]
    # Every test pin is installed in the environment running this suite.
    assert run_tests.missing_requirements(run_tests.pinned_requirements()) == []


def test_a_local_builds_label_is_not_part_of_a_pin(monkeypatch):
    # torch's CPU build is 2.13.0+cpu, which meets torch==2.13.0 as pip reads it
    monkeypatch.setattr(run_tests.metadata, "version", lambda name: "2.13.0+cpu")
    assert run_tests.missing_requirements(["torch==2.13.0"]) == []
    assert run_tests.missing_requirements(["torch==2.13.1"]) == ["torch==2.13.1"]


def test_the_checks_are_the_linters_and_the_type_check():
    names = [check.name for check in run_tests.checks()]
    assert names == ["ruff check .", "ruff format --check .", "npm run lint", "npm run typecheck"]


def test_a_check_that_finds_something_is_named_with_its_fix(tmp_path, capfd):
    (tmp_path / "unused.py").write_text("import os\n")  # F401: imported and never used
    (tmp_path / "clean.py").write_text("x = 1\n")
    lint = run_tests.Check("ruff check .", [sys.executable, "-m", "ruff", "check", "--isolated", "."], "fix it")
    fmt = run_tests.Check("ruff format --check .", [sys.executable, "-m", "ruff", "format", "--check", "clean.py"], "x")
    failed = run_tests.run_checks([lint, fmt], cwd=tmp_path)
    assert failed == ["`ruff check .` failed (its findings are above): fix it."]
    out = capfd.readouterr().out  # the checks' own output goes straight to the terminal
    assert "F401" in out and "unused.py" in out


def test_pytest_does_not_run_when_a_check_fails(monkeypatch, capsys):
    failing = run_tests.Check("false", [sys.executable, "-c", "raise SystemExit(1)"], "see above")
    monkeypatch.setattr(run_tests, "checks", lambda: [failing])
    monkeypatch.setattr(run_tests, "ensure_node", lambda: None)
    monkeypatch.setattr(run_tests, "ensure_test_packages", lambda: None)
    monkeypatch.setattr(run_tests, "ensure_chromium", lambda: None)
    monkeypatch.setattr(run_tests, "ensure_node_modules", lambda: None)
    monkeypatch.delenv("GRADWALK_SKIP_CHECKS", raising=False)
    ran = []
    monkeypatch.setattr(run_tests.subprocess, "call", lambda command, **kw: ran.append(command) or 1)
    assert run_tests.main(["-q"]) == 1
    assert ran == [failing.command]  # the check, and not pytest
    err = capsys.readouterr().err
    assert "`false` failed (its findings are above): see above." in err
    assert "pytest did not run" in err


def test_engine_and_build_are_the_real_ones_and_no_test_folder_is_on_sys_path():
    import build
    import engine

    assert Path(engine.__file__).resolve() == ROOT / "engine" / "__init__.py"
    assert Path(build.__file__).resolve() == ROOT / "build.py"
    tests = ROOT / "tests"
    on_path = [Path(entry).resolve() for entry in sys.path if entry]
    assert not [p for p in on_path if p == tests or tests in p.parents], "a test folder is on sys.path"
