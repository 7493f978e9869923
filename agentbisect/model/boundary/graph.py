"""The step graph (recording.md §5.1–5.3): agentfootprint's ReAct-shaped projection of the
domain-event stream, folded in one pass in stream order.

Nodes are plain dicts because their key order is part of the contract: keys set later in the fold
(``endOffsetMs``, ``tokens``, ``exitPayload``) are appended in the order they are set, exactly as
upstream serialises them. Payloads stay ``msgspec.Raw`` and are written back verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from msgspec import UNSET

from agentbisect.core.js import js_truthy
from agentbisect.schema.events import (
    SLOT_PROPS,
    ContextInjected,
    DecisionBranch,
    DomainEvent,
    ForkBranch,
    LlmEnd,
    LlmStart,
    LoopIteration,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
    ToolEnd,
    ToolStart,
)

_NUMBER = (int, float)
PRIMITIVES = frozenset({"Agent", "LLMCall", "Sequence", "Parallel", "Conditional", "Loop"})
_LLM_KINDS = ("user->llm", "tool->llm")


@dataclass
class StepGraph:
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    active_node_id: str | None = None
    malformed: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nodes": self.nodes, "edges": self.edges}
        if self.active_node_id is not None:
            out["activeNodeId"] = self.active_node_id
        return out


def _injection(ev: ContextInjected) -> dict[str, Any]:
    item: dict[str, Any] = {"slot": ev.slot, "source": ev.source}
    for key in ("sourceId", "asRole", "contentSummary", "reason", "sectionTag", "upstreamRef"):
        value = getattr(ev, key)
        if js_truthy(value):
            item[key] = value
    for key in ("retrievalScore", "rankPosition", "budgetTokens", "budgetFraction"):
        value = getattr(ev, key)
        if value is not UNSET:
            item[key] = value
    return item


def build_step_graph(events: list[DomainEvent]) -> StepGraph:
    """Fold ``events`` into the step graph (§5.2). Malformed events are skipped and counted."""
    g = StepGraph()
    nodes, edges = g.nodes, g.edges
    it = 0
    pending_injections: list[dict[str, Any]] = []
    pending_slots: dict[str, dict[str, Any]] = {}
    pending_text: Any = None
    pending_result: Any = UNSET
    prev_react: str | None = None
    t0: Any = None
    open_subflows: dict[str, dict[str, Any]] = {}

    def chain(node_id: str) -> None:
        nonlocal prev_react
        if prev_react is not None:
            edges.append(
                {
                    "id": f"{prev_react}->{node_id}",
                    "from": prev_react,
                    "to": node_id,
                    "kind": "next",
                }
            )
        prev_react = node_id

    for ev in events:
        ts = getattr(ev, "ts", UNSET)
        if t0 is None:
            t0 = ts if isinstance(ts, _NUMBER) and not isinstance(ts, bool) else 0
        t = (ts - t0) if isinstance(ts, _NUMBER) and not isinstance(ts, bool) else 0
        rid = getattr(ev, "runtimeStageId", "")
        if not isinstance(rid, str):
            rid = ""
        # The exact class (event classes are never subclassed, tests/test_index_sweep.py):
        # isinstance down this chain was a third of the fold on a long run.

        if type(ev) is RunEntry:
            node: dict[str, Any] = {
                "id": rid,
                "kind": "subflow",
                "label": "Run",
                "startOffsetMs": t,
                "subflowPath": ev.path,
                "primitiveKind": "Run",
                "isPrimitiveBoundary": False,
            }
            if ev.payload is not UNSET:
                node["entryPayload"] = ev.payload
            node["runtimeStageId"] = rid
            nodes.append(node)
            open_subflows[rid] = node
            g.active_node_id = rid
        elif type(ev) is RunExit:
            _close(open_subflows, rid, t, ev.payload)
            g.active_node_id = None
        elif type(ev) is SubflowEntry:
            if ev.slotKind is not UNSET:
                prop = SLOT_PROPS.get(ev.slotKind)
                if prop is not None:
                    slot: dict[str, Any] = {"runtimeStageId": rid}
                    if ev.payload is not UNSET:
                        slot["entryPayload"] = ev.payload
                    pending_slots[prop] = slot
            elif ev.isAgentInternal is True:
                pass
            else:
                kind = ev.primitiveKind if ev.primitiveKind is not UNSET else None
                node = {
                    "id": rid,
                    "kind": "subflow",
                    "label": ev.subflowName if ev.subflowName is not UNSET else "",
                    "startOffsetMs": t,
                    "subflowPath": ev.path,
                    "isAgentBoundary": kind == "Agent",
                    "isPrimitiveBoundary": kind in PRIMITIVES,
                }
                if kind is not None:
                    node["primitiveKind"] = kind
                if ev.payload is not UNSET:
                    node["entryPayload"] = ev.payload
                node["runtimeStageId"] = rid
                nodes.append(node)
                open_subflows[rid] = node
                g.active_node_id = rid
        elif type(ev) is SubflowExit:
            if ev.slotKind is not UNSET:
                prop = SLOT_PROPS.get(ev.slotKind)
                if prop is not None and prop in pending_slots and ev.payload is not UNSET:
                    pending_slots[prop]["exitPayload"] = ev.payload
            elif ev.isAgentInternal is True:
                pass
            else:
                _close(open_subflows, rid, t, ev.payload)
        elif type(ev) is ForkBranch:
            nodes.append(
                {
                    "id": f"fork-{rid}-{_s(ev.childName)}",
                    "kind": "fork-branch",
                    "label": ev.childName if ev.childName is not UNSET else "",
                    "startOffsetMs": t,
                    "subflowPath": ev.path,
                }
            )
        elif type(ev) is DecisionBranch:
            if ev.isAgentInternal is True:
                continue
            nodes.append(
                {
                    "id": f"decision-{rid}-{_s(ev.chosen)}",
                    "kind": "decision-branch",
                    "label": ev.chosen if ev.chosen is not UNSET else "",
                    "startOffsetMs": t,
                    "subflowPath": ev.path,
                }
            )
        elif type(ev) is LoopIteration:
            if g.active_node_id is not None:
                active = g.active_node_id
                edges.append(
                    {
                        "id": f"loop-{active}-{_s(ev.iteration)}",
                        "from": active,
                        "to": active,
                        "kind": "loop-iteration",
                        "iteration": ev.iteration,
                    }
                )
        elif type(ev) is ContextInjected:
            pending_injections.append(_injection(ev))
        elif type(ev) is LlmStart:
            it += 1
            kind = "tool->llm" if ev.actorArrow == "tool→llm" else "user->llm"
            node_id = f"step-llm-start-{rid}-{it}"
            node = {
                "id": node_id,
                "kind": kind,
                "label": "tool → llm" if kind == "tool->llm" else "user → llm",
                "startOffsetMs": t,
            }
            if ev.model is not UNSET:
                node["llmModel"] = ev.model
            node.update(
                {
                    "subflowPath": ev.path,
                    "injections": pending_injections,
                    "iterationIndex": it,
                    "slotUpdated": "messages",
                    "runtimeStageId": rid,
                }
            )
            if pending_slots:
                node["slotBoundaries"] = pending_slots
            if kind == "tool->llm" and pending_result is not UNSET:
                node["toolResult"] = pending_result
                pending_result = UNSET
            pending_injections, pending_slots = [], {}
            nodes.append(node)
            chain(node_id)
        elif type(ev) is LlmEnd:
            if ev.usage is UNSET:
                g.malformed += 1
                continue
            for node in reversed(nodes):
                if node["kind"] in _LLM_KINDS:
                    node["tokens"] = {"in": ev.usage.input, "out": ev.usage.output}
                    node["endOffsetMs"] = t
                    break
            if ev.actorArrow == "llm→user":
                node_id = f"step-llm-end-{rid}-{it}"
                node = {
                    "id": node_id,
                    "kind": "llm->user",
                    "label": "llm → user",
                    "startOffsetMs": t,
                    "endOffsetMs": t,
                    "subflowPath": ev.path,
                    "iterationIndex": it,
                    "runtimeStageId": rid,
                }
                if isinstance(ev.content, str) and ev.content:
                    node["assistantText"] = ev.content
                nodes.append(node)
                chain(node_id)
            else:
                pending_text = ev.content if isinstance(ev.content, str) and ev.content else None
        elif type(ev) is ToolStart:
            if not ev.dispatched:
                continue
            if ev.toolCallId is UNSET:
                g.malformed += 1
                continue
            node_id = f"step-tool-start-{rid}-{ev.toolCallId}"
            node = {
                "id": node_id,
                "kind": "llm->tool",
                "label": f"llm → tool ({_s(ev.toolName)})",
                "startOffsetMs": t,
                "toolName": ev.toolName if ev.toolName is not UNSET else "",
                "subflowPath": ev.path,
                "iterationIndex": it,
                "slotUpdated": "tools",
                "runtimeStageId": rid,
            }
            if pending_text is not None:
                node["assistantText"] = pending_text
            if ev.args is not UNSET:
                node["toolArgs"] = ev.args
            pending_text = None
            nodes.append(node)
            chain(node_id)
        elif type(ev) is ToolEnd:
            if not ev.dispatched:
                continue
            for node in reversed(nodes):
                if node["kind"] == "llm->tool":
                    node["endOffsetMs"] = t
                    break
            if ev.result is not UNSET:
                pending_result = ev.result
    return g


def count_step_graph(events: list[DomainEvent]) -> tuple[int, int]:
    """How many nodes ``build_step_graph`` makes of ``events`` and how many events it skips as
    malformed, without making them: the flags and the counts ``afp aggregate`` shows need only
    these two numbers, and the graph of a 100,000-span trace was ~117 MiB and 0.7 s.

    Mirrors every branch of the fold that appends a node or counts a malformed event
    (tests/test_step_graph_counts.py holds the two equal).
    """
    nodes = malformed = 0
    for ev in events:
        # ``type(ev)`` again in the branches that read fields: that is what mypy narrows on
        t = type(ev)
        if t is LlmStart or t is RunEntry or t is ForkBranch:
            nodes += 1
        elif t is ToolEnd:
            continue
        elif type(ev) is LlmEnd:
            if ev.usage is UNSET:
                malformed += 1
            elif ev.actorArrow == "llm→user":
                nodes += 1
        elif type(ev) is ToolStart:
            if ev.dispatched:
                if ev.toolCallId is UNSET:
                    malformed += 1
                else:
                    nodes += 1
        elif type(ev) is SubflowEntry:
            if ev.slotKind is UNSET and ev.isAgentInternal is not True:
                nodes += 1
        elif type(ev) is DecisionBranch and ev.isAgentInternal is not True:
            nodes += 1
    return nodes, malformed


def _s(value: Any) -> str:
    """JS string interpolation of a value (``${x}``) for the ids upstream builds."""
    if value is UNSET or value is None:
        return "undefined" if value is UNSET else "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _close(open_subflows: dict[str, dict[str, Any]], rid: str, t: Any, payload: Any) -> None:
    node = open_subflows.pop(rid, None)
    if node is not None:
        node["endOffsetMs"] = t
        if payload is not UNSET:
            node["exitPayload"] = payload
