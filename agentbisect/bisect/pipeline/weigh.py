"""Edge weighing, RFC-003 block D7 (bisect.md §4.1, §4.2).

Only data edges with a key whose child is an LLM call are weighed: ``clamp(scoreInfluence of the
parent's value for the key against the child's output, 0, 1)``. The weights do not change slice
traversal, so we slice once and stamp the primed weights on the same structure; that equals
upstream's two passes (unweighted, then weighted) edge for edge.
"""

from __future__ import annotations

from agentbisect.bisect.embed.vectors import Embedder
from agentbisect.bisect.evidence.influence import Evidence, score_influence
from agentbisect.bisect.pipeline.slice import CausalNode
from agentbisect.bisect.pipeline.texts import Texts


def clamp01(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x


class EdgeWeigher:
    def __init__(self, texts: Texts, llm_ids: set[str], embedder: Embedder) -> None:
        self.texts = texts
        self.llm_ids = llm_ids
        self.embedder = embedder
        self.weights: dict[str, float] = {}

    @staticmethod
    def edge_id(child: str, parent: str, key: str) -> str:
        return f"{child} {parent} {key}"

    def prime(self, nodes: list[CausalNode]) -> None:
        """Pass 1: score every weighable edge of the slice's LLM nodes, node by node (BFS)."""
        for node in nodes:
            cid = node.runtimeStageId
            if cid not in self.llm_ids:
                continue
            child_text = self.texts.step_output(cid)
            if child_text is None:
                continue
            items: list[Evidence] = []
            for e in node.parentEdges:
                if e.kind != "data" or not e.key:
                    continue
                eid = self.edge_id(cid, e.parent.runtimeStageId, e.key)
                if eid in self.weights or any(it.id == eid for it in items):
                    continue
                ptext = self.texts.edge_key(e.parent.runtimeStageId, e.key)
                if ptext is None:
                    continue  # unweighable: the edge keeps 1.0
                items.append(Evidence(eid, ptext))
            if items:
                scored = {s.id: s.score for s in score_influence(items, child_text, self.embedder)}
                for it in items:
                    self.weights[it.id] = clamp01(scored.get(it.id, 0.0))

    def stamp(self, nodes: list[CausalNode]) -> None:
        """Pass 2: every edge gets its primed weight; an edge never weighed keeps 1.0."""
        for node in nodes:
            cid = node.runtimeStageId
            for e in node.parentEdges:
                w = None
                if e.kind == "data" and e.key and cid in self.llm_ids:
                    w = self.weights.get(self.edge_id(cid, e.parent.runtimeStageId, e.key))
                e.weight = 1.0 if w is None else w
