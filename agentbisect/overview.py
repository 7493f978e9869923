"""``RunOverview``: everything a visual report of one run shows, read off a ``Run`` once.

Shape, totals, honesty flags, the timeline, each boundary pass with its rollup, and the per-call
rows. Renderers read this struct and compute nothing; the HTML page is its first reader.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, Struct

from agentbisect.boundary.calls import LlmCallRow, ToolCallRow, call_rows
from agentbisect.boundary.rollup import BoundaryAggregate
from agentbisect.boundary.timeline import Timeline, build_timeline
from agentbisect.load import HonestyFlag
from agentbisect.run import Run


class Totals(Struct, kw_only=True):
    llmCalls: int
    toolCalls: int
    tokensIn: int | float
    tokensOut: int | float
    durationMs: int | float | None
    events: int
    boundaries: int


class BoundaryRow(Struct, kw_only=True):
    """One boundary pass in entry order; ``depth`` nests it (entry order is tree pre-order)."""

    runtimeStageId: str
    name: str
    kind: str
    depth: int
    rollup: BoundaryAggregate | None = None
    open: bool = False


class RunOverview(Struct, kw_only=True):
    source: dict[str, Any]
    totals: Totals
    flags: list[HonestyFlag]
    timeline: Timeline
    boundaries: list[BoundaryRow]
    runRollup: BoundaryAggregate
    llmCalls: list[LlmCallRow]
    toolCalls: list[ToolCallRow]


def run_overview(run: Run, trigger: str | None = None) -> RunOverview:
    """Summarise ``run``; ``trigger`` (a step id) is marked on the timeline."""
    tl = build_timeline(run.events, trigger)
    llm, tools = call_rows(run.events)
    by_id = {a.runtimeStageId: a for a in run.aggregates}
    rows = [
        BoundaryRow(
            runtimeStageId=s.runtimeStageId,
            name=tl.lanes[s.lane].name,
            kind=tl.lanes[s.lane].kind,
            depth=tl.lanes[s.lane].depth,
            rollup=by_id.get(s.runtimeStageId),
            open=s.end is None,
        )
        for s in tl.spans
    ]
    rr = run.run_row
    totals = Totals(
        llmCalls=rr.llmCalls,
        toolCalls=rr.toolCalls,
        tokensIn=rr.tokens.input,
        tokensOut=rr.tokens.output,
        durationMs=rr.durationMs if rr.durationMs is not UNSET else None,
        events=len(run.events),
        boundaries=len(tl.spans),
    )
    return RunOverview(
        source=run.source(),
        totals=totals,
        flags=list(run.flags),
        timeline=tl,
        boundaries=rows,
        runRollup=rr,
        llmCalls=llm,
        toolCalls=tools,
    )
