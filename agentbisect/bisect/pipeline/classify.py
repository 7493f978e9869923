"""Suspect classification, ``defaultSuspectClassifier`` (bisect.md §6.1).

Only ``keysWritten`` (from the linking bundle), the folded values as of the node's last commit and
``incompleteSources`` decide; stage names and ids play no part.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from agentbisect.bisect.pipeline.slice import CausalNode
from agentbisect.core.js import ABSENT

if TYPE_CHECKING:
    from agentbisect.model.commitlog import CommitLog

SLOT_KEYS = ("systemPromptInjections", "messagesInjections", "toolsInjections")
INJECTION_SOURCES = frozenset(
    {"rag", "skill", "memory", "instructions", "steering", "fact", "custom"}
)


class Seed(Struct, frozen=True):
    kind: str  # injection | memory | tool | arg | stage
    detail: dict[str, str] | None = None  # toolName/injectionId, flavor, text (that order)


class ClassifyContext(Struct):
    node: CausalNode
    keysWritten: list[str]
    valueOf: Callable[[str], Any]


Classifier = Callable[[ClassifyContext], "list[Seed] | None"]


def node_seeds(node: CausalNode, log: CommitLog, classify: Classifier | None) -> list[Seed]:
    """The seeds of one slice node: the user's classifier, falling back to the default when there
    is none or it returns None. One function for both the suspect drafts and the embedder's
    up-front text batch, so the batch cannot miss a text the drafts will ask for."""
    last = log.last_idx[node.runtimeStageId]

    def value_of(key: str) -> Any:
        # A user classifier may keep or mutate what it is given: hand it a copy.
        return log.value_at(last, key, copy=classify is not None)

    ctx = ClassifyContext(node, node.keysWritten, value_of)
    seeds = classify(ctx) if classify is not None else None
    return default_classifier(ctx) if seeds is None else seeds


def default_classifier(ctx: ClassifyContext) -> list[Seed]:
    seeds: list[Seed] = []
    written = set(ctx.keysWritten)
    for slot in SLOT_KEYS:
        if slot not in written:
            continue
        records = ctx.valueOf(slot)
        if not isinstance(records, list):
            continue
        seen: set[str] = set()
        for rec in records:
            if not isinstance(rec, dict):
                continue
            source, sid = rec.get("source", ABSENT), rec.get("sourceId", ABSENT)
            if not isinstance(source, str) or not isinstance(sid, str):
                continue
            if source not in INJECTION_SOURCES:
                continue
            kind = "memory" if source == "memory" else "injection"
            dkey = kind + ":" + sid
            if dkey in seen:
                continue
            seen.add(dkey)
            detail = {"injectionId": sid, "flavor": source}
            raw, summary = rec.get("rawContent"), rec.get("contentSummary")
            if isinstance(raw, str):
                detail["text"] = raw
            elif isinstance(summary, str):
                detail["text"] = summary
            seeds.append(Seed(kind, detail))
    if "lastToolResult" in written:
        tr = ctx.valueOf("lastToolResult")
        if isinstance(tr, dict) and isinstance(tr.get("toolName"), str):
            detail = {"toolName": tr["toolName"]}
            if isinstance(tr.get("result"), str):
                detail["text"] = tr["result"]
            seeds.append(Seed("tool", detail))
    if ctx.node.incompleteSources and "args" in ctx.node.incompleteSources:
        seeds.append(Seed("arg"))
    if not seeds:
        seeds.append(Seed("stage"))
    return seeds
