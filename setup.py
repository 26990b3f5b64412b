"""The one build step pyproject.toml cannot say: `pip install .` (and `-e .`, and
`python -m build --wheel`) first writes the notebook's front end, gradwalk/static/widget.js,
with `python build.py notebook`: `npm ci` installs the pinned esbuild from package-lock.json
(once), which bundles the page's widget. Node.js and npm are needed to build, as for the
site, never to run: the wheel carries the built file. Everything else about the package is
in pyproject.toml."""

import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
FRONT_END = ROOT / "gradwalk" / "static" / "widget.js"


def write_front_end() -> None:
    """gradwalk/static/widget.js, built from web/ in a clone; an sdist carries it built."""
    if (ROOT / "build.py").exists():
        status = subprocess.call([sys.executable, str(ROOT / "build.py"), "notebook"], cwd=ROOT)
        if status != 0:
            raise SystemExit(
                "gradwalk: the notebook front end could not be built (the reason is above); "
                "install Node.js with npm, then install again."
            )
    elif not FRONT_END.exists():
        raise SystemExit(f"gradwalk: {FRONT_END} is missing and there is no build.py to make it.")


class BuildPyWithFrontEnd(build_py):
    def run(self):
        write_front_end()
        super().run()


class SdistWithFrontEnd(sdist):
    # So that a wheel made from the sdist (`python -m build` makes both) needs no Node.
    def run(self):
        write_front_end()
        super().run()


setup(cmdclass={"build_py": BuildPyWithFrontEnd, "sdist": SdistWithFrontEnd})
