"""Spec §7: rows from raw step facts (attempt/validity across steps, shares, latency)."""

from __future__ import annotations

from typing import Any

import pytest

from agentbisect.genui import GenuiRunRecorder, GenuiTurnTelemetry
from agentbisect.genui.turns import (
    GenuiFrameTimes,
    GenuiOutOfLoopCall,
    GenuiStepFacts,
    GenuiToolMarker,
    StepUsage,
    ToolCall,
    ToolResult,
)
from agentbisect.schema.genui import RecordGenuiCallInput

TREE = GenuiToolMarker(mode="tree")
MARKERS = {"ui__render": TREE, "ui__show": GenuiToolMarker(mode="show")}


def facts(
    step: int, calls: list[ToolCall], results: list[ToolResult], **over: Any
) -> GenuiStepFacts:
    base: dict[str, Any] = dict(
        run_id="r1", thread_id="t1", actor_ref="user:a", step=step, channel="web",
        model_id="m", usage=StepUsage(100, 40), cost_usd=0.01, text="",
        calls=calls, results=results, marker_of=MARKERS.get, now=5000.0,
    )  # fmt: skip
    base.update(over)
    return GenuiStepFacts(**base)


def test_refusal_then_retry_with_another_ui_tool_then_fresh_first_try() -> None:
    turn = GenuiTurnTelemetry()
    step0 = turn.rows(facts(0, [ToolCall("a", "ui__render", {"x": 1})],
                            [ToolResult("a", error="expected string, received 'Jane'")]))  # fmt: skip
    step1 = turn.rows(facts(1, [ToolCall("b", "ui__show", {"y": 2})], [ToolResult("b")]))
    step2 = turn.rows(facts(2, [ToolCall("c", "ui__render", {})], [ToolResult("c")]))
    got = [(r.tool_call_id, r.attempt, r.outcome, r.validity) for r in step0 + step1 + step2]
    assert got == [
        ("a", 1, "error", "failed"),
        ("b", 2, "ok", "retried"),
        ("c", 1, "ok", "first_try"),
    ]
    assert step0[0].error_category == "schema"
    assert step0[0].error_message == 'expected string, received "…"'
    assert step1[0].mode == "show" and step0[0].payload is None


def test_non_ui_calls_and_missing_results_make_no_rows_but_weigh_in_shares() -> None:
    calls = [ToolCall("a", "ui__render", {"k": "v"}), ToolCall("s", "search", {"q": "abc"}),
             ToolCall("z", "ui__render", {})]  # fmt: skip
    rows = GenuiTurnTelemetry().rows(facts(0, calls, [ToolResult("a"), ToolResult("s")], text="hi"))
    assert [r.tool_call_id for r in rows] == ["a"]
    # weights: {"k":"v"} = 9, {"q":"abc"} = 11, {} = 2, text 2 → share 9/24
    (row,) = rows
    assert row.input_tokens == 38  # Math.round(100 * 9/24 = 37.5) = 38
    assert row.output_tokens == 15
    assert row.cost_usd == pytest.approx(0.01 * 9 / 24)
    assert row.payload_bytes == 9


def test_identical_calls_split_the_step_evenly() -> None:
    calls = [ToolCall("a", "ui__render", ""), ToolCall("b", "ui__render", "")]
    rows = GenuiTurnTelemetry().rows(facts(0, calls, [ToolResult("a"), ToolResult("b")]))
    assert [r.input_tokens for r in rows] == [50, 50]


def test_latency_from_frames_and_now_fallback() -> None:
    calls = [ToolCall("a", "ui__render", {}), ToolCall("b", "ui__render", {}),
             ToolCall("c", "ui__render", {})]  # fmt: skip
    results = [ToolResult("a"), ToolResult("b", error="nope"), ToolResult("c")]
    frames = {
        "a": GenuiFrameTimes(first=1200.0, complete=1900.0),
        "b": GenuiFrameTimes(first=1100.0),
    }
    rows = GenuiTurnTelemetry().rows(facts(0, calls, results, started_at=1000.0, frames=frames))
    got = [(r.first_frame_ms, r.complete_frame_ms) for r in rows]
    assert got == [(200.0, 900.0), (100.0, None), (4000.0, 4000.0)]
    rows = GenuiTurnTelemetry().rows(facts(0, calls, results, frames=frames))  # no startedAt
    assert all(r.first_frame_ms is None and r.complete_frame_ms is None for r in rows)


def test_sample_payloads_keeps_the_verbatim_error_and_payload() -> None:
    marker = GenuiToolMarker(mode="tree", sample_payloads=True)
    rows = GenuiTurnTelemetry().rows(
        facts(0, [ToolCall("a", "ui__render", {"n": "Jane"})],
              [ToolResult("a", error="received 'Jane'" + "x" * 400)],
              marker_of=lambda _n: marker)
    )  # fmt: skip
    assert rows[0].error_message == ("received 'Jane'" + "x" * 400)[:300]
    assert rows[0].payload == '{"n":"Jane"}'


def test_no_cost_when_the_step_cost_is_unknown() -> None:
    rows = GenuiTurnTelemetry().rows(
        facts(0, [ToolCall("a", "ui__render", {})], [ToolResult("a")], cost_usd=None)
    )
    assert rows[0].cost_usd is None


class Store:
    def __init__(self) -> None:
        self.rows: list[RecordGenuiCallInput] = []

    def record_genui_calls(self, rows: list[RecordGenuiCallInput]) -> None:
        self.rows.extend(rows)


def test_out_of_loop_recorder_counts_attempts_per_run_and_never_interferes() -> None:
    store, rec = Store(), GenuiRunRecorder(max_runs=2)

    def call(run: str, cid: str, marker: GenuiToolMarker | None = TREE) -> GenuiOutOfLoopCall:
        return GenuiOutOfLoopCall(store=store, marker=marker, run_id=run, thread_id="t",
                                  actor_ref="a", channel="mcp", model_id="m",
                                  call=ToolCall(cid, "ui__render", {}))  # fmt: skip

    def refuse() -> None:
        raise ValueError("Card does not take children")

    with pytest.raises(ValueError):
        rec.track(call("r1", "a"), refuse)
    assert rec.track(call("r1", "b"), lambda: 42) == 42
    assert rec.track(call("r1", "c", marker=None), lambda: 7) == 7  # not a UI tool: no row
    got = [(r.tool_call_id, r.attempt, r.validity, r.error_category, r.step, r.input_tokens,
            r.cost_usd, r.first_frame_ms) for r in store.rows]  # fmt: skip
    assert got == [
        ("a", 1, "failed", "tree_shape", 0, 0, None, None),
        ("b", 2, "retried", None, 0, 0, None, None),
    ]
