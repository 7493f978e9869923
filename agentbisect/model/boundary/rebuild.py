"""Offline rebuild of the boundary index from a domain-event array (recording.md §4.4–4.5).

Walks the events once in array order with a key → open-range map, reproducing the live
recorder's index (run, subflow and composition ranges, replace-on-reopen, LIFO-free closing by
key), and decides whether the recording has a commit axis at all (legacy detection).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from msgspec import UNSET

from agentbisect.model.boundary.index import (
    CommitRangeIndex,
    CompositionLabel,
    Label,
    Position,
    Range,
    RunLabel,
    SubflowLabel,
    Token,
)
from agentbisect.schema.events import (
    CompositionEnd,
    CompositionStart,
    DomainEvent,
    OtherEvent,
    RunEntry,
    RunExit,
    SubflowEntry,
    SubflowExit,
)

ROOT_KEY = "__root__#0"
# The classes that open or close a range: (family, opens).
_RANGE_EVENTS: dict[type, tuple[str, bool]] = {
    RunEntry: ("run", True),
    RunExit: ("run", False),
    SubflowEntry: ("subflow", True),
    SubflowExit: ("subflow", False),
    CompositionStart: ("composition", True),
    CompositionEnd: ("composition", False),
}
_RANGE_TYPES = frozenset(
    {
        "run.entry",
        "run.exit",
        "subflow.entry",
        "subflow.exit",
        "composition.start",
        "composition.end",
    }
)


@dataclass
class IndexBuild:
    """The rebuilt index and everything the rebuild noticed on the way."""

    index: CommitRangeIndex
    legacy: bool = False
    unpositioned: int = 0
    unclosed: list[str] = field(default_factory=list)
    reopened: list[str] = field(default_factory=list)
    phantoms: int = 0
    skipped: int = 0
    # id(range label) -> indices (into the event list) of the events that opened/closed it.
    range_events: dict[int, list[int]] = field(default_factory=dict)

    def events_of(self, r: Range) -> list[int]:
        """Indices of the events that opened and closed range ``r`` (labels are shared)."""
        return self.range_events.get(id(r.label), [])


def _position(value: object) -> Position | None:
    # JSON booleans are not positions (bool is an int subclass in Python).
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if (isinstance(value, float) and (not math.isfinite(value))) or value < 0:
        return 0
    return value


def label_for(ev: RunEntry | SubflowEntry | CompositionStart) -> Label:
    """The range label of an opening event (§4.2): a projection that never carries payload."""
    path = ev.path
    depth = ev.depth if ev.depth is not UNSET else len(path) - 1
    ts = ev.ts if ev.ts is not UNSET else 0
    rid = ev.runtimeStageId if isinstance(ev.runtimeStageId, str) else ""
    if isinstance(ev, RunEntry):
        return RunLabel(runtimeStageId=rid, subflowPath=path, depth=depth, ts=ts)
    if isinstance(ev, SubflowEntry):
        return SubflowLabel(
            runtimeStageId=rid,
            subflowPath=path,
            depth=depth,
            ts=ts,
            subflowId=ev.subflowId,  # type: ignore[arg-type]
            localSubflowId=ev.localSubflowId if ev.localSubflowId is not UNSET else "",
            subflowName=ev.subflowName if ev.subflowName is not UNSET else "",
            description=ev.description,
            primitiveKind=ev.primitiveKind,
            slotKind=ev.slotKind,
            isAgentInternal=ev.isAgentInternal if ev.isAgentInternal is not UNSET else False,
        )
    return CompositionLabel(
        runtimeStageId=rid,
        subflowPath=path,
        depth=depth,
        ts=ts,
        compositionKind=ev.kind if ev.kind is not UNSET else "",
        compositionName=ev.name if ev.name is not UNSET else "",
    )


def rebuild_index(events: list[DomainEvent], commit_log_empty: bool) -> IndexBuild:
    """Rebuild the index from ``events``; empty (and ``legacy``) when there is no commit axis."""
    index = CommitRangeIndex()
    build = IndexBuild(index)
    open_by_key: dict[str, tuple[Token, Label]] = {}
    positions: list[Position] = []
    openers = 0
    for i, ev in enumerate(events):
        # Dispatch on the exact class: isinstance against unions, six times per event, was most
        # of this loop on a long run.
        kind = _RANGE_EVENTS.get(type(ev))
        if kind is None:
            if (
                isinstance(ev, OtherEvent)
                and ev.type in _RANGE_TYPES
                and _position(ev.commitIdxBefore) is None
            ):
                build.unpositioned += 1
            continue
        family, opens = kind
        pos = _position(ev.commitIdxBefore)
        if pos is None:
            build.unpositioned += 1
            continue
        if family == "composition":
            cid = ev.compositionId  # type: ignore[union-attr]
            if not isinstance(cid, str):
                build.skipped += 1
                continue
            key = "composition:" + cid
        elif family == "run":
            if not isinstance(ev.runtimeStageId, str):
                build.skipped += 1
                continue
            key = ROOT_KEY
        else:
            # The live recorder drops subflow events without a subflowId (§2.3).
            if not isinstance(ev.runtimeStageId, str) or not ev.subflowId:  # type: ignore[union-attr]
                build.skipped += 1
                continue
            key = ev.runtimeStageId
        positions.append(pos)
        if opens:
            openers += 1
            if key in open_by_key:
                build.reopened.append(key)
            label = label_for(ev)  # type: ignore[arg-type]
            open_by_key[key] = (index.open(label, pos), label)
            build.range_events[id(label)] = [i]
        else:
            entry = open_by_key.pop(key, None)
            if entry is not None:
                index.close(entry[0], pos)
                build.range_events[id(entry[1])].append(i)
    if (positions and all(p == 0 for p in positions) and (openers > 1 or not commit_log_empty)) or (
        not positions and build.unpositioned
    ):
        build.legacy = True
        index.clear()
        build.reopened = []
        build.range_events = {}
        return build
    build.unclosed = [
        index.label_of(i).runtimeStageId for i in index.all_ids() if index.end_of(i) is UNSET
    ]
    ends = (index.end_of(i) for i in range(len(index)))
    build.phantoms = sum(
        1 for i, end in enumerate(ends) if end is not UNSET and end < index.start_of(i)
    )
    return build
