"""`jupyter lab` (or `jupyter notebook`), run by this Python, with every connection off this
machine refused and logged.

    python -P lab_offline.py lab --no-browser --port 8888 ...        (then `jupyter lab`'s arguments)
    python -P lab_offline.py notebook --no-browser --port 8888 ...   (Notebook 7)
    python -P lab_offline.py marimo run notebook.py --headless ...   (then marimo's arguments)

The JupyterLab harness (tests/support/jupyterlab_harness.py) starts the server through this file rather
than through the `jupyter` on PATH, for two reasons: the server (and so the kernel spec it
writes for) is certainly the Python that runs pytest, and an audit hook sees every name
lookup and every socket connection the server makes. One that leaves the machine is written
to $GRADWALK_LAB_OUTBOUND_LOG and refused, so a setting that stops keeping JupyterLab
offline (news, update checks, the extension manager's PyPI search) fails a test instead of
passing unnoticed on a machine whose network happens to refuse it.
"""

import os
import socket
import sys

LOG = os.environ.get("GRADWALK_LAB_OUTBOUND_LOG")
LOCAL = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "::", "", None}


def _local(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    return host in LOCAL or (isinstance(host, str) and (host.startswith("127.") or host.endswith(".localhost")))


def _refuse(what: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(what + "\n")
    raise ConnectionRefusedError(f"the Gradwalk tests keep JupyterLab offline: {what} refused")


def _hook(event: str, args: tuple) -> None:
    if event == "socket.getaddrinfo":
        if not _local(args[0]):
            _refuse(f"getaddrinfo {args[0]}:{args[1]}")
    elif event == "socket.connect":
        sock, address = args
        # A Unix socket's address is a path; an IP socket's is (host, port, ...).
        is_ip = isinstance(address, tuple) and getattr(sock, "family", None) in (socket.AF_INET, socket.AF_INET6)
        if is_ip and not _local(address[0]):
            _refuse(f"connect {address[0]}:{address[1]}")


if __name__ == "__main__":
    sys.addaudithook(_hook)
    app, arguments = sys.argv[1], sys.argv[2:]
    if app == "marimo":
        from marimo._cli.cli import main

        sys.argv = ["marimo", *arguments]
    else:
        if app == "notebook":
            from notebook.app import main
        else:
            from jupyterlab.labapp import main

        sys.argv = [f"jupyter-{app}", *arguments]
    sys.exit(main())
