"""Every text a localization will embed, gathered up front so a real embedder sees one batch.

Edge weighing (§4) embeds, per LLM call in the slice, its output and the value behind each data
edge it read; refinement (§6.6) embeds the trigger's output, each suspect's detail text and the
outputs of the LLM calls on its path; the evidence scorer embeds each suspect's own text and
the texts its registered signals ask for (``evidence/signals/``: the answer, its clauses, the
run's input, the expected answer, the focus words). All of these are functions of the
slice and the commit log, so they can be listed before any score exists; the embedder then
answers them in one call (one process for ``cmd:``, one tokenizer pass for wordllama) and every
later lookup is a hit. A superset is harmless: an unused vector costs a few microseconds.
"""

from __future__ import annotations

from collections.abc import Callable

from agentbisect.bisect.evidence.rank import input_text
from agentbisect.bisect.evidence.scorer import answer_texts
from agentbisect.bisect.evidence.text import own_text
from agentbisect.bisect.pipeline.classify import ClassifyContext, Seed, node_seeds
from agentbisect.bisect.pipeline.slice import Slice
from agentbisect.bisect.pipeline.source_kind import is_run_input
from agentbisect.bisect.pipeline.texts import Texts
from agentbisect.schema.imported import ImportMeta


def localization_texts(
    sl: Slice,
    texts: Texts,
    llm_ids: set[str],
    classify: Callable[[ClassifyContext], list[Seed] | None] | None,
    *,
    evidence: bool,
    expected: str | None = None,
    meta: ImportMeta | None = None,
) -> list[str]:
    """The distinct texts the weigher, the refinement and (optionally) the evidence scorer use."""
    log = texts.log
    out: dict[str, None] = {}

    def add(t: str | None) -> None:
        if t:
            out.setdefault(t, None)

    root = sl.root.runtimeStageId
    add(texts.step_output(root))
    inputs: list[str] = []
    for node in sl.nodes:
        rid = node.runtimeStageId
        if rid in llm_ids:
            add(texts.step_output(rid))
            for e in node.parentEdges:
                if e.kind == "data" and e.key is not None:
                    add(texts.edge_key(e.parent.runtimeStageId, e.key))
        if node is sl.root:
            continue
        for seed in node_seeds(node, log, classify):
            text = seed.detail.get("text") if seed.detail else None
            add(text)
            if evidence and not text and seed.kind not in ("injection", "memory"):
                own = own_text(log, rid)
                add(own)
                if own and is_run_input(seed.kind, rid, meta):
                    inputs.append(own)
    if evidence:
        answer = own_text(log, root)
        if answer:
            question = input_text(inputs)
            for t in answer_texts(answer, expected, question):
                add(t)
    return list(out)
