"""Convert a chat transcript (the work behind the ``transcript`` importer): an OpenAI-style message array, ``{"messages": [...]}``, JSON Lines of
messages, or a multi-agent history ``{"history": [{"role", "name", "content"}, …]}``.

A transcript is the conversation only. Each assistant message (each named agent's entry in a
history) becomes an LLM call whose input is every message before it; each tool message a tool
call, matched to the assistant message that asked for it by ``tool_call_id``. A history's
consecutive entries by one agent sit inside an agent boundary. There are no times and no token
counts: times are message positions, and flags say what is missing.
"""

from __future__ import annotations

import json
from typing import Any

from agentbisect.core.errors import InputError
from agentbisect.importers.base import DEFAULT_MAX_EVENTS
from agentbisect.importers.opentelemetry.conventions import (
    Boundary,
    LLMCall,
    Message,
    Reading,
    ToolCall,
    message_from,
)
from agentbisect.importers.opentelemetry.spans import Span
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis, synthesize
from agentbisect.model.boundary.recorder import Mode

_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


def _is_message(obj: object) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("role"), str)


def _load(name: str, data: bytes) -> tuple[list[dict[str, Any]], str] | None:
    text = data.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if doc is None:  # JSON Lines of messages?
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return None
        if items and all(_is_message(m) for m in items):
            return items, "chat transcript (JSON Lines)"
        return None
    if isinstance(doc, list) and doc and all(_is_message(m) for m in doc):
        return doc, "chat transcript (message array)"
    if isinstance(doc, dict):
        for key, form in (
            ("messages", "chat transcript {messages}"),
            ("history", "multi-agent history"),
        ):
            found = doc.get(key)
            if isinstance(found, list) and found and all(_is_message(m) for m in found):
                return found, form
    return None


def _span(span_id: str, name: str, parent: str | None, start: int, end: int) -> Span:
    return Span(
        trace_id="transcript",
        span_id=span_id,
        parent_id=parent,
        name=name,
        kind="INTERNAL",
        start_ns=start * 1_000_000,
        end_ns=end * 1_000_000,
        status="UNSET",
        status_message="",
        attributes={},
    )


def import_transcript(
    name: str, data: bytes, *, detail: Mode = "full", max_events: object = DEFAULT_MAX_EVENTS
) -> Synthesis:
    loaded = _load(name, data)
    if loaded is None:
        raise InputError(name, "expected a chat transcript (messages with role and content)")
    raw, form = loaded
    history = form == "multi-agent history"
    msgs: list[Message] = []
    for i, obj in enumerate(raw):
        role = obj.get("role")
        if role not in _ROLES and not (history and isinstance(obj.get("name"), str)):
            raise InputError(
                name, f"message {i}: expected role to be one of {', '.join(sorted(_ROLES))}"
            )
        msg = message_from(obj)
        if msg.role == "function":
            msg.role = "tool"
        msgs.append(msg)
    n = len(msgs)
    spans = [_span("root", "transcript", None, 0, n + 1)]
    readings: dict[str, Reading] = {
        "root": Reading(Boundary("Agent", "transcript"), "agent", "transcript")
    }
    asked: dict[str, str] = {}  # tool-call id -> tool name
    agent_span: Span | None = None
    for i, msg in enumerate(msgs):
        is_step = msg.role == "assistant" or (
            history and msg.role not in ("system", "developer", "user", "tool")
        )
        parent = "root"
        if history and is_step and msg.name:
            if agent_span is None or agent_span.name != msg.name:
                agent_span = _span(f"agent{i}", msg.name, "root", i, i + 1)
                spans.append(agent_span)
                readings[agent_span.span_id] = Reading(
                    Boundary("Agent", msg.name), "agent", "transcript"
                )
            agent_span.end_ns = (i + 1) * 1_000_000
            parent = agent_span.span_id
        elif history:
            agent_span = None
        if is_step:
            s = _span(f"m{i}", msg.name or "chat", parent, i, i + 1)
            spans.append(s)
            out = Message("assistant", msg.parts, msg.name)
            readings[s.span_id] = Reading(
                LLMCall(
                    inputs=msgs[:i], outputs=[out], content_source="transcript", content_read=True
                ),
                "llm",
                "transcript",
            )
            for p in msg.parts:
                if p.kind == "tool_call" and p.id:
                    asked[p.id] = p.name
        elif msg.role == "tool":
            for p in msg.parts:
                s = _span(f"m{i}", "execute_tool", parent, i, i + 1)
                spans.append(s)
                tool_name = asked.get(p.id, msg.name or "tool")
                readings[s.span_id] = Reading(
                    ToolCall(name=tool_name, call_id=p.id, result=p.text), "tool", "transcript"
                )
    flags = [
        ("no-token-usage", "a transcript carries no token counts: token totals are 0, not measured")
    ]
    result = synthesize(
        spans,
        flags,
        name,
        readings,
        axis_note="the commit axis is the message order, synthesized by the importer: a transcript "
        "has no commits and no times (times are message positions, in ms)",
        detail=detail,
        max_events=max_events,
    )
    meta = result.recording[IMPORT_KEY]
    meta["format"] = form
    meta["traces"] = []
    return result
