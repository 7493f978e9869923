"""Options shared by several commands, so that they read and behave the same everywhere."""

from __future__ import annotations

from enum import Enum
from typing import Any

import typer

from agentbisect.errors import UsageError
from agentbisect.render.formats import ReportFormat

FILE_ARG = typer.Argument(
    ..., metavar="FILE", help="Recording file (JSON or gzip JSON), or - for stdin."
)
JSON_OPT = typer.Option(False, "--json", help="Shorthand for --format json.")
VERBOSE_OPT = typer.Option(False, "--verbose", "-v", help="Say which shape was read, on stderr.")
TRACE_ID_OPT = typer.Option(
    None,
    "--trace-id",
    metavar="TRACE_ID",
    help="OpenTelemetry input holding several traces: analyse this one (default: the trace whose "
    "root span ended last).",
)
LOGS_OPT = typer.Option(
    None,
    "--logs",
    metavar="FILE",
    help="OpenTelemetry log records (OTLP/JSON) exported to another file; joined to their spans "
    "by trace and span id. Repeatable.",
)


def import_options(trace_id: str | None, logs: list[str] | None) -> Any:
    """``ImportOptions`` for ``--trace-id``/``--logs``, or ``None`` when neither was given."""
    if trace_id is None and not logs:
        return None
    from agentbisect.run import ImportOptions

    return ImportOptions(trace_id=trace_id, logs=list(logs or []))


def format_option(enum: type[Enum], default_help: str) -> Any:
    return typer.Option(
        None, "--format", "-f", case_sensitive=False, help=f"Output format. {default_help}"
    )


# ``aggregate`` and ``genui-stats`` offer the same three formats with the same help.
REPORT_FORMAT_OPT = format_option(
    ReportFormat, "table (default), json, or html (a self-contained page; with -o)."
)


def pick_format(fmt: Enum | None, shorthand: str | None, flag: str, default: str) -> str:
    """The format name from ``--format`` or one shorthand flag (``--json``), never both."""
    if fmt is not None and shorthand is not None and fmt.value != shorthand:
        raise UsageError(f"give --format or {flag}, not both")
    if fmt is not None:
        return str(fmt.value)
    return shorthand if shorthand is not None else default


def pick_json_format(fmt: Enum | None, as_json: bool) -> str:
    """``pick_format`` for the commands whose only shorthand is ``--json`` and default ``table``."""
    return pick_format(fmt, "json" if as_json else None, "--json", "table")
