"""Read Jaeger's JSON into a ``SpanBatch``: the query API's ``{"data": [traces]}`` (what
``/api/traces`` returns and the UI's trace JSON), one trace ``{"traceID", "spans",
"processes"}``, or an array of traces or of spans (with their ``process`` embedded, as Jaeger's
anonymizer writes them); and the API v3's ``{"result": OTLP/JSON}`` (``/api/v3/traces/{id}``,
one object, or one per line as its searches stream them), read by the OTLP/JSON reader.

A span is ``{traceID, spanID, operationName, references, startTime, duration, tags, logs,
processID}`` with times in microseconds and typed key-values (``{key, type, value}``: string,
bool, int64 — as a string beyond 2^53 —, float64, binary as base64). The OpenTelemetry → Jaeger
mapping (the Collector's translator, which Jaeger runs) is undone here: ``span.kind``,
``otel.status_code``, ``error`` and ``otel.status_description`` are the kind and status,
``otel.scope.name`` (``otel.library.name`` before it) the scope, each log an event named by its
``event`` field, and array values, which Jaeger keeps as JSON text, are read back where a
convention declares the key's type (``stringified``). The parent is the first ``CHILD_OF``
reference within the trace (else its first reference within the trace, as Jaeger's UI draws it).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import Struct

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

FORM = "Jaeger JSON"
EXPECTED = (
    'expected Jaeger JSON: {"data": [traces]} (the query API), one trace {"traceID", "spans": '
    "[...]}, or an array of traces or spans"
)


class _KeyValue(Struct):
    key: str = ""
    type: str = ""
    value: Any = None


class _Reference(Struct):
    refType: str = "CHILD_OF"
    traceID: str = ""
    spanID: str = ""


class _Log(Struct):
    timestamp: int | float | None = None
    fields: list[_KeyValue] | None = None


class _JaegerSpan(Struct):
    traceID: str = ""
    spanID: str = ""
    parentSpanID: str = ""  # (deprecated in Jaeger's model, still written by some)
    operationName: str = ""
    references: list[_Reference] | None = None
    startTime: int | float | None = None
    duration: int | float | None = None
    tags: list[_KeyValue] | None = None
    logs: list[_Log] | None = None


# Spans are kept as JSON and decoded one at a time (``_spans``), as the OTLP/JSON reader does:
# decoded all at once, every span's Struct lived beside the spans read from them.
class _Trace(Struct):
    traceID: str = ""
    spans: list[msgspec.Raw] | None = None


class _Item(_JaegerSpan):
    """An item of a top-level array: a trace (with ``spans``) or a span (Jaeger's tools, the
    anonymizer among them, write spans with their ``process`` embedded as one array)."""

    spans: list[msgspec.Raw] | None = None


class _Top(Struct):
    data: list[_Trace] | None = None
    traceID: str = ""
    spans: list[msgspec.Raw] | None = None


_DECODER = msgspec.json.Decoder(_Top | list[msgspec.Raw])
_ITEM = msgspec.json.Decoder(_Item)
_SPAN = msgspec.json.Decoder(_JaegerSpan)


class BadValue(Exception):
    """A key-value whose value does not have its declared type."""


def _number(value: Any, kind: str) -> int | float:
    if isinstance(value, bool):
        raise BadValue(f"{kind} value is a boolean")
    if kind == "int64":
        if isinstance(value, int):
            return value
        if isinstance(value, str):  # (Jaeger writes integers beyond 2^53 as text)
            try:
                return int(value)
            except ValueError:
                raise BadValue(f"int64 value {value!r} is not an integer") from None
        raise BadValue("int64 value is not an integer")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise BadValue(f"float64 value {value!r} is not a number") from None
        if math.isfinite(number) or value in ("NaN", "Infinity", "-Infinity"):
            return number
    raise BadValue("float64 value is not a number")


def value_of(kv: _KeyValue) -> Any:
    """One key-value's value as a plain value of its declared type; ``BadValue`` if it has
    another. An untyped value is taken as it is when it is a scalar."""
    kind, value = kv.type.lower(), kv.value
    if kind == "string":
        if not isinstance(value, str):
            raise BadValue(f"string value is {type(value).__name__}")
        return retyped(kv.key, value)
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if value in ("true", "false"):  # (the model's all-text form)
            return value == "true"
        raise BadValue("bool value is not true or false")
    if kind in ("int64", "float64"):
        return _number(value, kind)
    if kind == "binary":
        if not isinstance(value, str):
            raise BadValue("binary value is not base64 text")
        try:
            return base64.b64decode(value, validate=True).hex()
        except (binascii.Error, ValueError):
            raise BadValue("binary value is not base64") from None
    if kind == "":
        if isinstance(value, str):
            return retyped(kv.key, value)
        if value is None or isinstance(value, bool | int | float):
            return value
        raise BadValue(f"untyped value is {type(value).__name__}")
    raise BadValue(f"unknown value type {kv.type!r}")


def _values(
    kvs: list[_KeyValue], batch: SpanBatch, where: str, strings: otlp_json.Strings
) -> dict[str, Any]:
    """The key-values as a dict; a value not of its type is dropped with a problem. Keys and
    short text are kept once per file (``strings``)."""
    out: dict[str, Any] = {}
    share = strings.setdefault
    for kv in kvs:
        key = kv.key
        if kv.type == "string" and type(kv.value) is str:  # (the usual case first)
            value = kv.value
            convert = converter(key)
            if convert is not None:
                value = convert(value)
            elif len(value) <= SHARE_UP_TO:
                value = share(value, value)
        else:
            try:
                value = value_of(kv)
            except BadValue as exc:
                batch.problem("malformed-attribute", f"{where}: tag {key!r}: {exc}; dropped")
                continue
        out[share(key, key)] = value
    return out


# The tags the OpenTelemetry mapping writes for what a span has besides attributes.
_MAPPED = frozenset(
    {
        "span.kind",
        "otel.status_code",
        "otel.status_description",
        "error",
        "otel.scope.name",
        "otel.scope.version",
        "otel.library.name",
        "otel.library.version",
    }
)


def _kind(value: Any) -> str:
    name = value.upper() if isinstance(value, str) else ""
    return name if name in SPAN_KINDS else "UNSPECIFIED"


def _status(tags: dict[str, Any]) -> tuple[str, str]:
    code = tags.get("otel.status_code")
    code = code.upper() if isinstance(code, str) else ""
    message = tags.get("otel.status_description")
    message = message if isinstance(message, str) else ""
    if code == "ERROR" or tags.get("error") is True:
        return "ERROR", message
    if code == "OK":
        return "OK", message
    return "UNSET", ""


def _parent(s: _JaegerSpan, trace_id: str, strings: otlp_json.Strings) -> str:
    refs = s.references or []
    same = [r for r in refs if strings.id(r.traceID) in (trace_id, "")]
    ref = next((r for r in same if r.refType.upper() == "CHILD_OF"), None)
    ref = ref or (same[0] if same else None)
    ref = ref or next((r for r in refs if r.refType.upper() == "CHILD_OF"), None)
    return strings.id(ref.spanID if ref is not None else s.parentSpanID)


def _event(log: _Log, batch: SpanBatch, where: str, strings: otlp_json.Strings) -> SpanEvent:
    fields = _values(log.fields or [], batch, where, strings)
    name = fields.pop("event", "")
    return SpanEvent(
        name if isinstance(name, str) else str(name),
        micros_ns(log.timestamp),
        fields or NO_ATTRIBUTES,
    )


def _span(
    s: _JaegerSpan, batch: SpanBatch, name: str, path: str, strings: otlp_json.Strings
) -> Span:
    sid = normalize_id(s.spanID)
    where = f"span {s.operationName!r} ({sid or 'no id'})"
    if not sid:
        raise InputError(name, f"{where} has no spanID", path)
    trace_id = strings.id(s.traceID)
    tags = _values(s.tags or [], batch, where, strings)
    scope = next((v for v in map(tags.get, ("otel.scope.name", "otel.library.name")) if v), "")
    status, message = _status(tags)
    attributes = {k: v for k, v in tags.items() if k not in _MAPPED}
    start = micros_ns(s.startTime)
    end = start + micros_ns(s.duration) if s.duration is not None and time_ok(start) else 0
    parent = _parent(s, trace_id, strings)
    return Span(
        trace_id=trace_id,
        span_id=sid,
        parent_id=None if is_zero_id(parent) else parent,
        name=strings.one(s.operationName),
        kind=_kind(tags.get("span.kind")),
        start_ns=start if time_ok(start) else 0,
        end_ns=end if time_ok(end) else 0,
        status=status,
        status_message=message,
        attributes=attributes or NO_ATTRIBUTES,
        events=[_event(log, batch, where, strings) for log in s.logs] if s.logs else NO_ITEMS,
        scope=scope if isinstance(scope, str) else "",
        logs=NO_ITEMS,
        bad_time=time_bits(start, end),
    )


def _decoded(name: str, decoder: msgspec.json.Decoder[Any], raw: msgspec.Raw, at: str) -> Any:
    """One span (or top-level item) decoded; a wrong type is said at its path in the file."""
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as exc:
        msg, sep, rest = str(exc).partition(" - at `$")
        raise InputError(name, f"{EXPECTED}: {msg}", at + rest.rstrip("`") if sep else at) from None


def _spans(name: str, top: _Top | list[msgspec.Raw]) -> Iterator[tuple[_JaegerSpan, str]]:
    """Every span of the file, decoded in turn, with the JSON path it is at."""
    if isinstance(top, list):
        for i, raw in enumerate(top):
            item = _decoded(name, _ITEM, raw, f"$[{i}]")
            if item.spans is None:
                yield item, f"$[{i}]"
            else:
                for j, r in enumerate(item.spans):
                    yield _decoded(name, _SPAN, r, f"$[{i}].spans[{j}]"), f"$[{i}].spans[{j}]"
    elif top.data is not None:
        for i, t in enumerate(top.data):
            for j, r in enumerate(t.spans or []):
                at = f"$.data[{i}].spans[{j}]"
                yield _decoded(name, _SPAN, r, at), at
    elif top.spans is not None:
        for j, r in enumerate(top.spans):
            yield _decoded(name, _SPAN, r, f"$.spans[{j}]"), f"$.spans[{j}]"
    else:
        raise InputError(name, EXPECTED, "$")


def read(name: str, data: bytes) -> SpanBatch:
    """Decode Jaeger's JSON (the API envelope, one trace, an array of traces or of spans) into
    a batch."""
    try:
        top = _DECODER.decode(data)
    except msgspec.ValidationError as exc:
        msg, sep, rest = str(exc).partition(" - at `")
        path = rest.rstrip("`") if sep else "$"
        raise InputError(name, f"{EXPECTED}: {msg}", path) from None
    except msgspec.DecodeError as exc:
        raise InputError(name, f"not valid JSON ({exc})") from None
    batch = SpanBatch(form=FORM)
    strings = otlp_json.Strings()
    for s, at in _spans(name, top):
        strings.bound()
        batch.spans.append(_span(s, batch, name, at, strings))
    return batch


V3_FORM = "Jaeger API v3 (OTLP/JSON)"


class _V3(Struct):
    result: msgspec.Raw


_V3_DECODER = msgspec.json.Decoder(_V3)


def _v3_result(name: str, result: msgspec.Raw, batch: SpanBatch, prefix: str) -> None:
    """Add the spans of one answer's ``result``; an error's JSON path is said from the file's
    top, through ``result``."""
    try:
        otlp_json.read(name, bytes(result), batch)
    except InputError as exc:
        at = exc.json_path
        at = "$.result" + at[1:] if at.startswith("$") else ("$.result " + at).strip()
        raise InputError(name, exc.expected, prefix + at) from None


def _v3(name: str, raw: bytes, prefix: str) -> msgspec.Raw:
    try:
        return _V3_DECODER.decode(raw).result
    except msgspec.ValidationError as exc:
        raise InputError(name, f'expected {{"result": OTLP/JSON}} ({exc})', prefix + "$") from None


def read_v3(name: str, data: bytes) -> SpanBatch:
    """Decode the API v3's answer: one ``{"result": …}`` object, or one per line."""
    batch = SpanBatch()
    try:
        result = _v3(name, data, "")
    except msgspec.DecodeError:  # not one document: one answer per line?
        for n, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                result = _v3(name, line, f"line {n} ")
            except msgspec.DecodeError as exc:
                raise InputError(name, f"not valid JSON ({exc})", f"line {n}") from None
            _v3_result(name, result, batch, f"line {n} ")
    else:
        _v3_result(name, result, batch, "")
    batch.form = V3_FORM
    return batch
