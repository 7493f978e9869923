"""Ablation specs per suspect kind, and their JSON for the rerun protocol (bisect.md §6.8, §6.9)."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from agentbisect.results.report import AblationSpec

# the spec field that removes a suspect of each kind (a tool by name, the others by id)
_REMOVE = {"tool": "ignoredTools", "injection": "excludeInjectionIds", "memory": "excludeMemoryIds"}


def ablation_for_suspect(
    kind: str, source: str, tool_name: str | None, injection_id: str | None
) -> AblationSpec | None:
    if kind == "arg":
        return AblationSpec(
            kind="arg",
            source=source,
            note=(
                f"step {source} read untracked run input ($getArgs()/env), which no spec can "
                "filter: the runner must override that input itself."
            ),
        )
    ident = tool_name if kind == "tool" else injection_id
    if kind not in _REMOVE or ident is None:
        return None
    spec = AblationSpec(kind=kind)
    setattr(spec, _REMOVE[kind], [ident])
    return spec


def spec_to_json(spec: AblationSpec) -> dict[str, Any]:
    """The spec as the rerun protocol sends it: its set fields, in declaration order."""
    fields = spec.__struct_fields__
    return {f: v for f in fields if (v := getattr(spec, f)) is not UNSET}
