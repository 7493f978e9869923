"""The format choices of each command, as Enums (typer validates them and lists them)."""

from __future__ import annotations

from enum import StrEnum


class EventsFormat(StrEnum):
    table = "table"
    jsonl = "jsonl"
    json = "json"


class ReportFormat(StrEnum):
    """``aggregate`` and ``genui-stats``."""

    table = "table"
    json = "json"
    html = "html"


class SummaryFormat(StrEnum):
    """``record``'s summary."""

    table = "table"
    json = "json"


class BisectFormat(StrEnum):
    table = "table"
    json = "json"
    text = "text"
    html = "html"


class CallFormat(StrEnum):
    """``call``: the request and response as a readable table, or the JSON to re-issue."""

    table = "table"
    json = "json"


class DiffFormat(StrEnum):
    """``diff``: one screen, the JSON document, or the two-column page."""

    table = "table"
    json = "json"
    html = "html"
