"""The ``jsonl`` renderer: JSON Lines, each event exactly as recorded (``afp events`` in a pipe)."""

from __future__ import annotations

import sys

from agentbisect.render import Unsupported
from agentbisect.render.console import stdout_is_terminal, write_bytes
from agentbisect.render.flags import stderr_flags
from agentbisect.render.table import notes
from agentbisect.results import EventsResult, StepGraphResult


def render(result: object) -> None:
    if isinstance(result, StepGraphResult):
        from agentbisect.render.json import render as render_json

        render_json(result)
        return
    if not isinstance(result, EventsResult):
        raise Unsupported(f"no JSON Lines rendering for {type(result).__name__}")
    # Upstream field names, order and unknown fields pass through byte for byte; the Raw buffers
    # stream straight out (no per-event bytes objects, no joined copy).
    buf = getattr(sys.stdout, "buffer", None)
    if buf is None or stdout_is_terminal():  # on a terminal write_bytes escapes C1/bidi controls
        write_bytes(b"".join(bytes(r) + b"\n" for r in result.raws))
    else:
        sys.stdout.flush()
        newline = b"\n"
        buf.writelines(part for r in result.raws for part in (r, newline))
    stderr_flags(result.flags)
    notes(result.notes)
