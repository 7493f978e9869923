"""The commit-range index (recording.md §4.2–4.3): ranges of commit positions with labels.

Same semantics as footprintjs's ``CommitRangeIndex``: inclusive ranges, open ranges count as +∞,
phantoms (end < start) are kept, queries sort outer → inner with insertion order breaking ties.
Queries are vectorised over numpy arrays rebuilt only after a mutation; numpy is imported on the
first query, so building an index (every command does) does not pay for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from msgspec import UNSET, Struct, UnsetType

if TYPE_CHECKING:
    import numpy as np

Position = int | float


class RunLabel(Struct, tag="run.entry", tag_field="type", kw_only=True):
    runtimeStageId: str
    subflowPath: list[str]
    depth: int
    ts: Position


class SubflowLabel(Struct, tag="subflow.entry", tag_field="type", kw_only=True, omit_defaults=True):
    # Field order is part of the contract (§4.2): upstream writes isAgentInternal last.
    runtimeStageId: str
    subflowPath: list[str]
    depth: int
    ts: Position
    subflowId: str
    localSubflowId: str
    subflowName: str
    description: str | UnsetType = UNSET
    primitiveKind: str | UnsetType = UNSET
    slotKind: str | UnsetType = UNSET
    # UNSET default so that omit_defaults keeps an explicit False (upstream always writes it).
    isAgentInternal: bool | UnsetType = UNSET


class CompositionLabel(Struct, tag="composition.start", tag_field="type", kw_only=True):
    runtimeStageId: str
    subflowPath: list[str]
    depth: int
    ts: Position
    compositionKind: str
    compositionName: str


Label = RunLabel | SubflowLabel | CompositionLabel


class Range(Struct, kw_only=True, omit_defaults=True):
    """One listed range ``{startIdx, endIdx?, label}`` (``endIdx`` absent while open)."""

    startIdx: Position
    endIdx: Position | UnsetType = UNSET
    label: Label

    @property
    def closed(self) -> bool:
        return self.endIdx is not UNSET


@dataclass(frozen=True)
class Token:
    """Handle returned by ``open``; only valid for the index (and generation) that issued it."""

    owner: int
    generation: int
    slot: int


class CommitRangeIndex:
    """Ranges over the commit axis, queried by position (``enclosing``) or span."""

    def __init__(self) -> None:
        self._starts: list[Position] = []
        self._ends: list[Position | None] = []
        self._labels: list[Label] = []
        self._generation = 0
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._starts)

    @property
    def size(self) -> int:
        return len(self._starts)

    def open(self, label: Label, start: Position) -> Token:
        self._starts.append(start)
        self._ends.append(None)
        self._labels.append(label)
        self._arrays = None
        return Token(id(self), self._generation, len(self._starts) - 1)

    def close(self, token: Token, end: Position) -> None:
        """Set the end once; a foreign, stale or already-closed token is silently ignored."""
        if token.owner != id(self) or token.generation != self._generation:
            return
        if token.slot >= len(self._ends) or self._ends[token.slot] is not None:
            return
        self._ends[token.slot] = end
        self._arrays = None

    def clear(self) -> None:
        self._starts, self._ends, self._labels = [], [], []
        self._generation += 1
        self._arrays = None

    def _vectors(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            import numpy as np

            starts = np.asarray(self._starts, dtype=np.float64)
            ends = np.asarray([math.inf if e is None else e for e in self._ends], dtype=np.float64)
            self._arrays = (starts, ends)
        return self._arrays

    def _select(self, mask: np.ndarray) -> list[Range]:
        import numpy as np

        starts, ends = self._vectors()
        hits = np.flatnonzero(mask)
        if hits.size == 0:
            return []
        # lexsort is stable; the last key is primary: start asc, then end desc (open = +inf).
        order = hits[np.lexsort((-ends[hits], starts[hits]))]
        return [self._range(int(i)) for i in order]

    def _range(self, i: int) -> Range:
        end = self._ends[i]
        return Range(
            startIdx=self._starts[i],
            endIdx=UNSET if end is None else end,
            label=self._labels[i],
        )

    def enclosing(self, position: Position) -> list[Range]:
        """Every range with start ≤ position ≤ end (open ends are +∞), outer → inner."""
        if not self._starts:
            return []
        starts, ends = self._vectors()
        return self._select((starts <= position) & (ends >= position))

    def overlapping(self, lo: Position, hi: Position) -> list[Range]:
        """Every range with start ≤ hi and end ≥ lo, outer → inner (phantoms included, §4.3)."""
        if not self._starts:
            return []
        starts, ends = self._vectors()
        return self._select((starts <= hi) & (ends >= lo))

    def in_insertion_order(self) -> list[Range]:
        """Every range in the order it was opened."""
        return [self._range(i) for i in range(len(self._starts))]

    def all(self) -> list[Range]:
        """All ranges outer → inner: ``overlapping(0, MAX_SAFE_INTEGER)``.

        Sorted in Python rather than through numpy: it is asked once per command (every run's
        flags need it), and an ordinary `afp bisect` then never imports numpy. ``sort`` is
        stable, so insertion order breaks ties exactly as the stable ``lexsort`` does.
        """
        ends = [math.inf if e is None else e for e in self._ends]
        starts = self._starts
        hits = [i for i, s in enumerate(starts) if s <= MAX_SAFE_INTEGER and ends[i] >= 0]
        hits.sort(key=lambda i: (starts[i], -ends[i]))
        return [self._range(i) for i in hits]


MAX_SAFE_INTEGER = 2**53 - 1
