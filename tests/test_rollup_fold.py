"""The one-pass rollup totals (``PathTotals``) equal the §6.2 fold written out literally — one
sequential pass per boundary, ``tokens.input += usage.input`` in stream order — for any stream,
and equal the numpy columns they replaced (kept here as an oracle) wherever those were exact."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from agentbisect.core.js import countable
from agentbisect.importers import open_run
from agentbisect.model.boundary.rollup import PathTotals, Tokens
from agentbisect.schema.events import (
    DomainEvent,
    LlmEnd,
    LlmStart,
    LoopIteration,
    SubflowEntry,
    ToolEnd,
    ToolStart,
    Usage,
)
from tests.helpers import RECORDINGS, recording

# ---------------------------------------------------------------- the two oracles


def spec_fold(events: list[DomainEvent], prefix: list[str]) -> tuple[Any, int, int, int]:
    """§6.2 step 2 as written: one pass, in stream order, over the events under ``prefix``."""
    n = len(prefix)
    t_in = t_out = 0.0
    llm = tool = loops = 0
    ints = True
    for ev in events:
        if isinstance(ev, LlmEnd) and ev.usage is not UNSET:
            u = ev.usage
            ints = ints and all(isinstance(v, int) for v in (u.input, u.output) if countable(v))
        if ev.path[:n] != prefix:
            continue
        if isinstance(ev, LlmStart):
            llm += 1
        elif isinstance(ev, ToolStart) and ev.dispatched:
            tool += 1
        elif isinstance(ev, LoopIteration):
            loops += 1
        elif isinstance(ev, LlmEnd) and ev.usage is not UNSET:
            if countable(ev.usage.input):
                t_in += ev.usage.input
            if countable(ev.usage.output):
                t_out += ev.usage.output
    tokens = Tokens(int(t_in), int(t_out)) if ints else Tokens(t_in, t_out)
    return tokens, llm, tool, loops


def numpy_fold(events: list[DomainEvent], prefix: list[str]) -> tuple[Any, int, int, int]:
    """What the numpy columns computed: per-path sums, then numpy's sum over the paths."""
    paths: dict[tuple[str, ...], int] = {}
    rows: list[tuple[int, int, float, float]] = []  # kind, path id, in, out
    ints = True
    for ev in events:
        if isinstance(ev, LlmStart):
            kind, t_in, t_out = 1, 0.0, 0.0
        elif isinstance(ev, ToolStart) and ev.dispatched:
            kind, t_in, t_out = 2, 0.0, 0.0
        elif isinstance(ev, LlmEnd):
            kind, t_in, t_out = 3, 0.0, 0.0
            if ev.usage is not UNSET:
                u = ev.usage
                if countable(u.input):
                    t_in = u.input
                if countable(u.output):
                    t_out = u.output
                ints = ints and all(isinstance(v, int) for v in (u.input, u.output) if countable(v))
        elif isinstance(ev, LoopIteration):
            kind, t_in, t_out = 4, 0.0, 0.0
        else:
            continue
        rows.append((kind, paths.setdefault(tuple(ev.path), len(paths)), t_in, t_out))
    m = len(paths)
    kind = np.array([r[0] for r in rows], dtype=np.int8)
    pid = np.array([r[1] for r in rows], dtype=np.int64)
    w_in = np.array([r[2] for r in rows], dtype=np.float64)
    w_out = np.array([r[3] for r in rows], dtype=np.float64)
    totals = (
        np.stack(
            [
                np.bincount(pid, weights=np.where(kind == 3, w_in, 0.0), minlength=m),
                np.bincount(pid, weights=np.where(kind == 3, w_out, 0.0), minlength=m),
                np.bincount(pid[kind == 1], minlength=m).astype(np.float64),
                np.bincount(pid[kind == 2], minlength=m).astype(np.float64),
                np.bincount(pid[kind == 4], minlength=m).astype(np.float64),
            ]
        )
        if m
        else np.zeros((5, 0))
    )
    n = len(prefix)
    ids = [i for p, i in paths.items() if list(p[:n]) == prefix]
    s_in, s_out, llm, tool, loops = totals[:, ids].sum(axis=1)
    tokens = Tokens(int(s_in), int(s_out)) if ints else Tokens(float(s_in), float(s_out))
    return tokens, int(llm), int(tool), int(loops)


# ---------------------------------------------------------------- generated streams

PATHS = [
    ["__root__"],
    ["__root__", "a"],
    ["__root__", "a", "b"],
    ["__root__", "ab"],
    ["__root__", "c"],
]
path = st.one_of(st.none(), st.sampled_from(PATHS))
int_count = st.integers(0, 5000)
any_count = st.one_of(
    int_count,
    st.floats(0, 1e4, allow_nan=False),
    st.sampled_from([-1, 2**53, 2**53 + 1, 1e300, float("nan"), float("inf"), 0.1, 0.2]),
)


def _kw(p: list[str] | None) -> dict[str, Any]:
    return {} if p is None else {"subflowPath": p}


@st.composite
def streams(draw: st.DrawFn, counts: st.SearchStrategy[Any]) -> list[DomainEvent]:
    out: list[DomainEvent] = []
    for _ in range(draw(st.integers(0, 30))):
        p = draw(path)
        kind = draw(st.integers(0, 6))
        if kind == 0:
            out.append(LlmStart(**_kw(p)))
        elif kind == 1:
            usage = Usage(draw(counts), draw(counts)) if draw(st.integers(0, 5)) else UNSET
            out.append(LlmEnd(usage=usage, **_kw(p)))
        elif kind == 2:
            nd = draw(st.sampled_from([UNSET, None, False, True, "x"]))
            out.append(ToolStart(notDispatched=nd, **_kw(p)))
        elif kind == 3:
            out.append(LoopIteration(**_kw(p)))
        elif kind == 4:
            out.append(ToolEnd(**_kw(p)))
        else:
            out.append(
                SubflowEntry(runtimeStageId=f"s#{len(out)}", primitiveKind="Agent", **_kw(p))
            )
    return out


PREFIXES = [[], *PATHS, ["__root__", "a", "b", "c"], ["x"]]


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    # Bit for bit: NaN equal to NaN, and int/float kept apart (160 is not 160.0 in JSON).
    ta, tb = a[0], b[0]
    for x, y in ((ta.input, tb.input), (ta.output, tb.output)):
        if type(x) is not type(y) or not (x == y or (x != x and y != y)):
            return False
    return a[1:] == b[1:]


# 200 streams of up to 30 events (a few paths, small and special counts), each folded at every
# prefix, cover both properties; 400 took ~12 s of the suite, most of it drawing the streams.
@settings(max_examples=200, deadline=None)
@given(streams(any_count))
def test_totals_equal_the_spec_fold_for_any_counts(events: list[DomainEvent]) -> None:
    totals = PathTotals(events)
    for prefix in PREFIXES:
        assert _same(totals.fold(prefix), spec_fold(events, prefix)), prefix


@settings(max_examples=200, deadline=None)
@given(streams(int_count))
def test_totals_equal_the_numpy_columns_for_integer_counts(events: list[DomainEvent]) -> None:
    totals = PathTotals(events)
    for prefix in PREFIXES:
        assert _same(totals.fold(prefix), numpy_fold(events, prefix)), prefix


def test_where_the_numpy_sum_was_not_the_spec_fold() -> None:
    # Fractional tokens on three paths: numpy summed per path, then across the paths, and got
    # 4.999999999999999; upstream's JavaScript (and now afp) adds in stream order and gets 5.0.
    events: list[DomainEvent] = [
        LlmEnd(subflowPath=["__root__", p], usage=Usage(v, 0))
        for p, v in (("a", 0.1), ("b", 0.1), ("b", 0.7), ("c", 0.1), ("c", 0.7), ("b", 3.3))
    ]
    assert PathTotals(events).fold([])[0] == Tokens(5.0, 0.0) == spec_fold(events, [])[0]
    assert numpy_fold(events, [])[0] == Tokens(4.999999999999999, 0.0)


def test_real_rollups_equal_the_numpy_columns() -> None:
    # (tests/test_conformance.py compares them with upstream's own output.)
    for name in RECORDINGS:
        run = open_run(recording(name))
        rows = [*run.aggregates, run.run_row]
        assert len(rows) > 1 or name == "react-tools-legacy"
        for agg in rows:
            prefix = agg.subflowPath if agg is not run.run_row else []
            got = (agg.tokens, agg.llmCalls, agg.toolCalls, agg.iterations)
            assert _same(got, numpy_fold(run.events, prefix)), (name, agg.runtimeStageId)
