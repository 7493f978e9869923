"""Read the OpenTelemetry SDK's own span JSON: the console exporter's concatenated
``span.to_json()`` objects, a JSON array of them, and agent frameworks' dumps of the same objects
(``{"spans": [...]}`` with ``context``/``parent`` objects and integer nanosecond times); and its
log-record JSON, the console log exporter's concatenated ``LogRecord.to_json()`` objects.

Ids come as ``0x…`` hex (or integers), times as ISO strings or nanoseconds, the kind as
``"SpanKind.CLIENT"`` and attributes as plain JSON values; all become the normalized ``Span``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from typing import Any

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


def _looks_like_span(obj: object) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("context"), dict) and "name" in obj


sniff = trace_sniff.console


def _objects(name: str, text: str) -> list[Any]:
    """Every top-level JSON value of a file that may hold several concatenated ones."""
    dec = json.JSONDecoder()
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            return out
        try:
            obj, i = dec.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            line = text.count("\n", 0, exc.pos) + 1
            raise InputError(name, f"not valid JSON ({exc.msg})", f"line {line}") from None
        out.append(obj)


def _span_ns(value: object) -> int | None:
    """A span's (or span event's) time in ns; None when missing, unparsable, negative or absurd: the
    span is kept (its time flagged as unknown) rather than the whole file refused."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = int(value)
    if isinstance(value, str) and value and not value.isdigit():
        try:
            t = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if t.tzinfo is None:
            t = t.replace(tzinfo=_dt.UTC)
        delta = t - _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
        value = (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    elif isinstance(value, str) and value:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and time_ok(value):
        return value
    return None


def _kind(value: object) -> str:
    if isinstance(value, int) and 0 <= value < len(SPAN_KINDS):
        return SPAN_KINDS[value]
    if isinstance(value, str):
        name = value.upper().rsplit(".", 1)[-1].removeprefix("SPAN_KIND_")
        if name in SPAN_KINDS:
            return name
    return "UNSPECIFIED"


def _status(value: object) -> tuple[str, str]:
    if not isinstance(value, dict):
        return "UNSET", ""
    code = value.get("status_code", value.get("code", "UNSET"))
    if isinstance(code, int):
        name = {1: "OK", 2: "ERROR"}.get(code, "UNSET")
    else:
        name = str(code).upper().rsplit(".", 1)[-1].removeprefix("STATUS_CODE_")
    desc = value.get("description", value.get("message", ""))
    return (name if name in ("UNSET", "OK", "ERROR") else "UNSET"), desc if isinstance(
        desc, str
    ) else ""


def _attrs(value: object, batch: SpanBatch, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        batch.problem("malformed-attribute", f"{where}: attributes are not an object; dropped")
        return {}
    return value


def _span(obj: dict[str, Any], batch: SpanBatch, name: str, pos: str) -> Span:
    ctx = obj.get("context")
    ctx = ctx if isinstance(ctx, dict) else {}
    sid = normalize_id(ctx.get("span_id", ctx.get("spanId")))
    where = f"span {obj.get('name')!r} ({sid or 'no id'})"
    if not sid:
        raise InputError(name, f"{where} has no context.span_id", pos)
    parent_raw = obj.get("parent_id")
    parent_obj = obj.get("parent")
    if isinstance(parent_obj, dict):
        parent_raw = parent_obj.get("span_id", parent_obj.get("spanId"))
    parent = normalize_id(parent_raw)
    status, message = _status(obj.get("status"))
    events = []
    for ev in obj.get("events") or []:
        if isinstance(ev, dict):
            events.append(
                SpanEvent(
                    str(ev.get("name", "")),
                    # (an unknown time is 0: the content reader flags it, the event is kept)
                    _span_ns(ev.get("timestamp", ev.get("time_unix_nano"))) or 0,
                    _attrs(ev.get("attributes"), batch, where),
                )
            )
    start = _span_ns(obj.get("start_time", obj.get("start_time_unix_nano")))
    end = _span_ns(obj.get("end_time", obj.get("end_time_unix_nano")))
    return Span(
        trace_id=normalize_id(ctx.get("trace_id", ctx.get("traceId"))),
        span_id=sid,
        parent_id=None if is_zero_id(parent) else parent,
        name=str(obj.get("name", "")),
        kind=_kind(obj.get("kind")),
        start_ns=0 if start is None else start,
        end_ns=0 if end is None else end,
        status=status,
        status_message=message,
        attributes=_attrs(obj.get("attributes"), batch, where),
        events=events,
        scope=_scope(obj.get("instrumentation_scope")),
        bad_time=time_bits(start or 0, end or 0),
    )


def _scope(value: object) -> str:
    if isinstance(value, dict):
        return str(value.get("name", ""))
    return value if isinstance(value, str) else ""


def _items(name: str, data: bytes) -> tuple[list[Any], bool]:
    """Every top-level value of the file, arrays and ``{"spans": [...]}`` dumps flattened, and
    whether a dump was one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(name, "expected UTF-8 JSON") from None
    items: list[Any] = []
    dump = False
    for obj in _objects(name, text):
        if isinstance(obj, list):
            items.extend(obj)
        elif isinstance(obj, dict) and isinstance(obj.get("spans"), list):
            items.extend(obj["spans"])
            dump = True
        else:
            items.append(obj)
    return items, dump


def read(name: str, data: bytes) -> SpanBatch:
    """Decode the console form / a span array / a ``{"spans": [...]}`` dump into a batch."""
    items, dump = _items(name, data)
    if items and isinstance(items[0], dict) and "observed_timestamp" in items[0]:
        return _logs(name, items)  # log records given as the run (the caller says so)
    batch = SpanBatch(form="span dump {spans: [...]}" if dump else "OpenTelemetry SDK span JSON")
    for i, obj in enumerate(items):
        if not _looks_like_span(obj):
            raise InputError(name, "expected a span object with name and context", f"span {i}")
        batch.spans.append(_span(obj, batch, name, f"span {i}"))
    return batch


def read_logs(name: str, data: bytes) -> SpanBatch:
    """Decode the console form of log records (or an array of them) into a batch of logs."""
    return _logs(name, _items(name, data)[0])


def _logs(name: str, items: list[Any]) -> SpanBatch:
    batch = SpanBatch(form="OpenTelemetry SDK log-record JSON")
    for i, obj in enumerate(items):
        if not isinstance(obj, dict) or "observed_timestamp" not in obj:
            raise InputError(
                name, "expected a log record object (with observed_timestamp)", f"record {i}"
            )
        where = f"log record {obj.get('event_name') or '(unnamed)'}"
        # (timestamp is optional, as in OTLP: the observed time stands in for it)
        t = _span_ns(obj.get("timestamp"))
        t = t if t is not None else _span_ns(obj.get("observed_timestamp"))
        trace, span = normalize_id(obj.get("trace_id")), normalize_id(obj.get("span_id"))
        event = obj.get("event_name")
        batch.logs.append(
            LogRecord(
                trace_id="" if is_zero_id(trace) else trace,
                span_id="" if is_zero_id(span) else span,
                time_ns=0 if t is None else t,
                event_name=event if isinstance(event, str) else "",
                body=obj.get("body"),
                attributes=_attrs(obj.get("attributes"), batch, where),
            )
        )
    return batch
