"""The genui library: spec §8 exactly, the §9 edge cases, and property tests of the building blocks."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentbisect.genui import percentiles, rows_in_range, summarize, summarize_columns
from agentbisect.genui.columns import Columns, dedupe_last_wins, range_mask
from agentbisect.genui.usd import fsum, group_fsum
from agentbisect.schema.genui import GenuiCallRow
from tests.conftest import GENUI

FIXTURES = GENUI
SPEC_8A = FIXTURES / "spec-8a.jsonl"


def spec_rows() -> list[GenuiCallRow]:
    return msgspec.json.Decoder(GenuiCallRow).decode_lines(SPEC_8A.read_bytes())


def as_json(stats: Any) -> Any:
    return json.loads(msgspec.json.encode(stats))


def key_order(value: Any) -> Any:
    """The nested key sequence of a JSON value (spec §5: numbers compare numerically)."""
    if isinstance(value, dict):
        return [(k, key_order(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [key_order(v) for v in value]
    return None


def expected(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def make_row(**over: Any) -> GenuiCallRow:
    """A valid row; keyword overrides use the snake_case attribute names."""
    base: dict[str, Any] = dict(
        tool_call_id="tc",
        run_id="r",
        thread_id="t",
        actor_ref="user:a",
        step=0,
        tool_name="ui__render",
        channel="web",
        mode="tree",
        model_id="m",
        attempt=1,
        outcome="ok",
        validity="first_try",
        input_tokens=1,
        output_tokens=1,
        payload_bytes=10,
        created_at=datetime(2026, 7, 20, 10, 0, tzinfo=UTC),
    )
    base.update(over)
    return GenuiCallRow(**base)


def summarize_range(rows: list[GenuiCallRow], low: str | None, high: str | None) -> Any:
    cols = Columns.from_rows(rows)
    cols = cols.take(dedupe_last_wins(cols))
    return as_json(summarize_columns(cols.take(range_mask(cols, low, high))))


# --- spec §8 ---------------------------------------------------------------------------------


def test_spec_8a_worked_example_exactly() -> None:
    rows = spec_rows()
    got = as_json(summarize(rows))
    want = expected("spec-8a.expected.json")
    assert got == want
    # Key order is part of the contract (jq users, golden files): compare it at every level.
    assert key_order(got) == key_order(want)


def test_spec_8b_one_day_range_exactly() -> None:
    rows = spec_rows()
    got = summarize_range(rows, "2026-07-21", "2026-07-21")
    want = expected("spec-8b.expected-partial.json")
    assert {k: got[k] for k in want} == want
    # byToolModel is omitted by the spec "for brevity"; it follows the same rules.
    assert got["byToolModel"] == [
        {"toolName": "ui__show_chart", "modelId": "gpt-y", "mode": "per-component", "calls": 2,
         "firstAttempts": 1, "firstTrySuccesses": 0, "firstTryRate": 0.0, "retried": 0,
         "failed": 2, "costUsd": None},
        {"toolName": "ui__render", "modelId": "claude-x", "mode": "tree", "calls": 1,
         "firstAttempts": 1, "firstTrySuccesses": 1, "firstTryRate": 1.0, "retried": 0,
         "failed": 0, "costUsd": 0.002},
        {"toolName": "ui__render", "modelId": "gpt-y", "mode": "tree", "calls": 1,
         "firstAttempts": 1, "firstTrySuccesses": 0, "firstTryRate": 0.0, "retried": 0,
         "failed": 1, "costUsd": 0.002},
        {"toolName": "ui__show", "modelId": "gpt-y", "mode": "show", "calls": 1,
         "firstAttempts": 0, "firstTrySuccesses": 0, "firstTryRate": None, "retried": 1,
         "failed": 0, "costUsd": None},
    ]  # fmt: skip


def test_rows_in_range_matches_the_vectorized_mask() -> None:
    rows = spec_rows()
    kept = rows_in_range(rows, "2026-07-21", "2026-07-21")
    assert [r.tool_call_id for r in kept] == ["tc-4", "tc-5", "tc-6", "tc-7", "tc-8", "tc-8"]
    assert rows_in_range(rows, None, "2026-07-20") == rows[:3]
    assert rows_in_range(rows, "2026-07-22") == []
    with pytest.raises(ValueError):
        rows_in_range(rows, "2026-07-22", "2026-07-21")


# --- spec §4.7 and §9 edge cases ---------------------------------------------------------------


EMPTY = json.loads(
    '{"totals":{"calls":0,"turns":0,"firstAttempts":0,"firstTrySuccesses":0,"firstTryRate":null,'
    '"retried":0,"failed":0,"inputTokens":0,"outputTokens":0,"costUsd":null},"byToolModel":[],'
    '"errors":[],"byDay":[],"costPerTurn":{"turns":0,"avgUsd":null,"p50Usd":null,"p95Usd":null},'
    '"latency":{"firstFrame":{"count":0,"p50Ms":null,"p95Ms":null},"complete":{"count":0,'
    '"p50Ms":null,"p95Ms":null}}}'
)


def test_empty_input_and_empty_range() -> None:
    assert as_json(summarize([])) == EMPTY
    rows = spec_rows()
    assert summarize_range(rows, "2027-01-01", None) == EMPTY


def test_dedupe_last_wins_even_when_validity_changes() -> None:
    rows = [
        make_row(tool_call_id="a", outcome="error", validity="failed", error_message="x"),
        make_row(tool_call_id="a", outcome="ok", validity="first_try"),
    ]
    got = as_json(summarize(rows))["totals"]
    assert (got["calls"], got["failed"], got["firstTrySuccesses"]) == (1, 0, 1)
    got = as_json(summarize(rows[::-1]))["totals"]
    assert (got["calls"], got["failed"], got["firstTrySuccesses"]) == (1, 1, 0)


def test_offset_timestamp_buckets_by_utc_day() -> None:
    local = datetime(2026, 7, 21, 1, 30, tzinfo=__import__("datetime").timezone(timedelta(hours=2)))
    got = as_json(summarize([make_row(created_at=local)]))
    assert [d["day"] for d in got["byDay"]] == ["2026-07-20"]
    assert summarize_range([make_row(created_at=local)], "2026-07-21", None) == EMPTY


def test_turn_with_only_refused_rows() -> None:
    rows = [
        make_row(tool_call_id="a", attempt=1, outcome="error", validity="failed",
                 first_frame_ms=100.0, complete_frame_ms=150.0),
        make_row(tool_call_id="b", step=1, attempt=2, outcome="error", validity="failed"),
    ]  # fmt: skip
    got = as_json(summarize(rows))
    assert got["totals"]["firstAttempts"] == 1 and got["totals"]["failed"] == 2
    assert got["latency"]["firstFrame"] == {"count": 1, "p50Ms": 100.0, "p95Ms": 100.0}
    # completeFrameMs on a refused row does not count: "first complete frame of an accepted call"
    assert got["latency"]["complete"] == {"count": 0, "p50Ms": None, "p95Ms": None}


def test_no_cost_is_null_not_zero_and_mixed_cost_sums_only_known() -> None:
    got = as_json(summarize([make_row(tool_call_id="a"), make_row(tool_call_id="b", run_id="s")]))
    assert got["totals"]["costUsd"] is None
    assert got["byToolModel"][0]["costUsd"] is None and got["byDay"][0]["costUsd"] is None
    assert got["costPerTurn"] == {"turns": 0, "avgUsd": None, "p50Usd": None, "p95Usd": None}
    got = as_json(
        summarize(
            [make_row(tool_call_id="a", cost_usd=0.1), make_row(tool_call_id="b", run_id="s")]
        )
    )
    assert got["totals"]["costUsd"] == 0.1 and got["costPerTurn"]["turns"] == 1


def test_usd_sum_is_fsum_rounded_whatever_the_order() -> None:
    costs = [0.001, 0.003, 0.01, 0.002, 0.002]
    for order in (costs, costs[::-1], sorted(costs)):
        rows = [make_row(tool_call_id=str(i), cost_usd=c) for i, c in enumerate(order)]
        assert as_json(summarize(rows))["totals"]["costUsd"] == 0.018


def test_first_attempt_tie_breaks_on_tool_call_id() -> None:
    same = dict(step=0, attempt=1, created_at=datetime(2026, 7, 20, tzinfo=UTC))
    rows = [
        make_row(tool_call_id="b", outcome="error", validity="failed", **same),
        make_row(tool_call_id="a", tool_name="ui__show", mode="show", **same),
    ]
    got = as_json(summarize(rows))
    assert got["totals"]["firstTrySuccesses"] == 1  # "a" < "b"
    by_tool = {r["toolName"]: r["firstAttempts"] for r in got["byToolModel"]}
    assert by_tool == {"ui__show": 1, "ui__render": 0}


def test_error_cap_of_20_with_stable_ties() -> None:
    t0 = datetime(2026, 7, 20, tzinfo=UTC)
    rows = [
        make_row(tool_call_id=f"e{i:02d}", run_id=f"r{i}", outcome="error", validity="failed",
                 error_message=f"network timeout {i:02d}", created_at=t0)
        for i in range(25)
    ]  # fmt: skip
    rows.append(make_row(tool_call_id="z", run_id="z", outcome="error", validity="failed",
                         error_message="network timeout 24", created_at=t0))  # fmt: skip
    errors = as_json(summarize(rows))["errors"]
    assert len(errors) == 20
    assert errors[0]["message"] == "network timeout 24" and errors[0]["count"] == 2
    # The rest tie on count and lastAt: category, toolName, then message ascending.
    assert [e["message"] for e in errors[1:]] == [f"network timeout {i:02d}" for i in range(19)]
    assert {e["category"] for e in errors} == {"other"}
    assert errors[0]["lastAt"] == "2026-07-20T00:00:00.000Z"


def test_missing_category_is_classified_and_merges_with_given_one() -> None:
    msg = "invalid Chart props: series[0].value: must be number"
    rows = [
        make_row(tool_call_id="a", outcome="error", validity="failed", error_message=msg),
        make_row(tool_call_id="b", outcome="error", validity="failed", error_message=msg,
                 error_category="schema"),
        make_row(tool_call_id="c", outcome="error", validity="failed"),
    ]  # fmt: skip
    errors = as_json(summarize(rows))["errors"]
    assert [(e["category"], e["message"], e["count"]) for e in errors] == [
        ("schema", msg, 2),
        ("other", "", 1),
    ]


def test_scrub_merges_groups_that_differ_only_in_quoted_values() -> None:
    rows = [
        make_row(tool_call_id=str(i), outcome="error", validity="failed",
                 error_message=f"expected string, received '{name}'")
        for i, name in enumerate(["Jane", "Bob"])
    ]  # fmt: skip
    assert len(as_json(summarize(rows))["errors"]) == 2
    assert as_json(summarize(rows, scrub=True))["errors"][0] | {"lastAt": None} == {
        "category": "schema", "message": 'expected string, received "…"',
        "toolName": "ui__render", "count": 2, "lastAt": None,
    }  # fmt: skip


def test_inconsistent_rows_count_by_validity() -> None:
    rows = [make_row(tool_call_id="a", outcome="ok", validity="failed")]
    totals = as_json(summarize(rows))["totals"]
    assert totals["failed"] == 1 and totals["firstTrySuccesses"] == 0
    # …but the latency "accepted" test follows outcome.
    rows = [make_row(tool_call_id="a", outcome="ok", validity="failed", complete_frame_ms=5.0)]
    assert as_json(summarize(rows))["latency"]["complete"]["count"] == 1


def test_p50_of_two_is_the_upper_and_of_one_is_itself() -> None:
    assert percentiles(np.array([4500.0, 9000.0]), (0.5, 0.95)) == [9000.0, 9000.0]
    assert percentiles(np.array([7.0]), (0.5, 0.95)) == [7.0, 7.0]
    assert percentiles(np.array([100.0, 200.0, 300.0]), (0.5, 0.95)) == [200.0, 300.0]
    assert percentiles(np.array([50.0, 150.0, 250.0]), (0.95,)) == [250.0]
    assert percentiles(np.array([]), (0.5,)) == [None]


# --- properties --------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1e6, allow_nan=False), max_size=60),
    st.sampled_from([0.5, 0.95, 0.0, 1.0, 0.33]),
)
def test_percentile_matches_the_brute_force_definition(values: list[float], p: float) -> None:
    got = percentiles(np.array(values, dtype=np.float64), (p,))[0]
    if not values:
        assert got is None
    else:
        assert got == sorted(values)[min(len(values) - 1, math.floor(p * len(values)))]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.floats(0, 5000, allow_nan=False, allow_infinity=False)),
        max_size=80,
    )
)
# Found by hypothesis: the first four sum exactly to a midpoint between two floats, so the
# 1e-199 (below the fixed-point's 2^-80) decides the rounding, and with it the 10th decimal.
@example(
    [(0, 1.7405259567281064), (0, 1.7405259567281064), (0, 3188.7931364560945),
     (0, 4999.999999999999), (0, 8.170506784531484e-199)]
)  # fmt: skip
@example([(3, 1e9), (3, 1.0), (1, 0.1)])  # a cost ≥ 2^22 USD: math.fsum for every group
def test_group_fsum_equals_math_fsum_per_group(pairs: list[tuple[int, float]]) -> None:
    codes = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.float64)
    got = group_fsum(codes, values, 6)
    for g in range(6):
        # Correctly rounded exact sums, like math.fsum: equal to the last bit.
        assert float(got[g]) == math.fsum(v for c, v in pairs if c == g)
    assert fsum(values) == math.fsum(values.tolist())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.booleans()), max_size=30))
def test_dedupe_keeps_the_last_row_of_each_id(spec: list[tuple[str, bool]]) -> None:
    rows = [
        make_row(tool_call_id=i, outcome="error" if bad else "ok",
                 validity="failed" if bad else "first_try", step=n)
        for n, (i, bad) in enumerate(spec)
    ]  # fmt: skip
    cols = Columns.from_rows(rows)
    kept = [rows[int(p)] for p in cols.index[dedupe_last_wins(cols)]]
    last: dict[str, GenuiCallRow] = {}
    for r in rows:
        last[r.tool_call_id] = r
    assert kept == sorted(last.values(), key=lambda r: r.step)


_ROW = st.fixed_dictionaries(
    {
        "tool_call_id": st.text("abc", min_size=1, max_size=2),
        "run_id": st.sampled_from(["r1", "r2", "r3"]),
        "step": st.integers(0, 3),
        "attempt": st.integers(1, 3),
        "validity": st.sampled_from(["first_try", "retried", "failed"]),
        "tool_name": st.sampled_from(["ui__render", "ui__show"]),
        "cost_usd": st.none() | st.sampled_from([0.001, 0.01, 0.1, 0.3]),
        "first_frame_ms": st.none() | st.floats(0, 10_000),
        "created_at": st.integers(0, 3 * 86400).map(
            lambda s: datetime(2026, 7, 20, tzinfo=UTC) + timedelta(seconds=s)
        ),
    }
)


def _reference(rows: list[GenuiCallRow]) -> dict[str, Any]:
    """A plain-Python model of the headline numbers (spec §3–§4), for comparison."""
    last: dict[str, GenuiCallRow] = {}
    for r in rows:
        last.pop(r.tool_call_id, None)
        last[r.tool_call_id] = r
    rs = list(last.values())
    turns: dict[str, list[GenuiCallRow]] = {}
    for r in rs:
        turns.setdefault(r.run_id, []).append(r)
    firsts = [
        min(t, key=lambda r: (r.step, r.created_at, r.attempt, r.tool_call_id))
        for t in turns.values()
    ]
    costs = [math.fsum(r.cost_usd for r in t if r.cost_usd is not None)
             for t in turns.values() if any(r.cost_usd is not None for r in t)]  # fmt: skip
    ff = sorted(min(r.first_frame_ms for r in t if r.first_frame_ms is not None)
                for t in turns.values() if any(r.first_frame_ms is not None for r in t))  # fmt: skip
    costs.sort()

    def pct(v: list[float], p: float) -> float | None:
        return v[min(len(v) - 1, math.floor(p * len(v)))] if v else None

    return {
        "calls": len(rs),
        "turns": len(turns),
        "firstTrySuccesses": sum(f.validity == "first_try" for f in firsts),
        "days": sorted({r.created_at.date().isoformat() for r in rs}),
        "costTurns": len(costs),
        "p95Usd": None if not costs else round(pct(costs, 0.95), 10),  # type: ignore[arg-type]
        "ffP50": pct(ff, 0.5),
    }


@settings(max_examples=150, deadline=None)
@given(st.lists(_ROW, max_size=25))
def test_summary_agrees_with_a_plain_python_model(specs: list[dict[str, Any]]) -> None:
    rows = [make_row(**s, outcome="error" if s["validity"] == "failed" else "ok") for s in specs]
    got = as_json(summarize(rows))
    ref = _reference(rows)
    assert got["totals"]["calls"] == ref["calls"]
    assert got["totals"]["turns"] == got["totals"]["firstAttempts"] == ref["turns"]
    assert got["totals"]["firstTrySuccesses"] == ref["firstTrySuccesses"]
    assert [d["day"] for d in got["byDay"]] == ref["days"]
    assert got["costPerTurn"]["turns"] == ref["costTurns"]
    assert got["costPerTurn"]["p95Usd"] == ref["p95Usd"]
    assert got["latency"]["firstFrame"]["p50Ms"] == ref["ffP50"]
    assert sum(r["calls"] for r in got["byToolModel"]) == ref["calls"]
    assert sum(r["firstAttempts"] for r in got["byToolModel"]) == ref["turns"]
