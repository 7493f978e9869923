"""The commit-range index (recording.md §4.2–4.3): ranges of commit positions with labels.

Same semantics as footprintjs's ``CommitRangeIndex``: inclusive ranges, open ranges count as +∞,
phantoms (end < start) are kept, queries sort outer → inner with insertion order breaking ties.
Queries are plain Python over the positions as doubles: a few thousand ranges at most, for which
numpy's import (~40 ms) cost more than every query of a command together. ``enclosing_ids_each``
answers many positions in one sweep.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from msgspec import UNSET, Struct, UnsetType

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


class Token(NamedTuple):
    """Handle returned by ``open``; only valid for the index (and generation) that issued it.

    A named tuple rather than a frozen dataclass: one is made per range, and the dataclass's
    ``__init__`` cost more than the rest of ``open``."""

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
        self._keys: tuple[list[float], list[float]] | None = None

    def __len__(self) -> int:
        return len(self._starts)

    @property
    def size(self) -> int:
        return len(self._starts)

    def open(self, label: Label, start: Position) -> Token:
        self._starts.append(start)
        self._ends.append(None)
        self._labels.append(label)
        self._keys = None
        return Token(id(self), self._generation, len(self._starts) - 1)

    def close(self, token: Token, end: Position) -> None:
        """Set the end once; a foreign, stale or already-closed token is silently ignored."""
        if token.owner != id(self) or token.generation != self._generation:
            return
        if token.slot >= len(self._ends) or self._ends[token.slot] is not None:
            return
        self._ends[token.slot] = end
        self._keys = None

    def clear(self) -> None:
        self._starts, self._ends, self._labels = [], [], []
        self._generation += 1
        self._keys = None

    def _floats(self) -> tuple[list[float], list[float]]:
        """Starts and ends as doubles (an open end is +inf), rebuilt only after a mutation.

        Queries compare doubles, as upstream's JavaScript does (and as the numpy vectors did):
        the same answers for integers beyond 2**53. A NaN position compares false both ways, so
        its range never matches.
        """
        if self._keys is None:
            self._keys = (
                [_double(s) for s in self._starts],
                [math.inf if e is None else _double(e) for e in self._ends],
            )
        return self._keys

    def _range(self, i: int) -> Range:
        end = self._ends[i]
        return Range(
            startIdx=self._starts[i],
            endIdx=UNSET if end is None else end,
            label=self._labels[i],
        )

    def _outer_to_inner(self, ids: list[int]) -> list[int]:
        # start asc, then end desc (open = +inf), then insertion order (the ids come ascending
        # and sort is stable).
        starts, ends = self._floats()
        ids.sort(key=lambda i: (starts[i], -ends[i]))
        return ids

    def overlapping_ids(self, lo: Position, hi: Position) -> list[int]:
        """Insertion numbers of the ranges with start ≤ hi and end ≥ lo, outer → inner."""
        starts, ends = self._floats()
        lo_f, hi_f = _double(lo), _double(hi)
        return self._outer_to_inner(
            [i for i, s in enumerate(starts) if s <= hi_f and ends[i] >= lo_f]
        )

    def enclosing(self, position: Position) -> list[Range]:
        """Every range with start ≤ position ≤ end (open ends are +∞), outer → inner."""
        return [self._range(i) for i in self.overlapping_ids(position, position)]

    def overlapping(self, lo: Position, hi: Position) -> list[Range]:
        """Every range with start ≤ hi and end ≥ lo, outer → inner (phantoms included, §4.3)."""
        return [self._range(i) for i in self.overlapping_ids(lo, hi)]

    def enclosing_ids_each(self, positions: Sequence[Position]) -> list[list[int]]:
        """``overlapping_ids(p, p)`` for every position at once.

        One sweep over the ranges sorted by start and by end, keeping the set that encloses
        the current position, instead of one scan of every range per position: building the
        step-strip groups asks this for every group (1,500 on a long run).
        """
        starts, ends = self._floats()
        # A phantom (end < start) or a NaN position never encloses anything.
        live = [i for i, s in enumerate(starts) if s <= ends[i]]
        by_start = sorted(live, key=starts.__getitem__)
        by_end = sorted(live, key=ends.__getitem__)
        wanted = sorted({q for q in map(_double, positions) if q == q})
        found: dict[float, list[int]] = {}
        active: set[int] = set()
        a = b = 0
        for q in wanted:
            while a < len(by_start) and starts[by_start[a]] <= q:
                active.add(by_start[a])
                a += 1
            # Every range ending before q started before it too, so it was added above.
            while b < len(by_end) and ends[by_end[b]] < q:
                active.discard(by_end[b])
                b += 1
            found[q] = self._outer_to_inner(sorted(active))
        return [list(found.get(_double(p), ())) for p in positions]

    def start_of(self, i: int) -> Position:
        return self._starts[i]

    def end_of(self, i: int) -> Position | UnsetType:
        end = self._ends[i]
        return UNSET if end is None else end

    def label_of(self, i: int) -> Label:
        return self._labels[i]

    def in_insertion_order(self) -> list[Range]:
        """Every range in the order it was opened."""
        return [self._range(i) for i in range(len(self._starts))]

    def all_ids(self) -> list[int]:
        """Insertion numbers of all ranges, outer → inner: ``overlapping(0, MAX_SAFE_INTEGER)``."""
        return self.overlapping_ids(0, MAX_SAFE_INTEGER)

    def all(self) -> list[Range]:
        """All ranges outer → inner: ``overlapping(0, MAX_SAFE_INTEGER)``."""
        return [self._range(i) for i in self.all_ids()]


def _double(value: Position) -> float:
    """A position as a double; integers too large for one saturate to ±inf (never raise)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


MAX_SAFE_INTEGER = 2**53 - 1
