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
from typing import Any, NamedTuple

from agentbisect.core.errors import InputError
from agentbisect.importers.base import DEFAULT_MAX_EVENTS
from agentbisect.importers.opentelemetry.conventions import (
    Boundary,
    LLMCall,
    Message,
    Part,
    Reading,
    answered_call,
    message_from,
)
from agentbisect.importers.opentelemetry.spans import Span
from agentbisect.importers.synthesize import IMPORT_KEY, Synthesis, synthesize
from agentbisect.model.boundary.recorder import Mode

_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
_HISTORY = "multi-agent history"


def _is_message(obj: object) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("role"), str)


def _load(name: str, data: bytes) -> tuple[list[dict[str, Any]], str, str, Any] | None:
    """The messages, the form's label, the JSON path of the messages array and the document."""
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
            return items, "chat transcript (JSON Lines)", "line", None
        return None
    if isinstance(doc, list) and doc and all(_is_message(m) for m in doc):
        return doc, "chat transcript (message array)", "$", doc
    if isinstance(doc, dict):
        found = doc.get("messages")
        if isinstance(found, list) and found and all(_is_message(m) for m in found):
            return found, "chat transcript {messages}", "$.messages", doc
        found = doc.get("history")
        if isinstance(found, list) and found and _is_message(found[0]):
            for i, entry in enumerate(found):  # any role or agent name, but an entry is one
                if not _is_entry(entry):
                    raise InputError(
                        name,
                        "expected a history entry: an object with a role or name (text), "
                        f"not {_shown(entry)}",
                        f"$.history[{i}]",
                    )
                if not isinstance(entry.setdefault("role", entry.get("name")), str):
                    entry["role"] = entry["name"]  # (a null role beside a name)
            return found, _HISTORY, "$.history", doc
    return None


def _is_entry(obj: object) -> bool:
    return isinstance(obj, dict) and any(
        isinstance(obj.get(k), str) and obj[k].strip() for k in ("role", "name")
    )


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _agent(obj: dict[str, Any]) -> str:
    """Whose step a history entry is: its ``name``, else its role without a trailing note in
    parentheses (Magentic-One's "Orchestrator (thought)", "Orchestrator (-> WebSurfer)")."""
    who = obj.get("name")
    if not isinstance(who, str) or not who.strip():
        who = obj["role"]
    return who.split(" (", 1)[0].strip() or who


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


class TranscriptRun(NamedTuple):
    """A transcript read as spans with their readings: what the synthesis and ``afp call`` (a
    call's messages, read again from the file) both take, so that both read it one way."""

    form: str
    spans: list[Span]
    readings: dict[str, Reading]
    numbers: dict[str, int] | None  # a history's step numbers: positions in it


def import_transcript(
    name: str, data: bytes, *, detail: Mode = "full", max_events: object = DEFAULT_MAX_EVENTS
) -> Synthesis:
    run = read_transcript(name, data)
    return _finish(name, run, detail, max_events)


def read_transcript(name: str, data: bytes) -> TranscriptRun:
    """The transcript's messages as spans and readings (``InputError`` when it holds none)."""
    loaded = _load(name, data)
    if loaded is None:
        raise InputError(name, "expected a chat transcript (messages with role and content)")
    raw, form, path, doc = loaded
    if form == _HISTORY:
        prompts = doc.get("system_prompt")  # (CaptainAgent logs: each agent's instructions)
        return _history(raw, prompts if isinstance(prompts, dict) else {})
    msgs: list[Message] = []
    for i, obj in enumerate(raw):
        role = obj["role"]
        if role not in _ROLES:
            where = f"line {i + 1}" if path == "line" else f"{path}[{i}].role"
            raise InputError(
                name,
                f"expected role to be one of {', '.join(sorted(_ROLES))}, not {role!r} "
                '(a multi-agent log with any role or agent name is read as {"history": [...]})',
                where,
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
    asked: dict[str, Part] = {}  # tool-call id -> the call an assistant message asked for
    for i, msg in enumerate(msgs):
        if msg.role == "assistant":
            s = _span(f"m{i}", msg.name or "chat", "root", i, i + 1)
            spans.append(s)
            readings[s.span_id] = _call(msgs[:i], msg)
            for p in msg.parts:
                if p.kind == "tool_call" and p.id:
                    asked[p.id] = p
        elif msg.role == "tool":
            for p in msg.parts:
                s = _span(f"m{i}", "execute_tool", "root", i, i + 1)
                spans.append(s)
                readings[s.span_id] = Reading(
                    answered_call(p, asked.get(p.id), msg.name or "tool"), "tool", "transcript"
                )
    return TranscriptRun(form, spans, readings, None)


def _call(inputs: list[Message], msg: Message) -> Reading:
    """A message as the output of an LLM call that saw every message before it."""
    out = Message("assistant", msg.parts, msg.name)
    return Reading(
        LLMCall(inputs=inputs, outputs=[out], content_source="transcript", content_read=True),
        "llm",
        "transcript",
    )


def _history(raw: list[dict[str, Any]], prompts: dict[str, Any]) -> TranscriptRun:
    """A multi-agent log (Who&When's Magentic-One and CaptainAgent runs, AutoGen group chats):
    every entry is one step of its agent — a user's turn, an orchestrator's thought, a tool
    agent's output alike — numbered by its 0-based position in the history, as Who&When's
    ``mistake_step`` counts, so ``WebSurfer#5`` is entry 5. Consecutive entries of one agent sit
    inside that agent's boundary; system entries are instructions, not steps, and so is an
    agent's own system prompt where the log keeps one (``system_prompt``: agent → text), which
    only that agent's steps saw."""
    n = len(raw)
    spans = [_span("root", "transcript", None, 0, n + 1)]
    readings: dict[str, Reading] = {
        "root": Reading(Boundary("Agent", "transcript"), "agent", "transcript")
    }
    numbers: dict[str, int] = {}
    seen: list[Message] = []  # what each step saw: every entry before it
    agent_span: Span | None = None
    for i, obj in enumerate(raw):
        role = obj["role"]
        msg = message_from(obj)
        if role in ("system", "developer"):
            seen.append(msg)
            agent_span = None
            continue
        agent = _agent(obj)
        if agent_span is None or agent_span.name != agent:
            agent_span = _span(f"agent{i}", agent, "root", i, i + 1)
            spans.append(agent_span)
            readings[agent_span.span_id] = Reading(Boundary("Agent", agent), "agent", "transcript")
        agent_span.end_ns = (i + 1) * 1_000_000
        s = _span(f"m{i}", agent, agent_span.span_id, i, i + 1)
        spans.append(s)
        numbers[s.span_id] = i
        # Later steps read this entry as the output of this step (matched by its text).
        said = Message("assistant", msg.parts, agent)
        prompt = prompts.get(agent)
        own = [Message("system", [Part("text", prompt)])] if isinstance(prompt, str) else []
        readings[s.span_id] = _call(own + seen, said)
        seen.append(said)
    return TranscriptRun(_HISTORY, spans, readings, numbers)


def _finish(name: str, run: TranscriptRun, detail: Mode, max_events: object) -> Synthesis:
    flags = [
        ("no-token-usage", "a transcript carries no token counts: token totals are 0, not measured")
    ]
    result = synthesize(
        run.spans,
        flags,
        name,
        run.readings,
        axis_note="the commit axis is the message order, synthesized by the importer: a transcript "
        "has no commits and no times (times are message positions, in ms)",
        detail=detail,
        max_events=max_events,
        step_numbers=run.numbers,
    )
    meta = result.recording[IMPORT_KEY]
    meta["format"] = run.form
    meta["traces"] = []
    return result
