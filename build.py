#!/usr/bin/env python3
"""Build Gradwalk's static site into dist/, or serve it.

    python build.py                 build dist/ (a no-op when nothing changed)
    python build.py serve [--port]  build if needed, then serve dist/ on localhost
                                    (brotli's slow copies are made after it serves)
    python build.py test [args]     install what the tests need, then run pytest
                                    (the arguments go to pytest)
    python build.py publish DIR --base /assets/gradwalk/
                                    build if needed, copy the widget's files into DIR (for
                                    an author's own site, served at that base path) and
                                    print the Cache-Control rules the host needs
    python build.py notebook        only the notebook's front end, gradwalk/static/widget.js

The npm packages (the Pyodide runtime, esbuild, linkedom, ...) are installed by
`npm ci` exactly as package-lock.json pins them, when node_modules/ does not match
it yet (buildtools/npm.py).

dist/ holds the pinned Pyodide runtime (from npm), micropip (from PyPI), the
engine as a wheel, everything in web/, and build.json, which tells the page's
worker the file names to load. For a fast boot it also holds the standard
library and the engine precompiled to .pyc by this Pyodide under Node, the
engine's answers for every preset (the page's first paint), a service worker
that caches the build, and brotli and gzip copies of the big files
(buildtools/site.py, buildtools/compress.py; brotli is pinned in pyproject.toml's
`build` extra: `pip install -e '.[build]'`). A build ends once every copy is
made; `serve` serves as soon as the rest of the site is there and makes them
meanwhile, on every core.
Downloads and compiled files are kept in .cache/ (micropip checked against
the pins below), so a warm build works offline.
"""

import argparse
import signal
import sys
import time
from pathlib import Path

from buildtools import BuildError, bundle, compress, fetch, npm, publish, serve, site

ROOT = Path(__file__).resolve().parent

PINS = site.Pins(
    pyodide_version="314.0.7",  # as package-lock.json pins it (checked when building)
    pyodide_python="3.14",
    micropip_version="0.11.1",
    micropip_sha256="768de165adb8e66906039d8fec4127a57f522dfdf8e6fbff877a4616941ecfd3",
)


def build(dist: Path = ROOT / "dist", cache: Path = ROOT / ".cache", force: bool = False, log=print) -> dict | None:
    """Make dist/ current, with every compressed copy in place (what a host deploys).
    Returns build.json's content when it built, None when dist/ was already up to
    date. Raises BuildError on a fixable failure."""
    info, build_id = make_site(dist, cache, force, log)
    compress.finish(dist, cache, build_id, lambda: site.build_lock(dist), log)
    return info


def make_site(dist: Path, cache: Path, force: bool, log) -> tuple[dict | None, str]:
    """Make dist/ current, with the compressed copies that are cached already.
    Returns (build.json's content when it built, else None; the build id)."""
    compress.ensure_brotli(ROOT, log)  # before anything: a build without it is not the site
    build_id = site.compute_build_id(ROOT, PINS)
    # The notebook's front end is written beside the package, not into dist/: a current
    # dist/ without it (a fresh clone's first build made it, then it was deleted) rebuilds.
    force = force or not (ROOT / bundle.OUTPUT).exists()
    if not force and site.is_current(dist, build_id):
        log(f"{dist} is up to date (build {build_id}).")
        return None, build_id
    # Two builds of the same dist/ at once (a test run and `serve`, say) take
    # turns; the second then usually finds dist/ up to date.
    with site.build_lock(dist):
        if not force and site.is_current(dist, build_id):
            log(f"{dist} is up to date (build {build_id}).")
            return None, build_id
        started = time.monotonic()
        npm.ensure(ROOT, log)
        whl = fetch.micropip_wheel(cache, PINS.micropip_version, PINS.micropip_sha256, PINS.pyodide_python, log)
        info = site.assemble(ROOT, dist, PINS, build_id, whl, cache=cache, log=log)
        log(f"built {dist} (build {build_id}) in {time.monotonic() - started:.1f} s.")
        return info, build_id


def serve_site(dist: Path, cache: Path, force: bool, port: int, host: str) -> None:
    """Make dist/ current and serve it at once: the compressed copies that are not
    cached yet are computed beside the server, which gzips on the fly meanwhile."""
    _, build_id = make_site(dist, cache, force, print)
    server = serve.make_server(dist, port, host)  # a port in use stops here, before any work starts
    compression = compress.finish(dist, cache, build_id, lambda: site.build_lock(dist), print, background=True)
    try:
        serve_forever(dist, server)
    finally:
        compression.stop()


def serve_forever(dist: Path, server: serve.SiteServer) -> None:
    # Ctrl-C and a plain `kill` both stop the server the same clean way (SIGINT
    # is re-armed because a shell starts background jobs with it ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"Serving {dist} at {serve.url_of(server)} (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.", flush=True)
    finally:
        server.server_close()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def parse_args(argv: list[str]) -> argparse.Namespace:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default: dist/)")
    common.add_argument("--cache", type=Path, default=ROOT / ".cache", help="download cache (default: .cache/)")
    common.add_argument("--force", action="store_true", help="rebuild even if up to date")
    common.add_argument(
        "-v", "--verbose", action="store_true", help="on a failure, also show the failing tool's output"
    )

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("build", parents=[common], help="build dist/ (the default)")
    commands.add_parser(
        "test",
        help="install the test dependencies and Chromium if missing, then run "
        "every test (further arguments go to pytest)",
    )
    serve_cmd = commands.add_parser("serve", parents=[common], help="build if needed, then serve dist/")
    serve_cmd.add_argument("--port", type=int, default=8000, help="default: 8000 (0: any free port)")
    serve_cmd.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    publish_cmd = commands.add_parser(
        "publish",
        parents=[common],
        help="build if needed, copy the widget's files into DIR and print the caching rules for DIR's host",
    )
    publish_cmd.add_argument("target", type=Path, metavar="DIR", help="the folder to fill (replaced whole)")
    publish_cmd.add_argument(
        "--base", required=True, help="the URL path DIR is served at, e.g. /assets/gradwalk/ (docs/sites.md)"
    )

    # `python build.py [options]` means `python build.py build [options]`.
    if not argv or argv[0] not in ("build", "serve", "publish", "-h", "--help"):
        argv = ["build", *argv]
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    if argv[:1] == ["test"]:  # everything after `test` belongs to pytest
        from buildtools import run_tests

        return run_tests.main(argv[1:])
    if argv[:1] == ["notebook"]:  # only the notebook's front end (setup.py runs this)
        try:
            print(bundle.notebook_module_from_source(ROOT, print))
            return 0
        except BuildError as e:
            print(f"build.py: {e}", file=sys.stderr)
            return 1
    args = parse_args(argv)
    try:
        if args.command == "serve":
            serve_site(args.dist.resolve(), args.cache.resolve(), args.force, args.port, args.host)
        elif args.command == "publish":
            base = publish.check_base(args.base)  # a wrong --base stops before the build
            build(args.dist.resolve(), args.cache.resolve(), force=args.force)
            print(publish.publish(args.dist.resolve(), args.target, base), end="")
        else:
            build(args.dist.resolve(), args.cache.resolve(), force=args.force)
        return 0
    except BuildError as e:
        if args.verbose and e.__cause__ is not None:
            print(str(e.__cause__).rstrip(), file=sys.stderr)
        print(f"build.py: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # disk full, permissions, ...: still one sentence, no traceback
        where = f" ({e.filename})" if e.filename else ""
        print(f"build.py: {e.strerror or e}{where}; fix that and run the build again.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nbuild.py: interrupted.", file=sys.stderr)
        return 130


def run_pypa_build() -> int:
    """`python -m build` (PyPA's wheel and sdist builder) in this folder finds this file
    first, as the current folder comes first on sys.path: run that builder instead."""
    import importlib.util
    import runpy

    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
    if importlib.util.find_spec("build") is None:
        print("build.py: `python -m build` needs PyPA's build; install it with `pip install build`.", file=sys.stderr)
        return 1
    runpy.run_module("build", run_name="__main__", alter_sys=True)  # exits with its own status on failure
    return 0


if __name__ == "__main__":
    if __spec__ is not None and __spec__.name == "build":  # python -m build
        sys.exit(run_pypa_build())
    sys.exit(main(sys.argv[1:]))
