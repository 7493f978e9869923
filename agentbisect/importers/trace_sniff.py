"""Recognise trace files by their first bytes: OTLP/JSON and the OpenTelemetry SDK's span JSON.

Kept apart from the readers so that sniffing (done for every input by every importer) imports
nothing of the trace conversion.
"""

from __future__ import annotations

import re


def _key(name: str) -> re.Pattern[bytes]:
    # The name as an object key: a JSON string followed by a colon is always a key. A recording
    # that merely mentions "resourceSpans" in a value is not a trace (hypothesis found one). The
    # end of the sniffed window may fall between a key and its colon.
    return re.compile(rb'"' + name.encode() + rb'"\s*(?::|$)')


_OTLP_KEY = _key("resource(?:Spans|Logs)")
_CONTEXT, _SPAN_ID, _SPANS = _key("context"), _key("span(?:_id|Id)"), _key("spans")


def otlp(head: bytes) -> bool:
    """OTLP/JSON starts with an object whose first keys include resourceSpans/resourceLogs."""
    start = head.lstrip()[:4096]
    return start[:1] == b"{" and _OTLP_KEY.search(start) is not None


def console(head: bytes) -> bool:
    """A span object (``context`` and ``name``), an array of them, or ``{"spans": [...]}``."""
    start = head.lstrip()[:4096]
    if start[:1] not in (b"{", b"["):
        return False
    if _CONTEXT.search(start) is None:
        return False
    return _SPAN_ID.search(start) is not None or (
        start[:1] == b"{" and _SPANS.search(start[:200]) is not None
    )


def any_trace(head: bytes) -> bool:
    return otlp(head) or console(head)
