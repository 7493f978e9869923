"""Rows → numpy columns, plus the row-level passes that run before summarising: dedupe, range.

Rows arrive in chunks (a few thousand at a time, see ``CHUNK_ROWS``) and each chunk is read in
ONE Python pass: a list comprehension of attribute tuples, transposed by ``zip``, then one C-level
conversion per column. Working chunk by chunk keeps the rows being read in cache, and lets the
loaders free each chunk's row objects before decoding the next, so the allocator reuses the same
memory instead of faulting in a gigabyte of fresh pages for a million rows.

String fields are not copied into the columns: what the statistics need from them is identity, so
they become 64-bit ``hash`` codes. The few strings that reach the output are kept on the side:
the ``(toolName, modelId, mode)`` and raw error ``(category, message, toolName)`` triple behind
each code, and every ``toolCallId`` (for dedupe, first-attempt ties and warnings).

Hash codes: Python's ``str`` hash is a per-process keyed SipHash, so two *different* values merge
only by a chance of about ``U²/2⁶⁵`` for ``U`` distinct values (≈ 10⁻⁹ for a million run ids) and
cannot be provoked by crafted input. The one place where a merge would drop data — dedupe by
``toolCallId`` — compares the actual strings of every colliding pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, date, datetime, timedelta
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

DAY_US = 86_400_000_000
EPOCH_DAY = date(1970, 1, 1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
FIRST_TRY, RETRIED, FAILED = 0, 1, 2
_VALIDITY_CODE = {"first_try": FIRST_TRY, "retried": RETRIED}  # anything else: FAILED
# Rows per chunk: large enough that the per-chunk numpy calls are noise, small enough that a
# chunk's row objects (≈ 1 KB each) stay in cache while their fields are read, and that freeing
# them does not hand memory back to the OS only to fault it in again for the next chunk (the
# loaders' chunks: measured fastest at a few hundred rows, see FETCH_ROWS and CHUNK_BYTES).
CHUNK_ROWS = 512
_NO_ERROR = np.int64(0)  # err_hash of a non-error entry (never read: is_error masks it)

Key = tuple[str, str, str]  # (toolName, modelId, mode)
ErrorKey = tuple[str | None, str | None, str]  # raw (errorCategory, errorMessage, toolName)


@dataclass(frozen=True, slots=True)
class Columns:
    """The numbers of ``len(index)`` rows; ``index[i]`` is the input position of entry ``i``.

    ``ids``, ``keys`` and ``error_keys`` are shared by every ``take`` of the same input.
    """

    ids: Sequence[str]  # toolCallId by input position
    keys: dict[int, Key]  # key_hash → (toolName, modelId, mode)
    error_keys: dict[int, ErrorKey]  # err_hash → raw (errorCategory, errorMessage, toolName)
    index: IntArray
    id_hash: IntArray
    run_hash: IntArray
    key_hash: IntArray  # hash((toolName, modelId, mode)): the byToolModel key
    err_hash: IntArray  # hash of the raw error triple; meaningful where is_error
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
        builder = ColumnsBuilder()
        for start in range(0, len(rows), CHUNK_ROWS):
            builder.add(rows[start : start + CHUNK_ROWS])
        return builder.build()

    def __len__(self) -> int:
        return int(self.index.size)

    def take(self, selection: IntArray | BoolArray) -> Columns:
        """The entries picked by an index array or a boolean mask, side tables shared."""
        n = len(self)
        if selection.dtype == np.bool_:
            if bool(selection.all()):
                return self  # nothing dropped: skip copying 14 arrays
        elif selection.size == n and np.array_equal(selection, np.arange(n)):
            return self
        changes = {
            f.name: getattr(self, f.name)[selection]
            for f in fields(self)
            if f.name not in ("ids", "keys", "error_keys")
        }
        return replace(self, **changes)

    def tool_call_id(self, i: int) -> str:
        """The ``toolCallId`` of entry ``i``."""
        return self.ids[int(self.index[i])]

    @property
    def day(self) -> IntArray:
        """UTC day number (days since 1970-01-01) of each entry."""
        return self.ts_us // DAY_US


# createdAt, normalised to UTC, must stay inside the years 0001–9999 (what a timestamp can be
# written as, and what day numbers and `lastAt` are computed for).
_MIN_SECONDS = -62135596800.0  # 0001-01-01T00:00:00Z
_MAX_SECONDS = 253402300800.0  # 10000-01-01T00:00:00Z (exclusive)


class RowOutOfRange(ValueError):
    """A decoded row holds a value the statistics cannot use; ``index`` counts rows from 0."""

    def __init__(self, index: int, field: str, problem: str) -> None:
        super().__init__(f"row {index + 1}: {field}: {problem}")
        self.index, self.field, self.problem = index, field, problem


class ColumnsBuilder:
    """Accumulates the columns of successive chunks of rows; ``build`` joins them.

    A chunk's row objects are not referenced once ``add`` returns (only their ``toolCallId``
    strings and one triple per distinct key are kept), so a loader can drop each chunk.
    """

    def __init__(self) -> None:
        self._parts: list[tuple[Any, ...]] = []
        self._ids: list[str] = []
        self._keys: dict[int, Key] = {}
        self._error_keys: dict[int, ErrorKey] = {}

    def add(self, rows: Sequence[Any]) -> None:
        """Read one chunk of ``GenuiCallRow``-like rows."""
        n = len(rows)
        if n == 0:
            return
        # One pass over the rows: attribute loads in a comprehension are the cheapest way to get
        # at Struct fields from Python (specialised LOAD_ATTR), then zip transposes in C.
        (steps, attempts, input_tokens, output_tokens, costs, first_frames, complete_frames,
         ids, runs, tools, models, modes, outcomes, validities, created) = zip(*[
            (r.step, r.attempt, r.input_tokens, r.output_tokens, r.cost_usd, r.first_frame_ms,
             r.complete_frame_ms, r.tool_call_id, r.run_id, r.tool_name, r.model_id, r.mode,
             r.outcome, r.validity, r.created_at)
            for r in rows
        ], strict=True)  # fmt: skip
        self._ids.extend(ids)
        key_hash = list(map(hash, zip(tools, models, modes, strict=True)))
        # Only a code not seen before needs its strings kept (a few dozen in a whole table).
        for code in set(key_hash).difference(self._keys):
            i = key_hash.index(code)
            self._keys[code] = (tools[i], models[i], modes[i])
        # outcome and validity are Literal-typed strings (msgspec hands out the same objects, with
        # their hash cached): an object-array compare and a dict lookup are the cheapest reads.
        is_error = np.array(outcomes, dtype=object) == "error"
        validity = np.fromiter(map(_VALIDITY_CODE.get, validities, repeat(FAILED)), np.int64, n)
        err_hash = np.full(n, _NO_ERROR, np.int64)
        errors = np.flatnonzero(is_error).tolist()
        if errors:
            # A quarter of the rows or so: read their error fields only now.
            error_rows = [rows[i] for i in errors]
            raw: list[ErrorKey] = [
                (r.error_category, r.error_message, r.tool_name) for r in error_rows
            ]
            raw_hash = list(map(hash, raw))
            for code in set(raw_hash).difference(self._error_keys):
                self._error_keys[code] = raw[raw_hash.index(code)]
            err_hash[errors] = raw_hash
        # datetime.timestamp() is exact to well under a microsecond for any date this century
        # (float64 spacing at 2e9 s is 2.4e-7 s), so rounding recovers the recorded microseconds.
        seconds = np.fromiter(map(datetime.timestamp, created), np.float64, n)
        outside = np.flatnonzero((seconds < _MIN_SECONDS) | (seconds >= _MAX_SECONDS))
        if outside.size:
            i = int(outside[0])
            raise RowOutOfRange(
                len(self._ids) - n + i,
                "createdAt",
                f"{created[i].isoformat()} is outside the years 0001–9999 once normalised to UTC",
            )
        self._parts.append(
            (
                np.fromiter(map(hash, ids), np.int64, n),
                np.fromiter(map(hash, runs), np.int64, n),
                np.fromiter(key_hash, np.int64, n),
                err_hash,
                np.asarray(is_error, dtype=np.bool_),
                validity,
                np.fromiter(steps, np.int64, n),
                np.fromiter(attempts, np.int64, n),
                np.rint(seconds * 1e6).astype(np.int64),
                np.fromiter(input_tokens, np.int64, n),
                np.fromiter(output_tokens, np.int64, n),
                # None (absent/null) becomes NaN; the schema rejects NaN in the input, so NaN
                # means absent.
                np.array(costs, dtype=np.float64),
                np.array(first_frames, dtype=np.float64),
                np.array(complete_frames, dtype=np.float64),
            )
        )

    def build(self) -> Columns:
        """The columns of every row added so far, in input order."""
        n = len(self._ids)
        if self._parts:
            arrays = [np.concatenate(column) for column in zip(*self._parts, strict=True)]
        else:
            ints, floats = np.zeros(0, np.int64), np.zeros(0, np.float64)
            arrays = [ints] * 4 + [np.zeros(0, np.bool_)] + [ints] * 6 + [floats] * 3
        return Columns(self._ids, self._keys, self._error_keys, np.arange(n, dtype=np.int64),
                       *arrays)  # fmt: skip


def dedupe_last_wins(cols: Columns) -> IntArray:
    """Entry positions that survive dedupe by ``toolCallId``, the last in input order winning.

    Returned ascending, so the survivors keep their input order.
    """
    n = len(cols)
    # Fast path: an unstable sort is enough to learn that no hash repeats (the usual case).
    sorted_hash = np.sort(cols.id_hash)
    if not (sorted_hash[1:] == sorted_hash[:-1]).any():
        return np.arange(n, dtype=np.int64)
    order = np.argsort(cols.id_hash, kind="stable")
    sorted_hash = cols.id_hash[order]
    same_as_next = sorted_hash[1:] == sorted_hash[:-1]
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
        last[cols.tool_call_id(pos)] = pos
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


_VALIDITY_NAMES = {FIRST_TRY: "first_try", RETRIED: "retried", FAILED: "failed"}


def describe_inconsistency(cols: Columns, i: int) -> str:
    """Why entry ``i`` is inconsistent, for its warning."""
    is_error = bool(cols.is_error[i])
    validity = _VALIDITY_NAMES[int(cols.validity[i])]
    attempt = int(cols.attempt[i])
    problems = []
    if not is_error and validity == "failed":
        problems.append('outcome "ok" with validity "failed"')
    if is_error and validity != "failed":
        problems.append(f'outcome "error" with validity "{validity}"')
    if validity == "first_try" and attempt > 1:
        problems.append(f'validity "first_try" with attempt {attempt}')
    return "; ".join(problems)


__all__ = [
    "CHUNK_ROWS",
    "DAY_US",
    "FAILED",
    "FIRST_TRY",
    "RETRIED",
    "Columns",
    "ColumnsBuilder",
    "RowOutOfRange",
    "day_number",
    "day_string",
    "dedupe_last_wins",
    "describe_inconsistency",
    "inconsistent",
    "iso_millis",
    "range_mask",
]
