"""Where output goes: one stdout console for results, one stderr console for everything else."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING

import msgspec
from msgspec import Raw

from agentbisect.render.safetext import escape_json_for_terminal, scrub

if TYPE_CHECKING:
    from rich.console import Console

_ENCODER = msgspec.json.Encoder()
_BATCH = 1 << 20  # bytes of streamed output escaped at a time


def _stdout_open() -> None:
    # `afp … >&-` starts Python with no stdout at all; say so, as a write error would.
    if sys.stdout is None:
        raise OSError(errno.EBADF, "stdout is closed")


def stdout_console() -> Console:
    """A console on the *current* ``sys.stdout`` (tests swap it), never interpreting markup.

    When the reader leaves (``afp aggregate X | head -1``) rich would exit with status 1, which
    afp reserves for tripped gates; this console raises ``BrokenPipeError`` instead, which the
    CLI turns into a quiet exit 0.
    """
    from rich.console import Console  # only table output pays for rich

    _stdout_open()

    class _PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            silence_stdout()
            raise BrokenPipeError

    return _PipeConsole(file=sys.stdout, markup=False, highlight=False, emoji=False)


def stderr_console() -> Console:
    """A console on the current ``sys.stderr`` for warnings, progress and errors."""
    from rich.console import Console

    return Console(file=sys.stderr, markup=False, highlight=False, emoji=False)


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return stream.isatty()  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # no stream (None), or a closed one
        return False


def stdout_is_terminal() -> bool:
    return _isatty(sys.stdout)


def stderr_is_terminal() -> bool:
    return _isatty(sys.stderr)


def _binary_stdout():
    return getattr(sys.stdout, "buffer", None)


def write_bytes(data: bytes) -> None:
    """Write JSON (UTF-8 bytes) to stdout with C1, DEL and bidi controls inside strings written as
    ``\\uXXXX`` escapes (the same value): a pipe often ends on a terminal too (``| less -R``,
    ``| tee``), so it gets what a terminal gets."""
    _write(escape_json_for_terminal(data))


def write_pieces(pieces: Iterable[bytes | Raw]) -> None:
    """Write pieces of one output (a recording's events as recorded) to stdout, escaped as
    ``write_bytes`` does and streamed out in batches, never joined whole (that made copies of what
    may be most of a 30 MB recording)."""
    buf = _binary_stdout()
    if buf is None:
        write_bytes(b"".join(bytes(p) for p in pieces))
    else:
        sys.stdout.flush()
        buf.writelines(_escaped_batches(pieces))


def _escaped_batches(pieces: Iterable[bytes | Raw]) -> Iterator[bytes]:
    """``pieces`` escaped in batches of about 1 MiB: one scan per piece cost ~5 µs each (a
    million events), one scan of everything joined a copy of it. A piece is a whole JSON value
    or punctuation, so no escaped character spans two batches."""
    batch: list[bytes | Raw] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _BATCH:
            yield escape_json_for_terminal(b"".join(batch))
            batch, size = [], 0
    if batch:
        yield escape_json_for_terminal(b"".join(batch))


def write_text(text: str) -> None:
    """Write human-facing plain text (the upstream text report) to stdout, scrubbed."""
    _write(scrub(text, keep_newlines=True).encode("utf-8", "surrogatepass"))


def _write(data: bytes) -> None:
    """Raw bytes to stdout, through the text layer when there is no buffer."""
    _stdout_open()
    buf = _binary_stdout()
    if buf is not None:
        sys.stdout.flush()
        buf.write(data)
    else:
        sys.stdout.write(data.decode("utf-8"))


def write_json(obj: object, *, indent: int = 2) -> None:
    """Write one JSON document (msgspec-encodable) and a newline to stdout."""
    data = _ENCODER.encode(obj)
    if indent:
        data = msgspec.json.format(data, indent=indent)
    write_bytes(data + b"\n")


def flush_stdout() -> None:
    buf = _binary_stdout()
    if buf is not None:
        buf.flush()
    if sys.stdout is not None:
        sys.stdout.flush()


def silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so the interpreter's final flush cannot complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
