"""What the importers of platform exports (Langfuse traces, LangSmith run trees) share: ISO-8601
times, LangChain's serialized messages and documents, one ``Span`` per observation or run, the
choice among several traces in one file, and the synthesis of the chosen one.

An export is read the way a transcript is: each observation or run becomes a ``Span`` and a
``Reading`` built here (never the OpenTelemetry conventions), and ``synthesize`` makes the run.
A value of an unexpected type is read as absent rather than refused: only the skeleton (the
objects and ids that say what nests in what) is required, and ``InputError`` names its path.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from agentbisect.core.errors import InputError, UsageError
from agentbisect.core.options import LOGS
from agentbisect.importers.base import ImportOptions
from agentbisect.importers.choice import choose_run
from agentbisect.importers.opentelemetry.conventions import (
    Document,
    LLMCall,
    Message,
    Part,
    Reading,
    ToolCall,
    message_from,
)
from agentbisect.importers.opentelemetry.spans import Span, time_bits
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis, synthesize
from agentbisect.importers.texts import as_text, text_of
from agentbisect.model.boundary.recorder import Mode

# --------------------------------------------------------------------------- values


def text(value: Any) -> str:
    """A string field, "" when it is absent or not a string."""
    return value if isinstance(value, str) else ""


def obj(value: Any) -> dict[str, Any]:
    """An object field, {} when it is absent or not an object."""
    return value if isinstance(value, dict) else {}


def count(value: Any) -> int | None:
    """A token count (a non-negative integer; booleans and other types are not counts)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 0 <= value < 2**53 else None


_ISO = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?\s*(Z|z|[+-]\d{2}:?\d{2})?"
)


def iso_ns(value: Any) -> int:
    """An ISO-8601 time as nanoseconds since the epoch; 0 when missing or unparsable (the span
    then carries an unknown time, never a made-up one). A time without an offset is UTC: that is
    how LangSmith's API writes its times."""
    if not isinstance(value, str):
        return 0
    m = _ISO.fullmatch(value.strip())
    if m is None:
        return 0
    day, clock, frac, zone = m.groups()
    if zone is None or zone in ("Z", "z"):
        zone = "+00:00"
    elif ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    try:
        whole = dt.datetime.fromisoformat(f"{day}T{clock}{zone}")
    except ValueError:
        return 0
    ns = int(whole.timestamp()) * 1_000_000_000 + int(((frac or "") + "000000000")[:9])
    return max(ns, 0)


def span(
    trace_id: str,
    span_id: str,
    parent: str | None,
    name: str,
    start_ns: int,
    end_ns: int,
    error: str | None = None,
) -> Span:
    """One observation or run as a span (an unknown or reversed time is marked, not guessed)."""
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name,
        kind="INTERNAL",
        start_ns=start_ns,
        end_ns=end_ns,
        status="ERROR" if error is not None else "UNSET",
        status_message=error or "",
        attributes={},
        bad_time=time_bits(start_ns, end_ns),
    )


# --------------------------------------------------------------------------- LangChain messages

# LangChain's message types (a message's ``type``, or its class in ``dumpd``'s ``id``) -> role
_LC_ROLES = {
    "human": "user",
    "HumanMessage": "user",
    "HumanMessageChunk": "user",
    "ai": "assistant",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "system": "system",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "tool": "tool",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "function": "tool",
    "FunctionMessage": "tool",
    "chat": "",
    "ChatMessage": "",
}


def lc_fields(value: Any) -> tuple[str, dict[str, Any]] | None:
    """A LangChain message's role and fields: ``dumpd``'s ``{"lc": 1, "type": "constructor",
    "id": [..., "AIMessage"], "kwargs": {...}}`` or ``model_dump``'s ``{"type": "ai",
    "content": ...}``; None when ``value`` is neither."""
    if not isinstance(value, dict):
        return None
    kwargs = value.get("kwargs")
    ident = value.get("id")
    if value.get("lc") == 1 and isinstance(kwargs, dict) and isinstance(ident, list) and ident:
        cls = ident[-1]
        kind = kwargs.get("type")
        role = _LC_ROLES.get(cls) if isinstance(cls, str) else None
        if role is None and isinstance(kind, str):
            role = _LC_ROLES.get(kind)
        if role is None:
            return None
        return role or text(kwargs.get("role")) or "user", kwargs
    kind = value.get("type")
    if isinstance(kind, str) and kind in _LC_ROLES and "content" in value:
        return _LC_ROLES[kind] or text(value.get("role")) or "user", value
    return None


def is_lc_message(value: Any) -> bool:
    return lc_fields(value) is not None


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # content blocks: [{"type": "text", "text": ...}, ...]
        return "\n".join(
            text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict) else as_text(c)
            for c in content
            if not (isinstance(c, dict) and c.get("type") in ("tool_use", "function_call"))
        )
    return as_text(content)


def message(value: Any, role: str = "") -> Message:
    """A message in LangChain's forms or in any form ``message_from`` reads (OpenAI's)."""
    found = lc_fields(value)
    if found is None:
        return message_from(value, role)
    role, f = found
    msg = Message(role, name=text(f.get("name")))
    body = _content_text(f.get("content"))
    if role == "tool":
        msg.parts.append(Part("tool_result", body, id=text(f.get("tool_call_id"))))
        return msg
    if body or f.get("content") is not None:
        msg.parts.append(Part("text", body))
    calls = f.get("tool_calls")
    if isinstance(calls, list) and calls:
        for c in calls:
            if isinstance(c, dict):
                msg.parts.append(
                    Part(
                        "tool_call",
                        id=text(c.get("id")),
                        name=text(c.get("name")),
                        arguments=as_text(c.get("args", c.get("arguments"))),
                    )
                )
    else:  # (older LangChain kept OpenAI's tool calls in additional_kwargs only)
        extra = message_from(
            {"role": role, "tool_calls": obj(f.get("additional_kwargs")).get("tool_calls")}
        )
        msg.parts.extend(p for p in extra.parts if p.kind == "tool_call")
    return msg


def messages(value: Any) -> list[Message]:
    """A list of messages (LangChain's or OpenAI's), a ``{"messages": [...]}`` wrapper, or one
    prompt string; [] for anything else."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, str):
        return [Message("user", [Part("text", value)])]
    if not isinstance(value, list):
        return []
    return [message(m) for m in value if m is not None]


def usage_of(lc: dict[str, Any]) -> tuple[int | None, int | None]:
    """An AI message's own token usage (``usage_metadata``), if it carries one."""
    u = obj(lc.get("usage_metadata"))
    return count(u.get("input_tokens")), count(u.get("output_tokens"))


_ANSWER_KEYS = frozenset({"generations", "choices", "role", "content", "tool_calls"})


def replies(value: Any) -> tuple[list[Message], str, tuple[int | None, int | None]]:
    """What an LLM call answered, its finish reason and the answer's own token usage, from the
    forms an output is stored in: LangChain's ``LLMResult`` (``generations``), OpenAI's
    completion (``choices``), one message (LangChain's or OpenAI's), messages, or text."""
    usage: tuple[int | None, int | None] = (None, None)
    # (a wrapper {"output": ...} is unwrapped in a loop: exports nest as deep as they like)
    while isinstance(value, dict) and lc_fields(value) is None and not _ANSWER_KEYS & value.keys():
        key = next((k for k in ("output", "messages", "text") if k in value), None)
        if key is None:
            break
        value = value[key]
    if value is None:
        return [], "", usage
    if isinstance(value, str):
        return [Message("assistant", [Part("text", value)])], "", usage
    if isinstance(value, list):
        return [message(m, "assistant") for m in value if m is not None], "", usage
    if not isinstance(value, dict):
        return [Message("assistant", [Part("text", as_text(value))])], "", usage
    out: list[Message] = []
    finish = ""
    gens = value.get("generations")
    if isinstance(gens, list):
        first = gens[0] if gens else []
        for g in first if isinstance(first, list) else [first]:
            if not isinstance(g, dict):
                continue
            lc = lc_fields(g.get("message"))
            if lc is not None:
                out.append(message(g["message"], "assistant"))
                usage = usage_of(lc[1])
            elif isinstance(g.get("text"), str):
                out.append(Message("assistant", [Part("text", g["text"])]))
            finish = finish or text(obj(g.get("generation_info")).get("finish_reason"))
        return out, finish, usage
    choices = value.get("choices")
    if isinstance(choices, list):
        for c in choices:
            if isinstance(c, dict):
                inner = c.get("message", c.get("text"))
                out.append(message(inner, "assistant"))
                finish = finish or text(c.get("finish_reason"))
        return out, finish, usage
    lc = lc_fields(value)
    if lc is not None:
        return [message(value, "assistant")], "", usage_of(lc[1])
    if "role" in value or "content" in value or "tool_calls" in value:
        return [message_from(value, "assistant")], text(value.get("finish_reason")), usage
    return [Message("assistant", [Part("text", as_text(value))])], "", usage


# --------------------------------------------------------------------------- documents


def documents(value: Any, prefix: str) -> list[Document]:
    """Retrieved documents: LangChain ``Document``s (``dumpd`` or plain: ``page_content``,
    ``metadata``, ``id``), or objects with ``content``/``text``, or strings."""
    if isinstance(value, dict):
        value = value.get("documents", value.get("output", value.get("docs")))
    if not isinstance(value, list):
        return []
    out: list[Document] = []
    for i, d in enumerate(value):
        if isinstance(d, dict) and d.get("lc") == 1 and isinstance(d.get("kwargs"), dict):
            d = d["kwargs"]
        if isinstance(d, str):
            out.append(Document(f"{prefix}.doc{i}", d, None))
            continue
        if not isinstance(d, dict):
            continue
        meta = obj(d.get("metadata"))
        content = d.get("page_content", d.get("content", d.get("text")))
        doc_id = text(d.get("id")) or next(
            (
                as_text(meta[k])
                for k in ("id", "doc_id", "document_id", "source")
                if isinstance(meta.get(k), str | int) and not isinstance(meta.get(k), bool)
            ),
            "",
        )
        score = d.get("score", meta.get("score", meta.get("relevance_score")))
        out.append(
            Document(
                doc_id or f"{prefix}.doc{i}",
                content if isinstance(content, str) else None,
                float(score)
                if isinstance(score, int | float) and not isinstance(score, bool)
                else None,
            )
        )
    return out


# --------------------------------------------------------------------------- several traces


@dataclass
class Found:
    """One trace of a file: its id, name, where it is (JSON path), when its run ended and how
    many spans (observations or runs) it has."""

    trace_id: str
    name: str
    path: str
    end_ns: int
    value: dict[str, Any]
    spans: int = 0
    # the JSON path of each observation or run, where it is not ``{path}.observations[j]``
    paths: list[str] | None = None

    @property
    def label(self) -> str:
        return self.name


def choose(
    file: str, found: list[Found], options: ImportOptions | None, flags: list[tuple[str, str]]
) -> Found:
    """The trace to read (``importers.choice``, as for OpenTelemetry traces); an export has no
    log-record files to join."""
    if options is not None and options.logs:
        raise UsageError(f"{LOGS.flag} applies to OpenTelemetry traces, not to this export")
    if not found:
        raise InputError(file, "expected at least one trace (the file holds none)", "$")
    return choose_run(file, found, options.trace_id if options is not None else None, flags)


def pair_tool_ids(spans: list[Span], readings: dict[str, Reading]) -> int:
    """Give each tool call without an id the id of the call that asked for a tool of its name
    (the latest one before it, its first request of that name not yet taken); how many took one.

    Done here rather than left to the synthesis: an id found only when the tool call ends was
    written on its end event but not on its start event, and the two no longer paired."""
    pending: list[Part] = []  # the latest LLM call's tool requests not yet answered
    paired = 0
    for s in sorted(spans, key=lambda s: s.start_ns):
        op = readings[s.span_id].op if s.span_id in readings else None
        if isinstance(op, LLMCall):
            pending = [p for m in op.outputs for p in m.parts if p.kind == "tool_call" and p.id]
        elif isinstance(op, ToolCall):
            if not op.call_id:
                found = next((p for p in pending if p.name == op.name), None)
                if found is None:
                    continue
                op.call_id = found.id
                paired += 1
            pending = [p for p in pending if p.id != op.call_id]
    return paired


def finish(
    name: str,
    form: str,
    spans: list[Span],
    readings: dict[str, Reading],
    flags: list[tuple[str, str]],
    trace_id: str,
    traces: list[Found],
    detail: Mode,
    max_events: object,
    axis_note: str = "",
) -> Synthesis:
    """The run synthesized from its spans and readings, with what the export was in ``import``."""
    paired = pair_tool_ids(spans, readings)
    result = synthesize(
        spans,
        flags,
        name,
        readings,
        axis_note=axis_note
        or "the commit axis is the start order of the export's observations (one that contains "
        "others commits when it ends), synthesized by the importer: the export has no commits",
        detail=detail,
        max_events=max_events,
    )
    meta = result.recording[IMPORT_KEY]
    if paired:
        _by_name(result, meta, paired)
    meta["format"] = form
    meta["traceId"] = trace_id
    meta["traces"] = [{"traceId": f.trace_id, "rootName": f.name, "spans": f.spans} for f in traces]
    return result


def _by_name(result: Synthesis, meta: dict[str, Any], paired: int) -> None:
    """Say that ``paired`` tool calls were linked by name, in the one ``matched-by-content``
    flag (a flag is said once: a second one of that name would hide the first's note)."""
    note = (
        f"{paired} tool call(s) carry no tool-call id in the export: each took the id of the "
        "call that asked for a tool of its name"
    )
    flags = result.flags
    at = next((i for i, (f, _) in enumerate(flags) if f == "matched-by-content"), None)
    if at is None:
        at = next((i for i, (f, _) in enumerate(flags) if f == "synthesized-commit-axis"), -1) + 1
        flags.insert(at, ("matched-by-content", note))
    else:
        flags[at] = ("matched-by-content", f"{flags[at][1]}; {note}")
    meta["flags"] = [{"flag": f, "note": n} for f, n in flags]
    meta["counts"]["matchedByContent"] += paired
    result.counts = meta["counts"]
