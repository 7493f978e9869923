"""A sample of the planted corpus as agent frameworks' own instrumentation writes it
(``benchmarks/planted/frameworks.py``; the whole corpus is made there with the frameworks
installed): each framework's trace of a scenario gives the planted source's own text to a suspect,
ranked the same as in the other frameworks' traces, within the top three."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "benchmarks" / "planted" / "frameworks"
sys.path.insert(0, str(ROOT / "benchmarks" / "planted"))

import frameworks  # noqa: E402


def test_every_framework_puts_the_planted_source_in_the_top_three() -> None:
    table = frameworks.score(SAMPLE)
    assert set(table) == set(frameworks.FRAMEWORKS)
    for split_rows in table.values():
        for row in split_rows.values():
            assert row["found"] == row["n"]
            assert row["top3"] == row["n"]
    # the same scenario ranks the same whichever framework wrote its trace
    assert len({repr(rows) for rows in table.values()}) == 1
