"""The Langfuse importer (the seam's module): a trace with its observations as the ``langfuse``
SDK's API models serialize it (``TraceWithFullDetails``: ``{id, timestamp, name, input, output,
observations: [...], ...}``), a list of such traces, or a page of observations
(``ObservationsV2Response``: ``{data: [...], meta}``, what the current SDK's
``api.observations.get_many`` returns).

Only the sniff lives here, so that every input (sniffed by every importer) does not pay for the
conversion's imports; the work is in ``langfuse_import``.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, Raw, UnsetType

from agentbisect.core.arrayhead import first_items
from agentbisect.importers import toplevel
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail, ImportOptions
from agentbisect.importers.toplevel import first_byte

NAME = "langfuse"
LABEL = "Langfuse trace export"
TAKES_OPTIONS = True  # TRACE_ID: a list of traces holds several


class _Trace(msgspec.Struct):
    """The keys that make an object a Langfuse trace: its id, its observations, and the
    ``timestamp`` (every trace model) or ``htmlPath`` (the full-details model) beside them."""

    id: Raw | UnsetType = UNSET
    observations: Raw | UnsetType = UNSET
    timestamp: Raw | UnsetType = UNSET
    htmlPath: Raw | UnsetType = UNSET


_DECODE = msgspec.json.Decoder(_Trace)


class _Observation(msgspec.Struct):
    """The keys every observation of an observations page has."""

    id: Raw | UnsetType = UNSET
    traceId: Raw | UnsetType = UNSET
    type: Raw | UnsetType = UNSET
    startTime: Raw | UnsetType = UNSET


class _Page(msgspec.Struct):
    data: list[Raw] | None = None


_OBSERVATION = msgspec.json.Decoder(_Observation)
_PAGE = msgspec.json.Decoder(_Page)


def _is_page(data: bytes) -> bool:
    """An observations page (``ObservationsV2Response``: ``{data: [observation, ...], meta}``);
    a recording's BoundaryEvents row also has ``data``, but its items are no observations."""
    found = _PAGE.decode(data).data
    if not found:
        return False
    o = _OBSERVATION.decode(found[0])
    return UNSET not in (o.id, o.traceId, o.type, o.startTime)


def _is_trace(raw: bytes) -> bool:
    try:
        t = _DECODE.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return False
    return (
        t.id is not UNSET
        and t.observations is not UNSET
        and (t.timestamp is not UNSET or t.htmlPath is not UNSET)
    )


def sniff(data: bytes) -> bool:
    """Cheap, never raises: one object (its top-level keys from the decode the sniffs share) or
    an array whose first item is a trace. The observations themselves are checked by the reader,
    which names what is wrong with them."""
    try:
        head = first_byte(data)
        if head == b"[":
            items, _ = first_items(data, 1)
            return bool(items) and _is_trace(items[0])
        if head != b"{":
            return False
        parsed = toplevel.parse(data)
        if parsed.member("observations") is not UNSET:
            return _is_trace(data)
        return parsed.member("data") is not UNSET and _is_page(data)
    except (msgspec.MsgspecError, RecursionError, ValueError):
        return False


def convert(
    name: str,
    data: bytes,
    *,
    detail: Detail = "full",
    keep_embeddings: bool = False,
    max_events: object = DEFAULT_MAX_EVENTS,
    options: ImportOptions | None = None,
) -> Conversion:
    """A Langfuse trace as the canonical recording (``keep_embeddings`` has nothing to act on:
    an export carries text, never vectors)."""
    from agentbisect.importers.convert import conversion
    from agentbisect.importers.langfuse_import import import_langfuse

    result = import_langfuse(name, data, options=options, detail=detail, max_events=max_events)
    return conversion(result, detail)
