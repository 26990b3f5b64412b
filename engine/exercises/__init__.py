"""The "Your code" exercises, as data: one file per exercise, read by engine.yourcode.

A file is named ``<n>_<id>.py``: ``id`` names the exercise (in links, ``exercise=<id>``) and
``n`` places it in the chooser's list. Adding an exercise is adding its file.

Each file is a whole module that defines ``class Value``: the exercise's solution. The part
the learner writes sits between a line ``# >>> write here: <what to write>`` and a line
``# <<<``; the scaffold is the same file with those lines in between replaced by ``pass``
(engine.yourcode.exercise). Nothing here is imported by the engine: the files are read as
text and run only as a learner's code would be.
"""
