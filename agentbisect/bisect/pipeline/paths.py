"""Structural scores, the single-pass max-product path (bisect.md §6.3), and evidence paths
(§6.4).

A hop names the one key whose edge the path score went through, as upstream's format does. On an
imported run one hop can carry several keys (a retriever span writes one per document, and the
call that read them links to it once per document): there the hop also lists every key it
carries, so a document's suspect never shows a path that names only another document.

The single pass visits nodes by last commit index, descending, and is order-dependent on purpose:
a parent that commits again after its child is visited before it has a score and passes nothing
on. Upstream does exactly this, so we do too.
"""

from __future__ import annotations

from msgspec import UNSET, Struct, UnsetType

from agentbisect.bisect.pipeline.slice import CausalNode, Slice
from agentbisect.results.report import EdgeKey, EdgePathStep


class PathInfo(Struct):
    score: float
    via: tuple[CausalNode, str, str | None, float] | None  # (child, kind, key, weight)


def path_scores(sl: Slice, last_idx: dict[str, int]) -> dict[str, PathInfo]:
    info: dict[str, PathInfo] = {sl.root.runtimeStageId: PathInfo(1.0, None)}
    order = sorted(sl.nodes, key=lambda n: -last_idx[n.runtimeStageId])
    for node in order:
        mine = info.get(node.runtimeStageId)
        if mine is None:
            continue
        for e in node.parentEdges:
            cand = mine.score * e.weight
            pid = e.parent.runtimeStageId
            cur = info.get(pid)
            if cur is None or cand > cur.score:
                info[pid] = PathInfo(cand, (node, e.kind, e.key, e.weight))
    return info


def edge_path(
    node: CausalNode, info: dict[str, PathInfo], root_id: str, *, every_key: bool = False
) -> list[EdgePathStep]:
    """Hops from the trigger to ``node`` following ``via`` (trigger first, suspect last); with
    ``every_key``, a hop that carries several keys lists them all (afp's ``keys``)."""
    hops: list[EdgePathStep] = []
    cur = node
    guard = 0
    while cur.runtimeStageId != root_id:
        pi = info[cur.runtimeStageId]
        if pi.via is None:
            break
        child, kind, key, weight = pi.via
        hops.append(
            EdgePathStep(
                from_=child.runtimeStageId,
                fromName=child.stageName if child.stageName is not None else UNSET,
                to=cur.runtimeStageId,
                toName=cur.stageName if cur.stageName is not None else UNSET,
                kind=kind,
                key=key if key is not None else UNSET,
                weight=weight,
                keys=_carried(child, cur, kind) if every_key else UNSET,
            )
        )
        cur = child
        guard += 1
        if guard > len(info) + 1:  # a via cycle cannot happen; never loop forever on a bug
            break
    hops.reverse()
    return hops


def _carried(child: CausalNode, parent: CausalNode, kind: str) -> list[EdgeKey] | UnsetType:
    """Every data key ``child`` read from ``parent``, when there are several (a control hop has
    one decider and one label)."""
    if kind != "data":
        return UNSET
    keys = [
        EdgeKey(key=e.key, weight=e.weight)
        for e in child.parentEdges
        if e.parent is parent and e.kind == "data" and e.key is not None
    ]
    return keys if len(keys) > 1 else UNSET
