"""Drafts, semantic refinement, and sort/cut (bisect.md §6.5, §6.6, §6.7).

Drafts are built per kept node in BFS order, one per classifier seed; their order is the sort's
tie-break. Refinement makes one scorer call over every draft whose detail carries text, with the
outputs of intermediate LLM calls on its evidence path as ancestors.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import UNSET, Struct

from agentbisect.bisect.embed.vectors import Embedder
from agentbisect.bisect.evidence.influence import Evidence, Scored, score_influence
from agentbisect.bisect.pipeline.ablation import ablation_for_suspect
from agentbisect.bisect.pipeline.classify import ClassifyContext, Seed, node_seeds
from agentbisect.bisect.pipeline.paths import PathInfo, edge_path
from agentbisect.bisect.pipeline.slice import CausalNode, Slice
from agentbisect.bisect.pipeline.texts import Texts
from agentbisect.bisect.pipeline.weigh import clamp01
from agentbisect.model.commitlog import CommitLog
from agentbisect.results.report import EdgePathStep, Suspect, SuspectDetail

ScorerFn = Callable[[list[Evidence], str, Embedder], list[Scored]]


class Draft(Struct):
    node: CausalNode
    seed: Seed
    structural: float
    edge_path: list[EdgePathStep]
    semantic: float | None = None


def build_drafts(
    sl: Slice,
    info: dict[str, PathInfo],
    log: CommitLog,
    classify: Callable[[ClassifyContext], list[Seed] | None] | None = None,
    *,
    every_key: bool = False,
) -> list[Draft]:
    """One draft per seed of each reached node; ``every_key``: hops list every key they carry."""
    drafts: list[Draft] = []
    root_id = sl.root.runtimeStageId
    for node in sl.nodes:
        if node is sl.root:
            continue
        pi = info.get(node.runtimeStageId)
        if pi is None:
            continue  # unreached by the single pass (§6.3): silently not a suspect
        seeds = node_seeds(node, log, classify)
        if not seeds:
            continue
        path = edge_path(node, info, root_id, every_key=every_key)
        for seed in seeds:
            drafts.append(Draft(node, seed, pi.score, path))
    return drafts


def refine(
    drafts: list[Draft],
    root_id: str,
    texts: Texts,
    llm_ids: set[str],
    embedder: Embedder,
    scorer: ScorerFn | None = None,
) -> None:
    trigger_output = texts.step_output(root_id)
    if trigger_output is None:
        return
    items: list[Evidence] = []
    for i, d in enumerate(drafts):
        text = d.seed.detail.get("text") if d.seed.detail else None
        if not text:
            continue
        ancestors: list[str] = []
        for hop in d.edge_path:
            if hop.from_ != root_id and hop.from_ in llm_ids:
                t = texts.step_output(hop.from_)
                if t is not None:
                    ancestors.append(t)
        items.append(Evidence(str(i), text, tuple(ancestors)))
    if not items:
        return
    fn = scorer if scorer is not None else score_influence
    for s in fn(items, trigger_output, embedder):
        drafts[int(s.id)].semantic = clamp01(s.score)


def to_suspect(d: Draft) -> Suspect:
    det = d.seed.detail
    detail = (
        SuspectDetail(
            toolName=det.get("toolName", UNSET),
            injectionId=det.get("injectionId", UNSET),
            flavor=det.get("flavor", UNSET),
            text=det.get("text", UNSET),
        )
        if det
        else UNSET
    )
    score = d.structural * d.semantic if d.semantic is not None else d.structural
    spec = ablation_for_suspect(
        d.seed.kind,
        d.node.runtimeStageId,
        det.get("toolName") if det else None,
        det.get("injectionId") if det else None,
    )
    return Suspect(
        source=d.node.runtimeStageId,
        stageName=d.node.stageName if d.node.stageName is not None else UNSET,
        kind=d.seed.kind,
        detail=detail,
        score=score,
        structuralScore=d.structural,
        semanticScore=d.semantic if d.semantic is not None else UNSET,
        hasContentEvidence=d.semantic is not None,
        edgePath=d.edge_path,
        ablation=spec if spec is not None else UNSET,
    )


def rank(
    suspects: list[Suspect], max_suspects: int, shortlist: list[tuple[str, float]] | None = None
) -> list[Suspect]:
    """Stable sort by score descending, optional shortlist reorder, then cut."""
    out = sorted(suspects, key=lambda s: -s.score)
    if shortlist:
        recall: dict[str, float] = {}
        for sid, sc in shortlist:
            recall.setdefault(sid, sc)

        def ident(s: Suspect) -> str | None:
            d = s.detail
            for i in (d.injectionId, d.toolName) if d is not UNSET else ():
                if i is not UNSET:
                    return i
            return None

        picked = [s for s in out if ident(s) in recall]
        picked.sort(key=lambda s: -recall[ident(s) or ""])  # picked: ident is in recall
        out = picked + [s for s in out if ident(s) not in recall]
    return out[: max(0, max_suspects)]
