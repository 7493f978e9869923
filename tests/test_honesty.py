"""The honesty vocabulary: every flag name raised anywhere is registered, once, with a meaning."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentbisect.bisect.options import ATTRIBUTION_SCORES, RANKINGS, SCORERS
from agentbisect.core.honesty import FLAGS, HonestyFlag, dedupe, flag, markdown_table, names

SRC = Path(__file__).resolve().parent.parent / "agentbisect"
# flag("name", …), warn("name", …) and ("name", "note") pairs, also split over lines.
RAISED = re.compile(r"(?:flag\(|warn\(|\(\s*)\s*\"([a-z]+(?:-[a-z]+)+)\",\s*\(?\s*f?\"", re.S)

# option choices written as tuples of hyphenated names, which the pattern also matches
NOT_FLAGS = {*RANKINGS, *SCORERS, *ATTRIBUTION_SCORES}


def _raised_names() -> set[str]:
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        if path.name == "honesty.py":
            continue
        found.update(RAISED.findall(path.read_text()))
    return found - NOT_FLAGS


def test_every_raised_name_is_registered() -> None:
    raised = _raised_names()
    assert {"multiple-runs", "commit-axis-absent", "events-dropped", "slice-truncated"} <= raised
    assert raised - set(FLAGS) == set()


def test_merged_duplicates_are_gone() -> None:
    for old in ("no-commit-axis", "dropped-events", "several-run-ids", "trace-redaction"):
        assert old not in FLAGS
        assert old not in _raised_names()


def test_registry_api() -> None:
    assert flag("multiple-runs", "x") == HonestyFlag("multiple-runs", "x")
    with pytest.raises(KeyError):
        flag("no-such-flag", "x")
    assert names("upstream") == [
        "slice-truncated",
        "untracked-sources",
        "no-control-deps",
        "no-read-tracking",
        "no-llm-call-ids",
        "baseline-unstable",
    ]
    assert all(FLAGS[n].meaning and FLAGS[n].source for n in names())
    a, b = HonestyFlag("null-holes", "1"), HonestyFlag("null-holes", "2")
    assert dedupe([a, b]) == [a]
    assert markdown_table().count("\n") == len(FLAGS) + 1
