"""A stand-in for the code worker's entry (engine.yourcode.run), for the tests of the code
runner and its sandbox (tests/runtime/test_code_sandbox.py, test_code_escape.py): it executes
the request's `source` and answers JSON as the real entry does, so that those tests exercise
the sandbox itself whatever the mode's engine module answers. The worker imports it through
the runner's test hook (`module=`, a file of the site's origin that the test serves at
STANDIN_PATH).
"""

STANDIN = """
import json
import traceback


def run(request_json):
    request = json.loads(request_json)
    namespace = {"__name__": "__yourcode__"}
    try:
        exec(compile(request["source"], "<your code>", "exec"), namespace)
    except BaseException as error:
        line = error.lineno if isinstance(error, SyntaxError) else None
        for frame in traceback.extract_tb(error.__traceback__):
            if frame.filename == "<your code>":
                line = frame.lineno
        return json.dumps({"ok": False, "error": {"type": type(error).__name__, "line": line}})
    return json.dumps({"ok": True, "result": repr(namespace.get("result"))})
"""
STANDIN_PATH = "__test__/standin.py"
