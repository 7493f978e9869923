"""Read the planted-culprit corpus from its data files; that is this module's one job.

``scenarios/<split>.json`` holds one scenario set (``main``, then the held-out sets ``heldout``,
``heldout2`` …; a new split is one new file), each with an ``about`` saying how and when it was
written. ``select`` (``SELECTION``) is not a held-out split: it is the learned ranking's selection
data (issue 29, fourth round), so the accuracy benchmarks keep it out of their test tables. ``expected.json`` holds the right answers the accuracy benchmark scores against.

Every scenario lists the sources an agent saw, in the order it saw them. Exactly one, marked
``"planted": true``, carries the wrong fact the final answer repeats (in its own words, as models
do); the others are distractors, several on the same topic. Kinds: ``tool`` (a tool result, with
the call's ``args`` and the ``thought`` the LLM said before it), ``fact`` (an injected fact),
``rag`` (a retrieved document), ``memory``, ``instructions``/``steering``/``skill`` (system-prompt
lines) and ``llm`` (an earlier LLM call's output, no name). The texts were written for variety of
domain and wording, and frozen before any ranking was tuned; do not edit them to suit a scorer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# the split a ranking round chooses its model on: selection data, never a test table's row
SELECTION = "select"
KINDS = ("tool", "fact", "rag", "memory", "instructions", "steering", "skill", "llm")


@dataclass(frozen=True, kw_only=True)
class Source:
    kind: str
    text: str
    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    thought: str = ""
    planted: bool = False


@dataclass(frozen=True)
class Scenario:
    id: str
    domain: str
    question: str
    sources: tuple[Source, ...]
    answer: str

    @property
    def culprit(self) -> int:
        return next(i for i, s in enumerate(self.sources) if s.planted)

    def validate(self) -> None:
        marked = [s for s in self.sources if s.planted]
        assert len(marked) == 1, f"{self.id}: exactly one planted source"
        assert 3 <= len(self.sources) - 1 <= 8, f"{self.id}: 3-8 distractors"
        # the data files can say anything: only the kinds the generators know how to record
        assert all(s.kind in KINDS for s in self.sources), f"{self.id}: unknown source kind"
        names = [(s.kind == "tool", s.name) for s in self.sources if s.kind != "llm"]
        assert len(names) == len(set(names)), f"{self.id}: duplicate source names"


def _scenario(d: dict[str, Any]) -> Scenario:
    # keyword construction: a misspelt key in a data file fails here instead of being dropped
    sources = tuple(Source(**s) for s in d.pop("sources"))
    sc = Scenario(**d, sources=sources)
    sc.validate()
    return sc


def _read(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


# "main" first, then the held-out sets in name order: the order they were written in, which the
# generators and the tests' sampling (every n-th scenario) follow
SPLITS: dict[str, list[Scenario]] = {
    p.stem: [_scenario(d) for d in _read(p)["scenarios"]]
    for p in sorted((HERE / "scenarios").glob("*.json"), key=lambda p: (p.stem != "main", p.stem))
}
EVERY: list[tuple[Scenario, str]] = [(sc, split) for split, scs in SPLITS.items() for sc in scs]
assert len({sc.id for sc, _ in EVERY}) == len(EVERY), "scenario ids must be unique"
EXPECTED: dict[str, str] = _read(HERE / "expected.json")["expected"]
