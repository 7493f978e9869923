"""The step graph's node and malformed counts, taken without building it (``count_step_graph``),
equal what ``build_step_graph`` makes — on every fixture and on generated streams that reach
every branch of the fold — and ``afp aggregate`` no longer builds the graph to get them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from agentbisect.analyses.aggregate import aggregate
from agentbisect.importers import open_run
from agentbisect.model.boundary.graph import build_step_graph, count_step_graph
from agentbisect.schema.events import (
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
    Usage,
)
from tests.helpers import RECORDINGS, recording

OTEL = Path(__file__).resolve().parent.parent / "fixtures" / "otel"
TRACES = sorted(
    str(p)
    for p in OTEL.iterdir()
    if p.suffix in (".json", ".jsonl")
    and not p.name.endswith(("truth.json", "logs.otlp.json", "logs.console.json"))
)


def _graph_counts(events: list[DomainEvent]) -> tuple[int, int]:
    g = build_step_graph(events)
    return len(g.nodes), g.malformed


@pytest.mark.parametrize("path", [recording(r) for r in RECORDINGS] + TRACES)
def test_counts_equal_the_built_graph_on_every_fixture(path: str) -> None:
    events = open_run(path).events
    assert count_step_graph(events) == _graph_counts(events)


@pytest.mark.parametrize("path", [recording("react-tools"), *TRACES[:3]])
def test_aggregate_does_not_build_the_step_graph(path: str) -> None:
    run = open_run(path)
    result = aggregate(run, overview=False)
    assert "step_graph" not in run.__dict__
    # ...and says what the built graph would have said
    assert result.source["counts"]["stepNodes"] == len(run.step_graph.nodes)


maybe = st.sampled_from
flags = maybe([UNSET, True, False])
arrows = maybe([UNSET, "llm→user", "llm→tool", "tool→llm"])


@st.composite
def streams(draw: st.DrawFn) -> list[DomainEvent]:
    out: list[DomainEvent] = []
    for i in range(draw(st.integers(0, 25))):
        rid = f"s#{i}"
        kind = draw(st.integers(0, 14))
        ev: Any
        if kind == 0:
            ev = RunEntry(runtimeStageId=rid, ts=i)
        elif kind == 1:
            ev = RunExit(runtimeStageId=rid, ts=i)
        elif kind in (2, 3):
            cls = SubflowEntry if kind == 2 else SubflowExit
            ev = cls(
                runtimeStageId=draw(maybe([rid, "s#0"])),
                slotKind=draw(maybe([UNSET, "messages", "tools", "system-prompt", "other"])),
                isAgentInternal=draw(flags),
                primitiveKind=draw(maybe([UNSET, "Agent", "Loop", "Custom"])),
            )
        elif kind == 4:
            ev = ForkBranch(runtimeStageId=rid, childName=draw(maybe([UNSET, "c"])))
        elif kind == 5:
            ev = DecisionBranch(runtimeStageId=rid, isAgentInternal=draw(flags))
        elif kind == 6:
            ev = LoopIteration(runtimeStageId=rid, iteration=i)
        elif kind == 7:
            ev = ContextInjected(runtimeStageId=rid, slot="messages", source="rag")
        elif kind == 8:
            ev = LlmStart(
                runtimeStageId=draw(maybe([rid, "llm#0"])),
                actorArrow=draw(arrows),
                model=draw(maybe([UNSET, "m", 5])),
                ts=i,
            )
        elif kind == 9:
            ev = LlmEnd(
                runtimeStageId=draw(maybe([rid, "llm#0"])),
                ts=i,
                stopReason=draw(maybe([UNSET, "stop", "error"])),
                usage=draw(maybe([UNSET, Usage(1, 2)])),
                actorArrow=draw(arrows),
                content=draw(maybe([UNSET, "", "answer"])),
            )
        elif kind in (10, 11):
            nd = draw(maybe([UNSET, None, False, True, "x"]))
            call = draw(maybe([UNSET, "call-1"]))
            if kind == 10:
                ev = ToolStart(
                    runtimeStageId=rid,
                    toolCallId=call,
                    notDispatched=nd,
                    toolName=draw(maybe([UNSET, "search", "lookup"])),
                )
            else:
                ev = ToolEnd(runtimeStageId=rid, toolCallId=call, notDispatched=nd)
        elif kind == 12:
            ev = CompositionStart(runtimeStageId=rid)
        elif kind == 13:
            ev = OtherEvent(type="llm.start", problem="bad")
        else:
            ev = OtherEvent(type="future.event")
        out.append(ev)
    return out


@settings(max_examples=400, deadline=None)
@given(streams())
def test_counts_equal_the_built_graph_on_any_stream(events: list[DomainEvent]) -> None:
    assert count_step_graph(events) == _graph_counts(events)
