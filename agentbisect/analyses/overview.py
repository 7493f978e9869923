"""``run_overview``: read off a ``Run`` once everything a visual report of it shows.

Shape, totals, honesty flags, the timeline, each boundary pass with its rollup, and the per-call
rows, as a ``results.RunOverview``. Renderers read that and compute nothing; the HTML page is its
first reader.
"""

from __future__ import annotations

from agentbisect.model.boundary.calls import call_rows
from agentbisect.model.boundary.timeline import build_timeline
from agentbisect.model.run import Run
from agentbisect.results import BoundaryRow, RunOverview, Totals


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
        durationMs=rr.durationMs,
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
