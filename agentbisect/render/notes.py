"""Warnings and notes on stderr, held until the command ends, so that an error after them keeps the
whole message to three lines (issue 10).

A command's warnings (honesty flags beside a JSON stream, inconsistent genui rows, the similarity
comparator's advice, "nothing matched") are printed when it ends. When it ends in an error — a
tripped gate, a failed write — at most two warning lines come before the error line: the first
warning and a count of the rest. Outside a held command (the library, tests calling a renderer)
a note is written at once.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from agentbisect.render.console import stderr_is_terminal
from agentbisect.render.safetext import clean

# The whole message when an error follows warnings: at most this many lines, the error's included.
MAX_ERROR_LINES = 3

_held: list[str] | None = None


def note(line: str) -> None:
    """One ``afp:`` line on stderr: now, or when the held command ends."""
    text = clean("afp: " + line)
    if _held is not None:
        _held.append(text)
    else:
        _write([text])


def error(message: str) -> None:
    """The command's error line, after what was held (cut to fit the three-line rule)."""
    global _held
    pending, _held = (_held or []), None
    _write([*compact(pending, MAX_ERROR_LINES - 1), clean("afp: " + message)])


def compact(lines: list[str], room: int) -> list[str]:
    """``lines`` in at most ``room`` lines: the first ones, then a count of the rest."""
    if len(lines) <= room:
        return lines
    if room <= 0:
        return []
    rest = len(lines) - (room - 1)
    return [
        *lines[: room - 1],
        f"afp: … and {rest} more warning line(s), held back before the error",
    ]


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Hold notes for one command; on a normal end print them all, on an error (raised through
    here, or said by ``error``) only what fits beside it."""
    global _held
    outer, _held = _held, []
    try:
        yield
    except BaseException as exc:
        pending, _held = (_held or []), outer
        if getattr(exc, "exit_code", getattr(exc, "code", 1)) in (0, None):
            _write(pending)  # a quiet exit (the reader left a pipe): not an error
        else:  # an error line follows (the caller's): leave it room
            _write(compact(pending, MAX_ERROR_LINES - 1))
        raise
    pending, _held = (_held or []), outer
    _write(pending)


def wrapped(line: str, width: int) -> str:
    """``line`` broken between words to ``width`` columns, the rest indented two spaces (a
    terminal would cut it mid-word); a word longer than a line stays whole."""
    import textwrap

    return textwrap.fill(
        line,
        width=max(width, 20),
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )


def _write(lines: list[str]) -> None:
    if not lines:
        return
    try:
        if stderr_is_terminal():
            import shutil

            width = shutil.get_terminal_size((80, 24)).columns
            lines = [wrapped(line, width) for line in lines]
        sys.stderr.write("".join(line + "\n" for line in lines))
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nowhere left to say it
        pass
