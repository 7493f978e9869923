"""Rows → numpy columns, plus the row-level passes that run before summarising: dedupe, range.

Extraction is one C-level ``map`` per field (no Python loop body). String fields are not copied:
what the statistics need from them is identity, so they become 64-bit ``hash`` codes, and the few
strings that reach the output are read back from a representative row.

Hash codes: Python's ``str`` hash is a per-process keyed SipHash, so two *different* values merge
only by a chance of about ``U²/2⁶⁵`` for ``U`` distinct values (≈ 10⁻⁹ for a million run ids) and
cannot be provoked by crafted input. The one place where a merge would drop data — dedupe by
``toolCallId`` — compares the actual strings of every colliding pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, timedelta
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

DAY_US = 86_400_000_000
EPOCH_DAY = date(1970, 1, 1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
VALIDITY_CODES = {"first_try": 0, "retried": 1, "failed": 2}
FIRST_TRY, RETRIED, FAILED = 0, 1, 2


def _ints(rows: Sequence[Any], name: str) -> IntArray:
    return np.fromiter(map(attrgetter(name), rows), np.int64, len(rows))


def _optional_floats(rows: Sequence[Any], name: str) -> FloatArray:
    # None (absent/null) becomes NaN; the schema rejects NaN in the input, so NaN means absent.
    return np.array(list(map(attrgetter(name), rows)), dtype=np.float64).reshape(len(rows))


def _hashes(rows: Sequence[Any], *names: str) -> IntArray:
    return np.fromiter(map(hash, map(attrgetter(*names), rows)), np.int64, len(rows))


def _timestamps_us(rows: Sequence[Any]) -> IntArray:
    # datetime.timestamp() is exact to well under a microsecond for any date this century
    # (float64 spacing at 2e9 s is 2.4e-7 s), so rounding recovers the recorded microseconds.
    seconds = np.fromiter(
        map(datetime.timestamp, map(attrgetter("created_at"), rows)), np.float64, len(rows)
    )
    return np.rint(seconds * 1e6).astype(np.int64)


@dataclass(frozen=True, slots=True)
class Columns:
    """The numbers of ``len(index)`` rows; ``rows[index[i]]`` is the object behind entry ``i``."""

    rows: Sequence[Any]
    index: IntArray
    id_hash: IntArray
    run_hash: IntArray
    key_hash: IntArray  # hash((toolName, modelId, mode)): the byToolModel key
    is_error: BoolArray  # outcome == "error"
    validity: IntArray  # FIRST_TRY / RETRIED / FAILED
    step: IntArray
    attempt: IntArray
    ts_us: IntArray  # createdAt, microseconds since the epoch (UTC)
    input_tokens: IntArray
    output_tokens: IntArray
    cost_usd: FloatArray  # NaN = absent
    first_frame_ms: FloatArray  # NaN = absent
    complete_frame_ms: FloatArray  # NaN = absent

    @classmethod
    def from_rows(cls, rows: Sequence[Any]) -> Columns:
        """Columns of ``rows`` (``GenuiCallRow``-like objects: snake_case attributes)."""
        n = len(rows)
        validity_hash = _hashes(rows, "validity")
        validity = np.full(n, FAILED, np.int64)
        validity[validity_hash == hash("first_try")] = FIRST_TRY
        validity[validity_hash == hash("retried")] = RETRIED
        return cls(
            rows=rows,
            index=np.arange(n, dtype=np.int64),
            id_hash=_hashes(rows, "tool_call_id"),
            run_hash=_hashes(rows, "run_id"),
            key_hash=_hashes(rows, "tool_name", "model_id", "mode"),
            is_error=_hashes(rows, "outcome") == hash("error"),
            validity=validity,
            step=_ints(rows, "step"),
            attempt=_ints(rows, "attempt"),
            ts_us=_timestamps_us(rows),
            input_tokens=_ints(rows, "input_tokens"),
            output_tokens=_ints(rows, "output_tokens"),
            cost_usd=_optional_floats(rows, "cost_usd"),
            first_frame_ms=_optional_floats(rows, "first_frame_ms"),
            complete_frame_ms=_optional_floats(rows, "complete_frame_ms"),
        )

    def __len__(self) -> int:
        return int(self.index.size)

    def take(self, selection: IntArray | BoolArray) -> Columns:
        """The entries picked by an index array or a boolean mask, rows shared."""
        values = {
            f.name: (
                getattr(self, f.name) if f.name == "rows" else getattr(self, f.name)[selection]
            )
            for f in fields(self)
        }
        return Columns(**values)

    def row(self, i: int) -> Any:
        """The row object behind entry ``i``."""
        return self.rows[int(self.index[i])]

    @property
    def day(self) -> IntArray:
        """UTC day number (days since 1970-01-01) of each entry."""
        return self.ts_us // DAY_US


def dedupe_last_wins(cols: Columns) -> IntArray:
    """Entry positions that survive dedupe by ``toolCallId``, the last in input order winning.

    Returned ascending, so the survivors keep their input order.
    """
    n = len(cols)
    order = np.argsort(cols.id_hash, kind="stable")
    sorted_hash = cols.id_hash[order]
    same_as_next = sorted_hash[1:] == sorted_hash[:-1]
    if not same_as_next.any():
        return np.arange(n, dtype=np.int64)
    # Entries whose hash is shared: settle them by their real ids (few; a hash collision between
    # different ids keeps both).
    shared = np.zeros(n, bool)
    shared[1:] |= same_as_next
    shared[:-1] |= same_as_next
    candidates = np.sort(order[shared])
    keep = np.ones(n, bool)
    keep[candidates] = False
    last: dict[str, int] = {}
    for pos in candidates.tolist():  # ascending: later positions overwrite earlier ones
        last[cols.row(pos).tool_call_id] = pos
    keep[list(last.values())] = True
    return np.flatnonzero(keep).astype(np.int64)


def day_number(day: str) -> int:
    """``YYYY-MM-DD`` → days since 1970-01-01. Raises ``ValueError`` on anything else."""
    if len(day) != 10 or day[4] != "-" or day[7] != "-":
        raise ValueError(f"not a YYYY-MM-DD day: {day!r}")
    return (date.fromisoformat(day) - EPOCH_DAY).days


def day_string(number: int) -> str:
    return (EPOCH_DAY + timedelta(days=int(number))).isoformat()


def range_mask(cols: Columns, from_day: str | None, to_day: str | None) -> BoolArray:
    """Spec §2: entries whose UTC day lies in ``[from_day, to_day]``; a ``None`` bound is open."""
    day = cols.day
    mask = np.ones(len(cols), bool)
    if from_day is not None:
        mask &= day >= day_number(from_day)
    if to_day is not None:
        mask &= day <= day_number(to_day)
    return mask


def iso_millis(ts_us: int) -> str:
    """JS ``Date.prototype.toISOString()`` of a microsecond timestamp (milliseconds kept)."""
    ms = int(ts_us) // 1000
    moment = _EPOCH + timedelta(milliseconds=ms)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}Z"


def inconsistent(cols: Columns) -> IntArray:
    """Entries whose outcome, validity and attempt disagree (spec §1: kept, warned about)."""
    ok_failed = ~cols.is_error & (cols.validity == FAILED)
    error_accepted = cols.is_error & (cols.validity != FAILED)
    first_try_late = (cols.validity == FIRST_TRY) & (cols.attempt > 1)
    return np.flatnonzero(ok_failed | error_accepted | first_try_late)


def describe_inconsistency(row: Any) -> str:
    """Why one row is inconsistent, for its warning."""
    problems = []
    if row.outcome == "ok" and row.validity == "failed":
        problems.append('outcome "ok" with validity "failed"')
    if row.outcome == "error" and row.validity != "failed":
        problems.append(f'outcome "error" with validity "{row.validity}"')
    if row.validity == "first_try" and row.attempt > 1:
        problems.append(f'validity "first_try" with attempt {row.attempt}')
    return "; ".join(problems)


__all__ = [
    "DAY_US",
    "FAILED",
    "FIRST_TRY",
    "RETRIED",
    "Columns",
    "day_number",
    "day_string",
    "dedupe_last_wins",
    "describe_inconsistency",
    "inconsistent",
    "iso_millis",
    "range_mask",
]
