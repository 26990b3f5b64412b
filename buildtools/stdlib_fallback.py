"""The full standard library, fetched only if an import needs it.

The page's Python boots with a trimmed standard library: only the modules the
engine and Pyodide's bootstrap were seen to import (buildtools/stdlib_trim.py).
This module ships inside that trimmed zip as `_stdlib_fallback` (with
`_stdlib_full_names`, the module names of the full library). `install(url)`
appends a finder to sys.meta_path: when an import of a module of the full
library finds nothing (every other finder has looked), it downloads the full
precompiled library once, with a synchronous XMLHttpRequest (allowed in the
worker; under Node the tests pass their own `fetch_bytes`), puts it on sys.path
behind the trimmed one, and finds the module there. If the download fails, that
import and every later one of a missing module raise an ImportError that says so.
Nothing of JavaScript's is held until then (a memory snapshot stays possible).

The engine is split the same way (buildtools/engine_split.py): the page's worker unpacks
only the engine modules the page imports, and `install_later(url, names, site_packages)`
appends a second finder of this class for the others, which downloads the full engine
wheel and imports them from it (as sources: zipimport compiles them).

It imports nothing beyond what a booted Python already has, so that it is
itself always in the trimmed zip's reach.
"""

import sys

from _stdlib_full_names import NAMES

# Where the fetched library is written (Pyodide's in-memory file system).
FULL_ZIP = "/lib/python-stdlib-full.zip"
# Where the fetched full engine wheel is written.
ENGINE_ZIP = "/lib/gradwalk-engine-full.zip"


class StdlibFallback:
    def __init__(self, url, fetch_bytes, trimmed_zip, names=NAMES, mount=FULL_ZIP, what="standard library"):
        self.url = url
        self.fetch_bytes = fetch_bytes
        self.trimmed = trimmed_zip  # the sys.path entry of the trimmed library (or site-packages)
        self.names = names  # the modules this finder finds
        self.mount = mount  # where the full zip is written and searched
        self.what = what
        self.used = []  # the modules found in the full library, in import order
        self.error = None  # why the full library could not be had, once it failed
        self.mounted = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None  # not one of the modules left out: not ours to find
        self._mount(fullname)
        if path is None:
            search = [self.mount]
        else:
            # A module of a package: look in the package's folder of the full zip, and
            # let the package keep that folder so its other modules are found directly.
            search = [
                self.mount + entry[len(self.trimmed) :]
                for entry in path
                if isinstance(entry, str) and entry.startswith(self.trimmed)
            ]
            for entry in search:
                if entry not in path and hasattr(path, "append"):
                    path.append(entry)
        spec = _path_finder().find_spec(fullname, search)
        if spec is not None:
            self.used.append(fullname)
        return spec

    def _mount(self, fullname):
        if self.mounted:
            return
        if self.error is None:
            try:
                data = self.fetch_bytes(self.url)
                data = data.to_bytes() if hasattr(data, "to_bytes") else bytes(data)
                with open(self.mount, "wb") as out:
                    out.write(data)
            except Exception as error:  # any failure: said once, the same way every time
                self.error = str(error) or type(error).__name__
            else:
                self.mounted = True
                if self.mount == FULL_ZIP:
                    sys.path.append(FULL_ZIP)  # (the engine's modules are found through their package)
                return
        raise ImportError(
            f"The module {fullname} is not in the trimmed {self.what}, and the full one "
            f"({self.url}) could not be downloaded ({self.error}).",
            name=fullname,
        )


def _path_finder():
    """The import system's own PathFinder (it is on sys.meta_path at every start)."""
    return next(finder for finder in sys.meta_path if getattr(finder, "__name__", "") == "PathFinder")


def download(url):
    """The bytes at url, by a synchronous request (a worker may make one)."""
    from js import XMLHttpRequest  # Pyodide's; imported only when a module is missing

    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    request.send()
    if request.status != 200:
        raise OSError(f"{url.rsplit('/', 1)[-1]} answered {request.status}")
    return request.response.to_bytes()


def install(url, fetch_bytes=download):
    """Append the standard library's fallback finder (once) and return it."""
    for finder in sys.meta_path:
        if isinstance(finder, StdlibFallback) and finder.mount == FULL_ZIP:
            return finder
    trimmed = next(entry for entry in sys.path if entry.endswith(".zip"))
    finder = StdlibFallback(url, fetch_bytes, trimmed)
    sys.meta_path.append(finder)
    return finder


def install_later(url, names, site_packages, fetch_bytes=download):
    """Append the finder (once) of the engine modules `names` that the page's wheel left
    out, which imports them from the full engine wheel at `url`; return it."""
    for finder in sys.meta_path:
        if isinstance(finder, StdlibFallback) and finder.mount == ENGINE_ZIP:
            return finder
    names = frozenset(names)
    finder = StdlibFallback(url, fetch_bytes, site_packages, names, ENGINE_ZIP, "engine")
    sys.meta_path.append(finder)
    return finder
