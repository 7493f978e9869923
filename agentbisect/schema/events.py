"""msgspec Structs for the domain-event stream (recording.md §2): one tagged union, full and lean.

Lean events are the same types with the content fields absent, so one set of Structs covers both.
Every optional field defaults to ``UNSET`` so that "absent" and ``null`` stay apart. Bulky content
(payloads, tool args and results) is kept as ``msgspec.Raw``: it is carried, not inspected, by
most analyses, and decoding it lazily keeps large recordings cheap.

Annotations here are evaluated when each class is created (no ``from __future__ import
annotations``): msgspec then builds its decoders from the types themselves instead of evaluating
every annotation string, which saved ~1 ms of each ``afp`` start (tests/test_startup.py).
"""

from typing import Any, ClassVar, cast

from msgspec import UNSET, Raw, Struct, UnsetType

Number = int | float


class _Event(Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """Fields every domain event carries (recording.md §2.1)."""

    runtimeStageId: str | UnsetType = UNSET
    subflowPath: list[str] | UnsetType = UNSET
    depth: int | UnsetType = UNSET
    ts: Number | UnsetType = UNSET
    commitIdxBefore: Number | UnsetType = UNSET
    commitIdxAfter: Number | UnsetType = UNSET

    known: ClassVar[bool] = True

    @property
    def type(self) -> str:
        """The event's type string (the union tag), so every event — ``OtherEvent`` too — has
        a ``.type``."""
        return cast(str, self.__struct_config__.tag)  # every tag in these unions is a str

    @property
    def path(self) -> list[str]:
        """The stored subflow path (never re-derived from the id), ``["__root__"]`` if absent."""
        p = self.subflowPath
        return ["__root__"] if p is UNSET else p


class RunEntry(_Event, tag="run.entry"):
    payload: Raw | UnsetType = UNSET
    isRoot: bool | UnsetType = UNSET


class RunExit(_Event, tag="run.exit"):
    payload: Raw | UnsetType = UNSET
    isRoot: bool | UnsetType = UNSET


class _Subflow(_Event):
    subflowId: str | UnsetType = UNSET
    localSubflowId: str | UnsetType = UNSET
    subflowName: str | UnsetType = UNSET
    description: str | UnsetType = UNSET
    primitiveKind: str | UnsetType = UNSET
    slotKind: str | UnsetType = UNSET
    isAgentInternal: bool | UnsetType = UNSET
    payload: Raw | UnsetType = UNSET


class SubflowEntry(_Subflow, tag="subflow.entry"):
    pass


class SubflowExit(_Subflow, tag="subflow.exit"):
    pass


class CompositionStart(_Event, tag="composition.start"):
    kind: str | UnsetType = UNSET
    compositionId: str | UnsetType = UNSET
    name: str | UnsetType = UNSET


class CompositionEnd(_Event, tag="composition.end"):
    kind: str | UnsetType = UNSET
    compositionId: str | UnsetType = UNSET
    name: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    durationMs: Number | UnsetType = UNSET


class ForkBranch(_Event, tag="fork.branch"):
    parentSubflowId: str | UnsetType = UNSET
    childName: str | UnsetType = UNSET


class DecisionBranch(_Event, tag="decision.branch"):
    decider: str | UnsetType = UNSET
    chosen: str | UnsetType = UNSET
    rationale: Any = UNSET
    isAgentInternal: bool | UnsetType = UNSET


class LoopIteration(_Event, tag="loop.iteration"):
    target: str | UnsetType = UNSET
    iteration: Number | UnsetType = UNSET


class Usage(Struct, omit_defaults=True):
    input: Number = 0
    output: Number = 0


class LlmStart(_Event, tag="llm.start"):
    model: Any = UNSET
    provider: Any = UNSET
    systemPromptChars: Number | UnsetType = UNSET
    systemPromptText: Any = UNSET
    messagesCount: Number | UnsetType = UNSET
    toolsCount: Number | UnsetType = UNSET
    tools: Raw | UnsetType = UNSET
    actorArrow: str | UnsetType = UNSET


class LlmEnd(_Event, tag="llm.end"):
    content: Any = UNSET
    toolCallCount: Number | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    stopReason: Any = UNSET
    actorArrow: str | UnsetType = UNSET


def _dispatched(not_dispatched: Any) -> bool:
    """recording.md §2.9: not dispatched iff the key is present and not null/false."""
    return not_dispatched is UNSET or not_dispatched is None or not_dispatched is False


class ToolStart(_Event, tag="tool.start"):
    toolName: str | UnsetType = UNSET
    toolCallId: str | UnsetType = UNSET
    args: Raw | UnsetType = UNSET
    notDispatched: Any = UNSET

    @property
    def dispatched(self) -> bool:
        return _dispatched(self.notDispatched)


class ToolEnd(_Event, tag="tool.end"):
    toolCallId: str | UnsetType = UNSET
    result: Raw | UnsetType = UNSET
    durationMs: Number | UnsetType = UNSET
    error: Any = UNSET
    notDispatched: Any = UNSET

    @property
    def dispatched(self) -> bool:
        return _dispatched(self.notDispatched)


class ContextInjected(_Event, tag="context.injected"):
    slot: str | UnsetType = UNSET
    source: str | UnsetType = UNSET
    sourceId: Any = UNSET
    asRole: Any = UNSET
    contentSummary: Any = UNSET
    reason: Any = UNSET
    sectionTag: Any = UNSET
    upstreamRef: Any = UNSET
    retrievalScore: Any = UNSET
    rankPosition: Any = UNSET
    budgetTokens: Any = UNSET
    budgetFraction: Any = UNSET


class OtherEvent(Struct, kw_only=True):
    """An item kept but not understood: an unknown (newer) type, or a known type that failed
    validation. ``problem`` is empty for unknown types and says what was wrong otherwise.
    Analyses ignore these; output passes them through unchanged."""

    type: str
    problem: str = ""
    runtimeStageId: Any = UNSET
    commitIdxBefore: Any = UNSET

    known: ClassVar[bool] = False


KnownEvent = (
    RunEntry
    | RunExit
    | SubflowEntry
    | SubflowExit
    | CompositionStart
    | CompositionEnd
    | ForkBranch
    | DecisionBranch
    | LoopIteration
    | LlmStart
    | LlmEnd
    | ToolStart
    | ToolEnd
    | ContextInjected
)

DomainEvent = KnownEvent | OtherEvent

KNOWN_TYPES: frozenset[str] = frozenset(cls.__struct_config__.tag for cls in KnownEvent.__args__)

# How slot kinds (``slotKind``) are named as step-graph / read-helper properties.
SLOT_PROPS: dict[str, str] = {
    "system-prompt": "systemPrompt",
    "messages": "messages",
    "tools": "tools",
}

# The five fields a lean bundle drops (recording.md §3.1), in upstream order.
CONTENT_FIELDS: tuple[str, ...] = ("payload", "args", "result", "content", "contentSummary")
