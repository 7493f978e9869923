"""``genuiRowsInRange``: keep the rows created within an inclusive UTC day range (spec §2)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC
from typing import Any, TypeVar

from agentbisect.core.options import FROM, TO
from agentbisect.genui.columns import day_number

T = TypeVar("T")


def check_range(from_day: str | None, to_day: str | None) -> None:
    """Raise ``ValueError`` if a bound is not ``YYYY-MM-DD`` or ``from_day`` is after ``to_day``."""
    low = day_number(from_day) if from_day is not None else None
    high = day_number(to_day) if to_day is not None else None
    if low is not None and high is not None and low > high:
        raise ValueError(f"{FROM.flag} {from_day} is later than {TO.flag} {to_day}")


def row_day(row: Any) -> str:
    """``day(createdAt)``: the row's UTC calendar day as ``YYYY-MM-DD``."""
    return str(row.created_at.astimezone(UTC).date().isoformat())


def rows_in_range(
    rows: Iterable[T], from_day: str | None = None, to_day: str | None = None
) -> list[T]:
    """Rows with ``from_day <= day(createdAt) <= to_day``; a ``None`` bound sets no limit.

    Bounds are ``YYYY-MM-DD``; they compare as strings, exactly as the upstream read-model does.
    """
    check_range(from_day, to_day)
    return [
        row
        for row in rows
        if (from_day is None or from_day <= row_day(row))
        and (to_day is None or row_day(row) <= to_day)
    ]


__all__ = ["check_range", "row_day", "rows_in_range"]
