"""JSON arrays and objects kept as their bytes while they are built, item by item.

Importers synthesize long recordings (a 100,000-span trace: 400,000 domain events, 100,000
commit bundles, 100,000 execution-tree nodes). Kept as one ``msgspec.Raw`` per item, every item
still cost a bytes object, a Raw and a list slot (~90 bytes over its JSON); kept as dicts, several
times its JSON. ``JsonArray`` (and ``JsonObject``) append each item's JSON to one buffer
instead, and hand the finished value out as one ``msgspec.Raw`` over that buffer (no copy):
written verbatim by the encoder, or taken as a recording part by the loader.
"""

from __future__ import annotations

from typing import Any

import msgspec

_ENCODER = msgspec.json.Encoder()


class _JsonBuffer:
    """What arrays and objects share: one buffer, the count of members, the closing bracket."""

    __slots__ = ("_buf", "_close", "_closed", "_count")
    _OPEN = b"["
    _CLOSE = b"]"

    def __init__(self, head: bytes = b"", tail: bytes = b"") -> None:
        self._buf = bytearray(head + self._OPEN)
        self._close = self._CLOSE + tail
        self._count = 0
        self._closed = False  # the closing bracket is in the buffer (``raw()`` was asked for)

    def __len__(self) -> int:
        return self._count

    def _open(self) -> bytearray:
        """The buffer, ready for one more member (a comma written if one came before)."""
        if self._closed:
            end = len(self._buf) - len(self._close)
            try:
                del self._buf[end:]
            except BufferError:  # a Raw handed out still reads the closed buffer: keep it
                self._buf = self._buf[:end]
            self._closed = False
        buf = self._buf
        if self._count:
            buf += b","
        self._count += 1
        return buf

    def raw(self) -> msgspec.Raw:
        """The value so far, as one ``msgspec.Raw`` over the buffer (later additions do not
        change it)."""
        if not self._closed:
            self._buf += self._close
            self._closed = True
        return msgspec.Raw(self._buf)


class JsonArray(_JsonBuffer):
    """``[item, item, …]`` as bytes; ``len`` is the number of items. ``head`` and ``tail`` are
    JSON written around the array (the array as the last member of an object)."""

    __slots__ = ()

    def append(self, item: Any) -> None:
        """Encode ``item`` (as ``msgspec.json.encode`` would) onto the end."""
        # Encoded first, so an item that cannot be encoded adds nothing; not ``encode_into``:
        # growing the buffer itself, msgspec left ~40% more of it resident than was written.
        data = _ENCODER.encode(item)
        if self._count and not self._closed:  # (the usual case, without a method call)
            self._count += 1
            self._buf += b"," + data
            return
        buf = self._open()
        buf += data

    def extend(self, items: list[Any]) -> None:
        """``append`` each of ``items``, in one encode (all of them or, if one cannot be
        encoded, none)."""
        if not items:
            return
        data = _ENCODER.encode(items)
        buf = self._open()  # (counts one item)
        buf += memoryview(data)[1:-1]
        self._count += len(items) - 1


class JsonObject(_JsonBuffer):
    """``{"key": value, …}`` as bytes, members in the order added. Keys are not checked for
    repeats: the caller adds each key once (a dict would keep the first place, the last value)."""

    __slots__ = ()
    _OPEN = b"{"
    _CLOSE = b"}"

    def add(self, key: str, value: Any) -> None:
        """Encode the member ``key: value`` onto the end."""
        name, data = _ENCODER.encode(key), _ENCODER.encode(value)
        buf = self._open()
        buf += name
        buf += b":"
        buf += data
