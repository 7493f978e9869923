"""The top-level JSON object of an input, decoded once and shared by the sniffs and the recording
importer.

Every input is sniffed by every importer before one decodes it. A recording is one line of JSON,
so the capture sniff (its first line) and the transcript sniff (its first line, then the whole
object) each decoded the whole file, and the recording importer then decoded it a fourth time:
on a 30 MB run that was ~35 ms of every command. Inside ``shared(data)`` the first question about
``data`` decodes it once, into the recording importer's fast shape plus the keys the sniffs look
for, and every later question about the same bytes object reads that answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec
from msgspec import UNSET, Raw, UnsetType

from agentbisect.schema.recording import Snapshot, TopLevel

JSON_WS = b" \t\r\n"
SNIFF_KEYS = frozenset(
    {
        "afp",
        "flow",
        "typed",
        "commit",
        "role",
        "messages",
        "history",
        "observations",
        "run_type",
        "data",
    }
)


class Recording(TopLevel, kw_only=True):
    """A recording's top level with its snapshot skeleton decoded in the same pass."""

    snapshot: Snapshot | UnsetType = UNSET  # type: ignore[assignment]


class Top(Recording, kw_only=True):
    """A recording's top level with its snapshot skeleton decoded in the same pass (the recording
    importer's fast path), plus the keys of the other formats' sniffs, kept raw."""

    # An envelope's recording in the same pass: scanned once, not three times (the envelope, the
    # inner recording, its snapshot): ~0.25 s on a 150 MB envelope.
    recording: Recording | UnsetType = UNSET  # type: ignore[assignment]
    afp: Raw | UnsetType = UNSET
    flow: Raw | UnsetType = UNSET
    typed: Raw | UnsetType = UNSET
    commit: Raw | UnsetType = UNSET
    role: Raw | UnsetType = UNSET
    messages: Raw | UnsetType = UNSET
    history: Raw | UnsetType = UNSET
    observations: Raw | UnsetType = UNSET  # a Langfuse trace
    run_type: Raw | UnsetType = UNSET  # a LangSmith run


_TOP = msgspec.json.Decoder(Top)
_KEYS = msgspec.json.Decoder(dict[str, Raw])


class Parsed:
    """What decoding the whole input as one object gave: the fast ``top`` (None when it failed,
    ``error`` says why). When only the fast shape failed (an unusual snapshot), the members are
    read by the generic decode, once and only if a sniff asks for one."""

    def __init__(self, data: bytes, top: Top | None, error: BaseException | None) -> None:
        self.top = top
        self.error = error
        # The generic decode is worth trying only after a validation error: a syntax error or
        # a nesting too deep would stop it at the same byte.
        self._data: bytes | None = data if isinstance(error, msgspec.ValidationError) else None
        self._keys: dict[str, Raw] | None = None

    def _members(self) -> dict[str, Raw] | None:
        if self._data is not None:
            data, self._data = self._data, None
            try:
                self._keys = _KEYS.decode(data)
            except (msgspec.MsgspecError, RecursionError):
                self._keys = None
        return self._keys

    @property
    def is_object(self) -> bool:
        """Whether the input is one well-formed JSON object."""
        return self.top is not None or self._members() is not None

    def member(self, key: str) -> Raw | UnsetType:
        """The raw value of top-level ``key`` (one of ``SNIFF_KEYS``), UNSET when absent."""
        if key not in SNIFF_KEYS:
            raise KeyError(key)
        if self.top is not None:
            value: Raw | UnsetType = getattr(self.top, key)
            return value
        keys = self._members()
        return UNSET if keys is None else keys.get(key, UNSET)


def _parse(data: bytes) -> Parsed:
    try:
        return Parsed(data, _TOP.decode(data), None)
    except (RecursionError, msgspec.MsgspecError) as exc:
        return Parsed(data, None, exc)


# One entry per input being imported: [its bytes, their decode once asked for].
_shared: list[list[bytes | Parsed | None]] = []


def parse(data: bytes) -> Parsed:
    """Decode ``data`` as one object, or read the answer kept for it inside ``shared(data)``."""
    for entry in reversed(_shared):
        if entry[0] is data:
            if entry[1] is None:
                entry[1] = _parse(data)
            kept: Parsed = entry[1]  # type: ignore[assignment]
            return kept
    return _parse(data)


@contextmanager
def shared(data: bytes) -> Iterator[None]:
    """Keep the decode of ``data`` while the block runs (one input's sniffs and import); the
    bytes and the decode are let go at its end."""
    entry: list[bytes | Parsed | None] = [data, None]
    _shared.append(entry)
    try:
        yield
    finally:
        _shared[:] = [e for e in _shared if e is not entry]


def spans_all(data: bytes, start: int, end: int) -> bool:
    """Whether everything outside ``data[start:end]`` is JSON whitespace, i.e. decoding that
    slice and decoding ``data`` read the same value."""
    if start > 4096 or len(data) - end > 4096:
        return False  # not one line with blank surroundings: let the caller decode its slice
    return not data[:start].strip(JSON_WS) and not data[end:].strip(JSON_WS)


_LEADING_WS = re.compile(rb"[ \t\n\r]*")


def first_byte(data: bytes) -> bytes:
    """The input's first byte after JSON whitespace (b"" for none), without copying it."""
    at = _LEADING_WS.match(data).end()  # type: ignore[union-attr]  # always matches
    return data[at : at + 1]
