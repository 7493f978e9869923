"""Import an OpenTelemetry trace file (OTLP/JSON, JSON Lines, the SDK console form, span dumps,
Zipkin v2 JSON, Jaeger JSON): read it, join log records to their spans, pick one trace, and
synthesize its recording.

Several traces in one file: ``trace_id`` picks one; without it the trace whose root span ended
last is analysed and ``multiple-runs`` names how many there were and the first few.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from agentbisect.core.errors import InputError
from agentbisect.core.options import LOGS
from agentbisect.importers.base import InputBuffer
from agentbisect.importers.choice import choose_run
from agentbisect.importers.opentelemetry import (
    console as otel_console,
)
from agentbisect.importers.opentelemetry import (
    detect as trace_sniff,
)
from agentbisect.importers.opentelemetry import (
    otlp_json,
)
from agentbisect.importers.opentelemetry.conventions import (
    haystack_requests,
    ignored_flag,
    lacks_result,
    logged_tool_results,
    nothing_read_flag,
    referenced_content,
    sent_tool_results,
    unread_operation,
    unread_records,
)
from agentbisect.importers.opentelemetry.spans import Span, SpanBatch
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis, synthesize
from agentbisect.model.boundary.recorder import Mode
from agentbisect.model.record import DEFAULT_MAX_EVENTS

sniff = trace_sniff.any_trace


def _results_from_logs(spans: list[Span]) -> tuple[int, int]:
    """Give each tool span without a result the one its call id has in a later call's logged
    input messages (content captured as events only), else in a later call's
    ``gen_ai.input.messages`` (a framework whose tool spans record no result: AutoGen); how many
    were given from each."""
    wanting: dict[str, Span] = {}
    for s in spans:
        if lacks_result(s):
            wanting.setdefault(s.attributes["gen_ai.tool.call.id"], s)
    given = [0, 0]
    for s in spans:
        if not wanting:
            break
        for source, found in enumerate(
            (
                logged_tool_results(s) if s.logs else {},
                sent_tool_results(s) if "gen_ai.input.messages" in s.attributes else {},
            )
        ):
            for call_id, text in found.items():
                tool = wanting.pop(call_id, None)
                if tool is not None:
                    # (a new dict: spans may share one empty attribute dict)
                    tool.attributes = {**tool.attributes, "gen_ai.tool.call.result": text}
                    given[source] += 1
    return given[0], given[1]


def _ignored(spans: list[Span]) -> list[tuple[str, str]]:
    """The ``spans-ignored`` flag of a trace (any-agent's ``call_llm`` once went unseen)."""
    counts: dict[str, int] = {}
    for s in spans:
        op = unread_operation(s)
        if op is not None:
            counts[op] = counts.get(op, 0) + 1
    return ignored_flag(counts, "span(s)")


def _by_reference(spans: list[Span]) -> list[tuple[str, str]]:
    """The ``content-by-reference`` flag: spans whose content an upload hook stored elsewhere."""
    counts: dict[str, int] = {}
    first = ""
    held = 0
    for s in spans:
        refs = referenced_content(s)
        held += bool(refs)
        for key, ref in refs:
            counts[key] = counts.get(key, 0) + 1
            first = first or ref
    if not counts:
        return []
    listed = ", ".join(f"{k} ×{n}" for k, n in counts.items())
    return [
        (
            "content-by-reference",
            f"{held} span(s) keep their content outside the trace ({listed}; e.g. {first[:120]}): "
            "afp does not fetch it, so those calls read as content not captured",
        )
    ]


def _unread_records(spans: list[Span]) -> list[tuple[str, str]]:
    """The ``records-ignored`` flag: GenAI events and log records afp does not read."""
    counts: dict[str, int] = {}
    for s in spans:
        for n in unread_records(s):
            counts[n] = counts.get(n, 0) + 1
    if not counts:
        return []
    listed = ", ".join(f"{n} ×{c}" for n, c in sorted(counts.items(), key=lambda c: -c[1]))
    return [
        (
            "records-ignored",
            f"{sum(counts.values())} span event(s) or log record(s) afp does not read ({listed}): "
            "not used by the analysis",
        )
    ]


def read_logs(name: str, data: bytes) -> SpanBatch:
    """A file given with ``LOGS``: OTLP/JSON (one document or JSON Lines) or the SDK's console
    form of log records."""
    head = data[: trace_sniff.SNIFF_BYTES]
    if trace_sniff.jaeger_v3(head):  # (before OTLP/JSON: it holds OTLP/JSON)
        from agentbisect.importers.opentelemetry import jaeger

        return jaeger.read_v3(name, data)
    if otlp_json.sniff(head):
        return otlp_json.read(name, data)
    if trace_sniff.console_logs(head):
        return otel_console.read_logs(name, data)
    raise InputError(
        name,
        'expected OTLP/JSON log records ({"resourceLogs": [...]}, one document or JSON Lines) '
        "or the SDK console form (LogRecord.to_json() objects)",
    )


def read_batch(name: str, data: bytes) -> SpanBatch:
    head = data[: trace_sniff.SNIFF_BYTES]
    if trace_sniff.jaeger_v3(head):  # (before OTLP/JSON: it holds OTLP/JSON)
        from agentbisect.importers.opentelemetry import jaeger

        return jaeger.read_v3(name, data)
    if otlp_json.sniff(head):
        return otlp_json.read(name, data)
    if trace_sniff.zipkin(head):
        from agentbisect.importers.opentelemetry import zipkin

        return zipkin.read(name, data)
    if trace_sniff.jaeger(head):
        from agentbisect.importers.opentelemetry import jaeger

        return jaeger.read(name, data)
    return otel_console.read(name, data)


@dataclass
class TraceInfo:
    trace_id: str
    root_name: str
    spans: int
    end_ns: int

    @property
    def label(self) -> str:
        return self.root_name

    def to_json(self) -> dict[str, Any]:
        return {"traceId": self.trace_id, "rootName": self.root_name, "spans": self.spans}


def traces_of(spans: list[Span]) -> list[TraceInfo]:
    """Every trace in file order, with its root span's name and the time its roots ended."""
    ids: dict[str, set[str]] = {}
    for s in spans:
        ids.setdefault(s.trace_id, set()).add(s.span_id)
    infos: dict[str, TraceInfo] = {}
    for s in spans:
        info = infos.get(s.trace_id)
        if info is None:
            info = infos[s.trace_id] = TraceInfo(s.trace_id, "", 0, -1)
        info.spans += 1
        is_root = s.parent_id is None or s.parent_id not in ids[s.trace_id]
        if is_root and s.end_ns >= info.end_ns:
            info.end_ns = s.end_ns
            info.root_name = s.name
    return list(infos.values())


def import_trace(
    name: str,
    data: bytes | InputBuffer,
    *,
    trace_id: str | None = None,
    logs: list[tuple[str, bytes]] | None = None,
    detail: Mode = "full",
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Synthesis:
    """Read, join, select and synthesize; the result's recording carries the import metadata.
    An ``InputBuffer`` is released once its spans are read."""
    # Millions of small, acyclic objects: the cyclic collector would rescan them over and over
    # (a 100,000-span file took 5x longer with it on).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _import_trace(name, data, trace_id, logs, detail, max_events)
    finally:
        if was_enabled:
            gc.enable()


def _import_trace(
    name: str,
    data: bytes | InputBuffer,
    trace_id: str | None,
    logs: list[tuple[str, bytes]] | None,
    detail: Mode,
    max_events: object,
) -> Synthesis:
    if isinstance(data, InputBuffer):
        batch = read_batch(name, data.data)
        data.release()  # the spans hold everything read from here on
    else:
        batch = read_batch(name, data)
    del data
    for logs_name, logs_data in logs or []:
        extra = read_logs(logs_name, logs_data)
        batch.spans.extend(extra.spans)
        batch.logs.extend(extra.logs)
        batch.problems.extend(extra.problems)
    if not batch.spans and batch.logs:
        raise InputError(
            name,
            f"holds log records but no spans: give it with {LOGS.flag} beside the file of the "
            "trace's spans",
        )
    if not batch.spans:
        raise InputError(name, "expected at least one span (the file holds none)")
    infos = traces_of(batch.spans)
    flags: list[tuple[str, str]] = list(batch.problems)
    chosen = choose_run(name, infos, trace_id, flags)
    spans = [s for s in batch.spans if s.trace_id == chosen.trace_id]
    # Only the chosen trace's spans are synthesized: the others (and the index below) are let
    # go first, the synthesis being the memory peak of a long trace.
    batch.spans = []
    unjoined = 0
    if batch.logs:
        by_id = {s.span_id: s for s in spans}  # (every span here is of the chosen trace)
        for rec in batch.logs:
            if rec.trace_id != chosen.trace_id and rec.trace_id:
                continue
            span = by_id.get(rec.span_id)
            if span is None:
                unjoined += 1
                continue
            if not span.logs:
                span.logs = []  # (it may be the shared empty list, which never grows)
            span.logs.append(rec)
        del by_id
        batch.logs = []
    if unjoined:
        flags.append(
            (
                "unjoined-log-records",
                f"{unjoined} log record(s) name no span of the trace; their content is not used",
            )
        )
    attached, sent = _results_from_logs(spans)
    if attached:
        flags.append(
            (
                "tool-results-from-logs",
                f"{attached} tool result(s) were read from the log records of the call that "
                "received them (their tool spans carry none): matched by tool-call id",
            )
        )
    if sent:
        flags.append(
            (
                "tool-results-from-calls",
                f"{sent} tool result(s) were read from the input messages of the call that "
                "received them (their tool spans carry none): matched by tool-call id",
            )
        )
    given = haystack_requests(spans)
    if given:
        flags.append(
            (
                "requests-from-agent",
                f"{given} LLM request(s) were read from the agent's own record of its "
                "conversation (Haystack writes each step's request as Python text, not JSON): "
                "each is the conversation up to that step's reply",
            )
        )
    flags.extend(_ignored(spans))
    flags.extend(nothing_read_flag(spans))
    flags.extend(_by_reference(spans))
    flags.extend(_unread_records(spans))  # (before the synthesis: it lets the records go)
    result = synthesize(spans, flags, name, detail=detail, max_events=max_events)
    meta = result.recording[IMPORT_KEY]
    meta["format"] = batch.form
    meta["traceId"] = chosen.trace_id
    meta["traces"] = [t.to_json() for t in infos]
    return result
