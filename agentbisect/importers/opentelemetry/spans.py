"""The normalized span model every trace reader produces (OTLP/JSON, the SDK console form, dumps,
Zipkin and Jaeger JSON).

Readers differ in how ids, times and attribute values are spelled on disk; once read, a span is
the same ``Span`` whatever the file looked like, so the convention extractors and the synthesis of
a recording never look at the on-disk form. Problems found while reading (a malformed attribute,
a duplicate id) are collected as ``(flag, note)`` pairs on the batch: they limit the evidence,
they do not stop the import.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from msgspec import Struct

# Span kinds as the OTLP enum numbers them; readers map every spelling onto these names.
SPAN_KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")


class SpanEvent(Struct):
    """An event recorded on a span (the older GenAI conventions put message content here)."""

    name: str
    time_ns: int
    attributes: dict[str, Any]


class _Empty(list[Any]):
    """A shared empty list that refuses to grow (assign a new list instead): most spans of a long
    trace have no events and no log records, and a list each was 112 bytes of every span."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a shared empty list: assign a new list instead")

    append = extend = insert = __setitem__ = __iadd__ = _refuse  # type: ignore[assignment]


class _EmptyDict(dict[str, Any]):
    """A shared empty attribute dict that refuses to fill (64 bytes of every span without
    attributes)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a shared empty dict: assign a new dict instead")

    __setitem__ = setdefault = update = __ior__ = _refuse  # type: ignore[assignment]


NO_ITEMS: list[Any] = _Empty()
NO_ATTRIBUTES: dict[str, Any] = _EmptyDict()


# Structs, not dataclasses: built in C, a long trace's 100,000s of spans cost a third as much.
# Not tracked by the cycle collector (16 bytes less of every span): a span never takes part in
# a reference cycle (what it holds are values read from the file, never a span).
class Span(Struct, gc=False):
    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start_ns: int
    end_ns: int
    status: str  # UNSET | OK | ERROR
    status_message: str
    attributes: dict[str, Any]
    events: list[SpanEvent] = []
    scope: str = ""
    # Log records joined to this span by (trace id, span id), in time order.
    logs: list[LogRecord] = []
    # START_UNKNOWN | END_UNKNOWN: a time missing, unparsable or out of range on disk. It is
    # read as 0 (so the span orders as before), but no duration or latency may be derived from it.
    # ENDS_BEFORE_START: both times real but the end precedes the start; one of them is wrong and
    # nothing says which, so the span orders by its start and its end counts as unknown.
    bad_time: int = 0


START_UNKNOWN = 1
END_UNKNOWN = 2
ENDS_BEFORE_START = 4

# A span time on disk is unsigned nanoseconds since the epoch (OTLP's fixed64); 0 means unset.
# Beyond 2**63 - 1 (the year 2262) no clock writes it and the ms arithmetic would be nonsense.
MAX_NS = 2**63 - 1


def time_ok(ns: int) -> bool:
    """Whether a span time read from disk is a real time (not unset, negative or absurd)."""
    return 0 < ns <= MAX_NS


def micros_ns(value: int | float | None) -> int:
    """A time in microseconds (Zipkin's and Jaeger's unit) in nanoseconds; 0 when missing or not
    a finite number (an unknown time, as ``time_ok`` reads it)."""
    if value is None or isinstance(value, bool):
        return 0
    if isinstance(value, float):
        if not math.isfinite(value):
            return 0
        value = int(value)
    return value * 1000


def time_bits(start: int, end: int) -> int:
    """``Span.bad_time`` for a start and end as read from disk (0 when missing or unparsable)."""
    bad = (0 if time_ok(start) else START_UNKNOWN) | (0 if time_ok(end) else END_UNKNOWN)
    return ENDS_BEFORE_START if not bad and end < start else bad


class LogRecord(Struct):
    """An OTLP log record; GenAI instrumentations write message content as these."""

    trace_id: str
    span_id: str
    time_ns: int
    event_name: str
    body: Any
    attributes: dict[str, Any]


@dataclass
class SpanBatch:
    """What one file held: spans and log records in file order, and what was odd about them."""

    spans: list[Span] = field(default_factory=list)
    logs: list[LogRecord] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    form: str = ""

    def problem(self, flag: str, note: str) -> None:
        self.problems.append((flag, note))


def normalize_id(value: object) -> str:
    """Trace/span ids as lowercase hex: OTLP/JSON wants hex, protobuf's JSON mapping writes
    base64 and the SDK console form writes ``0x…``; all three name the same bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            return ""
        return format(value, "016x" if value < 2**64 else "032x")
    if not isinstance(value, str) or not value:
        return ""
    text = value[2:] if value[:2] in ("0x", "0X") else value
    if len(text) in (16, 32) and _is_hex(text):
        return text.lower()
    if len(value) in (12, 24):  # base64 of 8 or 16 bytes
        import base64
        import binascii

        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) in (8, 16):
            return raw.hex()
    return text.lower() if _is_hex(text) else text


_HEX = re.compile(r"[0-9a-fA-F]*")


def _is_hex(text: str) -> bool:
    return _HEX.fullmatch(text) is not None


def is_zero_id(span_id: str) -> bool:
    """An all-zero (or empty) parent id means "no parent" in every form."""
    return not span_id or not span_id.strip("0")
