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
