"""``afp genui-stats``: generative-UI telemetry (``GenuiStats``) from a file or a database; its
option table and body."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from agentbisect.core.errors import GateTripped, UsageError
from agentbisect.core.options import (
    DB,
    FORCE,
    FROM,
    JSON,
    OUTPUT,
    QUERY,
    REPORT_FORMATS,
    TABLE,
    TO,
    VERBOSE,
    Arg,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.render.formats import ReportFormat

if TYPE_CHECKING:
    from agentbisect.schema.genui import GenuiStats


MIN_RATE = Opt(
    "min_first_try_rate",
    "--min-first-try-rate",
    kind=float,
    metavar="R",
    help="CI gate: exit 1 (after printing) when totals.firstTryRate < R (0..1).",
)
MAX_FAILED = Opt(
    "max_failed",
    "--max-failed",
    kind=int,
    metavar="N",
    help="CI gate: exit 1 (after printing) when more than N calls failed.",
)

HELP = f"""Summarize generative-UI tool calls: first-try rate, retries, errors, cost and latency.

Rows are deduplicated by toolCallId (the last wins), then filtered by {FROM.flag}/{TO.flag}, then
summarized with the upstream GenuiStats rules. Without {JSON.flag} the tables are printed even
when stdout is not a terminal (pipe to less keeps them readable); use {JSON.flag} for machines:
it prints the GenuiStats document with keys in the upstream order.

Examples:

\b
  afp genui-stats calls.jsonl
  afp genui-stats calls.json.gz {FROM.flag} 2026-11-01 {TO.flag} 2026-11-30 {JSON.flag}
  afp genui-stats {DB.flag} sqlite:///telemetry.db {MIN_RATE.flag} 0.9
"""

SPEC = CommandSpec(
    "genui-stats",
    HELP,
    Arg(
        "file",
        "FILE",
        "GenuiCallRow rows: a JSON array or JSON Lines, gzip detected by its magic bytes; "
        f"- for stdin. Omit it with {DB.flag}.",
        required=False,
    ),
    DB,
    TABLE,
    QUERY,
    FROM,
    TO,
    format_opt(ReportFormat, REPORT_FORMATS),
    OUTPUT,
    FORCE,
    JSON,
    VERBOSE,
    Opt(
        "scrub",
        "--scrub",
        kind=bool,
        help='Re-scrub error messages (quoted values → "…", at most 300 chars) before grouping; '
        "for rows recorded with samplePayloads.",
    ),
    MIN_RATE,
    MAX_FAILED,
)


def run(
    *,
    file: str | None,
    db: str | None,
    table: str | None,
    query: str | None,
    from_day: str | None,
    to_day: str | None,
    fmt: ReportFormat | None,
    output: str | None,
    force: bool,
    as_json: bool,
    verbose: bool,
    scrub: bool,
    min_first_try_rate: float | None,
    max_failed: int | None,
) -> None:
    _check_options(file, db, table, query, from_day, to_day, min_first_try_rate, max_failed)
    from agentbisect.cli.common import pick_json_format
    from agentbisect.cli.output import check_output, emit
    from agentbisect.genui.stats import genui_stats as compute

    name = pick_json_format(fmt, as_json)
    # A SQLite database named by DB is an input too: -o must never write over it.
    sqlite = db[len("sqlite:///") :] if db is not None and db.startswith("sqlite:///") else None
    check_output(output, force, [p for p in (file, sqlite) if p is not None])
    result = compute(
        file, db=db, table=table, query=query, from_day=from_day, to_day=to_day, scrub=scrub
    )
    emit(name, result, output, force)
    if verbose:
        from agentbisect.cli.common import say

        say(
            f"read rows from {result.source}: {result.stats.totals.calls:,} call(s) after "
            "deduplication and the day range"
        )
    _gates(result.stats, min_first_try_rate, max_failed)


def _check_options(
    file: str | None,
    db: str | None,
    table: str | None,
    query: str | None,
    from_day: str | None,
    to_day: str | None,
    min_rate: float | None,
    max_failed: int | None,
) -> None:
    if file is not None and db is not None:
        raise UsageError(f"give a FILE or {DB.flag} URL, not both")
    if file is None and db is None:
        raise UsageError(f"give a FILE of rows (- for stdin) or {DB.flag} URL")
    if db is None and (table is not None or query is not None):
        raise UsageError(f"{TABLE.flag} and {QUERY.flag} need {DB.flag}")
    from agentbisect.genui.range import check_range

    for flag, day in ((FROM.flag, from_day), (TO.flag, to_day)):
        if day is not None:
            try:
                check_range(day, None)
            except ValueError:
                raise UsageError(f"{flag} {day!r}: expected a day as YYYY-MM-DD") from None
    try:
        check_range(from_day, to_day)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if min_rate is not None and not (math.isfinite(min_rate) and 0 <= min_rate <= 1):
        raise UsageError(f"{MIN_RATE.flag} {min_rate}: expected a rate between 0 and 1")
    if max_failed is not None and max_failed < 0:
        raise UsageError(f"{MAX_FAILED.flag} {max_failed}: expected a count ≥ 0")


def _gates(stats: GenuiStats, min_rate: float | None, max_failed: int | None) -> None:
    """CI gates, checked after the output is printed."""
    from agentbisect.render.notes import note

    problems = []
    rate = stats.totals.first_try_rate
    if min_rate is not None:
        if rate is None:
            note(f"no turns in range; {MIN_RATE.flag} not evaluated")
        elif rate < min_rate:
            problems.append(f"first-try rate {rate:.4g} < {MIN_RATE.flag} {min_rate:g}")
    if max_failed is not None and stats.totals.failed > max_failed:
        problems.append(f"{stats.totals.failed} failed calls > {MAX_FAILED.flag} {max_failed}")
    if problems:
        raise GateTripped("gate tripped: " + "; ".join(problems))
