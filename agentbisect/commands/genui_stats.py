"""``afp genui-stats``'s option table and body (the options' help: ``agentbisect/cli/genui_stats.py``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from agentbisect.commands.spec import (
    FORCE,
    JSON,
    OUTPUT,
    VERBOSE,
    Arg,
    CommandSpec,
    Opt,
    format_opt,
)
from agentbisect.core.errors import GateTripped, UsageError
from agentbisect.render.formats import ReportFormat

if TYPE_CHECKING:
    from agentbisect.schema.genui import GenuiStats

SPEC = CommandSpec(
    "genui-stats",
    Arg("file", "FILE", required=False),
    Opt("db", "--db", metavar="URL"),
    Opt("table", "--table", metavar="NAME"),
    Opt("query", "--query", metavar="SQL"),
    Opt("from_day", "--from", metavar="YYYY-MM-DD"),
    Opt("to_day", "--to", metavar="YYYY-MM-DD"),
    format_opt(ReportFormat),
    OUTPUT,
    FORCE,
    JSON,
    VERBOSE,
    Opt("scrub", "--scrub", kind=bool),
    Opt("min_first_try_rate", "--min-first-try-rate", kind=float, metavar="R"),
    Opt("max_failed", "--max-failed", kind=int, metavar="N"),
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
    from agentbisect.commands.common import pick_json_format
    from agentbisect.commands.output import check_output, emit
    from agentbisect.genui.stats import genui_stats as compute

    name = pick_json_format(fmt, as_json)
    # A SQLite database named by --db is an input too: -o must never write over it.
    sqlite = db[len("sqlite:///") :] if db is not None and db.startswith("sqlite:///") else None
    check_output(output, force, [p for p in (file, sqlite) if p is not None])
    result = compute(
        file, db=db, table=table, query=query, from_day=from_day, to_day=to_day, scrub=scrub
    )
    emit(name, result, output, force)
    if verbose:
        from agentbisect.commands.common import say

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
        raise UsageError("give a FILE or --db URL, not both")
    if file is None and db is None:
        raise UsageError("give a FILE of rows (- for stdin) or --db URL")
    if db is None and (table is not None or query is not None):
        raise UsageError("--table and --query need --db")
    from agentbisect.genui.range import check_range

    for flag, day in (("--from", from_day), ("--to", to_day)):
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
        raise UsageError(f"--min-first-try-rate {min_rate}: expected a rate between 0 and 1")
    if max_failed is not None and max_failed < 0:
        raise UsageError(f"--max-failed {max_failed}: expected a count ≥ 0")


def _gates(stats: GenuiStats, min_rate: float | None, max_failed: int | None) -> None:
    """CI gates, checked after the output is printed."""
    from agentbisect.render.notes import note

    problems = []
    rate = stats.totals.first_try_rate
    if min_rate is not None:
        if rate is None:
            note("no turns in range; --min-first-try-rate not evaluated")
        elif rate < min_rate:
            problems.append(f"first-try rate {rate:.4g} < --min-first-try-rate {min_rate:g}")
    if max_failed is not None and stats.totals.failed > max_failed:
        problems.append(f"{stats.totals.failed} failed calls > --max-failed {max_failed}")
    if problems:
        raise GateTripped("gate tripped: " + "; ".join(problems))
