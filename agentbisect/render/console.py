"""Where output goes: one stdout console for results, one stderr console for everything else."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING

import msgspec
from msgspec import Raw

from agentbisect.render.safetext import escape_json_for_terminal, scrub

if TYPE_CHECKING:
    from rich.console import Console

_ENCODER = msgspec.json.Encoder()


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
    """Write JSON (UTF-8 bytes) to stdout: byte for byte in a pipe or a file; on a terminal, with
    C1, DEL and bidi controls inside strings written as ``\\uXXXX`` escapes (the same value)."""
    if stdout_is_terminal():
        data = escape_json_for_terminal(data)
    _write(data)


def write_pieces(pieces: Iterable[bytes | Raw]) -> None:
    """Write pieces of one output (a recording's events as recorded) to stdout. In a pipe or a
    file they stream straight out, never joined (that made copies of what may be most of a 30 MB
    recording); on a terminal they are joined, so ``write_bytes`` can escape controls."""
    buf = _binary_stdout()
    if buf is None or stdout_is_terminal():
        write_bytes(b"".join(bytes(p) for p in pieces))
    else:
        sys.stdout.flush()
        buf.writelines(pieces)


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
