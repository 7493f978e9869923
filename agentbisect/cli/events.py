"""``afp events``: the run's unified domain-event stream (or its step graph); its option table
and body."""

from __future__ import annotations

from agentbisect.core.errors import UsageError
from agentbisect.core.options import (
    AT,
    FILE,
    FORCE,
    LOGS,
    NO_PAGER,
    OUTPUT,
    STAGE,
    SUBFLOW_PATH,
    TABLE_FORMAT,
    TRACE_ID,
    TYPES,
    VERBOSE,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.core.options import JSON as REPORT_JSON
from agentbisect.render.formats import EventsFormat

FORMAT = format_opt(EventsFormat, "Default: table on a terminal, jsonl in a pipe.")
# events' shorthands: the shared JSON option means JSON Lines here
JSON = REPORT_JSON.replace(help=f"Shorthand for {FORMAT.flag} jsonl.")
TABLE = TABLE_FORMAT
LIMIT = Opt("limit", "--limit", kind=int, min=0, metavar="N", help="At most N events.")
STEPS = Opt("steps", "--steps", kind=bool, help="Print the step graph instead.")

# The examples' comments line up in the printed help, not here.
HELP = f"""Print the domain-event stream: a table on a terminal, JSON Lines in a pipe or with {JSON.flag}.

JSON Lines carry each event exactly as recorded (upstream camelCase names, field order and
any fields from newer producers), so `afp events run.json | jq 'select(.type=="llm.end")'`
works; {FORMAT.flag} json prints them as one array.

Examples:

\b
  afp events run.json                       # a table on a terminal
  afp events run.json -t 'llm.*' {LIMIT.flag} 5
  afp events run.json {STAGE.flag} call-llm#40 {JSON.flag} | jq .type
  afp events run.json {AT.flag} 12               # ranges open at commit 12
  afp events run.json {STEPS.flag}               # the step graph
  afp events run.json {JSON.flag} -o events.jsonl
"""

SPEC = CommandSpec(
    "events",
    HELP,
    FILE,
    TYPES,
    STAGE,
    SUBFLOW_PATH,
    AT,
    LIMIT,
    STEPS,
    FORMAT,
    JSON,
    TABLE,
    NO_PAGER,
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
    no_pager: bool,
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
    result.page = not no_pager
    emit(name, result, output, force)
