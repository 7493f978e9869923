"""``afp events``: the run's unified domain-event stream (or its step graph); its option table
and body."""

from __future__ import annotations

from agentbisect.core.errors import UsageError
from agentbisect.core.options import (
    FILE,
    FORCE,
    LOGS,
    OUTPUT,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.render.formats import EventsFormat

HELP = """Print the domain-event stream: a table on a terminal, JSON Lines in a pipe or with --json.

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

FORMAT = format_opt(EventsFormat, "Default: table on a terminal, jsonl in a pipe.")
# events' shorthands: --json is JSON Lines here
JSON = Opt("as_json", "--json", kind=bool, help=f"Shorthand for {FORMAT.flag} jsonl.")
TABLE = Opt("table", "--table", kind=bool, help=f"Shorthand for {FORMAT.flag} table.")

SPEC = CommandSpec(
    "events",
    HELP,
    FILE,
    Opt(
        "types",
        "--type",
        "-t",
        default=[],
        metavar="TYPE",
        multiple=True,
        help="Only these types; glob patterns such as 'llm.*'. Repeatable.",
    ),
    Opt("stage", "--stage", metavar="STEP_ID", help="Only events of this runtimeStageId."),
    Opt(
        "path",
        "--path",
        metavar="SUBFLOW_PATH",
        help="Only events under this subflow path prefix, e.g. sf-tools or a/b.",
    ),
    Opt(
        "at",
        "--at",
        kind=float,
        metavar="COMMIT",
        help="Only the boundary events (entry and exit) of the ranges enclosing this commit "
        "position.",
    ),
    Opt("limit", "--limit", kind=int, min=0, metavar="N", help="At most N events."),
    Opt("steps", "--steps", kind=bool, help="Print the step graph instead."),
    FORMAT,
    JSON,
    TABLE,
    OUTPUT,
    FORCE,
    VERBOSE,
    TRACE_ID,
    LOGS,
)


def run(
    *,
    file: str,
    types: list[str],
    stage: str | None,
    path: str | None,
    at: float | None,
    limit: int | None,
    steps: bool,
    fmt: EventsFormat | None,
    as_json: bool,
    table: bool,
    output: str | None,
    force: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.analyses.select import select_events, step_graph
    from agentbisect.cli.common import import_options, load_run, pick_format
    from agentbisect.cli.output import check_output, emit
    from agentbisect.render.console import stdout_is_terminal

    if as_json and table:
        raise UsageError(f"{JSON.flag} and {TABLE.flag} exclude each other")
    shorthand = "jsonl" if as_json else "table" if table else None
    # -o FILE is not a terminal: JSON Lines unless a format is asked for
    default = "table" if output is None and stdout_is_terminal() else "jsonl"
    name = pick_format(fmt, shorthand, f"{JSON.flag}/{TABLE.flag}", default)
    check_output(output, force, [file, *(logs or [])])
    run = load_run(file, verbose, import_options(trace_id, logs))
    if steps:
        emit(name, step_graph(run), output, force)
        return
    result = select_events(run, types=types, stage=stage, path=path, at=at, limit=limit)
    emit(name, result, output, force)
