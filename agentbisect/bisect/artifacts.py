"""The artifacts bag and its index (bisect.md §1): commit log, per-step read sets from the
execution tree, LLM-call ids from typed events, and the ``controlDeps``/``quality`` extensions.

``Artifacts`` is what the localizer consumes; ``artifacts_from_loaded`` maps a loaded recording onto
it (the agentbisect decision of §1.1). Everything deep is decoded inside ``run_deep``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from agentbisect.bisect.fold import Bundle, CommitLog, _first_byte
from agentbisect.bisect.jsjson import js_key_order
from agentbisect.errors import InputError, UsageError
from agentbisect.load import Loaded, run_deep

__all__ = [
    "Artifacts",
    "ControlDep",
    "QualityEntry",
    "artifacts_from_loaded",
    "control_deps_from_json",
    "llm_call_ids_from_events",
    "reads_from_tree",
]

LLM_START = "agentfootprint.stream.llm_start"


@dataclass(frozen=True)
class ControlDep:
    """One answer of the control-dependence lookup (§3.5)."""

    deciderId: str
    label: str | None = None


@dataclass(frozen=True)
class QualityEntry:
    runtimeStageId: str
    score: float
    stageName: str | None = None


@dataclass
class Artifacts:
    """Upstream's ``ContextBugArtifacts`` with the index of §1.2 already built."""

    log: CommitLog
    reads_of: dict[str, list[str]]
    has_read_tracking: bool
    llm_call_ids: list[str]
    control_deps: Callable[[str], ControlDep | None] | None = None
    quality_lowest: QualityEntry | None = None
    final_answer: str | None = None
    warnings: list[str] = field(default_factory=list)

    def keys_read(self, rid: str) -> list[str]:
        return self.reads_of.get(rid, [])


class _TreeNode(Struct, kw_only=True):
    runtimeStageId: Any = UNSET
    stageReads: dict[str, Raw] | UnsetType | None = UNSET
    children: list[_TreeNode] | UnsetType | None = UNSET
    next: _TreeNode | UnsetType | None = UNSET


_TREE = msgspec.json.Decoder(_TreeNode)
_LOG = msgspec.json.Decoder(list[Bundle] | None)


def reads_from_tree(root: _TreeNode | None) -> tuple[dict[str, list[str]], bool]:
    """``readsOf`` and ``hasReadTracking`` (§1.2 items 3-4), walked with an explicit stack."""
    reads: dict[str, list[str]] = {}
    tracking = False
    stack: list[_TreeNode] = [] if root is None else [root]
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
        if isinstance(nxt, _TreeNode):
            stack.append(nxt)
        kids = node.children
        if isinstance(kids, list):
            stack.extend(reversed(kids))
    return reads, tracking


def llm_call_ids_from_events(events: list[Any]) -> tuple[list[str], int]:
    """§1.4 events rule: first occurrence of each ``llm_start`` ``meta.runtimeStageId``.

    Returns the ids and how many ``llm_start`` events were skipped for lacking an id (the
    agentbisect decision: upstream crashes or keeps an "undefined" entry).
    """
    ids: dict[str, None] = {}
    skipped = 0
    for ev in events:
        if ev.type != LLM_START:
            continue
        meta = ev.meta
        rid = getattr(meta, "runtimeStageId", UNSET) if meta is not UNSET else UNSET
        if not isinstance(rid, str):
            skipped += 1
            continue
        ids.setdefault(rid, None)
    return list(ids), skipped


def control_deps_from_json(obj: Any, source: str) -> Callable[[str], ControlDep | None]:
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


def _quality_lowest(loaded: Loaded) -> QualityEntry | None:
    steps: Any = None
    if loaded.quality_raw is not None:
        steps = msgspec.json.decode(loaded.quality_raw)
    if steps is None and loaded.snapshot is not None and loaded.snapshot.recorders is not UNSET:
        for row in loaded.snapshot.recorders:  # type: ignore[union-attr]
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


def _final_answer(loaded: Loaded) -> str | None:
    """The run's final answer: the last ``turn_end`` ``finalContent``, else the last non-empty
    ``llm_end`` content. Used as the default ``--original-output``."""
    final: str | None = None
    last_llm: str | None = None
    for ev in loaded.typed_events():
        if ev.type not in ("agentfootprint.agent.turn_end", "agentfootprint.stream.llm_end"):
            continue
        if not isinstance(ev.payload, Raw):
            continue
        try:
            p = msgspec.json.decode(ev.payload)
        except msgspec.DecodeError:
            continue
        if not isinstance(p, dict):
            continue
        if ev.type == "agentfootprint.agent.turn_end" and isinstance(p.get("finalContent"), str):
            final = p["finalContent"]
        elif isinstance(p.get("content"), str) and p["content"]:
            last_llm = p["content"]
    return final if final is not None else last_llm


def _decode_parts(loaded: Loaded) -> tuple[list[Bundle], _TreeNode | None]:
    snap = loaded.snapshot
    bundles: list[Bundle] = []
    tree: _TreeNode | None = None
    if snap is None:
        return bundles, tree
    raw = loaded.commit_log_raw()
    if raw is not None:
        try:
            bundles = _LOG.decode(raw) or []
        except msgspec.ValidationError as exc:
            raise InputError(loaded.file, f"commit log: {exc}", "$.snapshot.commitLog") from None
    if isinstance(snap.executionTree, Raw) and _first_byte(snap.executionTree) == b"{":
        try:
            tree = _TREE.decode(snap.executionTree)
        except msgspec.ValidationError as exc:
            raise InputError(
                loaded.file, f"execution tree: {exc}", "$.snapshot.executionTree"
            ) from None
    return bundles, tree


def artifacts_from_loaded(
    loaded: Loaded,
    *,
    control_deps: Callable[[str], ControlDep | None] | None = None,
    llm_call_ids: list[str] | None = None,
) -> Artifacts:
    """Build the artifacts bag from a loaded recording (§1.1 mapping, agentbisect decision)."""
    bundles, tree = run_deep(_decode_parts, loaded)
    log = CommitLog(bundles)
    reads, tracking = reads_from_tree(tree)
    warnings: list[str] = []
    if llm_call_ids is None:
        llm_call_ids, skipped = llm_call_ids_from_events(loaded.typed_events())
        if skipped:
            warnings.append(
                f"{skipped} llm_start event(s) without meta.runtimeStageId were skipped"
            )
    if control_deps is None and loaded.control_deps_raw is not None:
        obj = msgspec.json.decode(loaded.control_deps_raw)
        if obj is not None:
            control_deps = control_deps_from_json(obj, f"{loaded.file} (controlDeps)")
    return Artifacts(
        log=log,
        reads_of=reads,
        has_read_tracking=tracking,
        llm_call_ids=llm_call_ids,
        control_deps=control_deps,
        quality_lowest=_quality_lowest(loaded),
        final_answer=_final_answer(loaded),
        warnings=warnings,
    )


def require(cond: bool, message: str) -> None:
    if not cond:
        raise UsageError(message)
