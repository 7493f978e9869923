"""Every planted scenario with the split it belongs to: the one list the generators and tests read.

A new held-out split is one module and one line here.
"""

from __future__ import annotations

from heldout import HELDOUT
from heldout2 import HELDOUT2
from heldout3 import HELDOUT3
from heldout4 import HELDOUT4
from heldout5 import HELDOUT5
from heldout6 import HELDOUT6
from scenarios import SCENARIOS, Scenario

SPLITS: dict[str, list[Scenario]] = {
    "main": list(SCENARIOS),
    "heldout": list(HELDOUT),
    "heldout2": list(HELDOUT2),
    "heldout3": list(HELDOUT3),
    "heldout4": list(HELDOUT4),
    "heldout5": list(HELDOUT5),
    "heldout6": list(HELDOUT6),
}

EVERY: list[tuple[Scenario, str]] = [(sc, split) for split, scs in SPLITS.items() for sc in scs]
