"""The chat-transcript importer (the seam's module): an OpenAI-style message array,
``{"messages": [...]}``, JSON Lines of messages, or a multi-agent history ``{"history": [...]}``.

Only the sniff lives here, so that every input (sniffed by every importer) does not pay for the
conversion's imports; the work is in ``transcript_import``.
"""

from __future__ import annotations

import re

import msgspec
from msgspec import UNSET

from agentbisect.importers import toplevel
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail
from agentbisect.importers.opentelemetry.detect import SNIFF_BYTES

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


_LEADING_WS = re.compile(rb"[ \t\n\r\x0b\x0c]*")  # what bytes.lstrip() removes


def sniff(data: bytes) -> bool:
    """Cheap: look at the top-level shape and the first message only; never raises (a deeply
    nested recording is not a transcript, and must not crash the sniff)."""
    # Offsets into data rather than data.lstrip() and a split: those copied whole recordings.
    at = _LEADING_WS.match(data).end()  # type: ignore[union-attr]  # always matches
    head = data[at : at + SNIFF_BYTES]
    try:
        if head[:1] == b"[":
            if b'"role"' not in head:
                return False
            items = msgspec.json.decode(data, type=list[msgspec.Raw])
            return bool(items) and _role_item(items[0])
        if head[:1] != b"{":
            return False
        nl = data.find(b"\n", at)
        end = nl if nl >= 0 else len(data)
        # One object: its top-level keys, whatever their order, from the decode the recording
        # importer shares (a Who&When log puts its question, thousands of bytes, before its
        # history; looking for the keys in the first bytes refused those).
        if toplevel.spans_all(data, at, end):
            if toplevel.parse(data).member("role") is not UNSET and _role_item(data):
                return True
        elif _role_item(data[at:end]):
            return True  # one message per line (or a single message)
        parsed = toplevel.parse(data)
        if parsed.member("messages") is UNSET and parsed.member("history") is UNSET:
            return False  # neither key (or not an object): nothing to find
        top = msgspec.json.decode(data, type=_Top)  # (checks every occurrence of a repeated key)
        found = top.messages or top.history
        return bool(found) and found is not None and _role_item(found[0])
    except (msgspec.MsgspecError, RecursionError):
        return False


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
