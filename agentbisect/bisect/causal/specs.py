"""Rerun specs for imported runs: name each suspect's source in terms the user's agent can act on.

A trace or transcript imported into a recording carries a source map (``Run.import_meta``): for
every synthesized step, what it stands for. This module completes each suspect's ablation spec
from it (afp's fields; upstream-parity reports never carry them):

| source                         | kind      | spec                                               |
|--------------------------------|-----------|----------------------------------------------------|
| system-instruction part        | injection | ``excludeInjectionIds: [part id]`` + ``text`` (+ message index/role) |
| retrieved document             | injection | ``excludeInjectionIds: [document id]`` + ``spanId``|
| one tool result                | tool      | ``ignoredTools: [name]`` + ``toolCallIds: [id]``   |
| user message / context without producer | arg | ``messageIndex`` + ``role``                    |
| an earlier LLM output          | stage     | ``source``: the step id (+ ``spanId``)             |
"""

from __future__ import annotations

from msgspec import UNSET

from agentbisect.results.report import AblationSpec, Suspect
from agentbisect.schema.imported import ImportMeta


def name_sources(suspects: list[Suspect], meta: ImportMeta) -> None:
    """Fill the imported-run fields of each suspect's ablation spec (in place)."""
    for s in suspects:
        src = meta.sources.get(s.source)
        if src is None:
            continue
        spec = s.ablation if s.ablation is not UNSET else None
        if s.kind == "tool" and spec is not None:
            if src.toolCallId:
                spec.toolCallIds = [src.toolCallId]
            spec.spanId = src.spanId
        elif s.kind == "injection" and spec is not None:
            if src.kind == "system-instruction":
                spec.text = src.text
                spec.messageIndex = src.messageIndex
                spec.role = src.role
            elif src.kind == "retrieval":
                spec.spanId = src.spanId
        elif s.kind == "arg" and spec is not None and src.kind == "message":
            spec.messageIndex = src.messageIndex
            spec.role = src.role
            spec.note = (
                f"step {s.source} is message {src.messageIndex} ({src.role}) of the conversation, "
                + (
                    "the run's input"
                    if src.producer == "run-input"
                    else "context whose producer is not in the trace"
                )
                + ": the runner must override it (drop or replace that message) itself."
            )
        elif s.kind == "stage" and src.kind == "llm":
            s.ablation = AblationSpec(
                kind="stage",
                source=s.source,
                spanId=src.spanId,
                note=f"the output of LLM call {s.source}: the runner must replace or drop it and "
                "let the agent continue from there",
            )
