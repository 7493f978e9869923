"""The pure-Python index queries and the one-sweep group building equal the numpy queries they
replaced (kept here, verbatim in substance, as the oracle) for any positions: ints, floats,
phantoms, open ranges, NaN, ±inf and integers beyond 2**53."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.boundary.index import (
    MAX_SAFE_INTEGER,
    CommitRangeIndex,
    CompositionLabel,
    Label,
    Range,
    RunLabel,
    SubflowLabel,
)
from agentbisect.boundary.strip import Group, _name, build_groups
from agentbisect.run import open_run
from tests.helpers import recording

# ---------------------------------------------------------------- the numpy oracle


def np_query(ix: CommitRangeIndex, lo: Any, hi: Any) -> list[Range]:
    """What ``overlapping(lo, hi)`` returned when it was vectorised over numpy arrays."""
    if not ix._starts:
        return []
    starts = np.asarray(ix._starts, dtype=np.float64)
    ends = np.asarray([math.inf if e is None else e for e in ix._ends], dtype=np.float64)
    hits = np.flatnonzero((starts <= hi) & (ends >= lo))
    if hits.size == 0:
        return []
    order = hits[np.lexsort((-ends[hits], starts[hits]))]
    return [ix._range(int(i)) for i in order]


def np_build_groups(index: CommitRangeIndex) -> list[Group]:
    """``build_groups`` as it was: one numpy ``enclosing`` query per group."""
    from msgspec import UNSET

    kept: list[Range] = []
    seen: set[str] = set()
    for r in np_query(index, 0, MAX_SAFE_INTEGER):
        rid = r.label.runtimeStageId
        if rid not in seen:
            seen.add(rid)
            kept.append(r)
    opened_at = {id(r.label): i for i, r in enumerate(index.in_insertion_order())}
    groups: list[Group] = []
    for r in kept:
        lab = r.label
        rid = lab.runtimeStageId
        parent: Any = UNSET
        if not isinstance(lab, RunLabel):
            mine = opened_at[id(lab)]
            around = [
                x
                for x in np_query(index, r.startIdx, r.startIdx)
                if x.label.runtimeStageId != rid and opened_at[id(x.label)] < mine
            ]
            inner_first = list(reversed(around))
            if isinstance(lab, SubflowLabel):
                want = lab.subflowPath[:-1]
                match = next((x for x in inner_first if x.label.subflowPath == want), None)
                if match is None and inner_first:
                    match = inner_first[0]
            else:
                match = inner_first[0] if inner_first else None
            if match is not None:
                parent = match.label.runtimeStageId
        group = Group(
            runtimeGroupId=rid,
            name=_name(lab),
            parentGroupId=parent,
            subflowPath=lab.subflowPath,
            depth=lab.depth,
            opensAtCommitIdx=r.startIdx,
            closesAtCommitIdx=r.endIdx,
            isRoot=isinstance(lab, RunLabel),
        )
        if isinstance(lab, CompositionLabel):
            group.compositionKind = lab.compositionKind
        if isinstance(lab, SubflowLabel):
            group.slotKind = lab.slotKind
            group.primitiveKind = lab.primitiveKind
            group.isAgentInternal = lab.isAgentInternal
        groups.append(group)
    return groups


# ---------------------------------------------------------------- generated indexes

small = st.integers(0, 12)
positions = st.one_of(
    small,
    small,
    st.floats(-2, 14, allow_nan=False).map(lambda f: round(f * 2) / 2),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 2**53 + 1, 2**60, 10**400]),
)
PATHS = [["__root__"], ["__root__", "a"], ["__root__", "b"], ["__root__", "a", "c"]]


@st.composite
def labels(draw: st.DrawFn) -> Label:
    kind = draw(st.sampled_from(["run", "subflow", "subflow", "composition"]))
    rid = draw(st.sampled_from(["r#0", "a#1", "b#2", "c#3", "d#4", "e#5"]))
    path = draw(st.sampled_from(PATHS))
    if kind == "run":
        return RunLabel(runtimeStageId=rid, subflowPath=path, depth=len(path) - 1, ts=0)
    if kind == "composition":
        return CompositionLabel(
            runtimeStageId=rid,
            subflowPath=path,
            depth=len(path) - 1,
            ts=0,
            compositionKind=draw(st.sampled_from(["Parallel", "Sequence", "Loop"])),
            compositionName="c",
        )
    return SubflowLabel(
        runtimeStageId=rid,
        subflowPath=path,
        depth=len(path) - 1,
        ts=0,
        subflowId=rid,
        localSubflowId=rid,
        subflowName=draw(st.sampled_from(["", "x", "y"])),
    )


@st.composite
def indexes(draw: st.DrawFn) -> CommitRangeIndex:
    ix = CommitRangeIndex()
    for _ in range(draw(st.integers(0, 18))):
        tok = ix.open(draw(labels()), draw(positions))
        if draw(st.integers(0, 4)):  # mostly closed
            ix.close(tok, draw(positions))
    return ix


def ids_of(ranges: list[Range]) -> list[int]:
    return [id(r.label) for r in ranges]


HUGE = 10**400  # beyond a double: numpy raises OverflowError, the index saturates it to inf


def _without_huge(ix: CommitRangeIndex, *more: Any) -> bool:
    return all(v != HUGE for v in [*ix._starts, *ix._ends, *more] if v is not None)


@settings(max_examples=400, deadline=None)
@given(indexes(), positions, positions)
def test_queries_equal_the_numpy_queries(ix: CommitRangeIndex, a: Any, b: Any) -> None:
    assert ids_of(ix.all()) == ids_of(ix.overlapping(0, MAX_SAFE_INTEGER))
    if not _without_huge(ix, a, b):
        return
    assert ids_of(ix.enclosing(a)) == ids_of(np_query(ix, a, a))
    for lo, hi in ((a, b), (b, a), (0, MAX_SAFE_INTEGER)):
        assert ids_of(ix.overlapping(lo, hi)) == ids_of(np_query(ix, lo, hi))


@settings(max_examples=400, deadline=None)
@given(indexes(), st.lists(positions, max_size=8))
def test_the_sweep_answers_each_position_as_enclosing_does(
    ix: CommitRangeIndex, wanted: list[Any]
) -> None:
    got = ix.enclosing_ids_each(wanted)
    assert len(got) == len(wanted)
    for p, ids in zip(wanted, got, strict=True):
        assert ids == ix.overlapping_ids(p, p)


@settings(max_examples=400, deadline=None)
@given(indexes())
def test_groups_equal_the_per_group_numpy_queries(ix: CommitRangeIndex) -> None:
    if not _without_huge(ix):
        return  # the numpy oracle raises OverflowError there (the old code crashed)
    assert build_groups(ix) == np_build_groups(ix)


def test_groups_of_real_recordings_equal_the_numpy_queries() -> None:
    for name in ("react-tools", "composition", "planted-fact"):
        run = open_run(recording(name))
        assert run.groups == np_build_groups(run.index), name
        assert len(run.groups) > 0


def test_huge_positions_saturate_instead_of_crashing() -> None:
    ix = CommitRangeIndex()
    ix.close(
        ix.open(RunLabel(runtimeStageId="r", subflowPath=["__root__"], depth=0, ts=0), 0), 10**400
    )
    assert [r.endIdx for r in ix.enclosing(10**300)] == [10**400]
    assert ix.enclosing_ids_each([5, math.nan]) == [[0], []]
