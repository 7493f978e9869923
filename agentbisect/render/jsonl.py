"""The ``jsonl`` renderer: JSON Lines, each event exactly as recorded (``afp events`` in a pipe)."""

from __future__ import annotations

from agentbisect.render import Unsupported
from agentbisect.render.console import write_pieces
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
    # Upstream field names, order and unknown fields pass through byte for byte.
    write_pieces(part for r in result.raws for part in (r, b"\n"))
    stderr_flags(result.flags)
    notes(result.notes)
