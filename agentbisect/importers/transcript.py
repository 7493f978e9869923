"""The chat-transcript importer (the seam's module): an OpenAI-style message array,
``{"messages": [...]}``, JSON Lines of messages, or a multi-agent history ``{"history": [...]}``.

Only the sniff lives here, so that every input (sniffed by every importer) does not pay for the
conversion's imports; the work is in ``transcript_import``.
"""

from __future__ import annotations

import msgspec

from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail

NAME = "transcript"
LABEL = "chat transcript"


class _Top(msgspec.Struct):
    messages: list[msgspec.Raw] | None = None
    history: list[msgspec.Raw] | None = None


class _Role(msgspec.Struct):
    role: str


def _role_item(raw: bytes | msgspec.Raw) -> bool:
    try:
        msgspec.json.decode(raw, type=_Role)
    except (msgspec.MsgspecError, RecursionError):
        return False
    return True


def sniff(data: bytes) -> bool:
    """Cheap: look at the top-level shape and the first message only; never raises (a deeply
    nested recording is not a transcript, and must not crash the sniff)."""
    head = data.lstrip()[:4096]
    if head[:1] not in (b"[", b"{") or b'"role"' not in head:
        return False
    try:
        if head[:1] == b"[":
            items = msgspec.json.decode(data, type=list[msgspec.Raw])
            return bool(items) and _role_item(items[0])
        first = data.lstrip().split(b"\n", 1)[0]
        if _role_item(first):
            return True  # one message per line (or a single message)
        if b'"messages"' not in head and b'"history"' not in head:
            return False
        top = msgspec.json.decode(data, type=_Top)
    except (msgspec.MsgspecError, RecursionError):
        return False
    found = top.messages or top.history
    return bool(found) and found is not None and _role_item(found[0])


def convert(
    name: str,
    data: bytes,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
) -> Conversion:
    """The importer seam: a transcript as the canonical recording (``keep_embeddings`` has
    nothing to act on: a transcript carries no vectors)."""
    from agentbisect.importers.convert import conversion
    from agentbisect.importers.transcript_import import import_transcript

    result = import_transcript(name, data, detail=detail, max_events=max_events)
    return conversion(result, detail)
