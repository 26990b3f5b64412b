// Whether learner code changed the code worker's Python itself: what a run must
// leave as it found it, so that the next run starts from the same Python.
//
// watchPython(pyodide), called once the worker has booted and before any learner
// code runs, records the built-ins, sys.modules, the import machinery, sys's
// streams and hooks, and the functions, classes and modules each loaded module
// holds. The function it returns lists what is no longer so after a run ("deleted
// builtins.len", "replaced sys.modules['json']", ...); the code worker reports the
// list and the page replaces a worker whose Python was changed.
//
// The check is Python, so it is written not to need what it checks: every
// built-in it calls is bound when it is defined, and it holds the module objects
// themselves, not what sys.modules says they are. It is a check, not a wall: the
// page's wall is that the worker is thrown away.

const WATCH = `
def _gradwalk_watch():
    import builtins, sys

    builtins_before = dict(builtins.__dict__)
    modules_before = dict(sys.modules)
    # A module's functions, classes and submodules (its data, caches included, may change).
    held_before = {
        name: {key: value for key, value in vars(module).items() if callable(value) or type(value) is type(sys)}
        for name, module in modules_before.items()
        if hasattr(module, "__dict__") and module is not builtins  # the built-ins are checked whole
    }
    SYS_HOOKS = ("stdin", "stdout", "stderr", "excepthook", "displayhook", "unraisablehook", "breakpointhook")
    sys_before = {name: getattr(sys, name, None) for name in SYS_HOOKS}
    lists_before = {"meta_path": list(sys.meta_path), "path_hooks": list(sys.path_hooks)}
    limit_before = sys.getrecursionlimit()

    def changes(_vars=vars, _getattr=getattr, _len=len, _type=type, _list=list, _any=any, _zip=zip, _sys=sys,
                _builtins=builtins, _most=20):
        found = []
        now = _builtins.__dict__
        for name, value in builtins_before.items():
            if name not in now:
                found.append(f"deleted builtins.{name}")
            elif now[name] is not value:
                found.append(f"replaced builtins.{name}")
        for name in now:
            if name not in builtins_before:
                found.append(f"added builtins.{name}")
        modules = _sys.modules
        for name, module in modules_before.items():
            if name not in modules:
                found.append(f"deleted sys.modules[{name!r}]")
            elif modules[name] is not module:
                found.append(f"replaced sys.modules[{name!r}]")
        for name, held in held_before.items():
            inside = _vars(modules_before[name])
            for key, value in held.items():
                if key not in inside:
                    found.append(f"deleted {name}.{key}")
                elif inside[key] is not value:
                    found.append(f"replaced {name}.{key}")
        for name, value in sys_before.items():
            if _getattr(_sys, name, None) is not value:
                found.append(f"replaced sys.{name}")
        for name, before in lists_before.items():
            now_list = _getattr(_sys, name, None)
            if _type(now_list) is not _list or _len(now_list) != _len(before) or _any(
                a is not b for a, b in _zip(now_list, before)
            ):
                found.append(f"changed sys.{name}")
        if _sys.gettrace() is not None or _sys.getprofile() is not None:
            found.append("left a trace or profile function set")
        if _sys.getrecursionlimit() != limit_before:
            found.append("changed the recursion limit")
        return "\\n".join(found[:_most])

    return changes
`;

// The function that lists what changed, as a string array (empty: nothing).
export function watchPython(pyodide) {
  pyodide.runPython(WATCH);
  const make = pyodide.globals.get("_gradwalk_watch");
  pyodide.globals.delete("_gradwalk_watch");
  const changes = make();
  make.destroy();
  return () => {
    const text = changes();
    return text ? text.split("\n") : [];
  };
}
