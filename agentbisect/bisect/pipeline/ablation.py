"""Ablation specs per suspect kind, and their JSON for the rerun protocol (bisect.md §6.8, §6.9)."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from agentbisect.results.report import AblationSpec


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
    """The spec as the rerun protocol sends it: its set fields, in declaration order."""
    fields = spec.__struct_fields__
    return {f: v for f in fields if (v := getattr(spec, f)) is not UNSET}
