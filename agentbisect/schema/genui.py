"""msgspec Structs for generative-UI telemetry: the input row (``GenuiCallRow``) and ``GenuiStats``.

Field names on the wire are the upstream camelCase names (``@adonis-agora/agent``,
``genui-telemetry.d.ts``); Python attributes are snake_case. Field order is the declaration order
of the ``.d.ts`` and is significant: it is the key order of ``afp genui-stats``' JSON.
"""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Annotated, Literal

import msgspec

# Constraints are part of decoding so a bad row fails with msgspec's JSON path, which the loader
# turns into `FILE:LINE: field: problem`. `le=max float` rejects inf (a database REAL can hold it;
# JSON cannot), and NaN fails every comparison, so neither can reach the sums.
# Counts and costs stop at 2**53, the last integer a double (so upstream's JavaScript) holds
# exactly: beyond it they are not counts, and sums of them could overflow int64 or a double.
MAX_SAFE = 2**53
NonNegInt = Annotated[int, msgspec.Meta(ge=0, le=MAX_SAFE)]
PositiveInt = Annotated[int, msgspec.Meta(ge=1, le=MAX_SAFE)]
NonNegFloat = Annotated[float, msgspec.Meta(ge=0, le=sys.float_info.max)]
Usd = Annotated[float, msgspec.Meta(ge=0, le=MAX_SAFE)]
# Spec §1: `createdAt` must carry `Z` or an offset; a naive timestamp is an input error.
AwareDatetime = Annotated[datetime, msgspec.Meta(tz=True)]

Outcome = Literal["ok", "error"]
Validity = Literal["first_try", "retried", "failed"]

# gc=False: rows hold only scalars and strings (no reference cycles possible), and a million
# GC-tracked objects would make the collector rescan them repeatedly while decoding. (The options
# are written out, not splatted from a dict, so that type checkers see kw_only.)


class RecordGenuiCallInput(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    """One UI tool call as the loop records it (spec §1, seed ``RecordGenuiCallInput``).

    Optional fields accept ``null`` as absent: database rows carry NULL for them, and spec §1
    says a ``null`` cost reads as absent (unknown, not 0).
    """

    tool_call_id: str
    run_id: str
    thread_id: str
    actor_ref: str
    agent_name: str | None = None
    step: NonNegInt
    tool_name: str
    channel: str
    mode: str
    model_id: str
    attempt: PositiveInt
    outcome: Outcome
    validity: Validity
    error_category: str | None = None
    error_message: str | None = None
    input_tokens: NonNegInt
    output_tokens: NonNegInt
    cost_usd: Usd | None = None
    cost_source: str | None = None
    first_frame_ms: NonNegFloat | None = None
    complete_frame_ms: NonNegFloat | None = None
    payload_bytes: NonNegInt
    payload: str | None = None


class GenuiCallRow(RecordGenuiCallInput, kw_only=True, rename="camel", gc=False):
    """A stored call: ``RecordGenuiCallInput`` plus ``createdAt`` (RFC 3339 with an offset)."""

    created_at: AwareDatetime


# Names of the row fields on the wire, in declaration order (the database reader maps columns
# to these).
ROW_FIELDS: tuple[str, ...] = tuple(f.encode_name for f in msgspec.structs.fields(GenuiCallRow))
REQUIRED_ROW_FIELDS: frozenset[str] = frozenset(
    f.encode_name for f in msgspec.structs.fields(GenuiCallRow) if f.required
)


class GenuiCallRowTuple(GenuiCallRow, array_like=True):
    """The same row, decoded from a positional tuple (a database cursor row in field order)."""


# --- output: GenuiStats ----------------------------------------------------------------------

_OUT_OPTIONS = {"rename": "camel"}


class GenuiTotals(msgspec.Struct, **_OUT_OPTIONS):
    calls: int
    turns: int
    first_attempts: int
    first_try_successes: int
    first_try_rate: float | None
    retried: int
    failed: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class GenuiToolModelRow(msgspec.Struct, **_OUT_OPTIONS):
    """First-try success for one tool and model (grouped by tool, model and mode)."""

    tool_name: str
    model_id: str
    mode: str
    calls: int
    first_attempts: int
    first_try_successes: int
    first_try_rate: float | None
    retried: int
    failed: int
    cost_usd: float | None


class GenuiErrorRow(msgspec.Struct, **_OUT_OPTIONS):
    category: str
    message: str
    tool_name: str
    count: int
    last_at: str


class GenuiDayRow(msgspec.Struct, **_OUT_OPTIONS):
    day: str
    calls: int
    turns: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    first_try_rate: float | None


class GenuiCostPerTurn(msgspec.Struct, **_OUT_OPTIONS):
    turns: int
    avg_usd: float | None
    p50_usd: float | None
    p95_usd: float | None


class GenuiLatency(msgspec.Struct, **_OUT_OPTIONS):
    """Spec §4.6: upstream ``Latency`` was not found; ``count`` + nearest-rank p50/p95."""

    count: int
    p50_ms: float | None
    p95_ms: float | None


class GenuiLatencyPair(msgspec.Struct, **_OUT_OPTIONS):
    first_frame: GenuiLatency
    complete: GenuiLatency


class GenuiStats(msgspec.Struct, **_OUT_OPTIONS):
    """What the dashboard's Generative UI page shows (seed ``GenuiStats``)."""

    totals: GenuiTotals
    by_tool_model: list[GenuiToolModelRow]
    errors: list[GenuiErrorRow]
    by_day: list[GenuiDayRow]
    cost_per_turn: GenuiCostPerTurn
    latency: GenuiLatencyPair


__all__ = [
    "REQUIRED_ROW_FIELDS",
    "ROW_FIELDS",
    "GenuiCallRow",
    "GenuiCallRowTuple",
    "GenuiCostPerTurn",
    "GenuiDayRow",
    "GenuiErrorRow",
    "GenuiLatency",
    "GenuiLatencyPair",
    "GenuiStats",
    "GenuiToolModelRow",
    "GenuiTotals",
    "Outcome",
    "RecordGenuiCallInput",
    "Validity",
]
