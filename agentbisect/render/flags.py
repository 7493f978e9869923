"""The one rendering of honesty flags: ``⚠ [name] note`` — styled in tables, plain on stderr.

Every command's terminal output uses these (the bisect text rendering writes the same form,
which is upstream's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentbisect.core.honesty import HonestyFlag
from agentbisect.render.notes import note
from agentbisect.render.safetext import safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


def flag_line(f: HonestyFlag) -> str:
    return f"⚠ [{f.flag}] {f.note}"


def flag_text(f: HonestyFlag) -> Text:
    line = safe(f"⚠ [{f.flag}] ", "bold yellow")
    line.append_text(safe(f.note))
    return line


def print_flags(console: Console, flags: Sequence[HonestyFlag]) -> None:
    """One styled line per flag; nothing when there are none."""
    for f in flags:
        console.print(flag_text(f))


def stderr_flags(flags: Sequence[HonestyFlag]) -> None:
    """One plain line per flag on stderr (when stdout carries a machine-readable stream), held
    until the command ends (``render.notes``)."""
    for f in flags:
        note(flag_line(f))
