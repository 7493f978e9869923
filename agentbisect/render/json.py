"""The ``json`` renderer: one JSON document on stdout (upstream camelCase keys and key order)."""

from __future__ import annotations

import sys

from agentbisect.render import Unsupported, is_bisect_result
from agentbisect.render.console import stdout_is_terminal, write_bytes, write_json
from agentbisect.render.flags import stderr_flags
from agentbisect.render.table import notes
from agentbisect.results import (
    AggregateResult,
    EventsResult,
    GenuiResult,
    RecordSummary,
    StepGraphResult,
)


def render(result: object) -> None:
    if isinstance(result, EventsResult):
        # One array of the events exactly as recorded (bytes passed through). In a pipe or a
        # file the Raw buffers stream straight out: joining them made four copies of what may be
        # most of a 30 MB recording.
        buf = getattr(sys.stdout, "buffer", None)
        if buf is None or stdout_is_terminal():  # on a terminal write_bytes escapes controls
            write_bytes(b"[" + b",".join(bytes(r) for r in result.raws) + b"]\n")
        else:
            sys.stdout.flush()
            comma = b","
            buf.write(b"[")
            buf.writelines(part for i, r in enumerate(result.raws) for part in (comma, r)[not i :])
            buf.write(b"]\n")
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
    elif isinstance(result, GenuiResult):
        notes(result.warnings)
        write_json(result.stats)
    else:
        raise Unsupported(f"no JSON rendering for {type(result).__name__}")
