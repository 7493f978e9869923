"""The ``import`` key an importer writes into the recording it synthesizes (traces, transcripts).

It says where each step of the synthesized commit log came from (a span, a system-instruction
part, a message of the conversation, a retrieved document), how each read was matched to its
producer, which traces the file held, and the honesty flags of the conversion, so that a
recording written by ``afp record`` tells bisect the same as the trace it came from.
Annotations are evaluated at class creation, as in ``schema.events`` (which says why).
"""

from typing import Any

from msgspec import UNSET, Struct, UnsetType


class SourceRef(Struct, kw_only=True, omit_defaults=True):
    """One synthesized step: what it stands for in terms the user's own agent can act on."""

    kind: str  # llm | tool | retrieval | system-instruction | message
    spanId: str | UnsetType = UNSET
    llmIndex: int | UnsetType = UNSET
    toolName: str | UnsetType = UNSET
    toolCallId: str | UnsetType = UNSET
    callIdFrom: str | UnsetType = UNSET  # span | llm-output | tool-message | none
    key: str | UnsetType = UNSET
    partId: str | UnsetType = UNSET
    text: str | UnsetType = UNSET
    messageIndex: int | UnsetType = UNSET
    role: str | UnsetType = UNSET
    producer: str | UnsetType = UNSET  # run-input | not-in-trace
    query: str | UnsetType = UNSET
    documents: list[str] | UnsetType = UNSET


class Match(Struct):
    """A read linked to its producer by content or by position (id matches are not listed)."""

    reader: str
    source: str
    by: str  # content | structure


class TraceRef(Struct, kw_only=True):
    traceId: str
    rootName: str
    spans: int


class ImportFlag(Struct):
    flag: str
    note: str


class ImportSummary(Struct, kw_only=True):
    """The part of the ``import`` key every command needs (decoding skips the source map)."""

    format: str = ""
    traceId: str | UnsetType = UNSET  # the trace read, of a file holding several (``traces``)
    traces: list[TraceRef] = []
    flags: list[ImportFlag] = []


class ImportMeta(Struct, kw_only=True):
    format: str = ""
    traceId: str | UnsetType = UNSET
    traces: list[TraceRef] = []
    sources: dict[str, SourceRef] = {}
    matches: list[Match] = []
    llmCallIds: list[str] = []
    flags: list[ImportFlag] = []
    counts: dict[str, Any] = {}
