"""``afp aggregate``: per-boundary rollups, the whole-run row, the boundary index and strip (its
option table and body)."""

from __future__ import annotations

from agentbisect.core.options import (
    ALL,
    DRILL,
    FILE,
    FORCE,
    JSON,
    LOGS,
    OUTPUT,
    REPORT_FORMATS,
    TRACE_ID,
    VERBOSE,
    CommandSpec,
    format_opt,
)
from agentbisect.render.formats import ReportFormat

HELP = f"""Rollups per boundary (tokens, LLM calls, tool calls, iterations, durations), plus a
whole-run row, the rebuilt boundary index and the step strip.

Upstream attributes events to a boundary by stored subflow path, so nested boundaries count
toward every ancestor and a top-level agent's calls land only in the Run row; `iterations`
counts loop back-edges under the boundary's path (0 on real recordings, whose loop events
carry the root path).

Examples:

\b
  afp aggregate run.json
  afp aggregate run.json {ALL.flag} {DRILL.flag} sf-tools#3
  afp aggregate run.json {JSON.flag} | jq '.run.tokens'
"""

SPEC = CommandSpec(
    "aggregate",
    HELP,
    FILE,
    ALL,
    DRILL,
    format_opt(ReportFormat, REPORT_FORMATS),
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
    from agentbisect.cli.common import import_options, load_run, pick_json_format
    from agentbisect.cli.output import check_output, emit

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
