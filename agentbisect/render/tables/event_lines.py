"""The terminal view of the domain-event stream: one line per event, columns fitted to the width.

Rows are written as they are made (no table is built first), so a 35 MB run shows its first
screen at once. Columns are chosen by the terminal width: ``#``, ``type`` and ``summary``
always; ``stage``, ``commit`` and ``path`` join, in that order, while the summary keeps at least
``_MIN_SUMMARY`` cells. Every cell is scrubbed of control and escape sequences and cut with an
ellipsis to its cell width (wide characters counted as two), so no line wraps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO

from msgspec import UNSET

from agentbisect.render.safetext import clean
from agentbisect.schema.events import DomainEvent

_GAP = "  "
_MIN_SUMMARY = 30
_CAPS = {"type": 20, "stage": 22, "commit": 8, "path": 24}
# Stage ids and paths end in what tells them apart ("…/compose#8"): cut those from the left.
_KEEP_TAIL = frozenset({"stage", "path"})
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


@dataclass(frozen=True)
class Column:
    name: str
    width: int
    right: bool = False
    dim: bool = False


def _cells(s: str) -> int:
    if s.isascii():
        return len(s)
    from rich.cells import cell_len

    return cell_len(s)


def fit(text: str, width: int, *, keep_tail: bool = False) -> str:
    """``text`` cut to at most ``width`` terminal cells, with an ellipsis where it was cut."""
    if _cells(text) <= width:
        return text
    if width <= 0:
        return ""
    if keep_tail:
        return "…" + fit(text[::-1], width - 1)[:-1][::-1] if width > 1 else "…"
    if text.isascii():
        return text[: width - 1] + "…"
    from rich.cells import set_cell_size

    return set_cell_size(text, width - 1).rstrip() + "…"


def _pad(text: str, col: Column) -> str:
    cut = fit(text, col.width, keep_tail=col.name in _KEEP_TAIL)
    space = " " * (col.width - _cells(cut))
    return space + cut if col.right else cut + space


def _stage(ev: DomainEvent) -> str:
    stage = getattr(ev, "runtimeStageId", None)
    return stage if isinstance(stage, str) else ""


def _commit(ev: DomainEvent) -> str:
    pos = getattr(ev, "commitIdxBefore", UNSET)
    return "" if pos is UNSET or pos is None else str(pos)


def _path(ev: DomainEvent) -> str:
    path = getattr(ev, "subflowPath", UNSET)
    return "/".join(str(p) for p in path[1:]) if isinstance(path, list) else ""


_CELL: dict[str, Callable[[DomainEvent], str]] = {
    "type": lambda ev: ev.type,
    "stage": _stage,
    "commit": _commit,
    "path": _path,
}


def choose_columns(width: int, total: int, events: Sequence[DomainEvent]) -> list[Column]:
    """The columns that fit ``width`` cells, each as wide as its longest value (capped).

    ``events`` are the rows to show: one cheap pass over them sizes the optional columns.
    """
    need = dict.fromkeys(_CAPS, 0)
    for ev in events:
        for name in _CAPS:
            n = len(_CELL[name](ev))
            if n > need[name]:
                need[name] = n
    widths = {name: min(max(need[name], len(name)), cap) for name, cap in _CAPS.items()}
    index = Column("#", max(len(str(max(total - 1, 0))), 1), right=True, dim=True)
    cols = [index, Column("type", widths["type"])]
    for name in ("stage", "commit", "path"):
        if not need[name]:
            continue  # a column with nothing in it only costs width
        used = sum(c.width for c in cols) + len(_GAP) * len(cols)
        if width - used - widths[name] - len(_GAP) >= _MIN_SUMMARY:
            cols.append(Column(name, widths[name], right=name == "commit", dim=name == "path"))
    order = ["#", "commit", "type", "stage", "path"]
    cols.sort(key=lambda c: order.index(c.name))
    used = sum(c.width for c in cols) + len(_GAP) * len(cols)
    cols.append(Column("summary", max(width - used, 8)))
    return cols


def header_lines(title: str, cols: list[Column], width: int, color: bool) -> list[str]:
    head = _GAP.join(_pad(c.name, c) for c in cols).rstrip()
    if color:
        head = _BOLD + head + _RESET
    return [fit(clean(title), width), head]


def write_event_lines(
    out: IO[str],
    rows: Iterable[tuple[int, DomainEvent]],
    cols: list[Column],
    summarize: Callable[[DomainEvent], str],
    color: bool,
) -> None:
    """Write one line per event, each as soon as it is made."""
    last = cols[-1]
    fixed = cols[:-1]
    write = out.write
    for i, ev in rows:
        parts = []
        for c in fixed:
            value = str(i) if c.name == "#" else clean(_CELL[c.name](ev))
            cell = _pad(value, c)
            parts.append(_DIM + cell + _RESET if color and c.dim else cell)
        parts.append(fit(clean(summarize(ev)), last.width))
        write(_GAP.join(parts).rstrip() + "\n")
