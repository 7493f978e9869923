"""The LangSmith importer (the seam's module): run trees as the ``langsmith`` SDK serializes its
``Run`` (``{id, name, run_type, start_time, inputs, outputs, child_runs: [...], ...}``, one root
or a list of runs), and what the ``langsmith-fetch`` CLI writes for a trace (the run's LangChain
messages, bare or as ``{trace_id, messages, metadata, feedback}``).

Only the sniff lives here, so that every input (sniffed by every importer) does not pay for the
conversion's imports; the work is in ``langsmith_import``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from agentbisect.core.arrayhead import first_items
from agentbisect.core.errors import InputError
from agentbisect.importers import toplevel
from agentbisect.importers.base import DEFAULT_MAX_EVENTS, Conversion, Detail, ImportOptions
from agentbisect.importers.toplevel import first_byte

NAME = "langsmith"
LABEL = "LangSmith export"
TAKES_OPTIONS = True  # TRACE_ID: a list of runs may hold several traces

# LangChain's serialized message: dumpd's {"lc": 1, "id": [..., "messages", "AIMessage"], ...}
# or model_dump's {"type": "ai", "content": ...}
_LC_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat"})


class _Run(msgspec.Struct):
    """The keys that make an object a LangSmith run: ``run_type`` beside its id and name."""

    run_type: Raw | UnsetType = UNSET
    id: Raw | UnsetType = UNSET
    name: Raw | UnsetType = UNSET


class _Message(msgspec.Struct):
    lc: Any = None
    type: Any = None
    id: Any = None  # (dumpd's class path, or a message id: short either way)
    content: Raw | UnsetType = UNSET
    kwargs: Raw | UnsetType = UNSET


class _Fetched(msgspec.Struct):
    messages: list[Raw] | None = None


_RUN = msgspec.json.Decoder(_Run)
_MESSAGE = msgspec.json.Decoder(_Message)
_FETCHED = msgspec.json.Decoder(_Fetched)


def _is_run(raw: bytes) -> bool:
    try:
        r = _RUN.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return False
    return r.run_type is not UNSET and r.id is not UNSET and r.name is not UNSET


def _is_message(raw: bytes) -> bool:
    try:
        m = _MESSAGE.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return False
    if m.lc == 1 and isinstance(m.id, list) and m.kwargs is not UNSET:
        return len(m.id) >= 2 and m.id[-2] == "messages"
    return isinstance(m.type, str) and m.type in _LC_TYPES and m.content is not UNSET


# ``langsmith-fetch --format pretty`` (its default): text for people, each section under a rule
# of 60 "=" — messages ("Message 1: human"), "RUN METADATA" or "FEEDBACK". It drops tool-call ids
# and what dumpd-serialized messages hold, so it is refused with a pointer to ``--format json``.
_RULE = b"=" * 60 + b"\n"
_PRETTY_SECTIONS = (b"Message 1: ", b"RUN METADATA\n", b"FEEDBACK\n")


def fetch_pretty(data: bytes) -> bool:
    """Whether ``data`` is what ``langsmith-fetch --format pretty`` writes."""
    head = data[:200].lstrip(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
    return head.startswith(_RULE) and head[len(_RULE) :].startswith(_PRETTY_SECTIONS)


PRETTY_REFUSAL = (
    "this is langsmith-fetch's --format pretty output (text for reading: no tool-call ids, no "
    "structure); fetch the trace again with --format json"
)


def sniff(data: bytes) -> bool:
    """Cheap, never raises: one run object (its top-level keys from the decode the sniffs
    share), an array whose first item is a run or a LangChain message, or an object whose
    ``messages`` start with a LangChain message (``langsmith-fetch --include-metadata``); and
    ``langsmith-fetch --format pretty`` text, only to refuse it by name."""
    if fetch_pretty(data):
        return True  # (claimed, to be refused by name: see PRETTY_REFUSAL)
    try:
        head = first_byte(data)
        if head == b"[":
            items, _ = first_items(data, 1)
            return bool(items) and (_is_run(items[0]) or _is_message(items[0]))
        if head != b"{":
            return False
        parsed = toplevel.parse(data)
        if parsed.member("run_type") is not UNSET:
            return _is_run(data)
        if parsed.member("messages") is UNSET:
            return False
        found = _FETCHED.decode(data).messages
        return bool(found) and found is not None and _is_message(found[0])
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
    """A LangSmith export as the canonical recording (``keep_embeddings`` has nothing to act
    on: an export carries text, never vectors)."""
    from agentbisect.importers.convert import conversion
    from agentbisect.importers.langsmith_import import import_langsmith

    if fetch_pretty(data):
        raise InputError(name, PRETTY_REFUSAL)

    result = import_langsmith(name, data, options=options, detail=detail, max_events=max_events)
    return conversion(result, detail)
