"""Read one input's bytes with a ceiling: a path, ``-`` (stdin) or a device, gzip inflated as a stream.

Every command reads its inputs here, so a missing, unreadable, empty, corrupt-gzip, oversized or
non-JSON input gets the same one-line error everywhere. Two guards keep hostile inputs cheap:

* the first bytes must be able to begin text: ``/dev/zero``, a gzip of zeros, a UTF-16 file or
  binary junk is refused after one chunk, not after reading or inflating gigabytes;
* no input may be (or inflate to) more than ``AFP_MAX_INPUT_BYTES`` bytes (default 2 GiB).

and a stream (gzip as it inflates, stdin, a FIFO) drops long runs of blank space between JSON
tokens as they arrive, so blank padding costs time, not memory.

A UTF-8 byte-order mark is accepted and dropped; UTF-16 and UTF-32 are named in the error.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import zlib
from collections.abc import Callable

from agentbisect.core.budget import check_values
from agentbisect.core.errors import InputError, UsageError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
MAX_INPUT_ENV = "AFP_MAX_INPUT_BYTES"
DEFAULT_MAX_INPUT = 2 << 30  # 2 GiB
# Bytes that can begin a JSON value (JSON Lines begin with one too).
JSON_START = frozenset(b'{["-0123456789tfn')
_WS = b" \t\r\n"
_CHUNK = 1 << 16  # first look, and the unit of streamed reads
_OUT_STEP = 1 << 22  # inflate at most this much per step, so the cap is checked as we go
_MIN_BLANKS = 1 << 12  # a piece of only blanks this long is dropped (a pipe's reads can be short)
# Order matters: the UTF-32 LE mark starts with the UTF-16 LE one.
_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)


def parse_size(env: str, default: int) -> int:
    """A byte count from the environment variable ``env`` (``500M``, ``4G``, ``1048576``)."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return default
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    text = raw.lower().removesuffix("ib").removesuffix("b")
    scale = units.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in units else text
    try:
        value = int(digits) * scale
    except ValueError:
        value = 0
    if value <= 0:
        raise UsageError(f"{env}={raw!r}: expected a positive number of bytes (e.g. 4G, 500M)")
    return value


def input_cap() -> int:
    """The ceiling on one input's (decompressed) size: ``AFP_MAX_INPUT_BYTES`` or 2 GiB."""
    return parse_size(MAX_INPUT_ENV, DEFAULT_MAX_INPUT)


def too_large_message(name: str) -> str:
    """What afp says when reading ``name`` ran out of memory (a ``MemoryError`` anywhere)."""
    return (
        f"input too large to hold in memory: {name} (afp ran out of memory reading it; "
        f"give it more memory, or set {MAX_INPUT_ENV} to refuse such inputs sooner)"
    )


def describe_size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


def _too_big(name: str, cap: int, inflated: bool) -> InputError:
    verb = "inflates to" if inflated else "is"
    return InputError(
        name,
        f"{verb} more than {describe_size(cap)}, the input cap "
        f"(set {MAX_INPUT_ENV} to read bigger inputs, e.g. {MAX_INPUT_ENV}=8G)",
    )


_NUL_PATTERNS: dict[tuple[bool, ...], str] = {
    (True, True, True, False): "UTF-32 BE",
    (False, True, True, True): "UTF-32 LE",
    (True, False, True, False): "UTF-16 BE",
    (False, True, False, True): "UTF-16 LE",
}


def encoding_problem(head: bytes) -> str | None:
    """The name of a UTF-16/32 encoding ``head`` is written in, or ``None``."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc
    # Without a mark: the pattern of NUL bytes in the first four tells the encoding of ASCII text.
    return _NUL_PATTERNS.get(tuple(b == 0 for b in head[:4])) if len(head) >= 4 else None


def _cannot_begin_text(c: int) -> bool:
    """A first byte no UTF-8 text (JSON, JSON Lines or an importer's text format) starts with:
    a control character other than whitespace, DEL, a UTF-8 continuation byte or an invalid one."""
    return c < 0x20 or c == 0x7F or 0x80 <= c < 0xC2 or c >= 0xF5


def check_start(name: str, head: bytes, what: str) -> bool:
    """Raise ``InputError`` if ``head`` cannot begin an input; ``False`` while still undecided.

    ``head`` is the input's first bytes (a UTF-8 BOM included, if any). What cannot begin any
    input afp reads is refused here, before the rest is read or inflated: UTF-16/32 text (named)
    and binary data. Text that is not JSON goes on, because an importer's format need not be JSON
    (the importers, or the JSON decoder, then say what is wrong with it).
    """
    head = head.removeprefix(UTF8_BOM)
    enc = encoding_problem(head)
    if enc is not None:
        raise InputError(
            name,
            f"the text is {enc}; afp reads UTF-8 (a byte-order mark is fine): convert it first, "
            f"e.g. iconv -f {enc.replace(' ', '')} -t UTF-8",
        )
    rest = head.lstrip(_WS)
    if not rest:
        return False
    c = rest[0]
    if c in JSON_START or not _cannot_begin_text(c):
        return True
    raise InputError(
        name, f"not valid JSON: binary data (it begins with byte 0x{c:02x}); expected {what}"
    )


def check_text_start(name: str, head: bytes, what: str) -> bool:
    """Like ``check_start`` for plain UTF-8 text: refuse UTF-16/32 and binary data (NUL bytes)."""
    head = head.removeprefix(UTF8_BOM)
    enc = encoding_problem(head)
    if enc is not None:
        raise InputError(name, f"the text is {enc}; expected {what} in UTF-8")
    if b"\x00" in head:
        raise InputError(name, f"binary data (it holds NUL bytes); expected {what}")
    return len(head) >= 4


Check = Callable[[str, bytes, str], bool]


class _StartCheck:
    """Feeds ``check_start`` the first bytes of a stream, then each piece while only blanks came."""

    def __init__(self, name: str, what: str, check: Check) -> None:
        self.name, self.what, self.check = name, what, check
        self.head = b""
        self.decided = False

    def feed(self, piece: bytes) -> None:
        if self.decided:
            return
        if len(self.head) < 4:  # the first bytes carry a byte-order mark or UTF-16 pattern
            self.head += piece[:_CHUNK]
            if len(self.head) >= 4:
                self.decided = self.check(self.name, self.head, self.what)
        else:  # only blanks so far: the first other byte decides
            self.decided = self.check(self.name, piece[:_CHUNK], self.what)


# Quotes and escapes, to tell whether a point of the input is inside a string: an escape (and
# a backslash ending a piece, escaping the next piece's first byte) or a quote.
_STRING_EDGES = re.compile(rb'\\.|\\\Z|"', re.S)


class _Blanks:
    """Keeps a stream's pieces, dropping long runs of blank space between JSON tokens as they
    arrive: 1.9 GB of spaces padding a trace, gzip'd to 1.9 MB, was held (twice, while joined)
    by every command. A piece of only blanks outside a string becomes one blank (a newline if
    it held one, so JSON Lines keep their lines); inside a string (spaces are string content)
    it is kept. Whether a point is inside a string is worked out only when a blank piece comes,
    from where the last such question left off, so ordinary input never pays for it."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self._scanned = 0  # pieces whose quotes are counted into the state below
        self._in_string = False
        self._escaped = False  # the last piece ended in a backslash inside a string
        self._dropping = False  # the last piece kept is the blank standing for dropped ones

    def add(self, piece: bytes) -> None:
        if len(piece) >= _MIN_BLANKS and not piece.strip(_WS) and not self._inside_string():
            newline = b"\n" in piece
            if not self._dropping:
                self.pieces.append(b"\n" if newline else b" ")
                self._dropping = True
            elif newline:
                self.pieces[-1] = b"\n"
            self._scanned = len(self.pieces)  # (blanks: no quotes to count)
            return
        self._dropping = False
        self.pieces.append(piece)

    def _inside_string(self) -> bool:
        for piece in self.pieces[self._scanned :]:
            at = 0
            if self._escaped:
                at, self._escaped = 1, False
            if b"\\" not in piece:
                self._in_string ^= bool(piece.count(b'"', at) & 1)
                continue
            for m in _STRING_EDGES.finditer(piece, at):
                edge = m.group()
                if edge == b'"':
                    self._in_string = not self._in_string
                elif len(edge) == 1:  # a backslash ending the piece
                    self._escaped = True
        self._scanned = len(self.pieces)
        return self._in_string


def _gunzip(name: str, comp: bytes | memoryview, cap: int, what: str, check: Check) -> bytes:
    """Inflate every gzip member of ``comp`` in bounded steps, checking the start and the cap."""
    out = _Blanks()
    total = 0
    start = _StartCheck(name, what, check)
    view = memoryview(comp)
    try:
        while True:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            data: bytes | memoryview = view
            while True:
                piece = d.decompress(data, _OUT_STEP)
                if piece:
                    total += len(piece)
                    if total > cap:
                        raise _too_big(name, cap, inflated=True)
                    out.add(piece)
                    start.feed(piece)
                if d.eof:
                    break
                data = d.unconsumed_tail
                if not data and not piece:
                    raise InputError(name, "gzip data is corrupt or truncated (it ends early)")
            rest = d.unused_data
            if not rest or not rest.strip(b"\x00"):
                break  # gzip allows zero padding after the last member
            if rest[:2] != GZIP_MAGIC:
                raise InputError(name, "gzip data is corrupt (junk after the compressed data)")
            view = memoryview(rest)
    except zlib.error as exc:
        raise InputError(name, f"gzip data is corrupt or truncated ({exc})") from None
    return b"".join(out.pieces)


def _read_stream(name: str, fh: object, cap: int, what: str, check: Check) -> bytes:
    """Read a pipe or device in chunks: the first chunk is checked before reading on."""
    read = fh.read  # type: ignore[attr-defined]
    chunks = _Blanks()
    total = 0
    start = _StartCheck(name, what, check)
    gzipped = False
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        if not total and chunk[:2] == GZIP_MAGIC:
            start.decided = gzipped = True  # a compressed stream is judged as it inflates
        total += len(chunk)
        if gzipped:  # (blanks in compressed data are no blanks)
            chunks.pieces.append(chunk)
        else:
            chunks.add(chunk)
        start.feed(chunk)
        if total > cap:
            raise _too_big(name, cap, inflated=False)
    return b"".join(chunks.pieces)


def read_input(
    path: str,
    what: str = "a JSON recording",
    *,
    allow_empty: bool = False,
    text: bool = False,
    whole: bool = True,
) -> tuple[str, bytes, bool]:
    """Return ``(display name, decompressed bytes, was_gzip)``; ``-`` reads stdin.

    ``what`` names what was expected, for the errors. The bytes never start with a UTF-8 BOM.
    ``text``: the input is UTF-8 text, not JSON (only binary data and UTF-16/32 are refused).
    ``whole``: JSON the caller may decode whole, so held to the element budget (``core.budget``);
    a reader that decodes in bounded pieces checks the parts it decodes whole itself.
    """
    check = check_text_start if text else check_start
    name = "<stdin>" if path == "-" else path
    cap = input_cap()
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None) if sys.stdin is not None else None
            if stream is None:
                raise InputError(name, f"stdin is closed; expected {what} (give a file path)")
            data = _read_stream(name, stream, cap, what, check)
        else:
            if os.path.isdir(path):
                raise InputError(name, f"is a directory, expected {what}")
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if stat.S_ISREG(st.st_mode):
                    if st.st_size > cap:
                        raise _too_big(name, cap, inflated=False)
                    data = fh.read()  # sized by fstat: one allocation, no copy
                    if len(data) > cap:  # it grew while we read
                        raise _too_big(name, cap, inflated=False)
                else:
                    data = _read_stream(name, fh, cap, what, check)
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except PermissionError:
        raise InputError(name, "cannot read the file (permission denied)") from None
    except IsADirectoryError:
        raise InputError(name, f"is a directory, expected {what}") from None
    except OSError as exc:
        raise InputError(name, f"cannot read the file ({exc.strerror or exc})") from None
    except ValueError:  # a closed stdin
        raise InputError(name, f"stdin is closed; expected {what} (give a file path)") from None
    compressed = data[:2] == GZIP_MAGIC  # by magic bytes, not by extension
    if compressed:
        data = _gunzip(name, data, cap, what, check)
    else:
        check(name, data[:_CHUNK], what)
    if data[:3] == UTF8_BOM:
        data = data[3:]
    # isspace() scans without copying (strip() would copy a whole large file ending in "\n").
    if not allow_empty and (not data or data.isspace()):
        raise InputError(name, f"file is empty, expected {what}")
    if whole and not text:
        check_values(name, data, what)
    return name, data, compressed
