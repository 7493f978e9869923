"""Recognise trace files by their first bytes: OTLP/JSON and the OpenTelemetry SDK's span JSON.

Kept apart from the readers so that sniffing (done for every input by every importer) imports
nothing of the trace conversion.
"""

from __future__ import annotations

_OTLP_MARKERS = (b'"resourceSpans"', b'"resourceLogs"')


def otlp(head: bytes) -> bool:
    """OTLP/JSON starts with an object whose first keys include resourceSpans/resourceLogs."""
    start = head.lstrip()[:4096]
    return start[:1] == b"{" and any(m in start for m in _OTLP_MARKERS)


def console(head: bytes) -> bool:
    """A span object (``context`` and ``name``), an array of them, or ``{"spans": [...]}``."""
    start = head.lstrip()[:4096]
    if start[:1] not in (b"{", b"["):
        return False
    return (b'"context"' in start and (b'"span_id"' in start or b'"spanId"' in start)) or (
        start[:1] == b"{" and b'"spans"' in start[:200] and b'"context"' in start
    )


def any_trace(head: bytes) -> bool:
    return otlp(head) or console(head)
