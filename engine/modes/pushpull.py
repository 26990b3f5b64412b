"""Push and pull: the two ways to write a backward visit, compared on one visit order.

Push (micrograd's ``_backward``) adds local × the visited node's grad into each parent; pull
sets the visited node's grad from the nodes that use it. Both are right when every node comes
after all its consumers, and break in different places when one does not. The comparison is
two visit-order runs of the graph (``load`` with an ``order``, once with each ``rule``,
engine/trace.py), so this mode has no command of its own: it keeps the rule the page's
visit-order run uses.
"""

from __future__ import annotations

from ..registry import Choice, Mode, Param
from ..trace import RULES

RULE = Param("rule", Choice(RULES), "push")

MODE = Mode(
    id="pushpull",
    tab="Push and pull",
    place=30,
    params=(RULE,),
    samples=lambda inputs, labels: [{"cmd": "load", "order": labels, "rule": rule} for rule in RULES],
)
