"""The pure-Python index queries and the one-sweep group building equal the numpy queries they
replaced (kept here, verbatim in substance, as the oracle) for any positions: ints, floats,
phantoms, open ranges, NaN, ±inf and integers beyond 2**53."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from agentbisect.importers import open_run
from agentbisect.model.boundary.index import (
    MAX_SAFE_INTEGER,
    CommitRangeIndex,
    CompositionLabel,
    Label,
    Range,
    RunLabel,
    SubflowLabel,
)
from agentbisect.model.boundary.rebuild import IndexBuild, rebuild_index
from agentbisect.model.boundary.strip import Group, _name, build_groups
from agentbisect.schema.events import (
    CompositionEnd,
    CompositionStart,
    LlmStart,
    OtherEvent,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
)
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
# Positions are a handful of small numbers and special values, labels six ids on four paths:
# 200 draws of up to 18 ranges cover that domain (400 took ~40 s of the suite).
EXAMPLES = 200


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


@settings(max_examples=EXAMPLES, deadline=None)
@given(indexes(), positions, positions)
def test_queries_equal_the_numpy_queries(ix: CommitRangeIndex, a: Any, b: Any) -> None:
    assert ids_of(ix.all()) == ids_of(ix.overlapping(0, MAX_SAFE_INTEGER))
    if not _without_huge(ix, a, b):
        return
    assert ids_of(ix.enclosing(a)) == ids_of(np_query(ix, a, a))
    for lo, hi in ((a, b), (b, a), (0, MAX_SAFE_INTEGER)):
        assert ids_of(ix.overlapping(lo, hi)) == ids_of(np_query(ix, lo, hi))


@settings(max_examples=EXAMPLES, deadline=None)
@given(indexes(), st.lists(positions, max_size=8))
def test_the_sweep_answers_each_position_as_enclosing_does(
    ix: CommitRangeIndex, wanted: list[Any]
) -> None:
    got = ix.enclosing_ids_each(wanted)
    assert len(got) == len(wanted)
    for p, ids in zip(wanted, got, strict=True):
        assert ids == ix.overlapping_ids(p, p)


@settings(max_examples=EXAMPLES, deadline=None)
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


# ---------------------------------------------------------------- the rebuild, as it was


def old_rebuild(events: list[Any], commit_log_empty: bool) -> IndexBuild:
    """``rebuild_index`` before it dispatched on the event class (isinstance chains)."""
    from msgspec import UnsetType

    from agentbisect.model.boundary.rebuild import _RANGE_TYPES, ROOT_KEY, _position, label_for

    index = CommitRangeIndex()
    build = IndexBuild(index)
    open_by_key: dict[str, Any] = {}
    positions: list[Any] = []
    openers = 0
    for i, ev in enumerate(events):
        if isinstance(ev, OtherEvent):
            if ev.type in _RANGE_TYPES and _position(ev.commitIdxBefore) is None:
                build.unpositioned += 1
            continue
        if not isinstance(
            ev, RunEntry | RunExit | SubflowEntry | SubflowExit | CompositionStart | CompositionEnd
        ):
            continue
        pos = _position(ev.commitIdxBefore)
        if pos is None:
            build.unpositioned += 1
            continue
        if isinstance(ev, CompositionStart | CompositionEnd):
            if not isinstance(ev.compositionId, str):
                build.skipped += 1
                continue
            key = "composition:" + ev.compositionId
        elif isinstance(ev, RunEntry | RunExit):
            if not isinstance(ev.runtimeStageId, str):
                build.skipped += 1
                continue
            key = ROOT_KEY
        else:
            if not isinstance(ev.runtimeStageId, str) or not ev.subflowId:
                build.skipped += 1
                continue
            key = ev.runtimeStageId
        positions.append(pos)
        if isinstance(ev, RunEntry | SubflowEntry | CompositionStart):
            openers += 1
            if key in open_by_key:
                build.reopened.append(key)
            label = label_for(ev)
            open_by_key[key] = (index.open(label, pos), label)
            build.range_events[id(label)] = [i]
        else:
            entry = open_by_key.pop(key, None)
            if entry is not None:
                index.close(entry[0], pos)
                build.range_events[id(entry[1])].append(i)
    if (positions and all(p == 0 for p in positions) and (openers > 1 or not commit_log_empty)) or (
        not positions and build.unpositioned
    ):
        build.legacy = True
        index.clear()
        build.reopened = []
        build.range_events = {}
        return build
    build.unclosed = [r.label.runtimeStageId for r in index.all() if not r.closed]
    build.phantoms = len(
        [r for r in index.all() if not isinstance(r.endIdx, UnsetType) and r.endIdx < r.startIdx]
    )
    return build


event_positions = st.one_of(
    st.integers(0, 9), st.sampled_from([None, True, -1, 1.5, math.inf, math.nan])
)


EVENT_CLASSES = [
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
    CompositionStart,
    CompositionEnd,
    OtherEvent,
    LlmStart,
]


@st.composite
def range_events(draw: st.DrawFn) -> list[Any]:
    out: list[Any] = []
    for _ in range(draw(st.integers(0, 20))):
        pos = draw(event_positions)
        kw: dict[str, Any] = {} if pos is None else {"commitIdxBefore": pos}
        rid = draw(st.sampled_from(["__root__#0", "a#1", "b#2", None]))
        if rid is not None:
            kw["runtimeStageId"] = rid
        kw["subflowPath"] = draw(st.sampled_from(PATHS))
        cls = draw(st.sampled_from(EVENT_CLASSES))
        if cls in (SubflowEntry, SubflowExit):
            sid = draw(st.sampled_from(["a", "", None]))
            if sid is not None:
                kw["subflowId"] = sid
        if cls in (CompositionStart, CompositionEnd):
            cid = draw(st.sampled_from(["c1", "c2", None]))
            if cid is not None:
                kw["compositionId"] = cid
        if cls is OtherEvent:
            kind = draw(st.sampled_from(["subflow.entry", "run.exit", "llm.start", "x.y"]))
            out.append(OtherEvent(type=kind, commitIdxBefore=kw.get("commitIdxBefore")))
            continue
        out.append(cls(**kw))
    return out


def _summary(build: IndexBuild) -> tuple[Any, ...]:
    ranges = [(r.startIdx, r.endIdx, r.label) for r in build.index.in_insertion_order()]
    events = {i: build.events_of(r) for i, r in enumerate(build.index.in_insertion_order())}
    return (
        build.legacy,
        build.unpositioned,
        build.unclosed,
        build.reopened,
        build.phantoms,
        build.skipped,
        repr(ranges),
        events,
    )


@settings(max_examples=EXAMPLES, deadline=None)
@given(range_events(), st.booleans())
def test_rebuild_equals_the_isinstance_version(events: list[Any], empty_log: bool) -> None:
    assert _summary(rebuild_index(events, empty_log)) == _summary(old_rebuild(events, empty_log))


def test_event_classes_are_never_subclassed() -> None:
    # The hot folds (step graph, rollups, call rows, index rebuild) test the exact class,
    # ``type(ev) is LlmStart``: a subclass would silently fall through them.
    from agentbisect.schema.events import KnownEvent

    for cls in (*KnownEvent.__args__, OtherEvent):
        assert cls.__subclasses__() == [], cls
