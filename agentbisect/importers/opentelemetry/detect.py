"""Recognise trace files by their first bytes: OTLP/JSON, the OpenTelemetry SDK's span JSON,
and the JSON of the Zipkin and Jaeger backends.

Kept apart from the readers so that sniffing (done for every input by every importer) imports
nothing of the trace conversion.
"""

from __future__ import annotations

import re

SNIFF_BYTES = 4096  # how much of an input's start every importer's sniff looks at

_KEYS: dict[bytes, re.Pattern[bytes]] = {}


def _has_key(start: bytes, name: bytes) -> bool:
    """``name`` as an object key: a JSON string followed by a colon is always a key, so a
    recording that merely mentions "resourceSpans" in a value is not a trace (hypothesis found
    one). The end of the sniffed window may fall between a key and its colon. The substring test
    comes first: most inputs hold none of these words, and they compile no pattern."""
    quoted = b'"' + name + b'"'
    if quoted not in start:
        return False
    pattern = _KEYS.get(name)
    if pattern is None:
        pattern = _KEYS[name] = re.compile(re.escape(quoted) + rb"\s*(?::|$)")
    return pattern.search(start) is not None


def otlp(head: bytes) -> bool:
    """OTLP/JSON starts with an object whose first keys include resourceSpans/resourceLogs."""
    start = head.lstrip()[:SNIFF_BYTES]
    return start[:1] == b"{" and (
        _has_key(start, b"resourceSpans") or _has_key(start, b"resourceLogs")
    )


def console(head: bytes) -> bool:
    """A span object (``context`` and ``name``), an array of them, or ``{"spans": [...]}``."""
    start = head.lstrip()[:SNIFF_BYTES]
    if start[:1] not in (b"{", b"[") or not _has_key(start, b"context"):
        return False
    return (
        _has_key(start, b"span_id")
        or _has_key(start, b"spanId")
        or (start[:1] == b"{" and _has_key(start[:200], b"spans"))
    )


def console_logs(head: bytes) -> bool:
    """The SDK's log-record JSON (``ConsoleLogRecordExporter``: ``LogRecord.to_json()`` objects,
    concatenated), or an array of them: ``observed_timestamp`` beside ``trace_id``."""
    start = head.lstrip()[:SNIFF_BYTES]
    return (
        start[:1] in (b"{", b"[")
        and _has_key(start, b"observed_timestamp")
        and _has_key(start, b"trace_id")
    )


def zipkin(head: bytes) -> bool:
    """Zipkin v2 JSON: an array (of spans, or of arrays of spans) whose spans have ``traceId``
    and ``id`` and a Zipkin span's own keys (an endpoint, annotations, or ``timestamp`` beside
    ``duration``). Langfuse's and LangSmith's arrays also hold ``id`` and ``traceId``/``trace_id``
    keys, so their own keys (``observations``, ``startTime``, ``run_type``) rule it out."""
    start = head.lstrip()[:SNIFF_BYTES]
    if start[:1] != b"[" or not (_has_key(start, b"traceId") and _has_key(start, b"id")):
        return False
    if any(_has_key(start, k) for k in (b"observations", b"startTime", b"run_type", b"context")):
        return False
    return (
        _has_key(start, b"localEndpoint")
        or _has_key(start, b"remoteEndpoint")
        or _has_key(start, b"annotations")
        or (_has_key(start, b"timestamp") and _has_key(start, b"duration"))
    )


def jaeger(head: bytes) -> bool:
    """Jaeger's JSON: an object or array holding spans with ``traceID``, ``spanID`` (spelled
    with a capital D, unlike OTLP/JSON) and ``operationName``."""
    start = head.lstrip()[:SNIFF_BYTES]
    return (
        start[:1] in (b"{", b"[")
        and _has_key(start, b"spanID")
        and _has_key(start, b"traceID")
        and _has_key(start, b"operationName")
    )


def jaeger_v3(head: bytes) -> bool:
    """Jaeger's API v3 answer: ``{"result": {"resourceSpans": [...]}}`` (OTLP/JSON inside)."""
    start = head.lstrip()[:SNIFF_BYTES]
    return (
        start[:1] == b"{"
        and re.match(rb'\{\s*"result"\s*:\s*\{', start) is not None
        and _has_key(start, b"resourceSpans")
    )


def any_trace(head: bytes) -> bool:
    return otlp(head) or console(head) or console_logs(head) or zipkin(head) or jaeger(head)
