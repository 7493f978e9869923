"""The ``table`` renderer: rich tables on stdout, honesty flags beside them, notes on stderr."""

from __future__ import annotations

from agentbisect.render import Unsupported, is_bisect_result
from agentbisect.render.flags import stderr_flags
from agentbisect.render.notes import note
from agentbisect.results import (
    AggregateResult,
    EventsResult,
    GenuiResult,
    RecordSummary,
    StepGraphResult,
)
from agentbisect.results.call import CallResult
from agentbisect.results.diff import DiffResult
from agentbisect.results.scan import ScanResult


def notes(lines: list[str]) -> None:
    """Warnings and notes on stderr (held until the command ends: ``render.notes``)."""
    for line in lines:
        note(line)


def render(result: object) -> None:
    if isinstance(result, EventsResult):
        from agentbisect.render.tables.events import events_table

        events_table(result)
        stderr_flags(result.flags)
        notes(result.notes)
    elif isinstance(result, StepGraphResult):
        from agentbisect.render.tables.events import step_graph_table

        step_graph_table(result.graph, result.lean)
        stderr_flags(result.flags)
    elif isinstance(result, AggregateResult):
        from agentbisect.render.tables.aggregate import render_aggregate

        render_aggregate(result)
    elif is_bisect_result(result):
        from agentbisect.render.tables.bisect import render_report

        notes(result.warnings)
        render_report(result)
    elif isinstance(result, GenuiResult):
        from agentbisect.render.tables.genui import print_tables

        notes(result.warnings)
        print_tables(
            result.stats, source=result.source, from_day=result.from_day, to_day=result.to_day
        )
    elif isinstance(result, RecordSummary):
        from agentbisect.render.tables.record import record_summary

        record_summary(result)
    elif isinstance(result, CallResult):
        from agentbisect.render.tables.call import render_call

        render_call(result)
    elif isinstance(result, ScanResult):
        from agentbisect.render.tables.scan import render_scan

        notes(result.warnings)
        render_scan(result)
    elif isinstance(result, DiffResult):
        from agentbisect.render.tables.diff import render_diff

        notes(result.warnings)
        render_diff(result)
    else:
        raise Unsupported(f"no table rendering for {type(result).__name__}")
