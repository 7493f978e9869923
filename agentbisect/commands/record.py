"""``afp record``'s option table and body (the options' help: ``agentbisect/cli/record.py``)."""

from __future__ import annotations

from enum import StrEnum

from agentbisect.commands.spec import (
    FORCE,
    JSON,
    LOGS,
    TRACE_ID,
    VERBOSE,
    Arg,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.render.formats import SummaryFormat


class Detail(StrEnum):
    full = "full"
    lean = "lean"


# The value of agentbisect.model.record.DEFAULT_MAX_EVENTS, copied because the option tables need it
# before any work and importing agentbisect.model.record for it would load the recorder every time.
DEFAULT_MAX_EVENTS = 10_000

SPEC = CommandSpec(
    "record",
    Arg("input_path", "INPUT"),
    Opt("output", "-o", "--output", metavar="FILE", required=True),
    Opt("detail", "--detail", kind=Detail, default=Detail.full),
    Opt("keep_embeddings", "--keep-embeddings", kind=bool),
    Opt("max_events", "--max-events", kind=int, default=DEFAULT_MAX_EVENTS, min=1, metavar="N"),
    Opt("gzip", "--gzip", kind=bool),
    FORCE,
    format_opt(SummaryFormat),
    JSON,
    VERBOSE,
    TRACE_ID,
    LOGS,
)


def run(
    *,
    input_path: str,
    output: str,
    detail: Detail,
    keep_embeddings: bool,
    max_events: int,
    gzip: bool,
    force: bool,
    fmt: SummaryFormat | None,
    as_json: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.analyses.record import record_file
    from agentbisect.commands.common import import_options, pick_json_format
    from agentbisect.render import get_renderer

    name = pick_json_format(fmt, as_json)
    summary = record_file(
        input_path,
        output,
        detail=detail.value,
        keep_embeddings=keep_embeddings,
        max_events=max_events,
        gzip=True if gzip else None,
        force=force,
        options=import_options(trace_id, logs),
    )
    get_renderer(name).render(summary)
    if verbose:
        from agentbisect.commands.common import say

        say(f"read {summary.bytes_in:,} bytes as {summary.shape_in}; wrote {summary.bytes_out:,}")
