"""The OpenTelemetry importer (the seam's module for traces): OTLP/JSON as one document or JSON
Lines, the SDK console form and span dumps, with log records from the same file or ``LOGS``;
and traces as the Zipkin and Jaeger backends give them back (``zipkin``, ``jaeger``).

The work is in ``traces`` (reading, joining, choosing a trace), ``conventions`` (what a span
means) and ``synthesize`` (the recording); this module only speaks the importer interface.
"""

from __future__ import annotations

from agentbisect.importers.base import (
    DEFAULT_MAX_EVENTS,
    Conversion,
    Detail,
    ImportOptions,
    InputBuffer,
)
from agentbisect.importers.opentelemetry import detect as trace_sniff

NAME = "otel"
LABEL = "OpenTelemetry trace"
TAKES_OPTIONS = True  # TRACE_ID, LOGS
RELEASES_INPUT = True  # the file's bytes are let go once its spans are read


def sniff(data: bytes) -> bool:
    # the readers are imported only for a trace: every other input is sniffed here too
    return trace_sniff.any_trace(data[: trace_sniff.SNIFF_BYTES])


def convert(
    name: str,
    data: bytes | InputBuffer,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
    options: ImportOptions | None = None,
) -> Conversion:
    """A trace as the canonical recording (``keep_embeddings`` has nothing to act on: imported
    values are text, never raw vectors). Given an ``InputBuffer``, its bytes are released as
    soon as the spans are read."""
    from agentbisect.core.inputbytes import read_input
    from agentbisect.importers.convert import conversion
    from agentbisect.importers.opentelemetry.traces import import_trace

    options = options or ImportOptions()
    logs = []
    for path in options.logs:
        logs_name, logs_data, _ = read_input(path, "OTLP/JSON log records")
        logs.append((logs_name, logs_data))
    result = import_trace(
        name, data, trace_id=options.trace_id, logs=logs, detail=detail, max_events=max_events
    )
    return conversion(result, detail)
