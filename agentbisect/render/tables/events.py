"""The domain-event stream (one line per event) and the step graph as terminal views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec import UNSET, Raw

from agentbisect.render.console import stdout_console
from agentbisect.render.safetext import safe, shorten
from agentbisect.schema.events import (
    CompositionEnd,
    CompositionStart,
    ContextInjected,
    DecisionBranch,
    DomainEvent,
    ForkBranch,
    LlmEnd,
    LlmStart,
    LoopIteration,
    OtherEvent,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
    ToolEnd,
    ToolStart,
)

if TYPE_CHECKING:
    from agentbisect.results import EventsResult

_WIDTH = 70


def _raw_text(raw: Any) -> str:
    if raw is UNSET:
        return ""
    data = memoryview(raw)[: _WIDTH * 4].tobytes() if isinstance(raw, Raw) else str(raw).encode()
    return data.decode("utf-8", "replace")


def summary(ev: DomainEvent, lean: bool) -> str:
    """A short one-line description of what the event says."""
    if isinstance(ev, RunEntry | RunExit):
        return (
            "payload " + _raw_text(ev.payload)
            if ev.payload is not UNSET
            else ("(lean: no payload)" if lean else "")
        )
    if isinstance(ev, SubflowEntry | SubflowExit):
        tags = [t for t in (ev.primitiveKind, ev.slotKind) if isinstance(t, str)]
        if ev.isAgentInternal is True:
            tags.append("internal")
        head = f"{ev.subflowName if ev.subflowName is not UNSET else ev.subflowId}"
        return head + (f" [{', '.join(tags)}]" if tags else "")
    if isinstance(ev, CompositionStart | CompositionEnd):
        extra = f" {ev.status}" if isinstance(ev, CompositionEnd) and ev.status else ""
        return f"{ev.kind} {ev.name!s}{extra}"
    if isinstance(ev, ForkBranch):
        return f"{ev.parentSubflowId} → {ev.childName}"
    if isinstance(ev, DecisionBranch):
        why = f" ({ev.rationale})" if isinstance(ev.rationale, str) and ev.rationale else ""
        return f"{ev.decider} chose {ev.chosen}{why}"
    if isinstance(ev, LoopIteration):
        return f"back to {ev.target} (iteration {ev.iteration})"
    if isinstance(ev, LlmStart):
        return f"{ev.provider}/{ev.model} {ev.actorArrow if ev.actorArrow is not UNSET else ''}"
    if isinstance(ev, LlmEnd):
        usage = ev.usage
        tok = f"{usage.input}→{usage.output} tok" if usage is not UNSET else "no usage"
        text = ev.content if isinstance(ev.content, str) else ""
        return f"{tok} {ev.actorArrow if ev.actorArrow is not UNSET else ''} {text}".strip()
    if isinstance(ev, ToolStart):
        nd = "" if ev.dispatched else " [not dispatched]"
        return f"{ev.toolName}({_raw_text(ev.args)}){nd}"
    if isinstance(ev, ToolEnd):
        err = " ERROR" if ev.error not in (UNSET, None, False) else ""
        return f"{ev.toolCallId}{err} → {_raw_text(ev.result)}"
    if isinstance(ev, ContextInjected):
        body = ev.contentSummary if isinstance(ev.contentSummary, str) else ""
        return f"{ev.slot}/{ev.source}: {body}"
    if isinstance(ev, OtherEvent):
        return ev.problem or "(type unknown to this afp; passed through)"
    return ""


def events_table(result: EventsResult) -> None:
    """One line per event, columns fitted to the terminal, written (and paged) as made."""
    from agentbisect.render.pager import paged, terminal_size
    from agentbisect.render.tables.event_lines import (
        choose_columns,
        header_lines,
        write_event_lines,
    )

    width = terminal_size()[0]
    cols = choose_columns(width, result.total, result.events)
    lean = result.lean
    with paged(len(result.events) + 2, result.page) as (out, colour):
        for line in header_lines(result.title, cols, width, colour):
            out.write(line + "\n")
        rows = zip(result.indices, result.events, strict=True)
        write_event_lines(out, rows, cols, lambda ev: summary(ev, lean), colour)
        out.flush()


def step_graph_table(graph: dict[str, Any], lean: bool) -> None:
    from rich.table import Table

    table = Table(title="Step graph", title_justify="left", pad_edge=False)
    table.add_column("iter", justify="right")
    table.add_column("kind")
    table.add_column("label")
    table.add_column("t (ms)", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("detail", overflow="fold")
    for node in graph["nodes"]:
        tokens = node.get("tokens")
        detail = node.get("assistantText") or node.get("toolName") or ""
        if lean and node["kind"] != "subflow" and not detail:
            detail = "structure only (lean)"
        inj = node.get("injections")
        if inj:
            detail = f"{len(inj)} injection(s) {detail}".strip()
        end = node.get("endOffsetMs")
        span = f"{node['startOffsetMs']}" + (f"–{end}" if end is not None else "")
        table.add_row(
            safe(node.get("iterationIndex", "")),
            safe(node["kind"]),
            safe(node["label"]),
            safe(span),
            safe(f"{tokens['in']}/{tokens['out']}" if tokens else ""),
            safe(shorten(detail, _WIDTH)),
        )
    stdout_console().print(table)
    stdout_console().print(
        safe(f"{len(graph['nodes'])} nodes, {len(graph['edges'])} edges"), style="dim"
    )
