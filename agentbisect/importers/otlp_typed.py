"""The typed decode of OTLP/JSON spans that ``afp aggregate``'s fast path reads (``otlp_aggregate``).

Each attribute is a msgspec tagged union on its ``key``: the value of a key the aggregate reads is
typed in the one decode (a string, a token count, the finish reasons), and the value of a known
key it does not read is still checked to be the one well-formed kind that key carries (so that a
malformed value, which the full import flags, never passes unseen). A key outside both lists, a
value of another kind, an id that is not a string: the decode fails and the caller takes the full
path, which reads any trace. Times and token counts written as decimal strings are checked by a
pattern in C and turned into ints only where they are read.

Nothing here is tracked by the cyclic collector (``gc=False``): a long trace is hundreds of
thousands of small structs, none of which can hold a cycle.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Union

import msgspec
from msgspec import UNSET, Meta, Raw, Struct, UnsetType

# A decimal string as ``int()`` reads it the same way (no space or underscore): what OTLP's JSON
# mapping writes for 64-bit integers.
SignedDigits = Annotated[str, Meta(pattern=r"^-?[0-9]+\Z")]


class StrV(Struct, forbid_unknown_fields=True, gc=False):
    stringValue: str


class RawStrV(Struct, forbid_unknown_fields=True, gc=False):
    """A long string value (message content, a tool result) kept as its JSON literal: a view
    of the file, decoded (and so checked to be a string) only where it is read."""

    stringValue: Raw


class IntV(Struct, forbid_unknown_fields=True, gc=False):
    """A token count: a string is turned into an int by ``int()`` where it is read, as the full
    import does (its ``ValueError`` sends the file down the full path)."""

    intValue: int | str


class CheckedIntV(Struct, forbid_unknown_fields=True, gc=False):
    """An integer value nothing reads: checked here to be one ``int()`` reads the same way."""

    intValue: int | SignedDigits


class DblV(Struct, forbid_unknown_fields=True, gc=False):
    doubleValue: float


class BoolV(Struct, forbid_unknown_fields=True, gc=False):
    boolValue: bool


class StrArray(Struct, forbid_unknown_fields=True, gc=False):
    values: list[StrV] = []


class ReasonsV(Struct, forbid_unknown_fields=True, gc=False):
    """``gen_ai.response.finish_reasons``: an array of strings (or, leniently, one string)."""

    arrayValue: StrArray | UnsetType = UNSET
    stringValue: str | UnsetType = UNSET


class Attr(Struct, tag_field="key", gc=False):
    """An attribute; its class is picked by its key, ``slot`` says where it is filed."""

    slot: ClassVar[int]


# What the fast path reads, by slot.
(
    OP,
    REQ_MODEL,
    RESP_MODEL,
    T_IN,
    T_OUT,
    FINISH,
    SYSTEM,
    INPUT,
    OUTPUT,
    TOOL_NAME,
    CALL_ID,
    RESULT,
    AGENT_NAME,
    GEN_AI_SYSTEM,
    DATA_SOURCE,
    DOCUMENTS,
    UNREAD,
) = range(17)
SLOTS = UNREAD + 1  # a span's values by slot (the last one takes every unread value)

READ: dict[str, tuple[int, type[Struct]]] = {
    "gen_ai.operation.name": (OP, StrV),
    "gen_ai.request.model": (REQ_MODEL, StrV),
    "gen_ai.response.model": (RESP_MODEL, StrV),
    "gen_ai.usage.input_tokens": (T_IN, IntV),
    "gen_ai.usage.output_tokens": (T_OUT, IntV),
    "gen_ai.response.finish_reasons": (FINISH, ReasonsV),
    "gen_ai.system_instructions": (SYSTEM, RawStrV),
    "gen_ai.input.messages": (INPUT, RawStrV),
    "gen_ai.output.messages": (OUTPUT, RawStrV),
    "gen_ai.tool.name": (TOOL_NAME, StrV),
    "gen_ai.tool.call.id": (CALL_ID, StrV),
    "gen_ai.tool.call.result": (RESULT, RawStrV),
    "gen_ai.agent.name": (AGENT_NAME, StrV),
    "gen_ai.system": (GEN_AI_SYSTEM, StrV),
    "gen_ai.data_source.id": (DATA_SOURCE, StrV),
    "gen_ai.retrieval.documents": (DOCUMENTS, RawStrV),
}
# Keys the import reads nowhere (so their values change nothing the aggregate shows), with the
# one kind each carries. Any other key sends the file down the full path.
UNREAD_KEYS: dict[str, type[Struct]] = {
    "gen_ai.provider.name": StrV,
    "gen_ai.retrieval.query.text": StrV,
    "gen_ai.tool.type": StrV,
    "gen_ai.tool.description": StrV,
    "gen_ai.tool.call.arguments": StrV,
    "gen_ai.response.id": StrV,
    "gen_ai.conversation.id": StrV,
    "gen_ai.agent.id": StrV,
    "gen_ai.agent.description": StrV,
    "gen_ai.output.type": StrV,
    "gen_ai.openai.request.service_tier": StrV,
    "gen_ai.openai.response.service_tier": StrV,
    "gen_ai.openai.response.system_fingerprint": StrV,
    "openai.request.service_tier": StrV,
    "openai.response.service_tier": StrV,
    "openai.response.system_fingerprint": StrV,
    "server.address": StrV,
    "error.type": StrV,
    "server.port": CheckedIntV,
    "gen_ai.request.max_tokens": CheckedIntV,
    "gen_ai.request.seed": CheckedIntV,
    "gen_ai.request.choice.count": CheckedIntV,
    "gen_ai.request.temperature": DblV,
    "gen_ai.request.top_p": DblV,
    "gen_ai.request.top_k": DblV,
    "gen_ai.request.frequency_penalty": DblV,
    "gen_ai.request.presence_penalty": DblV,
    "gen_ai.request.stream": BoolV,
}


def _attr_class(key: str, slot: int, value: type[Struct]) -> type[Attr]:
    cls: Any = msgspec.defstruct(
        "Attr_" + key.replace(".", "_"),
        [("value", value)],
        bases=(Attr,),
        tag=key,
        gc=False,
    )
    cls.slot = slot
    return cls


_CLASSES = [_attr_class(k, slot, v) for k, (slot, v) in READ.items()] + [
    _attr_class(k, UNREAD, v) for k, v in UNREAD_KEYS.items()
]
AnyAttr = Union[tuple(_CLASSES)]  # type: ignore[valid-type]  # noqa: UP007


class Status(Struct, gc=False):
    code: int | str = 0
    message: str = ""


class Scope(Struct, gc=False):
    name: str = ""


class ResourceAttr(Struct, gc=False):
    key: str = ""
    value: Raw | UnsetType = UNSET


class Resource(Struct, gc=False):
    attributes: list[ResourceAttr] = []


class Span(Struct, gc=False):
    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    name: str = ""
    kind: int = 0
    # (a string is turned into an int by ``int()`` where it is read, as the full import does)
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    # decoded (``ATTRIBUTES``) when the walk reaches the span: a long trace's attribute values
    # are never all alive at once
    attributes: Raw | UnsetType = UNSET
    events: list[Raw] = []
    status: Status | None = None


class ScopeSpans(Struct, gc=False):
    scope: Scope | None = None
    spans: list[Span] = []


class ResourceSpans(Struct, gc=False):
    resource: Resource | None = None
    scopeSpans: list[ScopeSpans] = []


class Export(Struct, gc=False):
    resourceSpans: list[ResourceSpans] = []
    resourceLogs: list[Raw] = []
    # A first line holding one of these is read by the capture importer, not as a trace.
    afp: Raw | UnsetType = UNSET
    flow: Raw | UnsetType = UNSET
    typed: Raw | UnsetType = UNSET
    commit: Raw | UnsetType = UNSET


EXPORT = msgspec.json.Decoder(Export)
ATTRIBUTES = msgspec.json.Decoder(list[AnyAttr])  # type: ignore[valid-type]


# ----------------------------------------------------------------- message content


class Part(Struct, forbid_unknown_fields=True, gc=False):
    """A message part in the current GenAI "parts" form (any other field, e.g. the OpenAI
    form's ``function``: the full path)."""

    type: str | None = None
    content: str | UnsetType | None = UNSET
    text: str | UnsetType | None = UNSET
    id: str | None = None
    name: str | None = None
    arguments: Raw | UnsetType = UNSET
    response: Raw | UnsetType = UNSET
    result: Raw | UnsetType = UNSET


class Message(Struct, gc=False):
    role: str | None = None
    name: Raw | UnsetType = UNSET
    parts: list[Part] | UnsetType = UNSET
    message: Raw | UnsetType = UNSET


MESSAGES = msgspec.json.Decoder(list[Message])
MESSAGE = msgspec.json.Decoder(Message)
RAWS = msgspec.json.Decoder(list[Raw])
STR = msgspec.json.Decoder(str)
