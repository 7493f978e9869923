"""Read OTLP/JSON: ``{"resourceSpans": …}`` / ``{"resourceLogs": …}`` as one document or as
JSON Lines of export requests (what the Collector's file exporter writes), into a ``SpanBatch``.

The outer shape is decoded straight into typed Structs; attribute values (the typed ``AnyValue``
union: ``stringValue``, ``intValue`` as a string, ``arrayValue``, ``kvlistValue`` …) are decoded
generically and converted here (one way, ``any_value``), so that one ill-typed value is kept as a
flagged oddity instead of failing the whole file. Protobuf's JSON mapping may spell enums as numbers or names and ids as
base64; every spelling is accepted.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
from msgspec import Raw, Struct

from agentbisect.core.errors import InputError
from agentbisect.importers.opentelemetry import detect as trace_sniff
from agentbisect.importers.opentelemetry.spans import (
    NO_ATTRIBUTES,
    NO_ITEMS,
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


class _KeyValue(Struct):
    key: str = ""
    value: Any = None


class _Scope(Struct):
    name: str = ""


class _Resource(Struct):
    attributes: list[_KeyValue] = []


class _Status(Struct):
    code: int | str = 0
    message: str = ""


class _Event(Struct):
    timeUnixNano: int | str = 0
    name: str = ""
    attributes: list[_KeyValue] = []


class _Span(Struct):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    kind: int | str = 0
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    attributes: list[_KeyValue] = []
    events: list[_Event] = []
    status: _Status | None = None


class _ScopeSpans(Struct):
    scope: _Scope | None = None
    # Kept as JSON and decoded one span at a time (``_spans``): decoded all at once, the spans
    # (~640 bytes each) and the file lived together with the spans read from them (1.45 GB
    # for a 1,000,000-span, 217 MB file).
    spans: list[Raw] = []


class _ResourceSpans(Struct):
    resource: _Resource | None = None
    scopeSpans: list[_ScopeSpans] = []


class _Log(Struct):
    timeUnixNano: int | str = 0
    observedTimeUnixNano: int | str = 0
    traceId: str = ""
    spanId: str = ""
    eventName: str = ""
    body: Any = None
    attributes: list[_KeyValue] = []


class _ScopeLogs(Struct):
    scope: _Scope | None = None
    logRecords: list[_Log] = []


class _ResourceLogs(Struct):
    resource: _Resource | None = None
    scopeLogs: list[_ScopeLogs] = []


class _Export(Struct):
    resourceSpans: list[_ResourceSpans] = []
    resourceLogs: list[_ResourceLogs] = []


_DECODER = msgspec.json.Decoder(_Export)
_SPAN = msgspec.json.Decoder(_Span)


def _spans(raws: list[Raw], where: str) -> Iterator[_Span]:
    """The spans of ``raws`` decoded in order, each let go as the next is decoded (so are their
    raw values). ``where`` is their array's JSON path, for a span that is not one."""
    raws.reverse()
    k = 0
    while raws:
        raw = raws.pop()
        try:
            yield _SPAN.decode(raw)
        except msgspec.ValidationError as exc:  # said as the decode of the whole file said it
            msg, at, path = str(exc).partition(" - at `$")
            raise msgspec.ValidationError(
                f"{msg} - at `{where}[{k}]{path if at else '`'}"
            ) from None
        k += 1


# Strings up to this length are kept once per file (``Strings``): attribute keys, model and
# operation names repeat on every span, and a 100,000-span trace held ~750,000 copies of its keys.
_SHARED_MAX = 64


# How many strings and ids ``Strings`` keeps, at most: it starts over when it holds more. The
# strings that repeat come back at once; a trace of 1,000,000 spans named apart held a dict of
# every name (~45 MiB of its memory peak) for nothing.
_SHARED_KEEP = 1 << 16


class Strings(dict[str, str]):
    """One copy of each repeated short string read from one file (keys, ids, names, short
    values), and the normalized form of each trace and parent id as spelled on disk; it lives
    only while the file is read."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}

    def bound(self) -> None:
        """Start over when more than ``_SHARED_KEEP`` strings or ids are kept."""
        if len(self) > _SHARED_KEEP:
            self.clear()
        if len(self.ids) > _SHARED_KEEP:
            self.ids.clear()

    def one(self, text: str) -> str:
        if len(text) > _SHARED_MAX:
            return text
        return self.setdefault(text, text)

    def id(self, value: str | None) -> str:
        """A trace or parent id as lowercase hex, normalized once per spelling in the file:
        every span of a trace repeats its trace id, and siblings their parent's (a span's own
        id is new every time, so it is not kept)."""
        if not value:
            return ""
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = self.one(normalize_id(value))
        return found


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


def _attrs(
    kvs: list[_KeyValue],
    batch: SpanBatch,
    where: str | Callable[[], str],
    strings: Strings | None = None,
) -> dict[str, Any]:
    """The attributes as a dict; an ill-formed value is dropped with a problem that says
    ``where`` (or what it gives: a span's is made only if one is ill-formed)."""
    if not kvs:
        return NO_ATTRIBUTES
    out: dict[str, Any] = {}
    share = (strings if strings is not None else Strings()).setdefault  # (``Strings.one``)
    for kv in kvs:
        key, v = kv.key, kv.value
        if len(key) <= _SHARED_MAX:
            key = share(key, key)
        # the usual case first: one string (what ``any_value`` gives for it)
        if type(v) is dict and len(v) == 1:
            text = v.get("stringValue")
            if type(text) is str:
                out[key] = text if len(text) > _SHARED_MAX else share(text, text)
                continue
        try:
            out[key] = any_value(v)
        except BadValue as exc:
            at = where if isinstance(where, str) else where()
            batch.problem("malformed-attribute", f"{at}: attribute {key!r}: {exc}; dropped")
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


def _span_where(name: str, sid: str) -> Callable[[], str]:
    """How a problem names a span, made when one is reported."""
    return lambda: f"span {name!r} ({sid or 'no id'})"


def _add_export(doc: _Export, batch: SpanBatch, name: str, strings: Strings | None = None) -> None:
    """Add one decoded export request's spans and log records; ``strings`` shares the repeated
    short strings of the file."""
    if strings is None:
        strings = Strings()
    one = strings.one
    shared_id = strings.id

    for i, rs in enumerate(doc.resourceSpans):
        for j, ss in enumerate(rs.scopeSpans):
            scope = ss.scope.name if ss.scope is not None else ""
            for s in _spans(ss.spans, f"$.resourceSpans[{i}].scopeSpans[{j}].spans"):
                strings.bound()
                sid = normalize_id(s.spanId)
                where = _span_where(s.name, sid)
                if not sid:
                    raise InputError(name, f"{where()} has no spanId", "resourceSpans")
                parent = shared_id(s.parentSpanId)
                status, message = _status(s.status)
                start, end = _nanos(s.startTimeUnixNano), _nanos(s.endTimeUnixNano)
                bad = time_bits(start, end)
                batch.spans.append(
                    Span(
                        trace_id=shared_id(s.traceId),
                        span_id=sid,
                        parent_id=None if is_zero_id(parent) else parent,
                        name=one(s.name),
                        kind=_kind(s.kind),
                        start_ns=start if time_ok(start) else 0,
                        end_ns=end if time_ok(end) else 0,
                        status=status,
                        status_message=message,
                        attributes=_attrs(s.attributes, batch, where, strings),
                        events=[
                            SpanEvent(
                                e.name,
                                _nanos(e.timeUnixNano),
                                _attrs(e.attributes, batch, where, strings),
                            )
                            for e in s.events
                        ]
                        if s.events
                        else NO_ITEMS,
                        scope=scope,
                        logs=NO_ITEMS,
                        bad_time=bad,
                    )
                )
    for rl in doc.resourceLogs:
        for sl in rl.scopeLogs:
            for r in sl.logRecords:
                record = f"log record {r.eventName or '(unnamed)'}"
                try:
                    body = any_value(r.body)
                except BadValue as exc:
                    batch.problem("malformed-attribute", f"{record}: body: {exc}; dropped")
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
                        attributes=_attrs(r.attributes, batch, record),
                    )
                )


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
        _add_export(_DECODER.decode(data), batch, name, strings)
        batch.form = batch.form or "OTLP/JSON"
        return batch
    except msgspec.ValidationError as exc:  # (a subclass of DecodeError: test it first)
        raise _validation(name, exc, "") from None
    except msgspec.DecodeError:
        pass  # not one document: JSON Lines of export requests?
    for n, line in enumerate(_lines(data), start=1):
        if not line.strip():
            continue
        try:
            _add_export(_DECODER.decode(line), batch, name, strings)
        except msgspec.ValidationError as exc:
            raise _validation(name, exc, f"line {n} ") from None
        except msgspec.DecodeError as exc:
            raise InputError(name, f"not valid JSON ({exc})", f"line {n}") from None
    batch.form = batch.form or "OTLP/JSON Lines"
    return batch


def _validation(name: str, exc: msgspec.ValidationError, prefix: str) -> InputError:
    msg = str(exc)
    path = ""
    if " - at `" in msg:
        msg, _, rest = msg.partition(" - at `")
        path = rest.rstrip("`")
    return InputError(name, f"expected an OTLP/JSON export request: {msg}", (prefix + path).strip())
