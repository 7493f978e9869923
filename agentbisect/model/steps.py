"""Per-step facts of a recording that the localizer reads (bisect.md §1): which keys each step
read (from the execution tree), the LLM-call ids (from typed events), the control-dependence
lookup and the quality scores (agentbisect extensions), and the run's final answer.

``Run`` exposes each as an attribute; this module holds how they are derived from a ``Loaded``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct

from agentbisect.core.errors import InputError
from agentbisect.core.js import js_key_order
from agentbisect.model.loaded import Loaded
from agentbisect.schema.recording import T_LLM_END, T_LLM_START, T_TURN_END, TreeNode, TypedEvent

ControlDeps = Callable[[str], "ControlDep | None"]


class ControlDep(Struct, frozen=True):
    """One answer of the control-dependence lookup (bisect.md §3.5)."""

    deciderId: str
    label: str | None = None


class QualityEntry(Struct, frozen=True):
    runtimeStageId: str
    score: float
    stageName: str | None = None


def reads_from_tree(root: TreeNode | None) -> tuple[dict[str, list[str]], bool]:
    """``readsOf`` and ``hasReadTracking`` (§1.2 items 3-4), walked with an explicit stack."""
    reads: dict[str, list[str]] = {}
    tracking = False
    stack: list[TreeNode] = [] if root is None else [root]
    while stack:
        node = stack.pop()
        rid = node.runtimeStageId
        if isinstance(rid, str) and rid not in reads:
            sr = node.stageReads
            keys = js_key_order(list(sr.keys())) if isinstance(sr, dict) else []
            reads[rid] = keys
            if keys:
                tracking = True
        nxt = node.next
        if isinstance(nxt, TreeNode):
            stack.append(nxt)
        kids = node.children
        if isinstance(kids, list):
            stack.extend(reversed(kids))
    return reads, tracking


def llm_call_ids_from_events(events: list[TypedEvent]) -> tuple[list[str], int]:
    """§1.4 events rule: first occurrence of each ``llm_start`` ``meta.runtimeStageId``.

    Returns the ids and how many ``llm_start`` events were skipped for lacking an id (the
    agentbisect decision: upstream crashes or keeps an "undefined" entry).
    """
    ids: dict[str, None] = {}
    skipped = 0
    for ev in events:
        if ev.type != T_LLM_START:
            continue
        meta = ev.meta
        rid = getattr(meta, "runtimeStageId", UNSET) if meta is not UNSET else UNSET
        if not isinstance(rid, str):
            skipped += 1
            continue
        ids.setdefault(rid, None)
    return list(ids), skipped


def control_deps_from_json(obj: Any, source: str) -> ControlDeps:
    """A lookup from a ``{runtimeStageId: {deciderId, label?}}`` map (§1.1 extension).

    A wrapper object ``{"controlDeps": {...}}`` (as in ``planted-fact.control-deps.json``) is
    accepted too.
    """
    if isinstance(obj, dict) and isinstance(obj.get("controlDeps"), dict):
        obj = obj["controlDeps"]
    if not isinstance(obj, dict):
        raise InputError(source, "expected a JSON object {runtimeStageId: {deciderId, label?}}")
    table: dict[str, ControlDep] = {}
    for rid, dep in obj.items():
        if dep is None:
            continue
        if not isinstance(dep, dict) or not isinstance(dep.get("deciderId"), str):
            raise InputError(source, "expected {deciderId: string, label?: string}", f"$.{rid}")
        label = dep.get("label")
        table[rid] = ControlDep(dep["deciderId"], label if isinstance(label, str) else None)
    return table.get


def recorded_control_deps(loaded: Loaded) -> ControlDeps | None:
    """The lookup from a recording's top-level ``controlDeps`` extension, if it has one."""
    if loaded.control_deps_raw is None:
        return None
    obj = msgspec.json.decode(loaded.control_deps_raw)
    return None if obj is None else control_deps_from_json(obj, f"{loaded.file} (controlDeps)")


def quality_lowest(loaded: Loaded) -> QualityEntry | None:
    """The lowest-scoring step of the ``quality`` extension or a Quality recorder row."""
    steps: Any = None
    if loaded.quality_raw is not None:
        steps = msgspec.json.decode(loaded.quality_raw)
    if steps is None and loaded.snapshot is not None and loaded.snapshot.recorders is not UNSET:
        for row in loaded.snapshot.recorders:
            if row.name == "Quality" and isinstance(row.data, Raw):
                data = msgspec.json.decode(row.data)
                if isinstance(data, dict):
                    steps = data.get("steps")
                break
    if not isinstance(steps, dict):
        return None
    lowest: QualityEntry | None = None
    for rid in js_key_order(list(steps)):
        entry = steps[rid]
        if not isinstance(entry, dict):
            continue
        score = entry.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            continue
        # strict <: ties keep the earliest (QualityRecorder.getLowest)
        if lowest is None or score < lowest.score:
            name = entry.get("stageName")
            lowest = QualityEntry(rid, score, name if isinstance(name, str) else None)
    return lowest


def final_answer(events: list[TypedEvent]) -> str | None:
    """The run's final answer: the last ``turn_end`` ``finalContent``, else the last non-empty
    ``llm_end`` content. Used as the default original output of reruns."""
    final: str | None = None
    last_llm: str | None = None
    for ev in events:
        if ev.type not in (T_TURN_END, T_LLM_END):
            continue
        if not isinstance(ev.payload, Raw):
            continue
        try:
            p = msgspec.json.decode(ev.payload)
        except msgspec.DecodeError:
            continue
        if not isinstance(p, dict):
            continue
        if ev.type == T_TURN_END and isinstance(p.get("finalContent"), str):
            final = p["finalContent"]
        elif isinstance(p.get("content"), str) and p["content"]:
            last_llm = p["content"]
    return final if final is not None else last_llm
