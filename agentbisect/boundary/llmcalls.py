"""The run's LLM calls in order: step id, model, tokens, latency and the tools each asked for.

Derived from the domain events (``llm.start`` … ``llm.end`` pairs by runtimeStageId; the
``tool.start`` events up to the next LLM call are the tools that call asked for). This is the
per-call view of ``afp aggregate`` and where step ids for ``afp bisect --at-step`` are listed.
"""

from __future__ import annotations

from msgspec import UNSET, Struct, UnsetType

from agentbisect.schema.events import DomainEvent, LlmEnd, LlmStart, ToolStart


class CallTokens(Struct):
    input: int | float
    output: int | float


class LlmCall(Struct, kw_only=True):
    index: int
    runtimeStageId: str
    model: str | UnsetType = UNSET
    tokens: CallTokens | UnsetType = UNSET  # absent until the call ended with usage
    latencyMs: int | float | UnsetType = UNSET
    tools: list[str] = []
    ended: bool = False
    inCommitLog: bool = False  # afp bisect --at-step can localize it


def llm_calls(events: list[DomainEvent], committed: set[str] | dict[str, int]) -> list[LlmCall]:
    calls: list[LlmCall] = []
    open_by_id: dict[str, tuple[LlmCall, int | float | None]] = {}
    last: LlmCall | None = None
    for ev in events:
        if isinstance(ev, LlmStart):
            rid = ev.runtimeStageId if isinstance(ev.runtimeStageId, str) else ""
            call = LlmCall(
                index=len(calls),
                runtimeStageId=rid,
                model=ev.model if isinstance(ev.model, str) else UNSET,
                inCommitLog=rid in committed,
            )
            calls.append(call)
            ts = ev.ts if isinstance(ev.ts, int | float) else None
            open_by_id[rid] = (call, ts)
            last = call
        elif isinstance(ev, LlmEnd):
            rid = ev.runtimeStageId if isinstance(ev.runtimeStageId, str) else ""
            opened = open_by_id.pop(rid, None)
            if opened is None:
                continue
            call, start = opened
            call.ended = True
            if not isinstance(ev.usage, UnsetType):
                call.tokens = CallTokens(ev.usage.input, ev.usage.output)
            if start is not None and isinstance(ev.ts, int | float):
                call.latencyMs = ev.ts - start
        elif isinstance(ev, ToolStart) and last is not None:
            last.tools.append(ev.toolName if isinstance(ev.toolName, str) else "?")
    return calls
