"""``afp events``'s option table and body (the options' help: ``agentbisect/cli/events.py``)."""

from __future__ import annotations

from agentbisect.commands.spec import (
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    Opt,
    file_arg,
    format_opt,
)
from agentbisect.core.errors import UsageError
from agentbisect.render.formats import EventsFormat

SPEC = CommandSpec(
    "events",
    file_arg(),
    Opt("types", "--type", "-t", default=[], metavar="TYPE", multiple=True),
    Opt("stage", "--stage", metavar="STEP_ID"),
    Opt("path", "--path", metavar="SUBFLOW_PATH"),
    Opt("at", "--at", kind=float, metavar="COMMIT"),
    Opt("limit", "--limit", kind=int, min=0, metavar="N"),
    Opt("steps", "--steps", kind=bool),
    format_opt(EventsFormat),
    JSON,
    Opt("table", "--table", kind=bool),
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
    from agentbisect.commands.common import import_options, load_run, pick_format
    from agentbisect.commands.output import check_output, emit
    from agentbisect.render.console import stdout_is_terminal

    if as_json and table:
        raise UsageError("--json and --table exclude each other")
    shorthand = "jsonl" if as_json else "table" if table else None
    # -o FILE is not a terminal: JSON Lines unless a format is asked for
    default = "table" if output is None and stdout_is_terminal() else "jsonl"
    name = pick_format(fmt, shorthand, "--json/--table", default)
    check_output(output, force, [file, *(logs or [])])
    run = load_run(file, verbose, import_options(trace_id, logs))
    if steps:
        emit(name, step_graph(run), output, force)
        return
    result = select_events(run, types=types, stage=stage, path=path, at=at, limit=limit)
    emit(name, result, output, force)
