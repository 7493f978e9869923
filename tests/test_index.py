"""CommitRangeIndex semantics (recording.md §4.3) and a brute-force model check."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from agentbisect.model.boundary.index import MAX_SAFE_INTEGER, CommitRangeIndex, RunLabel


def lab(name: str) -> RunLabel:
    return RunLabel(runtimeStageId=name, subflowPath=["__root__"], depth=0, ts=0)


def names(ranges) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.label.runtimeStageId for r in ranges]


def test_enclosing_outer_then_inner() -> None:
    ix = CommitRangeIndex()
    ix.close(ix.open(lab("outer"), 0), 15)
    ix.close(ix.open(lab("inner"), 5), 10)
    assert names(ix.enclosing(7)) == ["outer", "inner"]
    assert names(ix.enclosing(12)) == ["outer"]
    assert ix.enclosing(20) == []


def test_overlapping_with_open_range() -> None:
    ix = CommitRangeIndex()
    ix.open(lab("A"), 0)
    ix.close(ix.open(lab("B"), 5), 10)
    ix.close(ix.open(lab("C"), 12), 15)
    assert names(ix.overlapping(6, 8)) == ["A", "B"]
    assert names(ix.overlapping(11, 14)) == ["A", "C"]


def test_ties_longer_first_and_open_before_closed() -> None:
    ix = CommitRangeIndex()
    ix.close(ix.open(lab("short"), 5), 8)
    ix.close(ix.open(lab("long"), 5), 12)
    assert names(ix.enclosing(7)) == ["long", "short"]
    ix2 = CommitRangeIndex()
    ix2.close(ix2.open(lab("closed"), 5), 9)
    ix2.open(lab("open"), 5)
    assert names(ix2.enclosing(6)) == ["open", "closed"]


def test_phantom_is_listed_by_overlapping_but_never_encloses() -> None:
    ix = CommitRangeIndex()
    ix.close(ix.open(lab("p"), 10), 5)
    assert ix.size == 1
    assert all(ix.enclosing(c) == [] for c in range(0, 15))
    assert names(ix.overlapping(4, 12)) == ["p"]
    assert ix.overlapping(6, 8) == []
    assert names(ix.overlapping(0, MAX_SAFE_INTEGER)) == ["p"]


def test_close_is_once_and_tokens_do_not_travel() -> None:
    ix, other = CommitRangeIndex(), CommitRangeIndex()
    tok = ix.open(lab("a"), 1)
    other.close(tok, 3)  # a foreign token is ignored
    assert ix.all()[0].endIdx is UNSET
    ix.close(tok, 4)
    ix.close(tok, 9)  # second close is a no-op
    assert ix.all()[0].endIdx == 4
    ix.clear()
    ix.close(tok, 7)  # a token from before clear() is stale
    assert ix.size == 0


def test_point_range_encloses_only_its_point() -> None:
    ix = CommitRangeIndex()
    ix.close(ix.open(lab("pt"), 5), 5)
    assert names(ix.enclosing(5)) == ["pt"]
    assert ix.enclosing(4) == [] and ix.enclosing(6) == []


ranges_strategy = st.lists(
    st.tuples(st.integers(0, 30), st.one_of(st.none(), st.integers(0, 30))), max_size=25
)


def _model(spec: list[tuple[int, int | None]], lo: float, hi: float) -> list[int]:
    hits = [i for i, (s, e) in enumerate(spec) if s <= hi and (e is None or e >= lo)]
    # outer -> inner: start asc, end desc (open = inf), then insertion order
    return sorted(
        hits, key=lambda i: (spec[i][0], -(spec[i][1] if spec[i][1] is not None else 1e18), i)
    )


@settings(max_examples=300, deadline=None)
@given(ranges_strategy, st.integers(-2, 32), st.integers(-2, 32))
def test_queries_match_brute_force(spec, a, b) -> None:  # type: ignore[no-untyped-def]
    ix = CommitRangeIndex()
    for i, (s, e) in enumerate(spec):
        tok = ix.open(lab(str(i)), s)
        if e is not None:
            ix.close(tok, e)
    assert [int(n) for n in names(ix.enclosing(a))] == _model(spec, a, a)
    lo, hi = min(a, b), max(a, b)
    assert [int(n) for n in names(ix.overlapping(lo, hi))] == _model(spec, lo, hi)
    assert len(ix.all()) == ix.size == len(spec)
    assert names(ix.all()) == names(ix.overlapping(0, MAX_SAFE_INTEGER))
    assert [int(n) for n in names(ix.all())] == _model(spec, 0, MAX_SAFE_INTEGER)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-3, 40, allow_nan=False),
            st.one_of(st.none(), st.floats(-3, 40, allow_nan=False)),
        ),
        max_size=25,
    ),
    st.floats(-3, 40, allow_nan=False),
)
def test_float_positions_match_brute_force(spec, p) -> None:  # type: ignore[no-untyped-def]
    ix = CommitRangeIndex()
    for i, (s, e) in enumerate(spec):
        tok = ix.open(lab(str(i)), s)
        if e is not None:
            ix.close(tok, e)
    assert [int(n) for n in names(ix.all())] == _model(spec, 0, MAX_SAFE_INTEGER)
    assert [int(n) for n in names(ix.enclosing(p))] == _model(spec, p, p)
