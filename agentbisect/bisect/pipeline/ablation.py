"""Ablation specs per suspect kind, ``applyAblations`` and suspect labels (bisect.md §6.8, §6.9)."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from agentbisect.results.report import AblationSpec

__all__ = ["ablation_for_suspect", "apply_ablations", "spec_to_json"]


def ablation_for_suspect(
    kind: str, source: str, tool_name: str | None, injection_id: str | None
) -> AblationSpec | None:
    if kind == "tool":
        return (
            AblationSpec(kind="tool", ignoredTools=[tool_name]) if tool_name is not None else None
        )
    if kind == "injection":
        if injection_id is None:
            return None
        return AblationSpec(kind="injection", excludeInjectionIds=[injection_id])
    if kind == "memory":
        if injection_id is None:
            return None
        return AblationSpec(kind="memory", excludeMemoryIds=[injection_id])
    if kind == "arg":
        return AblationSpec(
            kind="arg",
            source=source,
            note=(
                f"step {source} read untracked run input ($getArgs()/env), which no spec can "
                "filter: the runner must override that input itself."
            ),
        )
    return None


def spec_to_json(spec: AblationSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": spec.kind}
    for f in (
        "ignoredTools",
        "excludeInjectionIds",
        "excludeMemoryIds",
        "source",
        "note",
        "toolCallIds",
        "messageIndex",
        "role",
        "text",
        "spanId",
    ):
        v = getattr(spec, f)
        if v is not UNSET:
            out[f] = v
    return out


def apply_ablations(
    specs: list[AblationSpec],
    tools: list[dict[str, Any]] | None = None,
    injections: list[dict[str, Any]] | None = None,
    memory_entries: list[dict[str, Any]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The construction seam: drop tools by ``schema.name``, injections/memory by ``id``."""
    tools_out: set[str] = set()
    inj_out: set[str] = set()
    mem_out: set[str] = set()
    for s in specs:
        if s.kind == "tool" and s.ignoredTools is not UNSET:
            tools_out.update(s.ignoredTools)
        elif s.kind == "injection" and s.excludeInjectionIds is not UNSET:
            inj_out.update(s.excludeInjectionIds)
        elif s.kind == "memory" and s.excludeMemoryIds is not UNSET:
            mem_out.update(s.excludeMemoryIds)

    def tool_name(t: dict[str, Any]) -> Any:
        schema = t.get("schema")
        return schema.get("name") if isinstance(schema, dict) else None

    return {
        "tools": [t for t in tools or [] if tool_name(t) not in tools_out],
        "injections": [i for i in injections or [] if i.get("id") not in inj_out],
        "memoryEntries": [m for m in memory_entries or [] if m.get("id") not in mem_out],
    }
