"""``genui_stats``: rows from a file or database → dedupe (last wins) → day range → ``GenuiStats``.

The whole pipeline of ``afp genui-stats`` as one library call; inconsistent rows (spec §1) are
counted by validity and reported as warnings on the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentbisect.results import GenuiResult

if TYPE_CHECKING:
    from agentbisect.genui.columns import Columns

MAX_WARNINGS = 20  # one line per inconsistent row, up to this many, then a count


def read_columns(
    file: str | None, db: str | None = None, table: str | None = None, query: str | None = None
) -> tuple[str, Columns]:
    """``(source for messages, columns of every row)``, read chunk by chunk."""
    if db is not None:
        from agentbisect.genui.db import read_db_columns, redact

        return redact(db), read_db_columns(db, table, query)
    from agentbisect.genui.load import load_columns

    assert file is not None
    return load_columns(file)


def inconsistency_warnings(source: str, cols: Columns) -> list[str]:
    from agentbisect.genui.columns import describe_inconsistency, inconsistent

    bad = inconsistent(cols)
    out = [
        f"warning: {source}: toolCallId {cols.tool_call_id(i)!r}: "
        f"{describe_inconsistency(cols, i)} (kept; counted by validity)"
        for i in bad[:MAX_WARNINGS].tolist()
    ]
    if bad.size > MAX_WARNINGS:
        out.append(f"warning: {source}: … and {bad.size - MAX_WARNINGS} more inconsistent rows")
    return out


def genui_stats(
    file: str | None = None,
    *,
    db: str | None = None,
    table: str | None = None,
    query: str | None = None,
    from_day: str | None = None,
    to_day: str | None = None,
    scrub: bool = False,
) -> GenuiResult:
    """GenuiStats of the rows in ``file`` (or the database ``db``), deduplicated and in range."""
    from agentbisect.genui.columns import dedupe_last_wins, range_mask
    from agentbisect.genui.summary import summarize_columns

    source, cols = read_columns(file, db, table, query)
    cols = cols.take(dedupe_last_wins(cols))
    if from_day is not None or to_day is not None:
        cols = cols.take(range_mask(cols, from_day, to_day))
    warnings = inconsistency_warnings(source, cols)
    stats = summarize_columns(cols, scrub=scrub)
    return GenuiResult(stats, source, from_day, to_day, warnings)
