"""Options shared by several commands, so that they read and behave the same everywhere (their
typer-free rows: ``agentbisect.commands.spec``)."""

from __future__ import annotations

from enum import Enum
from typing import Any

import typer

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


def format_option(enum: type[Enum], default_help: str) -> Any:
    return typer.Option(
        None, "--format", "-f", case_sensitive=False, help=f"Output format. {default_help}"
    )


# ``aggregate`` and ``genui-stats`` offer the same three formats with the same help.
REPORT_FORMAT_OPT = format_option(
    ReportFormat, "table (default), json, or html (a self-contained page; with -o)."
)
