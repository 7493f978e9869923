"""The ``json`` renderer: one JSON document on stdout (upstream camelCase keys and key order)."""

from __future__ import annotations

from agentbisect.render import Unsupported, is_bisect_result
from agentbisect.render.console import write_bytes, write_json, write_pieces
from agentbisect.render.flags import stderr_flags
from agentbisect.render.table import notes
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


def render(result: object) -> None:
    if isinstance(result, EventsResult):
        # One array of the events exactly as recorded (bytes passed through).
        raws = result.raws
        write_pieces([b"[", *(p for i, r in enumerate(raws) for p in (b",", r)[not i :]), b"]\n"])
        stderr_flags(result.flags)
        notes(result.notes)
    elif isinstance(result, StepGraphResult):
        write_json(result.graph)
    elif isinstance(result, AggregateResult | RecordSummary):
        write_json(result.to_json())
    elif is_bisect_result(result):
        from agentbisect.results.report import report_json

        notes(result.warnings)
        write_bytes((report_json(result.report, indent=2) + "\n").encode("utf-8", "surrogatepass"))
    elif isinstance(result, CallResult):
        write_json(result.to_json())
    elif isinstance(result, GenuiResult):
        notes(result.warnings)
        write_json(result.stats)
    elif isinstance(result, ScanResult | DiffResult):
        notes(result.warnings)
        write_json(result.to_json())
    else:
        raise Unsupported(f"no JSON rendering for {type(result).__name__}")
