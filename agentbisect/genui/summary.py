"""``GenuiStats`` from rows (spec §3–§5), aggregated over numpy arrays.

Every per-group number is a ``bincount`` / ``ufunc.at`` over integer group codes; Python only
loops over the groups that reach the output (tools × models, days, error groups) and over exact
ties of a turn's first attempt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from agentbisect.genui.classify import classify_error, scrub_error
from agentbisect.genui.columns import (
    FAILED,
    FIRST_TRY,
    RETRIED,
    BoolArray,
    Columns,
    FloatArray,
    IntArray,
    day_string,
    dedupe_last_wins,
    iso_millis,
)
from agentbisect.genui.percentile import percentiles
from agentbisect.genui.usd import fsum, group_fsum, round_usd
from agentbisect.schema.genui import (
    GenuiCostPerTurn,
    GenuiDayRow,
    GenuiErrorRow,
    GenuiLatency,
    GenuiLatencyPair,
    GenuiStats,
    GenuiToolModelRow,
    GenuiTotals,
)

MAX_ERRORS = 20  # seed: "Most frequent first, at most 20."
_I64_MAX = np.iinfo(np.int64).max


def _code_among(keys: IntArray, known: Iterable[int]) -> tuple[IntArray, IntArray]:
    """Codes of ``keys`` among the ``known`` distinct keys (a superset), and those keys sorted.

    For the low-cardinality keys whose distinct values the reader already collected: a binary
    search into a few dozen values, no sort or hash table over the million. A known key that no
    entry has (dropped by dedupe or the range) gets a code with a zero count.
    """
    uniq = np.sort(np.fromiter(known, np.int64))
    return np.searchsorted(uniq, keys).astype(np.int64), uniq


def _factorize_runs(keys: IntArray) -> tuple[IntArray, int]:
    """Group codes 0..k-1 for the run hashes, and ``k``.

    Rows of a turn are usually stored together, so the keys come in runs of equal values: sort
    only the first key of each run of equal keys (a third of a million, not a million). Any
    order is still correct; it is only slower when turns interleave.
    """
    n = int(keys.size)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    uniq, block_codes = np.unique(keys[starts], return_inverse=True)
    lengths = np.diff(np.append(starts, n))
    return np.repeat(block_codes.reshape(-1).astype(np.int64), lengths), int(uniq.size)


def _count(codes: IntArray, k: int, where: BoolArray | None = None) -> IntArray:
    picked = codes if where is None else codes[where]
    return np.bincount(picked, minlength=k).astype(np.int64)


def _sum_int(codes: IntArray, values: IntArray, k: int) -> IntArray:
    out = np.zeros(k, np.int64)
    np.add.at(out, codes, values)
    return out


def _min_by(codes: IntArray, values: FloatArray | IntArray, k: int, fill: Any) -> Any:
    out = np.full(k, fill, dtype=values.dtype)
    np.minimum.at(out, codes, values)
    return out


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def _first_attempts(cols: Columns, run: IntArray, turns: int) -> IntArray:
    """Per turn, the entry that is smallest by ``(step, createdAt, attempt, toolCallId)`` (§3).

    Narrow the candidates key by key with per-turn minima; only rows still tied on all three
    numeric keys (rare: same step, same microsecond, same attempt) compare their ids in Python.
    """
    idx = np.arange(len(cols), dtype=np.int64)
    codes = run
    for key in (cols.step, cols.ts_us, cols.attempt):
        values = key[idx]
        best = _min_by(codes, values, turns, _I64_MAX)
        keep = values == best[codes]
        idx, codes = idx[keep], codes[keep]
    first = np.empty(turns, np.int64)
    first[codes] = idx
    per_turn = np.bincount(codes, minlength=turns)
    tied = per_turn > 1
    if tied.any():
        ties = tied[codes]
        best_id: dict[int, tuple[str, int]] = {}
        for pos, turn in zip(idx[ties].tolist(), codes[ties].tolist(), strict=True):
            candidate = (cols.tool_call_id(pos), pos)
            if turn not in best_id or candidate < best_id[turn]:
                best_id[turn] = candidate
        for turn, (_, pos) in best_id.items():
            first[turn] = pos
    return first


def empty_stats() -> GenuiStats:
    """Spec §4.7: the document for no rows."""
    none_latency = GenuiLatency(count=0, p50_ms=None, p95_ms=None)
    return GenuiStats(
        totals=GenuiTotals(0, 0, 0, 0, None, 0, 0, 0, 0, None),
        by_tool_model=[],
        errors=[],
        by_day=[],
        cost_per_turn=GenuiCostPerTurn(turns=0, avg_usd=None, p50_usd=None, p95_usd=None),
        latency=GenuiLatencyPair(first_frame=none_latency, complete=none_latency),
    )


def _firsts_and_cost(
    cols: Columns, group: IntArray, k: int, first: IntArray, first_ok: BoolArray, costed: BoolArray
) -> tuple[IntArray, IntArray, list[float | None]]:
    """Per group: first attempts, first-try successes, and the cost (None where no entry has one)."""
    at_first = group[first]
    cost = group_fsum(group[costed], cols.cost_usd[costed], k).tolist()
    has_cost = (_count(group, k, costed) > 0).tolist()
    usd = [round_usd(c) if h else None for c, h in zip(cost, has_cost, strict=True)]
    return _count(at_first, k), _count(at_first, k, first_ok), usd


def _latency(values: FloatArray, run: IntArray, turns: int, where: BoolArray) -> GenuiLatency:
    """Per turn the minimum of ``values`` over ``where``, then nearest-rank p50/p95 (§4.6)."""
    codes = run[where]
    per_turn = _min_by(codes, values[where], turns, np.inf)
    sample = per_turn[_count(codes, turns) > 0]
    p50, p95 = percentiles(sample, (0.5, 0.95))
    return GenuiLatency(count=int(sample.size), p50_ms=p50, p95_ms=p95)


def _by_tool_model(
    cols: Columns, first: IntArray, first_ok: BoolArray, costed: BoolArray
) -> list[GenuiToolModelRow]:
    group, uniq = _code_among(cols.key_hash, cols.keys)
    k = int(uniq.size)
    calls = _count(group, k)
    attempts, successes, cost = _firsts_and_cost(cols, group, k, first, first_ok, costed)
    retried = _count(group, k, cols.validity == RETRIED)
    failed = _count(group, k, cols.validity == FAILED)
    out = []
    for g in np.flatnonzero(calls).tolist():
        tool_name, model_id, mode = cols.keys[int(uniq[g])]
        out.append(
            GenuiToolModelRow(
                tool_name=tool_name,
                model_id=model_id,
                mode=mode,
                calls=int(calls[g]),
                first_attempts=int(attempts[g]),
                first_try_successes=int(successes[g]),
                first_try_rate=_rate(int(successes[g]), int(attempts[g])),
                retried=int(retried[g]),
                failed=int(failed[g]),
                cost_usd=cost[g],
            )
        )
    # §4.2: calls desc, then toolName, modelId, mode by code point.
    out.sort(key=lambda r: (-r.calls, r.tool_name, r.model_id, r.mode))
    return out


def _errors(cols: Columns, scrub: bool) -> list[GenuiErrorRow]:
    """§4.3: error rows grouped by (category, message, toolName); top 20."""
    err = np.flatnonzero(cols.is_error)
    if err.size == 0:
        return []
    # Group first by the recorded triple (hash codes made while reading), then map each raw
    # group to its final key: classifying, scrubbing and merging happen once per distinct triple.
    raw_group, raw_uniq = _code_among(cols.err_hash[err], cols.error_keys)
    raw_k = int(raw_uniq.size)
    final_of: dict[tuple[str, str, str], int] = {}
    raw_to_final = np.zeros(raw_k, np.int64)  # raw groups without entries are never looked up
    for g in np.flatnonzero(np.bincount(raw_group, minlength=raw_k)).tolist():
        raw_category, raw_message, tool_name = cols.error_keys[int(raw_uniq[g])]
        recorded = raw_message if raw_message is not None else ""
        category = raw_category if raw_category is not None else classify_error(recorded)
        message = scrub_error(recorded) if scrub else recorded
        key = (category, message, tool_name)
        raw_to_final[g] = final_of.setdefault(key, len(final_of))
    group = raw_to_final[raw_group]
    k = len(final_of)
    count = _count(group, k)
    last_ms = np.full(k, np.iinfo(np.int64).min, np.int64)
    np.maximum.at(last_ms, group, cols.ts_us[err] // 1000)
    # Only groups that can reach the top 20 by (count desc, lastAt desc) go to the Python sort
    # with its string tie-breaks.
    by_count = np.lexsort((-last_ms, -count))
    if k > MAX_ERRORS:
        edge = by_count[MAX_ERRORS - 1]
        c, t = count[edge], last_ms[edge]
        contenders = np.flatnonzero((count > c) | ((count == c) & (last_ms >= t)))
    else:
        contenders = by_count
    keys = list(final_of)
    ranked = sorted(
        contenders.tolist(),
        key=lambda g: (-count[g], -last_ms[g], keys[g][0], keys[g][2], keys[g][1]),
    )[:MAX_ERRORS]
    return [
        GenuiErrorRow(
            category=keys[g][0],
            message=keys[g][1],
            tool_name=keys[g][2],
            count=int(count[g]),
            last_at=iso_millis(int(last_ms[g]) * 1000),
        )
        for g in ranked
    ]


def _by_day(
    cols: Columns,
    run: IntArray,
    turns: int,
    first: IntArray,
    first_ok: BoolArray,
    costed: BoolArray,
) -> list[GenuiDayRow]:
    day = cols.day
    low = int(day.min())
    # Days span a small range (one per calendar day), so bincount over the offset finds them
    # without sorting a million values.
    present = np.flatnonzero(np.bincount(day - low))
    days = present + low
    k = int(days.size)
    slot = np.full(int(present[-1]) + 1, -1, np.int64)
    slot[present] = np.arange(k)
    group = slot[day - low]
    calls = _count(group, k)
    input_tokens = _sum_int(group, cols.input_tokens, k)
    output_tokens = _sum_int(group, cols.output_tokens, k)
    # A turn spanning midnight counts on both days: distinct (day, turn) pairs. Most turns sit
    # in one day; only the rows of the few that span days need the pair set.
    first_day = _min_by(run, group, turns, _I64_MAX)
    last_day = np.full(turns, -1, np.int64)
    np.maximum.at(last_day, run, group)
    one_day = first_day == last_day
    day_turns = np.bincount(first_day[one_day], minlength=k)
    spanning = ~one_day[run]
    if spanning.any():
        pairs = np.unique(group[spanning] * turns + run[spanning])
        day_turns = day_turns + np.bincount(pairs // turns, minlength=k)
    attempts, successes, cost = _firsts_and_cost(cols, group, k, first, first_ok, costed)
    return [
        GenuiDayRow(
            day=day_string(int(days[d])),
            calls=int(calls[d]),
            turns=int(day_turns[d]),
            input_tokens=int(input_tokens[d]),
            output_tokens=int(output_tokens[d]),
            cost_usd=cost[d],
            first_try_rate=_rate(int(successes[d]), int(attempts[d])),
        )
        for d in range(k)
    ]


def _cost_per_turn(cols: Columns, run: IntArray, turns: int, costed: BoolArray) -> GenuiCostPerTurn:
    codes = run[costed]
    per_turn = group_fsum(codes, cols.cost_usd[costed], turns)
    sample = per_turn[_count(codes, turns) > 0]
    n = int(sample.size)
    if n == 0:
        return GenuiCostPerTurn(turns=0, avg_usd=None, p50_usd=None, p95_usd=None)
    p50, p95 = percentiles(sample, (0.5, 0.95))
    assert p50 is not None and p95 is not None
    return GenuiCostPerTurn(
        turns=n,
        avg_usd=round_usd(fsum(sample) / n),
        p50_usd=round_usd(p50),
        p95_usd=round_usd(p95),
    )


def summarize_columns(cols: Columns, *, scrub: bool = False) -> GenuiStats:
    """``GenuiStats`` of already deduplicated, already range-filtered columns."""
    if len(cols) == 0:
        return empty_stats()
    run, turns = _factorize_runs(cols.run_hash)
    first = _first_attempts(cols, run, turns)
    first_ok = cols.validity[first] == FIRST_TRY
    costed = ~np.isnan(cols.cost_usd)
    successes = int(first_ok.sum())
    totals = GenuiTotals(
        calls=len(cols),
        turns=turns,
        first_attempts=turns,
        first_try_successes=successes,
        first_try_rate=_rate(successes, turns),
        retried=int((cols.validity == RETRIED).sum()),
        failed=int((cols.validity == FAILED).sum()),
        input_tokens=int(cols.input_tokens.sum()),
        output_tokens=int(cols.output_tokens.sum()),
        cost_usd=round_usd(fsum(cols.cost_usd[costed])) if costed.any() else None,
    )
    stats = GenuiStats(
        totals=totals,
        by_tool_model=_by_tool_model(cols, first, first_ok, costed),
        errors=_errors(cols, scrub),
        by_day=_by_day(cols, run, turns, first, first_ok, costed),
        cost_per_turn=_cost_per_turn(cols, run, turns, costed),
        latency=GenuiLatencyPair(
            first_frame=_latency(cols.first_frame_ms, run, turns, ~np.isnan(cols.first_frame_ms)),
            complete=_latency(
                cols.complete_frame_ms,
                run,
                turns,
                ~np.isnan(cols.complete_frame_ms) & ~cols.is_error,
            ),
        ),
    )
    _check_finite(stats)
    return stats


def _check_finite(stats: GenuiStats) -> None:
    """Spec §5: NaN/Infinity in the output is a bug; refuse to print it."""
    t, c, lat = stats.totals, stats.cost_per_turn, stats.latency
    values: list[float | None] = [t.first_try_rate, t.cost_usd, c.avg_usd, c.p50_usd, c.p95_usd]
    values += [x for f in (lat.first_frame, lat.complete) for x in (f.p50_ms, f.p95_ms)]
    values += [r.cost_usd for r in stats.by_tool_model] + [r.cost_usd for r in stats.by_day]
    if any(v is not None and not math.isfinite(v) for v in values):
        raise ArithmeticError("genui-stats produced a non-finite number (a bug)")


def summarize(rows: Sequence[Any], *, scrub: bool = False) -> GenuiStats:
    """``summarizeGenuiCalls``: ``GenuiStats`` of the rows of a range.

    ``rows`` are ``GenuiCallRow``s (or objects with the same attributes). Duplicated
    ``toolCallId``s are settled first, the last in input order winning, as a store would.
    ``scrub`` re-applies ``scrub_error`` to messages before grouping (spec §6).
    """
    cols = Columns.from_rows(rows)
    return summarize_columns(cols.take(dedupe_last_wins(cols)), scrub=scrub)


__all__ = ["MAX_ERRORS", "empty_stats", "summarize", "summarize_columns"]
