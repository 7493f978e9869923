"""``afp aggregate``'s option table and body (the options' help: ``agentbisect/cli/aggregate.py``)."""

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
from agentbisect.render.formats import ReportFormat

SPEC = CommandSpec(
    "aggregate",
    file_arg(),
    Opt("show_all", "--all", kind=bool),
    Opt("drill", "--drill", metavar="GROUP_ID"),
    format_opt(ReportFormat),
    OUTPUT,
    FORCE,
    JSON,
    VERBOSE,
    TRACE_ID,
    LOGS,
)


def run(
    *,
    file: str,
    show_all: bool,
    drill: str | None,
    fmt: ReportFormat | None,
    output: str | None,
    force: bool,
    as_json: bool,
    verbose: bool,
    trace_id: str | None,
    logs: list[str] | None,
) -> None:
    from agentbisect.commands.common import import_options, load_run, pick_json_format
    from agentbisect.commands.output import check_output, emit

    name = pick_json_format(fmt, as_json)
    check_output(output, force, [file])
    from agentbisect.analyses.aggregate import aggregate as aggregate_run

    # Only the HTML page reads the run again; for every other output the run (and the recording
    # bytes its parts point into) is freed before rendering: a 100,000-span trace's peak went
    # from 677 MB (run + result + JSON text) to 597 MB.
    run = load_run(file, verbose, import_options(trace_id, logs))
    result = aggregate_run(run, show_all=show_all, drill=drill, overview=name == "html")
    del run
    emit(name, result, output, force)
