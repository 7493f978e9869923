"""A converted recording handed over in parts: its long values apart from the rest.

An importer that synthesizes a long recording (a 100,000-span trace) already holds its long
values as JSON (``encoded.JsonArray``: the commit log, the domain events, the execution tree).
Encoding the whole recording copied them into one more buffer as large as all of them (140 MB),
allocated while they were still alive: that copy was the conversion's memory peak. Instead,
``split`` encodes a *skeleton*, the recording with each long value replaced by a small unique
placeholder of the same JSON kind, and keeps the values apart:

- ``join`` puts them back, byte for byte what encoding the whole recording gave (``afp record``
  writes that);
- ``load`` decodes the skeleton as any recording and then hands each value to the part of the
  ``Loaded`` that holds its placeholder; the values are never copied. Only values the loader keeps
  whole as raw JSON are split off (the snapshot's commit log and execution tree, the recorder
  rows' data, the typed events); should a placeholder end up anywhere else, the joined bytes are
  loaded instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Raw

from agentbisect.schema.recording import ENVELOPE_FORMAT

if TYPE_CHECKING:
    from agentbisect.model.loaded import Loaded

_ENCODER = msgspec.json.Encoder()
MIN_PART = 1 << 16  # shorter values stay in the skeleton: not worth a part
_SNAPSHOT_PARTS = ("commitLog", "executionTree")
_MAX_PLACEHOLDER = 64


def _placeholder(value: Raw, token: str, n: int) -> bytes | None:
    """A unique JSON value of the same kind as ``value`` ([…] or {…}); None for other kinds."""
    kind = bytes(memoryview(value)[:1])
    # "\u0000" keeps it apart from any text: msgspec escapes every control character it writes
    label = f'"\\u0000afp-part {token} {n}"'.encode()
    if kind == b"[":
        return b"[" + label + b"]"
    if kind == b"{":
        return b"{" + label + b":0}"
    return None


def split(doc: Mapping[str, Any]) -> tuple[bytes, dict[bytes, Raw]]:
    """The skeleton of ``doc`` (a recording or an envelope) and its long values by placeholder.
    Without long raw values, the skeleton is the whole encoded recording and there are no parts.
    """
    token = os.urandom(8).hex()
    parts: dict[bytes, Raw] = {}

    def take(value: Any) -> Any:
        if not isinstance(value, Raw) or len(value) < MIN_PART:
            return value
        ph = _placeholder(value, token, len(parts))
        if ph is None:
            return value
        parts[ph] = value
        return Raw(ph)

    def recording(rec: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(rec)
        if "events" in out:
            out["events"] = take(out["events"])
        snap = out.get("snapshot")
        if isinstance(snap, Mapping):
            snap = out["snapshot"] = dict(snap)
            for key in _SNAPSHOT_PARTS:
                if key in snap:
                    snap[key] = take(snap[key])
            rows = snap.get("recorders")
            if isinstance(rows, list):
                snap["recorders"] = [
                    {**row, "data": take(row["data"])}
                    if isinstance(row, Mapping) and "data" in row
                    else row
                    for row in rows
                ]
        return out

    top = dict(doc)
    if top.get("format") == ENVELOPE_FORMAT and isinstance(top.get("recording"), Mapping):
        top["recording"] = recording(top["recording"])
    else:
        top = recording(top)
    if not parts:
        return _ENCODER.encode(doc), {}
    skeleton = _ENCODER.encode(top)
    if any(skeleton.count(ph) != 1 for ph in parts):  # (cannot happen: the token is random)
        return _ENCODER.encode(doc), {}
    return skeleton, parts


def join(skeleton: bytes, parts: Mapping[bytes, Raw]) -> bytes:
    """The whole recording: each placeholder replaced by its value."""
    if not parts:
        return skeleton
    at = sorted((skeleton.index(ph), ph) for ph in parts)
    pieces: list[bytes | memoryview] = []
    start = 0
    for pos, ph in at:
        pieces.append(memoryview(skeleton)[start:pos])
        pieces.append(memoryview(parts[ph]))
        start = pos + len(ph)
    pieces.append(memoryview(skeleton)[start:])
    return b"".join(pieces)


def load(name: str, skeleton: bytes, parts: Mapping[bytes, Raw], compressed: bool) -> Loaded:
    """``recording.load`` of the joined bytes, without joining them."""
    from agentbisect.importers import recording

    loaded = recording.load(name, skeleton, compressed)
    if parts and _hand_over(loaded, parts) != set(parts):
        return recording.load(name, join(skeleton, parts), compressed)
    loaded.size = len(skeleton) + sum(len(v) - len(ph) for ph, v in parts.items())
    return loaded


def _hand_over(loaded: Loaded, parts: Mapping[bytes, Raw]) -> set[bytes]:
    """Put each part where the loader kept its placeholder; return the placeholders replaced."""
    done: set[bytes] = set()

    def sub(value: Any) -> Any:
        if isinstance(value, Raw):
            if len(value) <= _MAX_PLACEHOLDER:
                key = bytes(value)
                part = parts.get(key)
                if part is not None:
                    done.add(key)
                    return part
            return value
        if isinstance(value, msgspec.Struct):
            for field in value.__struct_fields__:
                old = getattr(value, field)
                new = sub(old)
                if new is not old:
                    setattr(value, field, new)
            return value
        if isinstance(value, list):
            for i, item in enumerate(value):
                value[i] = sub(item)
            return value
        if isinstance(value, tuple):  # (a pending domain-event array: raw, path, at)
            return tuple(sub(item) for item in value)
        return value

    sub(loaded)
    return done
