"""``afp events``: the run's unified domain-event stream (or its step graph).

This module declares the options for typer; the body is ``agentbisect.commands.events.run``.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import (
    FILE_ARG,
    LOGS_OPT,
    TRACE_ID_OPT,
    VERBOSE_OPT,
    format_option,
)
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT
from agentbisect.commands import events as body
from agentbisect.render.formats import EventsFormat


@app.command("events")
@guarded
def events(
    file: str = FILE_ARG,
    types: list[str] = typer.Option(
        [],
        "--type",
        "-t",
        metavar="TYPE",
        help="Only these types; glob patterns such as 'llm.*'. Repeatable.",
    ),
    stage: str | None = typer.Option(
        None, "--stage", metavar="STEP_ID", help="Only events of this runtimeStageId."
    ),
    path: str | None = typer.Option(
        None,
        "--path",
        metavar="SUBFLOW_PATH",
        help="Only events under this subflow path prefix, e.g. sf-tools or a/b.",
    ),
    at: float | None = typer.Option(
        None,
        "--at",
        metavar="COMMIT",
        help="Only the boundary events (entry and exit) of the ranges enclosing this commit "
        "position.",
    ),
    limit: int | None = typer.Option(None, "--limit", min=0, metavar="N", help="At most N events."),
    steps: bool = typer.Option(False, "--steps", help="Print the step graph instead."),
    fmt: EventsFormat | None = format_option(
        EventsFormat, "Default: table on a terminal, jsonl in a pipe."
    ),
    as_json: bool = typer.Option(False, "--json", help="Shorthand for --format jsonl."),
    table: bool = typer.Option(False, "--table", help="Shorthand for --format table."),
    output: str | None = OUTPUT_OPT,
    force: bool = FORCE_OPT,
    verbose: bool = VERBOSE_OPT,
    trace_id: str | None = TRACE_ID_OPT,
    logs: list[str] | None = LOGS_OPT,
) -> None:
    """Print the domain-event stream: a table on a terminal, JSON Lines in a pipe or with --json.

    JSON Lines carry each event exactly as recorded (upstream camelCase names, field order and
    any fields from newer producers), so `afp events run.json | jq 'select(.type=="llm.end")'`
    works; --format json prints them as one array.

    Examples:

    \b
      afp events run.json                       # a table on a terminal
      afp events run.json -t 'llm.*' --limit 5
      afp events run.json --stage call-llm#40 --json | jq .type
      afp events run.json --at 12               # ranges open at commit 12
      afp events run.json --steps               # the step graph
      afp events run.json --json -o events.jsonl
    """
    # The parameters are exactly the body's keyword arguments.
    body.run(**locals())
