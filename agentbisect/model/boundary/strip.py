"""The step strip (recording.md §5.6): the ordered stops a viewer scrubs, built from the index.

Groups come from the rebuilt boundary index (first range per runtimeStageId); stops walk the
children of one group (the root by default), collapsing a Parallel fork into a single stop because
its branches ran at once. An empty index gives an empty strip — never stops invented from the
commit log, which would be close and wrong.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from msgspec import UNSET, Struct, UnsetType

from agentbisect.model.boundary.index import (
    CommitRangeIndex,
    CompositionLabel,
    Position,
    RunLabel,
    SubflowLabel,
)


class Group(Struct, kw_only=True, omit_defaults=True):
    runtimeGroupId: str
    name: str
    parentGroupId: str | UnsetType = UNSET
    subflowPath: list[str]
    depth: int
    opensAtCommitIdx: Position
    closesAtCommitIdx: Position | UnsetType = UNSET
    isRoot: bool
    compositionKind: str | UnsetType = UNSET
    slotKind: str | UnsetType = UNSET
    primitiveKind: str | UnsetType = UNSET
    isAgentInternal: bool | UnsetType = UNSET


class Stop(Struct, kw_only=True, omit_defaults=True):
    """One stop; ``depth`` is the nesting level inside the strip (0 = the drilled group's own)."""

    runtimeStageId: str
    label: str
    kind: str  # group-start | group-end
    depth: int
    commitIdx: Position
    coActiveGroupIds: list[str] | UnsetType = UNSET


def _name(label: Any) -> str:
    for key in ("subflowName", "compositionName", "primitiveKind"):
        value = getattr(label, key, UNSET)
        if isinstance(value, str) and value:
            return value
    if isinstance(label, RunLabel):
        return "Run"
    return str(label.runtimeStageId)


def build_groups(index: CommitRangeIndex) -> list[Group]:
    """One group per runtimeStageId (its outermost range), with its parent resolved (§5.6)."""
    kept: list[int] = []  # ranges by insertion number (= the order they were opened)
    seen: set[str] = set()
    for i in index.all_ids():
        rid = index.label_of(i).runtimeStageId
        if rid not in seen:
            seen.add(rid)
            kept.append(i)
    around_each = index.enclosing_ids_each([index.start_of(i) for i in kept])
    groups: list[Group] = []
    for mine, enclosing in zip(kept, around_each, strict=True):
        lab = index.label_of(mine)
        rid = lab.runtimeStageId
        parent: str | UnsetType = UNSET
        if not isinstance(lab, RunLabel):
            # Only ranges opened before this one can be its parent. Inside a mounted composition
            # everything collapses onto one point range, where "innermost enclosing" alone would
            # pick a descendant (agentbisect decision; §5.6 is silent on equal ranges).
            inner_first = [
                index.label_of(j)
                for j in reversed(enclosing)
                if j < mine and index.label_of(j).runtimeStageId != rid
            ]
            if isinstance(lab, SubflowLabel):
                want = lab.subflowPath[:-1]
                match = next((x for x in inner_first if x.subflowPath == want), None)
                if match is None and inner_first:
                    match = inner_first[0]
            else:
                match = inner_first[0] if inner_first else None
            if match is not None:
                parent = match.runtimeStageId
        group = Group(
            runtimeGroupId=rid,
            name=_name(lab),
            parentGroupId=parent,
            subflowPath=lab.subflowPath,
            depth=lab.depth,
            opensAtCommitIdx=index.start_of(mine),
            closesAtCommitIdx=index.end_of(mine),
            isRoot=isinstance(lab, RunLabel),
        )
        if isinstance(lab, CompositionLabel):
            group.compositionKind = lab.compositionKind
        if isinstance(lab, SubflowLabel):
            group.slotKind = lab.slotKind
            group.primitiveKind = lab.primitiveKind
            group.isAgentInternal = lab.isAgentInternal
        groups.append(group)
    return groups


def _overlap(a: Group, b: Group) -> bool:
    a_end = a.closesAtCommitIdx if a.closesAtCommitIdx is not UNSET else float("inf")
    b_end = b.closesAtCommitIdx if b.closesAtCommitIdx is not UNSET else float("inf")
    return a.opensAtCommitIdx <= b_end and b.opensAtCommitIdx <= a_end


def build_strip(groups: list[Group], drill: str | None = None) -> list[Stop]:
    """The stops of the root group (or of ``drill``), outermost level first (§5.6)."""
    if not groups:
        return []
    by_id = {g.runtimeGroupId: g for g in groups}
    children: dict[str | None, list[Group]] = {}
    for g in groups:
        key = g.parentGroupId if g.parentGroupId is not UNSET else None
        children.setdefault(key, []).append(g)
    if drill is not None:
        top = by_id.get(drill)
        if top is None:
            return []
    else:
        top = next((g for g in groups if g.isRoot), None)
    stops: list[Stop] = []
    if top is None:
        # No root range (a partial bundle): the parentless groups are the top level.
        _walk(children, children.get(None, []), 0, stops)
        return stops
    stops.append(
        Stop(
            runtimeStageId=top.runtimeGroupId,
            label=f"{top.name} · start",
            kind="group-start",
            depth=0,
            commitIdx=top.opensAtCommitIdx,
        )
    )
    _walk(children, children.get(top.runtimeGroupId, []), 0, stops)
    return stops


def _visible(groups: list[Group]) -> list[Group]:
    kept = [g for g in groups if g.slotKind is UNSET and g.isAgentInternal is not True]
    # sorted() is stable, so equal open positions keep insertion (entry) order.
    return sorted(kept, key=lambda g: g.opensAtCommitIdx)


def _walk(
    children: dict[str | None, list[Group]], level: list[Group], depth: int, stops: list[Stop]
) -> None:
    members = _visible(level)
    totals = Counter(g.name for g in members)
    seen: Counter[str] = Counter()
    for g in members:
        label = g.name
        if totals[label] > 1:
            seen[label] += 1
            label = f"{label} {seen[label]}"
        stop = Stop(
            runtimeStageId=g.runtimeGroupId,
            label=label,
            kind="group-start",
            depth=depth,
            commitIdx=g.opensAtCommitIdx,
        )
        stops.append(stop)
        kind = g.compositionKind if g.compositionKind is not UNSET else None
        inner = children.get(g.runtimeGroupId, [])
        if kind == "Parallel":
            branch = _visible(inner)
            co = [
                b.runtimeGroupId
                for b in branch
                if any(o is not b and _overlap(b, o) for o in branch)
            ]
            if len(co) >= 2:
                stop.coActiveGroupIds = co
            _end(g, "merged", depth, stops)
        elif kind in ("Sequence", "Conditional"):
            _walk(children, inner, depth + 1, stops)
        elif kind == "Loop":
            _walk(children, inner, depth + 1, stops)
            _end(g, "exit", depth, stops)


def _end(g: Group, word: str, depth: int, stops: list[Stop]) -> None:
    if g.closesAtCommitIdx is not UNSET:
        stops.append(
            Stop(
                runtimeStageId=g.runtimeGroupId,
                label=f"{g.name} · {word}",
                kind="group-end",
                depth=depth,
                commitIdx=g.closesAtCommitIdx,
            )
        )
