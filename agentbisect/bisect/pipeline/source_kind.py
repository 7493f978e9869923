"""The kind of context a suspect is, in the words of a trace's user: ``sourceKind``.

Upstream's ``kind`` (``injection``, ``tool``, ``stage``, ``arg``, ``memory``) names the library's
own parts. A trace user thinks in tool results, system prompts, documents, LLM outputs and user
messages; ``afp bisect`` (``sourceKind``), ``afp diff`` and ``afp scan`` (``source_kind``) say
one of the five ``SOURCE_KINDS``, decided here and nowhere else.
"""

from __future__ import annotations

from typing import Any

from agentbisect.results.report import Suspect
from agentbisect.schema.imported import ImportMeta, SourceRef

TOOL_RESULT = "tool-result"
SYSTEM_PROMPT = "system-prompt"
DOCUMENT = "document"
LLM_OUTPUT = "llm-output"
USER_MESSAGE = "user-message"
SOURCE_KINDS = (TOOL_RESULT, SYSTEM_PROMPT, DOCUMENT, LLM_OUTPUT, USER_MESSAGE)

# An imported step's source map kind (``SourceRef.kind``) → its source kind.
_IMPORTED = {
    "llm": LLM_OUTPUT,
    "tool": TOOL_RESULT,
    "retrieval": DOCUMENT,
    "system-instruction": SYSTEM_PROMPT,
}
# A message of the conversation with no producer in the trace, by its role.
_BY_ROLE = {
    "system": SYSTEM_PROMPT,
    "developer": SYSTEM_PROMPT,
    "assistant": LLM_OUTPUT,
    "tool": TOOL_RESULT,
}
# An agentfootprint injection, by its flavor (the record's ``source``): retrieved and remembered
# content is a document; instructions, skills, steering, facts and custom injections are the
# system prompt the agent was given.
_BY_FLAVOR = {"rag": DOCUMENT, "memory": DOCUMENT}
# Upstream's kinds on a recording: a tool's result, the run's input args, an earlier stage's
# output (on an agent recording, what an LLM call wrote).
_BY_KIND = {"tool": TOOL_RESULT, "arg": USER_MESSAGE, "stage": LLM_OUTPUT, "memory": DOCUMENT}


def imported_kind(src: SourceRef) -> str:
    """The source kind of one synthesized step of a trace or transcript."""
    if src.kind == "message":
        return role_kind(src.role)
    return _IMPORTED.get(src.kind, USER_MESSAGE)


def injection_kind(flavor: object) -> str:
    """The source kind of an agentfootprint injection of ``flavor`` (its record's ``source``)."""
    return _BY_FLAVOR.get(flavor if isinstance(flavor, str) else "", SYSTEM_PROMPT)


def role_kind(role: object) -> str:
    """The source kind of a message of the conversation by its role (user when unknown)."""
    return _BY_ROLE.get(role if isinstance(role, str) else "", USER_MESSAGE)


def suspect_kind(s: Suspect, meta: ImportMeta | None) -> str:
    """The source kind of one suspect: from the import's source map where the run has one."""
    if meta is not None:
        src = meta.sources.get(s.source)
        if src is not None:
            return imported_kind(src)
    if s.kind == "injection":
        detail: Any = s.detail
        return injection_kind(getattr(detail, "flavor", None))
    return _BY_KIND.get(s.kind, LLM_OUTPUT)


def is_run_input(kind: str, step: str, meta: ImportMeta | None) -> bool:
    """Whether a suspect of upstream ``kind`` at ``step`` is the run's input, the question its
    answer addresses (whose terms are given, not evidence): an ``arg`` — of an imported run
    only a user's message, not the context whose producer is not in the trace (a tool result
    no step gave, an earlier assistant turn), which may be the very source of the answer."""
    if kind != "arg":
        return False
    src = meta.sources.get(step) if meta is not None else None
    return src is None or imported_kind(src) == USER_MESSAGE


def name_kinds(suspects: list[Suspect], meta: ImportMeta | None) -> None:
    """Set every suspect's ``sourceKind`` (in place)."""
    for s in suspects:
        s.sourceKind = suspect_kind(s, meta)
