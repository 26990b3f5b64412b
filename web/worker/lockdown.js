// A second line of defence in the code worker: the modules through which Python
// reaches JavaScript are taken out of what the learner's code can import.
//
// lockDown(pyodide), called once the worker has booted and before watchPython
// (python-intact.js records the result as the Python every run must leave as it
// found it), removes `js`, `pyodide_js`, `pyodide`, `_pyodide` and `_pyodide_core` (with every
// submodule: pyodide.ffi, pyodide.code, pyodide.http, ...) from sys.modules and puts
// a finder first on sys.meta_path that refuses to import them again, with a sentence
// a learner can read.
//
// This is not the wall. Python cannot wall off Python: the runtime still holds
// these modules and JavaScript proxies, and code that hunts through
// gc.get_objects() finds them. What such code then reaches is the code sandbox's
// JavaScript, which has no network, no storage and no site's authority
// (code-sandbox.html, boot/code-sandbox.js): that is the wall.

const LOCK_DOWN = `
def _gradwalk_lock_down():
    import sys

    CLOSED = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core")

    def closed(name):
        return any(name == top or name.startswith(top + ".") for top in CLOSED)

    class ClosedToYourCode:
        """Refuses the modules that reach the page's JavaScript."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            if closed(name):
                raise ModuleNotFoundError(
                    f"No module named {name!r} here: your code runs with no access to the page, "
                    "its JavaScript or the network.",
                    name=name,
                )
            return None

    for name in [name for name in sys.modules if closed(name)]:
        del sys.modules[name]
    sys.meta_path.insert(0, ClosedToYourCode)
`;

export function lockDown(pyodide) {
  pyodide.runPython(LOCK_DOWN);
  const lock = pyodide.globals.get("_gradwalk_lock_down");
  pyodide.globals.delete("_gradwalk_lock_down");
  lock();
  lock.destroy();
}
