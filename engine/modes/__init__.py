"""The modes: one module per "Why reverse mode" experiment, each declaring itself in ``MODE``
(see engine/registry.py, which finds them here by file name)."""
