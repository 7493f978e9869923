"""Suspect classification, ``defaultSuspectClassifier`` (bisect.md §6.1).

Only ``keysWritten`` (from the linking bundle), the folded values as of the node's last commit and
``incompleteSources`` decide; stage names and ids play no part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentbisect.bisect.slice import CausalNode
from agentbisect.js import ABSENT

__all__ = ["INJECTION_SOURCES", "SLOT_KEYS", "ClassifyContext", "Seed", "default_classifier"]

SLOT_KEYS = ("systemPromptInjections", "messagesInjections", "toolsInjections")
INJECTION_SOURCES = frozenset(
    {"rag", "skill", "memory", "instructions", "steering", "fact", "custom"}
)


@dataclass(frozen=True)
class Seed:
    kind: str  # injection | memory | tool | arg | stage
    detail: dict[str, str] | None = None  # toolName/injectionId, flavor, text (that order)


@dataclass
class ClassifyContext:
    node: CausalNode
    keysWritten: list[str]
    valueOf: Callable[[str], Any]


Classifier = Callable[[ClassifyContext], "list[Seed] | None"]


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
