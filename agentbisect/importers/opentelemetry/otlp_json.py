"""Read OTLP/JSON: ``{"resourceSpans": …}`` / ``{"resourceLogs": …}`` as one document or as
JSON Lines of export requests (what the Collector's file exporter writes), into a ``SpanBatch``.

The outer shape is decoded straight into typed Structs; attribute values (the typed ``AnyValue``
union: ``stringValue``, ``intValue`` as a string, ``arrayValue``, ``kvlistValue`` …) are decoded
generically and converted here, so that one ill-typed value is kept as a flagged oddity instead of
failing the whole file. Protobuf's JSON mapping may spell enums as numbers or names and ids as
base64; every spelling is accepted.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

import msgspec
from msgspec import UNSET, Struct, UnsetType

from agentbisect.core.errors import InputError
from agentbisect.importers.opentelemetry import detect as trace_sniff
from agentbisect.importers.opentelemetry.spans import (
    SPAN_KINDS,
    LogRecord,
    Span,
    SpanBatch,
    SpanEvent,
    is_zero_id,
    normalize_id,
    time_bits,
    time_ok,
)

# The span envelope is generic over the attribute value: ``Any`` for the generic reader (values
# walked by ``any_value``), ``_AnyValue`` for the typed fast path below.
V = TypeVar("V")


class _KeyValue(Struct, Generic[V]):
    key: str = ""
    value: V | None = None


class _Scope(Struct):
    name: str = ""


class _Resource(Struct):
    attributes: list[_KeyValue[Any]] = []


class _Status(Struct):
    code: int | str = 0
    message: str = ""


class _Event(Struct, Generic[V]):
    timeUnixNano: int | str = 0
    name: str = ""
    attributes: list[_KeyValue[V]] = []


class _Span(Struct, Generic[V]):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    kind: int | str = 0
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    attributes: list[_KeyValue[V]] = []
    events: list[_Event[V]] = []
    status: _Status | None = None


class _ScopeSpans(Struct, Generic[V]):
    scope: _Scope | None = None
    spans: list[_Span[V]] = []


class _ResourceSpans(Struct, Generic[V]):
    resource: _Resource | None = None
    scopeSpans: list[_ScopeSpans[V]] = []


class _Log(Struct):
    timeUnixNano: int | str = 0
    observedTimeUnixNano: int | str = 0
    traceId: str = ""
    spanId: str = ""
    eventName: str = ""
    body: Any = None
    attributes: list[_KeyValue[Any]] = []


class _ScopeLogs(Struct):
    scope: _Scope | None = None
    logRecords: list[_Log] = []


class _ResourceLogs(Struct):
    resource: _Resource | None = None
    scopeLogs: list[_ScopeLogs] = []


class _Export(Struct):
    resourceSpans: list[_ResourceSpans[Any]] = []
    resourceLogs: list[_ResourceLogs] = []


_DECODER = msgspec.json.Decoder(_Export)


# The fast path: the same envelope with attribute values typed, so msgspec builds them in C
# instead of generic dicts walked by ``any_value``. It accepts only well-formed values (one
# known kind, right types; unknown kinds are refused by ``forbid_unknown_fields``); anything else
# fails the decode or raises ``_Slow``, and that export request is read again the generic way,
# so ill-typed values still become the same flagged problems.
class _ArrayValue(Struct):
    values: list[_AnyValue | None] = []


class _KvItem(Struct):
    key: str
    value: _AnyValue | None = None


class _KvlistValue(Struct):
    values: list[_KvItem] = []


class _AnyValue(Struct, forbid_unknown_fields=True):
    stringValue: str | UnsetType = UNSET
    boolValue: bool | UnsetType = UNSET
    intValue: int | str | UnsetType = UNSET
    doubleValue: float | UnsetType = UNSET
    arrayValue: _ArrayValue | UnsetType = UNSET
    kvlistValue: _KvlistValue | UnsetType = UNSET
    bytesValue: str | UnsetType = UNSET


class _FastExport(Struct):
    resourceSpans: list[_ResourceSpans[_AnyValue]] = []
    resourceLogs: list[_ResourceLogs] = []  # rare in span files: the generic path's types


_FAST = msgspec.json.Decoder(_FastExport)


class _Slow(Exception):
    """A typed value the fast path cannot convert exactly as ``any_value`` would."""


def _typed_value(v: _AnyValue | None) -> Any:
    """``any_value`` for a typed ``AnyValue``; ``_Slow`` where it would raise ``BadValue``."""
    if v is None:
        return None
    found: Any = UNSET
    kind = ""
    for name in _KINDS:
        inner = getattr(v, name)
        if inner is not UNSET:
            if found is not UNSET:
                raise _Slow  # two kinds in one value: the generic path names the problem
            found, kind = inner, name
    if found is UNSET:
        return None
    if kind == "stringValue" or kind == "boolValue":
        return found
    if kind == "intValue":
        if isinstance(found, int):
            return found
        try:
            return int(found)
        except ValueError:
            raise _Slow from None
    if kind == "doubleValue":
        return float(found)
    if kind == "arrayValue":
        return [_typed_value(x) for x in found.values]
    if kind == "kvlistValue":
        return {kv.key: _typed_value(kv.value) for kv in found.values}
    raise _Slow  # bytesValue: rare; the generic path decodes and checks the base64


_KINDS = tuple(_AnyValue.__struct_fields__)


# Strings up to this length are kept once per file (``Strings``): attribute keys, model and
# operation names repeat on every span, and a 100,000-span trace held ~750,000 copies of its keys.
_SHARED_MAX = 64


class Strings(dict[str, str]):
    """One copy of each repeated short string read from one file (keys, ids, names, short
    values); it lives only while the file is read."""

    def one(self, text: str) -> str:
        if len(text) > _SHARED_MAX:
            return text
        return self.setdefault(text, text)


def _typed_attrs(kvs: list[_KeyValue[_AnyValue]], strings: Strings) -> dict[str, Any]:
    out: dict[str, Any] = {}
    share = strings.setdefault  # (inlined ``Strings.one``: this runs for every attribute)
    for kv in kvs:
        v = kv.value
        key = kv.key
        if len(key) <= _SHARED_MAX:
            key = share(key, key)
        # the usual case first: one string
        if v is not None and v.stringValue is not UNSET:
            if (
                v.intValue is UNSET
                and v.boolValue is UNSET
                and v.doubleValue is UNSET
                and v.arrayValue is UNSET
                and v.kvlistValue is UNSET
                and v.bytesValue is UNSET
            ):
                text = v.stringValue
                out[key] = text if len(text) > _SHARED_MAX else share(text, text)
                continue
            raise _Slow
        out[key] = _typed_value(v)
    return out


_STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}
sniff = trace_sniff.otlp


class BadValue(Exception):
    """An attribute value that is not a well-formed OTLP ``AnyValue``."""


def _values(kind: str, inner: object) -> list[Any]:
    """The ``values`` list of an ``arrayValue`` or ``kvlistValue`` wrapper, checked alike."""
    if not isinstance(inner, dict):
        raise BadValue(f"{kind} must be an object with values")
    items = inner.get("values", [])
    if not isinstance(items, list):
        raise BadValue(f"{kind}.values must be an array")
    return items


def any_value(value: Any) -> Any:
    """Convert one OTLP/JSON ``AnyValue`` to a plain value; raise ``BadValue`` if ill-formed."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadValue(f"expected an AnyValue object, got {type(value).__name__}")
    if not value:
        return None
    if len(value) != 1:
        raise BadValue("expected exactly one of stringValue, intValue, … in an AnyValue")
    ((kind, inner),) = value.items()
    if kind == "stringValue":
        if not isinstance(inner, str):
            raise BadValue("stringValue must be a string")
        return inner
    if kind == "boolValue":
        if not isinstance(inner, bool):
            raise BadValue("boolValue must be true or false")
        return inner
    if kind == "intValue":
        if isinstance(inner, bool):
            raise BadValue("intValue must be an integer")
        if isinstance(inner, int):
            return inner
        if isinstance(inner, str):
            try:
                return int(inner)
            except ValueError:
                raise BadValue(f"intValue {inner!r} is not an integer") from None
        raise BadValue("intValue must be an integer or a decimal string")
    if kind == "doubleValue":
        if isinstance(inner, bool):
            raise BadValue("doubleValue must be a number")
        if isinstance(inner, int | float):
            return float(inner)
        if isinstance(inner, str) and inner in ("NaN", "Infinity", "-Infinity"):
            return float(inner.replace("Infinity", "inf"))
        raise BadValue("doubleValue must be a number")
    if kind == "arrayValue":
        return [any_value(v) for v in _values(kind, inner)]
    if kind == "kvlistValue":
        items = _values(kind, inner)
        out: dict[str, Any] = {}
        for kv in items:
            if not isinstance(kv, dict) or not isinstance(kv.get("key"), str):
                raise BadValue("kvlistValue entries must be {key, value}")
            out[kv["key"]] = any_value(kv.get("value"))
        return out
    if kind == "bytesValue":
        if not isinstance(inner, str):
            raise BadValue("bytesValue must be a base64 string")
        try:
            return base64.b64decode(inner, validate=True).hex()
        except (binascii.Error, ValueError):
            raise BadValue("bytesValue is not base64") from None
    raise BadValue(f"unknown AnyValue kind {kind!r}")


def _attrs(kvs: list[_KeyValue[Any]], batch: SpanBatch, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in kvs:
        try:
            out[kv.key] = any_value(kv.value)
        except BadValue as exc:
            batch.problem("malformed-attribute", f"{where}: attribute {kv.key!r}: {exc}; dropped")
    return out


def _nanos(value: int | str) -> int:
    if isinstance(value, int):
        return value
    try:
        return int(value) if value else 0
    except ValueError:
        try:
            f = float(value)
        except ValueError:
            return 0
        return int(f) if math.isfinite(f) else 0


def _kind(value: int | str) -> str:
    if isinstance(value, int):
        return SPAN_KINDS[value] if 0 <= value < len(SPAN_KINDS) else "UNSPECIFIED"
    name = value.upper().removeprefix("SPAN_KIND_")
    return name if name in SPAN_KINDS else "UNSPECIFIED"


def _status(status: _Status | None) -> tuple[str, str]:
    if status is None:
        return "UNSET", ""
    code = status.code
    if isinstance(code, int):
        name = _STATUS.get(code, "UNSET")
    else:
        name = code.upper().removeprefix("STATUS_CODE_")
        name = name if name in ("UNSET", "OK", "ERROR") else "UNSET"
    return name, status.message


def _generic_attrs(kvs: Any, batch: SpanBatch, where: str, strings: Strings) -> dict[str, Any]:
    return _attrs(kvs, batch, where)


def _fast_attrs(kvs: Any, batch: SpanBatch, where: str, strings: Strings) -> dict[str, Any]:
    return _typed_attrs(kvs, strings)


def _add_export(
    doc: Any,
    batch: SpanBatch,
    name: str,
    attrs: Any = _generic_attrs,
    strings: Strings | None = None,
) -> None:
    """Add one decoded export request's spans and log records; ``attrs`` converts attribute
    lists (``_fast_attrs`` for the typed fast path's ``_FastExport``); ``strings`` shares the
    repeated short strings of the file."""
    if strings is None:
        strings = Strings()
    one = strings.one
    for rs in doc.resourceSpans:
        for ss in rs.scopeSpans:
            scope = ss.scope.name if ss.scope is not None else ""
            for s in ss.spans:
                sid = normalize_id(s.spanId)
                where = f"span {s.name!r} ({sid or 'no id'})"
                if not sid:
                    raise InputError(name, f"{where} has no spanId", "resourceSpans")
                parent = normalize_id(s.parentSpanId)
                status, message = _status(s.status)
                start, end = _nanos(s.startTimeUnixNano), _nanos(s.endTimeUnixNano)
                bad = time_bits(start, end)
                batch.spans.append(
                    Span(
                        trace_id=one(normalize_id(s.traceId)),
                        span_id=sid,
                        parent_id=None if is_zero_id(parent) else one(parent),
                        name=one(s.name),
                        kind=_kind(s.kind),
                        start_ns=start if time_ok(start) else 0,
                        end_ns=end if time_ok(end) else 0,
                        status=status,
                        status_message=message,
                        attributes=attrs(s.attributes, batch, where, strings),
                        events=[
                            SpanEvent(
                                e.name,
                                _nanos(e.timeUnixNano),
                                attrs(e.attributes, batch, where, strings),
                            )
                            for e in s.events
                        ],
                        scope=scope,
                        bad_time=bad,
                    )
                )
    for rl in doc.resourceLogs:
        for sl in rl.scopeLogs:
            for r in sl.logRecords:
                where = f"log record {r.eventName or '(unnamed)'}"
                try:
                    body = any_value(r.body)
                except BadValue as exc:
                    batch.problem("malformed-attribute", f"{where}: body: {exc}; dropped")
                    body = None
                # (timeUnixNano is optional for a log record: the collector's observed time
                # stands in for it; neither one real leaves the time unknown, not 0)
                t = _nanos(r.timeUnixNano)
                batch.logs.append(
                    LogRecord(
                        trace_id=normalize_id(r.traceId),
                        span_id=normalize_id(r.spanId),
                        time_ns=t if time_ok(t) else _nanos(r.observedTimeUnixNano),
                        event_name=r.eventName,
                        body=body,
                        attributes=_attrs(r.attributes, batch, where),
                    )
                )


def _add_fast(data: bytes, batch: SpanBatch, name: str, strings: Strings) -> bool:
    """Read one export request through the typed fast path; False when it must be read the
    generic way (nothing is added then)."""
    try:
        doc = _FAST.decode(data)
    except msgspec.DecodeError:  # (ValidationError included) the generic path reports it
        return False
    part = SpanBatch()
    try:
        _add_export(doc, part, name, _fast_attrs, strings)
    except _Slow:
        return False
    batch.spans.extend(part.spans)
    batch.logs.extend(part.logs)
    batch.problems.extend(part.problems)
    return True


def _lines(data: bytes) -> Iterator[bytes]:
    """``data.splitlines()`` one line at a time: the list of every line would copy the whole
    file at once (150 MB for a 100,000-span trace)."""
    if b"\r" in data:
        yield from data.splitlines()  # rare: keep splitlines' exact idea of a line break
        return
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        yield data[start:end]
        start = end + 1


def read(name: str, data: bytes, batch: SpanBatch | None = None) -> SpanBatch:
    """Decode one OTLP/JSON document, or JSON Lines of them, into a batch (added to ``batch``)."""
    batch = batch if batch is not None else SpanBatch()
    strings = Strings()
    try:
        if not _add_fast(data, batch, name, strings):
            _add_export(_DECODER.decode(data), batch, name, strings=strings)
        batch.form = batch.form or "OTLP/JSON"
        return batch
    except msgspec.ValidationError as exc:  # (a subclass of DecodeError: test it first)
        raise _validation(name, exc, "") from None
    except msgspec.DecodeError:
        pass  # not one document: JSON Lines of export requests?
    for n, line in enumerate(_lines(data), start=1):
        if not line.strip():
            continue
        if _add_fast(line, batch, name, strings):
            continue
        try:
            doc = _DECODER.decode(line)
        except msgspec.ValidationError as exc:
            raise _validation(name, exc, f"line {n} ") from None
        except msgspec.DecodeError as exc:
            raise InputError(name, f"not valid JSON ({exc})", f"line {n}") from None
        _add_export(doc, batch, name, strings=strings)
    batch.form = batch.form or "OTLP/JSON Lines"
    return batch


def _validation(name: str, exc: msgspec.ValidationError, prefix: str) -> InputError:
    msg = str(exc)
    path = ""
    if " - at `" in msg:
        msg, _, rest = msg.partition(" - at `")
        path = rest.rstrip("`")
    return InputError(name, f"expected an OTLP/JSON export request: {msg}", (prefix + path).strip())
