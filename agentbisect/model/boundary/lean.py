"""The lean projection of a domain-event stream (recording.md §3.1).

Lean drops exactly the five captured-content keys from every event and nothing else: no key is
added, the order of keys and of events is kept, and the input is never mutated. Lean is *not*
redaction: free text such as ``decision.branch.rationale``, ``context.injected.reason`` and
``llm.start.systemPromptText`` survives on purpose (upstream never widened ``CONTENT_FIELDS``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from msgspec import Raw

from agentbisect.schema.events import CONTENT_FIELDS

_CONTENT = frozenset(CONTENT_FIELDS)
_RAW_OBJECT = msgspec.json.Decoder(dict[str, Raw])
_ENCODER = msgspec.json.Encoder()


def lean_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict holding ``event`` minus the content fields, key order kept."""
    return {k: v for k, v in event.items() if k not in _CONTENT}


def lean_events(events: Iterable[Mapping[str, Any] | Raw]) -> list[Any]:
    """The lean projection of a whole stream, in the same order (an event kept as its JSON,
    ``msgspec.Raw``, stays JSON)."""
    return [Raw(lean_raw(e)) if isinstance(e, Raw) else lean_event(e) for e in events]


def lean_raw(item: bytes | Raw) -> bytes:
    """Lean projection of one event's JSON bytes; kept values are copied byte for byte.

    Working on ``dict[str, Raw]`` keeps every surviving value's bytes verbatim (number spelling,
    string escapes), so a re-projected file differs from its source only where lean removed keys.
    """
    obj = _RAW_OBJECT.decode(item)
    if not any(k in _CONTENT for k in obj):
        return bytes(item)
    return _ENCODER.encode({k: v for k, v in obj.items() if k not in _CONTENT})
