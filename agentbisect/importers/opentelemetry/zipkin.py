"""Read Zipkin v2 JSON into a ``SpanBatch``: an array of spans (what an exporter POSTs to
``/api/v2/spans`` and what ``/api/v2/trace/{id}`` returns) or an array of such arrays (what
``/api/v2/traces`` returns).

A span is ``{traceId, id, parentId, name, kind, timestamp, duration, localEndpoint, tags,
annotations}`` with times in microseconds and every tag a string. The OpenTelemetry → Zipkin
mapping (the spec's "Zipkin exporter" page and the SDK exporters) is undone here:
``otel.status_code`` and ``error`` are the status, ``otel.scope.name`` (``otel.library.name``
before it) the scope, a ``null`` kind of an OpenTelemetry span is INTERNAL, and each annotation is
an event again, its value ``{"name": {attributes}}`` (the Python exporter), ``"name": {…}`` (the
spec's example, the Java exporter) or ``name|{…}|dropped`` (the Collector's exporter); any other
annotation is an event of that name without attributes (the Collector writes INTERNAL as a
``span.kind`` tag and an error as ``error: "true"`` beside ``otel.status_description``). Tag
values are text: those whose type a convention declares are read back as that type
(``stringified``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import Raw, Struct

from agentbisect.core.errors import InputError
from agentbisect.importers.opentelemetry import otlp_json
from agentbisect.importers.opentelemetry.spans import (
    NO_ATTRIBUTES,
    NO_ITEMS,
    SPAN_KINDS,
    Span,
    SpanBatch,
    SpanEvent,
    is_zero_id,
    micros_ns,
    normalize_id,
    time_bits,
    time_ok,
)
from agentbisect.importers.opentelemetry.stringified import SHARE_UP_TO, converter, retyped

FORM = "Zipkin v2 JSON"
EXPECTED = "expected Zipkin v2 JSON (an array of spans, or an array of such arrays)"


class _Annotation(Struct):
    timestamp: int | float | None = None
    value: str = ""


class _ZipkinSpan(Struct):
    traceId: str = ""
    id: str = ""
    parentId: str | None = None
    name: str | None = None
    kind: str | None = None
    timestamp: int | float | None = None
    duration: int | float | None = None
    tags: dict[str, Any] | None = None
    annotations: list[_Annotation] | None = None


_TOP = msgspec.json.Decoder(list[Raw])
_SPAN = msgspec.json.Decoder(_ZipkinSpan)

# The tags the OpenTelemetry mapping writes for what a span has besides attributes.
_STATUS = "otel.status_code"
_ERROR = "error"
_SCOPE = ("otel.scope.name", "otel.library.name")
_MAPPED = frozenset(
    {
        _STATUS,
        _ERROR,
        "otel.status_description",
        "span.kind",
        "otel.scope.name",
        "otel.scope.version",
        "otel.library.name",
        "otel.library.version",
    }
)
# The Collector's annotation form: the event name, its attributes as JSON, dropped attributes.
_COLLECTOR_EVENT = re.compile(r"(.*?)\|(\{.*\})\|\d+", re.S)


def _kind(value: str | None, tags: dict[str, Any], from_otel: bool) -> str:
    if value is None or value == "":
        # the Collector writes INTERNAL as a span.kind tag, the SDK exporters as null; a
        # Zipkin-native span without a kind says nothing about it
        tag = tags.get("span.kind")
        if isinstance(tag, str) and tag.upper() in SPAN_KINDS:
            return tag.upper()
        return "INTERNAL" if from_otel else "UNSPECIFIED"
    name = value.upper()
    return name if name in SPAN_KINDS else "UNSPECIFIED"


def _tags(
    tags: dict[str, Any], batch: SpanBatch, where: str, strings: otlp_json.Strings
) -> dict[str, Any]:
    """The tags that are attributes, text read back as its declared type; a tag that is not a
    string (nor a number or boolean some producers write) is dropped with a problem. Keys and
    short text are kept once per file (``strings``)."""
    out: dict[str, Any] = {}
    share = strings.setdefault
    for key, value in tags.items():
        if key in _MAPPED:
            continue
        key = share(key, key)
        if type(value) is str:
            convert = converter(key)
            if convert is not None:
                out[key] = convert(value)
            else:
                out[key] = share(value, value) if len(value) <= SHARE_UP_TO else value
        elif isinstance(value, bool | int | float):
            out[key] = value
        else:
            batch.problem(
                "malformed-attribute",
                f"{where}: tag {key!r} is {type(value).__name__}, not a string; dropped",
            )
    return out or NO_ATTRIBUTES


def _event_parts(value: str) -> tuple[str, dict[str, Any]] | None:
    """The event name and attributes an annotation's value encodes, or None."""
    text = value.strip()
    candidates = []
    if text[:1] == "{":
        candidates.append(text)
    elif text[:1] == '"':
        candidates.append("{" + text + "}")
    for candidate in candidates:
        try:
            obj = msgspec.json.decode(candidate)
        except msgspec.DecodeError:
            continue
        if isinstance(obj, dict) and len(obj) == 1:
            ((name, attrs),) = obj.items()
            if isinstance(attrs, dict):
                return name, attrs
    m = _COLLECTOR_EVENT.fullmatch(text)
    if m is not None:
        try:
            attrs = msgspec.json.decode(m.group(2))
        except msgspec.DecodeError:
            return None
        if isinstance(attrs, dict):
            return m.group(1), attrs
    return None


def _event(a: _Annotation) -> SpanEvent:
    parts = _event_parts(a.value)
    if parts is None:
        return SpanEvent(a.value, micros_ns(a.timestamp), NO_ATTRIBUTES)
    name, attrs = parts
    return SpanEvent(
        name,
        micros_ns(a.timestamp),
        {k: retyped(k, v) if isinstance(v, str) else v for k, v in attrs.items()},
    )


def _status(tags: dict[str, Any]) -> tuple[str, str]:
    code = tags.get(_STATUS)
    code = code.upper() if isinstance(code, str) else ""  # (the Collector writes "Error", "Ok")
    error = tags.get(_ERROR)
    message = tags.get("otel.status_description")
    if code == "ERROR" or (error is not None and error not in (False, "false")):
        # the SDK exporters put the description in the error tag, the Collector "true" there
        # and the description beside it
        text = error if isinstance(error, str) and error != "true" else message
        return "ERROR", text if isinstance(text, str) else ""
    if code == "OK":
        return "OK", ""
    return "UNSET", ""


def _span(
    z: _ZipkinSpan, batch: SpanBatch, name: str, path: str, strings: otlp_json.Strings
) -> Span:
    sid = normalize_id(z.id)
    where = f"span {z.name or ''!r} ({sid or 'no id'})"
    if not sid:
        raise InputError(name, f"{where} has no id (a Zipkin span's id is required)", path)
    tags = z.tags or {}
    scope = next((s for s in (tags.get(k) for k in _SCOPE) if isinstance(s, str)), "")
    status, message = _status(tags)
    start = micros_ns(z.timestamp)
    end = start + micros_ns(z.duration) if z.duration is not None and time_ok(start) else 0
    parent = strings.id(z.parentId)
    return Span(
        trace_id=strings.id(z.traceId),
        span_id=sid,
        parent_id=None if is_zero_id(parent) else parent,
        name=strings.one(z.name or ""),
        kind=_kind(z.kind, tags, bool(scope)),
        start_ns=start if time_ok(start) else 0,
        end_ns=end if time_ok(end) else 0,
        status=status,
        status_message=message,
        attributes=_tags(tags, batch, where, strings) if tags else NO_ATTRIBUTES,
        events=[_event(a) for a in z.annotations] if z.annotations else NO_ITEMS,
        scope=scope,
        logs=NO_ITEMS,
        bad_time=time_bits(start, end),
    )


def _decoded(name: str, raw: Raw, at: str) -> _ZipkinSpan:
    """One span decoded; a wrong type is said at its path in the file."""
    try:
        return _SPAN.decode(raw)
    except msgspec.ValidationError as exc:
        msg, sep, rest = str(exc).partition(" - at `$")
        path = at + (rest.rstrip("`") if sep else "")
        raise InputError(name, f"expected a Zipkin v2 span: {msg}", path) from None


def read(name: str, data: bytes) -> SpanBatch:
    """Decode a Zipkin v2 span array, or an array of them, into a batch. Spans are kept as
    JSON and decoded one at a time, as the OTLP/JSON reader does."""
    batch = SpanBatch(form=FORM)
    strings = otlp_json.Strings()
    try:
        items = _TOP.decode(data)
    except msgspec.ValidationError:
        raise InputError(name, EXPECTED, "$") from None
    except msgspec.DecodeError as exc:
        raise InputError(name, f"not valid JSON ({exc})") from None
    for i, raw in enumerate(items):
        # (a value's raw JSON starts at its first byte: "[" is a trace, an array of spans)
        if memoryview(raw)[:1] == b"[":
            found = [(r, f"$[{i}][{j}]") for j, r in enumerate(_TOP.decode(raw))]
        else:
            found = [(raw, f"$[{i}]")]
        for r, at in found:
            strings.bound()
            batch.spans.append(_span(_decoded(name, r, at), batch, name, at, strings))
    return batch
