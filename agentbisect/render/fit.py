"""Terminal tables that fit the terminal's width without breaking a word.

rich narrows the widest wrappable column first, whatever is in it: at 80 columns it folded
``get_refund_policy`` and ``execute_tool:get_refund_policy#5`` mid-word while other columns
had room to give. Here each column's minimum is its longest word (a whole cell for one-line
columns: ids, numbers), widths are set from those minimums, and when even the minimums do not
fit, the least needed columns are left out — the caller says which. Only a single word wider
than the whole terminal still folds (there is no whole-word way to show it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from agentbisect.core.options import JSON

Cell = str | Text
JSON_HAS_THEM = f"{JSON.flag} has them"  # where the columns left out are, by default


@dataclass(frozen=True)
class Col:
    """One column: ``wrap`` lets a cell wrap between words (never inside one); a one-line
    column (ids, numbers, scores) keeps each cell whole. ``drop`` orders the columns left out
    when the table cannot fit: 1 first, then 2, …; 0 never."""

    header: str
    justify: str = "left"
    wrap: bool = False
    drop: int = 0
    style: str | None = None
    breaks: str = ""  # a cell may also break after these (the "/" of a subflow path)
    # Columns of one group fold their headers together: when one header has to go over two
    # lines, every header of the group does, so a pair such as "tok in" / "tok out" still
    # reads as a pair (one folded beside one whole read as two different things).
    group: str = ""


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _pieces(text: str, breaks: str) -> list[str]:
    """``text`` cut after each break character (the pieces keep it): the units a line may end
    with, besides whitespace."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in breaks:
            out.append(text[start : i + 1])
            start = i + 1
    if start < len(text):
        out.append(text[start:])
    return out


def _longest_word(text: str, breaks: str = "") -> int:
    words = text.split()
    if breaks:
        words = [p for w in words for p in _pieces(w, breaks)]
    return max((cell_len(w) for w in words), default=0)


def _prewrap(cell: Cell, width: int, breaks: str) -> Cell:
    """Break a cell's long words after its break characters so each line fits ``width``
    (rich wraps only at spaces: it would fold ``step-research/researcher`` mid-word)."""
    text = cell if isinstance(cell, Text) else Text(cell)
    plain = text.plain
    if cell_len(plain) <= width or not any(ch in plain for ch in breaks):
        return cell
    cuts: list[int] = []
    line, at = 0, 0
    for word in re.finditer(r"\S+|\s+", plain):
        chunk = word.group()
        if chunk.isspace():
            line += cell_len(chunk)
            at = word.end()
            continue
        for piece in _pieces(chunk, breaks):
            n = cell_len(piece)
            if line and line + n > width:
                cuts.append(at)
                line = 0
            line += n
            at += len(piece)
    if not cuts:
        return cell
    lines = list(text.divide(cuts))
    for ln in lines:
        ln.rstrip()  # (in place) the space a line was cut at
    return Text("\n").join(lines)


def _extra(n: int, pad_edge: bool) -> int:
    """Borders and padding of a boxed table with n columns (padding one cell each side)."""
    return (n + 1) + 2 * n - (0 if pad_edge else 2)


def column_widths(
    cols: Sequence[Col], rows: Sequence[Sequence[Cell]], width: int, pad_edge: bool = False
) -> tuple[list[int], list[int | None]]:
    """The columns kept (indexes) and a width for each column (None: left out).

    Widths never go below a column's longest word unless one word is wider than all the room
    there is: then only the widest column gives (and folds it). The total, borders included, is
    at most ``width`` whenever that is possible at all.
    """
    n = len(cols)
    lo: list[int] = []
    hi: list[int] = []
    for i, c in enumerate(cols):
        cells = [_plain(r[i]) for r in rows]
        full = max([cell_len(c.header), *(cell_len(x) for x in cells)])
        if c.wrap or c.breaks:
            least = max([_longest_word(c.header), *(_longest_word(x, c.breaks) for x in cells)])
        else:
            least = full
        lo.append(max(1, least))
        hi.append(max(1, full))
    kept = list(range(n))

    def need(idx: list[int]) -> int:
        return sum(lo[i] for i in idx) + _extra(len(idx), pad_edge)

    while need(kept) > width:
        droppable = [i for i in kept if cols[i].drop > 0]
        if not droppable:
            break
        kept.remove(min(droppable, key=lambda i: (cols[i].drop, -i)))
    widths = {i: hi[i] for i in kept}
    excess = sum(widths.values()) + _extra(len(kept), pad_edge) - width
    while excess > 0:
        slack = [i for i in kept if (cols[i].wrap or cols[i].breaks) and widths[i] > lo[i]]
        if not slack:
            break
        # the columns that would be left out first give up their room first, widest first
        widest = max(slack, key=lambda i: (cols[i].drop > 0, -cols[i].drop, widths[i], i))
        widths[widest] -= 1
        excess -= 1
    # Still too wide: a single word wider than the room left (an absurdly long tool name). Only
    # the widest column gives, folding that word; the others (kinds, scores) stay whole, where
    # rich would narrow every column evenly.
    while excess > 0:
        widest = max(kept, key=lambda i: (widths[i], i))
        if widths[widest] <= 1:
            break
        widths[widest] -= 1
        excess -= 1
    return kept, [widths.get(i) for i in range(n)]


def fitted_table(
    cols: Sequence[Col],
    rows: Sequence[Sequence[Cell]],
    width: int,
    *,
    sections: Sequence[int] = (),
    **table_args: Any,
) -> tuple[Table, list[str]]:
    """A rich table of ``rows`` at most ``width`` wide, and the headers of columns left out.

    ``sections``: row indexes after which a section rule is drawn.
    """
    # A cell of padding inside the outer border reads better; give it up before a column.
    pad_edge = True
    kept, widths = column_widths(cols, rows, width, pad_edge)
    if len(kept) < len(cols):
        tight = column_widths(cols, rows, width, False)
        if len(tight[0]) > len(kept):
            pad_edge, (kept, widths) = False, tight
    table = Table(pad_edge=pad_edge, **table_args)
    folded = {
        cols[i].group for i in kept if cols[i].group and (widths[i] or 0) < cell_len(cols[i].header)
    }
    for i in kept:
        c = cols[i]
        full = max([cell_len(c.header), *(cell_len(_plain(r[i])) for r in rows)])
        table.add_column(
            c.header.replace(" ", "\n") if c.group in folded else c.header,
            justify=c.justify,  # type: ignore[arg-type]
            style=c.style,
            width=widths[i],
            # one line unless even the column's longest word had no room (then it folds)
            no_wrap=not (c.wrap or c.breaks) and (widths[i] or 0) >= full,
            # Only a word wider than the whole terminal meets this: fold it rather than lose it.
            overflow="fold",
        )
    after = set(sections)
    for n, r in enumerate(rows):
        cells = [
            _prewrap(r[i], widths[i] or 1, cols[i].breaks) if cols[i].breaks else r[i] for i in kept
        ]
        table.add_row(*cells, end_section=n in after)
    return table, [cols[i].header for i in range(len(cols)) if i not in kept]


def left_out_note(headers: Sequence[str], width: int, where: str = JSON_HAS_THEM) -> str | None:
    """The line that says which columns did not fit, and where they are (None when all fit)."""
    if not headers:
        return None
    what = ", ".join(h for h in headers if h) or "a column"
    return f"not shown at {width} columns: {what} ({where})"


def print_fitted(
    con: Any,
    cols: Sequence[Col],
    rows: Sequence[Sequence[Cell]],
    where: str = JSON_HAS_THEM,
    **table_args: Any,
) -> None:
    """Print ``fitted_table`` on ``con`` at its width, then the note on any columns left out."""
    table, left_out = fitted_table(cols, rows, con.width, **table_args)
    con.print(table)
    note = left_out_note(left_out, con.width, where)
    if note is not None:
        con.print(Text(note, style="dim"))
