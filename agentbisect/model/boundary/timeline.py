"""The run as a timeline: boundary spans grouped into lanes, plus marks for LLM calls, tool calls
and errors, on one axis (milliseconds from the first event, or event order when times are missing).

A lane is one boundary (one subflow path, or the run itself); each time the run passes through it
is a span. That keeps a 300-iteration run at a handful of lanes instead of thousands of rows.
"""

from __future__ import annotations

from msgspec import UNSET, Struct

from agentbisect.core.js import is_num
from agentbisect.schema.events import (
    CompositionEnd,
    DomainEvent,
    LlmEnd,
    LlmStart,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
    ToolEnd,
    ToolStart,
)


class Span(Struct, kw_only=True):
    """One pass through a boundary: entry to exit (``end`` is None when it never closed)."""

    runtimeStageId: str
    lane: int
    start: float
    end: float | None
    durationMs: float | None


class Lane(Struct, kw_only=True):
    name: str
    path: list[str]
    depth: int
    kind: str  # run | the primitive kind | slot:<kind> | internal | subflow
    spans: int = 0


class Mark(Struct, kw_only=True):
    kind: str  # llm | tool | error
    step: str
    label: str
    at: float
    end: float | None = None
    trigger: bool = False


class Timeline(Struct, kw_only=True):
    axis: str  # "ms" (from the first event) | "event" (event order: times are missing)
    extent: float
    lanes: list[Lane]
    spans: list[Span]
    marks: list[Mark]
    trigger: str | None = None
    triggerAt: float | None = None
    triggerNote: str = ""


def _lane_kind(ev: SubflowEntry) -> str:
    if isinstance(ev.slotKind, str):
        return f"slot:{ev.slotKind}"
    if ev.isAgentInternal is True:
        return "internal"
    if isinstance(ev.primitiveKind, str) and ev.primitiveKind:
        return ev.primitiveKind
    return "subflow"


def build_timeline(events: list[DomainEvent], trigger: str | None = None) -> Timeline:
    """Spans, lanes and marks from the domain events, in one pass; ``trigger`` is a step id."""
    timed = bool(events) and all(is_num(getattr(e, "ts", None)) for e in events)
    axis = "ms" if timed else "event"
    # The earliest time, not the first event's: merged or clock-skewed streams can be unordered.
    t0 = float(min(e.ts for e in events)) if timed else 0.0  # type: ignore[union-attr, type-var, arg-type]

    lanes: list[Lane] = []
    lane_of: dict[tuple[str, ...], int] = {}
    spans: list[Span] = []
    open_spans: dict[str, Span] = {}
    marks: list[Mark] = []
    open_llm: dict[str, Mark] = {}
    open_tool: dict[str, Mark] = {}
    where: dict[str, float] = {}  # first position of any event carrying a step id

    def lane(path: list[str], name: str, kind: str) -> int:
        key = tuple(path)
        idx = lane_of.get(key)
        if idx is None:
            idx = lane_of[key] = len(lanes)
            lanes.append(Lane(name=name, path=list(path), depth=max(0, len(path) - 1), kind=kind))
        return idx

    for i, ev in enumerate(events):
        at = float(ev.ts) - t0 if timed else float(i)  # type: ignore[union-attr, arg-type]
        rid = getattr(ev, "runtimeStageId", None)
        if isinstance(rid, str):
            where.setdefault(rid, at)
        else:
            rid = ""
        if isinstance(ev, RunEntry | SubflowEntry):
            if isinstance(ev, RunEntry):
                idx = lane(ev.path or ["__root__"], "Run", "run")
            else:
                name = ev.subflowName if isinstance(ev.subflowName, str) else rid
                idx = lane(ev.path, name or rid, _lane_kind(ev))
            span = Span(runtimeStageId=rid, lane=idx, start=at, end=None, durationMs=None)
            lanes[idx].spans += 1
            spans.append(span)
            open_spans[rid] = span
        elif isinstance(ev, RunExit | SubflowExit):
            closing = open_spans.pop(rid, None)
            if closing is not None:
                closing.end = at
                if timed:
                    closing.durationMs = at - closing.start
        elif isinstance(ev, LlmStart):
            model = ev.model if isinstance(ev.model, str) else ""
            m = Mark(kind="llm", step=rid, label=model, at=at)
            marks.append(m)
            open_llm[rid] = m
        elif isinstance(ev, LlmEnd):
            started = open_llm.pop(rid, None)
            if started is not None:
                started.end = at
            if ev.stopReason == "error":
                marks.append(Mark(kind="error", step=rid, label="LLM call stopped on error", at=at))
        elif isinstance(ev, ToolStart):
            if not ev.dispatched:
                continue
            name = ev.toolName if isinstance(ev.toolName, str) else ""
            m = Mark(kind="tool", step=rid, label=name, at=at)
            marks.append(m)
            open_tool[ev.toolCallId if isinstance(ev.toolCallId, str) else rid] = m
        elif isinstance(ev, ToolEnd):
            key = ev.toolCallId if isinstance(ev.toolCallId, str) else rid
            call = open_tool.pop(key, None)
            if call is not None:
                call.end = at
            if ev.error is not UNSET and ev.error is not None and ev.error is not False:
                label = call.label if call is not None else "tool"
                marks.append(Mark(kind="error", step=rid, label=f"{label} failed", at=at))
        elif isinstance(ev, CompositionEnd) and ev.status in ("error", "failed"):
            name = ev.name if isinstance(ev.name, str) else rid
            marks.append(Mark(kind="error", step=rid, label=f"{name} ended: {ev.status}", at=at))

    last = float(max(e.ts for e in events)) - t0 if timed else float(len(events) - 1)  # type: ignore[union-attr, type-var, arg-type]
    extent = max(last, 1.0)
    tl = Timeline(axis=axis, extent=extent, lanes=lanes, spans=spans, marks=marks)
    if trigger is not None:
        tl.trigger = trigger
        hit = [m for m in marks if m.step == trigger and m.kind == "llm"]
        if hit:
            hit[-1].trigger = True
            tl.triggerAt = hit[-1].at
        elif trigger in where:
            tl.triggerAt = where[trigger]
        else:
            tl.triggerNote = (
                f"no recorded event carries the step id {trigger}, so the timeline cannot place it"
            )
    return tl
