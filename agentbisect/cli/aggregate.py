"""``afp aggregate``: per-boundary rollups, the whole-run row, the boundary index and strip.

This module declares the options for typer; the body is ``agentbisect.commands.aggregate.run``.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import (
    FILE_ARG,
    JSON_OPT,
    LOGS_OPT,
    REPORT_FORMAT_OPT,
    TRACE_ID_OPT,
    VERBOSE_OPT,
)
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT
from agentbisect.commands import aggregate as body
from agentbisect.render.formats import ReportFormat


@app.command("aggregate")
@guarded
def aggregate(
    file: str = FILE_ARG,
    show_all: bool = typer.Option(
        False, "--all", help="Also show all-zero agent-internal rollups and every index range."
    ),
    drill: str | None = typer.Option(
        None,
        "--drill",
        metavar="GROUP_ID",
        help="Show the step strip inside this group: its id, the id without #N, or the name "
        "the index tree shows, when only one group has it.",
    ),
    fmt: ReportFormat | None = REPORT_FORMAT_OPT,
    output: str | None = OUTPUT_OPT,
    force: bool = FORCE_OPT,
    as_json: bool = JSON_OPT,
    verbose: bool = VERBOSE_OPT,
    trace_id: str | None = TRACE_ID_OPT,
    logs: list[str] | None = LOGS_OPT,
) -> None:
    """Rollups per boundary (tokens, LLM calls, tool calls, iterations, durations), plus a
    whole-run row, the rebuilt boundary index and the step strip.

    Upstream attributes events to a boundary by stored subflow path, so nested boundaries count
    toward every ancestor and a top-level agent's calls land only in the Run row; `iterations`
    counts loop back-edges under the boundary's path (0 on real recordings, whose loop events
    carry the root path).

    Examples:

    \b
      afp aggregate run.json
      afp aggregate run.json --all --drill sf-tools#3
      afp aggregate run.json --json | jq '.run.tokens'
    """
    # The parameters are exactly the body's keyword arguments.
    body.run(**locals())
