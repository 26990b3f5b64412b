"""The site's Content-Security-Policy: one definition for the <meta> tag every
built HTML page carries and the header `python build.py serve` sends.

    script-src 'self' 'wasm-unsafe-eval'   module scripts and the worker from this
                                           site only; WebAssembly may be compiled
                                           (Pyodide), but never `eval`/`new Function`
    no 'unsafe-inline' anywhere            no inline <script>, no style="" attributes
                                           (the page sets styles through the CSSOM)
    nothing from another origin            the site must work offline

`frame-ancestors` only works as a header (browsers ignore it in <meta>, with a
console error), so the meta form leaves it out; any page may embed the widget.
A worker takes its policy from its own response's header, not from the page,
so the server sends the header with scripts too.
"""

import base64
import hashlib
import re

DIRECTIVES = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),
    ("worker-src", "'self'"),
    ("connect-src", "'self'"),
    ("img-src", "'self' data:"),
    ("style-src", "'self'"),
    ("font-src", "'self'"),
    ("frame-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'none'"),
)
HEADER_ONLY = (("frame-ancestors", "*"),)

META_POLICY = "; ".join(f"{name} {value}" for name, value in DIRECTIVES)
HEADER_POLICY = "; ".join(f"{name} {value}" for name, value in DIRECTIVES + HEADER_ONLY)
META_TAG = f'<meta http-equiv="Content-Security-Policy" content="{META_POLICY}">'


# ---- The code sandbox (web/code-sandbox.html) ------------------------------------
# The document in which a learner's own Python runs ("Your code"): an iframe with
# sandbox="allow-scripts" and never allow-same-origin, so an opaque origin (no
# cookies, no Cache Storage, no IndexedDB, no localStorage, no site's authority),
# under a policy that allows no network at all. Its one script is inline, allowed by
# its hash (an opaque origin has no 'self' to name); everything else it needs comes
# from the page by postMessage, and the code worker it starts from a blob: URL
# inherits this policy. The header form adds `sandbox allow-scripts`, so the
# document is sandboxed even where a page frames it without the attribute (the
# script also refuses to start outside an opaque origin, for hosts that send no
# header).

SANDBOX_FILE = "code-sandbox.html"
SANDBOX_PLACEHOLDER = "__GRADWALK_SANDBOX_POLICY__"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def sandbox_directives(script_hash: str) -> tuple[tuple[str, str], ...]:
    return (
        ("default-src", "'none'"),
        ("script-src", f"'{script_hash}' blob: 'wasm-unsafe-eval'"),
        ("worker-src", "blob:"),
        ("connect-src", "'none'"),
        ("base-uri", "'none'"),
        ("form-action", "'none'"),
    )


def inline_script_hash(html: str) -> str:
    """The CSP hash source of the document's one inline script."""
    scripts = _INLINE_SCRIPT.findall(html)
    if len(scripts) != 1:
        raise ValueError(f"{SANDBOX_FILE} must hold exactly one inline <script>, not {len(scripts)}")
    return "sha256-" + base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()


def sandbox_policy(html: str) -> str:
    return "; ".join(f"{name} {value}" for name, value in sandbox_directives(inline_script_hash(html)))


def sandbox_header_policy(html: str) -> str:
    return sandbox_policy(html) + "; sandbox allow-scripts"


def fill_sandbox_policy(path) -> None:
    """Write the sandbox's policy, with its script's hash, into its <meta> tag."""
    html = path.read_text(encoding="utf-8")
    if SANDBOX_PLACEHOLDER not in html:
        raise ValueError(f"{path} has no {SANDBOX_PLACEHOLDER} to fill")
    path.write_text(html.replace(SANDBOX_PLACEHOLDER, sandbox_policy(html)), encoding="utf-8")
