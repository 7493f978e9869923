"""The backward slice, footprintjs ``causalChain`` in stage-level attribution (bisect.md §3).

A BFS over read→write bindings (exact path match, latest prior commit) plus control edges, with the
depth and node budgets of §3.6. Node fields come from the bundle that created the node (§3.4).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from msgspec import Struct, field

from agentbisect.model.commitlog import CommitLog
from agentbisect.model.steps import ControlDep
from agentbisect.schema.recording import CommitBundle as Bundle


class CausalEdge(Struct, eq=False):
    parent: CausalNode
    kind: str  # "data" | "control"
    key: str | None
    weight: float = 1.0


class CausalNode(Struct, eq=False):
    runtimeStageId: str
    stageId: str | None
    stageName: str | None
    keysWritten: list[str]
    depth: int
    incompleteSources: list[str] | None = None
    parents: list[CausalNode] = field(default_factory=list)
    parentEdges: list[CausalEdge] = field(default_factory=list)
    truncated: tuple[bool, bool] | None = None  # (byDepth, byNodes), root only


class Slice(Struct):
    root: CausalNode
    nodes: list[CausalNode]  # BFS order (§3.7)


def _node(b: Bundle, depth: int) -> CausalNode:
    us = b.untrackedSources
    return CausalNode(
        runtimeStageId=b.runtimeStageId,
        stageId=b.stageId if isinstance(b.stageId, str) else None,
        stageName=b.stage if isinstance(b.stage, str) else None,
        keysWritten=[t.path for t in b.trace],
        depth=depth,
        incompleteSources=list(us) if isinstance(us, list) and us else None,
    )


def causal_chain(
    log: CommitLog,
    start_id: str,
    keys_read: Callable[[str], list[str]],
    max_depth: int,
    max_nodes: int,
    control_deps: Callable[[str], ControlDep | None] | None = None,
) -> Slice | None:
    """Slice backwards from ``start_id``'s last commit; None when it never committed."""
    idx = log.last_idx
    if start_id not in idx:
        return None
    bundles = log.bundles
    root = _node(bundles[idx[start_id]], 0)
    nodes: dict[str, CausalNode] = {start_id: root}
    visited = 1
    by_depth = by_nodes = False
    queue: deque[tuple[CausalNode, int, int, list[str]]] = deque(
        [(root, idx[start_id], 0, keys_read(start_id))]
    )

    def link(node: CausalNode, b: Bundle, kind: str, key: str | None, depth: int) -> None:
        nonlocal visited, by_nodes
        pid = b.runtimeStageId
        parent = nodes.get(pid)
        if parent is None:
            if visited >= max_nodes:
                by_nodes = True
                return
            parent = _node(b, depth + 1)
            nodes[pid] = parent
            visited += 1
            queue.append((parent, idx[pid], depth + 1, keys_read(pid)))
        if not any(p.runtimeStageId == pid for p in node.parents):
            node.parents.append(parent)
        if not any(
            e.parent.runtimeStageId == pid and e.kind == kind and e.key == key
            for e in node.parentEdges
        ):
            node.parentEdges.append(CausalEdge(parent, kind, key))

    while queue:
        node, commit_idx, depth, keys = queue.popleft()
        dep = control_deps(node.runtimeStageId) if control_deps is not None else None
        if depth >= max_depth:
            if keys or dep is not None:
                by_depth = True
            continue
        for key in keys:
            w_idx = log.last_writer_before(key, commit_idx)
            if w_idx is not None:
                link(node, bundles[w_idx], "data", key, depth)
        if dep is not None and dep.deciderId in idx:
            link(node, bundles[idx[dep.deciderId]], "control", dep.label, depth)
    if by_depth or by_nodes:
        root.truncated = (by_depth, by_nodes)
    return Slice(root, bfs_nodes(root))


def bfs_nodes(root: CausalNode) -> list[CausalNode]:
    """BFS flatten over ``parents``: each node emitted the first time it is dequeued (§3.7)."""
    out: list[CausalNode] = []
    seen: set[str] = set()
    q: deque[CausalNode] = deque([root])
    while q:
        n = q.popleft()
        if n.runtimeStageId in seen:
            continue
        seen.add(n.runtimeStageId)
        out.append(n)
        q.extend(n.parents)
    return out
