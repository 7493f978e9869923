"""Render honesty flags and warnings the same way in every command's terminal output."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from agentbisect.render.safetext import safe


def print_flags(console: Console, flags: Sequence[object], title: str = "honesty") -> None:
    """One line per flag: ``! name — note``; nothing when there are none."""
    for f in flags:
        line = Text("! ", style="bold yellow")
        line.append(safe(getattr(f, "flag", ""), "bold yellow"))
        line.append(" — ")
        line.append(safe(getattr(f, "note", "")))
        console.print(line)
