"""Per-call rows: every LLM call (model, tokens, latency, the tools it asked for) and every
dispatched tool call (name, duration, result or error), folded from the domain events in one pass.

The LLM-call index is the position among ``llm.start`` events, which is what ``afp bisect``'s ``AT_LLM`` counts.
Tool results are shortened here, as text; renderers escape them, they never interpret them.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct

from agentbisect.core.js import is_num
from agentbisect.schema.events import DomainEvent, LlmEnd, LlmStart, ToolEnd, ToolStart

RESULT_CHARS = 300


class LlmCallRow(Struct, kw_only=True):
    index: int
    step: str
    model: str
    tokensIn: int | float | None = None
    tokensOut: int | float | None = None
    latencyMs: int | float | None = None
    stopReason: str | None = None
    tools: list[str] = []


class ToolCallRow(Struct, kw_only=True):
    index: int
    step: str
    tool: str
    askedBy: str | None  # the step id of the LLM call before it
    durationMs: int | float | None = None
    result: str = ""
    error: str = ""


def value_text(value: Any) -> str:
    """A recorded value (an event field, maybe still raw JSON) as text: a string as itself,
    anything else as compact JSON, nothing as ``""``."""
    if value is UNSET or value is None:
        return ""
    if isinstance(value, msgspec.Raw):
        try:
            value = msgspec.json.decode(value)
        except msgspec.DecodeError:
            return bytes(value).decode("utf-8", "replace")
    if not isinstance(value, str):
        value = msgspec.json.encode(value).decode("utf-8", "replace")
    return value


def _text(value: Any) -> str:
    """A recorded value as one short line of text."""
    value = value_text(value)
    return value if len(value) <= RESULT_CHARS else value[: RESULT_CHARS - 1] + "…"


def call_rows(
    events: list[DomainEvent], *, tool_rows: bool = True
) -> tuple[list[LlmCallRow], list[ToolCallRow]]:
    """The LLM calls and the dispatched tool calls, in stream order. ``tool_rows=False`` gives
    the same LLM rows and no tool rows (``afp aggregate`` shows only the former): the tool rows,
    each result decoded and shortened, were ~40% of the fold."""
    llm: list[LlmCallRow] = []
    tools: list[ToolCallRow] = []
    open_llm: dict[str, tuple[LlmCallRow, Any]] = {}
    open_tool: dict[str, ToolCallRow] = {}
    last_llm: LlmCallRow | None = None
    for ev in events:
        # exact classes, as in the step graph (events are never subclassed)
        rid = getattr(ev, "runtimeStageId", None)
        rid = rid if isinstance(rid, str) else ""
        if type(ev) is LlmStart:
            row = LlmCallRow(
                index=len(llm), step=rid, model=ev.model if isinstance(ev.model, str) else ""
            )
            llm.append(row)
            open_llm[rid] = (row, ev.ts)
            last_llm = row
        elif type(ev) is LlmEnd:
            hit = open_llm.pop(rid, None)
            if hit is None:
                continue
            row, started = hit
            if ev.usage is not UNSET:
                row.tokensIn = ev.usage.input
                row.tokensOut = ev.usage.output
            if is_num(ev.ts) and is_num(started):
                row.latencyMs = ev.ts - started
            if isinstance(ev.stopReason, str):
                row.stopReason = ev.stopReason
        elif type(ev) is ToolStart:
            if not ev.dispatched:
                continue
            name = ev.toolName if isinstance(ev.toolName, str) else ""
            if last_llm is not None:
                last_llm.tools.append(name)
            if not tool_rows:
                continue
            t = ToolCallRow(
                index=len(tools),
                step=rid,
                tool=name,
                askedBy=last_llm.step if last_llm is not None else None,
            )
            tools.append(t)
            open_tool[ev.toolCallId if isinstance(ev.toolCallId, str) else rid] = t
        elif type(ev) is ToolEnd and tool_rows:
            done = open_tool.pop(ev.toolCallId if isinstance(ev.toolCallId, str) else rid, None)
            if done is None:
                continue
            if is_num(ev.durationMs):
                done.durationMs = ev.durationMs  # type: ignore[assignment]
            done.result = _text(ev.result)
            if ev.error is not UNSET and ev.error is not None and ev.error is not False:
                done.error = _text(ev.error) if ev.error is not True else "error"
    return llm, tools
