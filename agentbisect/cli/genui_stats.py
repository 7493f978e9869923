"""``afp genui-stats``: generative-UI telemetry (``GenuiStats``) from a file or a database.

``afp`` imports every command module at start-up, so this one imports only typer and the CLI
plumbing at module level; numpy, msgspec schemas, the genui library and rich are imported inside
the command, and only the commands that use them pay for them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import JSON_OPT, REPORT_FORMAT_OPT, VERBOSE_OPT, pick_json_format
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT, check_output, emit
from agentbisect.errors import GateTripped, UsageError
from agentbisect.render.formats import ReportFormat

if TYPE_CHECKING:
    from agentbisect.schema.genui import GenuiStats


@app.command("genui-stats")
@guarded
def genui_stats(
    file: str | None = typer.Argument(
        None,
        metavar="FILE",
        help="GenuiCallRow rows: a JSON array or JSON Lines, gzip detected by its magic bytes; "
        "- for stdin. Omit it with --db.",
    ),
    db: str | None = typer.Option(
        None,
        "--db",
        metavar="URL",
        help="Read the rows from a database instead: sqlite:///path.db (sqlite:////abs/path.db) "
        "or postgresql://user:pass@host/db (needs the [postgres] extra).",
    ),
    table: str | None = typer.Option(
        None, "--table", metavar="NAME", help="Table to read with --db. [default: genui_calls]"
    ),
    query: str | None = typer.Option(
        None,
        "--query",
        metavar="SQL",
        help="A SELECT to read the rows with --db, instead of a table. Columns map to fields "
        "by camelCase or snake_case name.",
    ),
    from_day: str | None = typer.Option(
        None, "--from", metavar="YYYY-MM-DD", help="First UTC day to include (inclusive)."
    ),
    to_day: str | None = typer.Option(
        None, "--to", metavar="YYYY-MM-DD", help="Last UTC day to include (inclusive)."
    ),
    fmt: ReportFormat | None = REPORT_FORMAT_OPT,
    output: str | None = OUTPUT_OPT,
    force: bool = FORCE_OPT,
    as_json: bool = JSON_OPT,
    verbose: bool = VERBOSE_OPT,
    scrub: bool = typer.Option(
        False,
        "--scrub",
        help='Re-scrub error messages (quoted values → "…", at most 300 chars) before grouping; '
        "for rows recorded with samplePayloads.",
    ),
    min_first_try_rate: float | None = typer.Option(
        None,
        "--min-first-try-rate",
        metavar="R",
        help="CI gate: exit 1 (after printing) when totals.firstTryRate < R (0..1).",
    ),
    max_failed: int | None = typer.Option(
        None,
        "--max-failed",
        metavar="N",
        help="CI gate: exit 1 (after printing) when more than N calls failed.",
    ),
) -> None:
    """Summarize generative-UI tool calls: first-try rate, retries, errors, cost and latency.

    Rows are deduplicated by toolCallId (the last wins), then filtered by --from/--to, then
    summarized with the upstream GenuiStats rules. Without --json the tables are printed even
    when stdout is not a terminal (pipe to less keeps them readable); use --json for machines:
    it prints the GenuiStats document with keys in the upstream order.

    Examples:

    \b
      afp genui-stats calls.jsonl
      afp genui-stats calls.json.gz --from 2026-11-01 --to 2026-11-30 --json
      afp genui-stats --db sqlite:///telemetry.db --min-first-try-rate 0.9
    """
    _check_options(file, db, table, query, from_day, to_day, min_first_try_rate, max_failed)
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
    from agentbisect.render.console import stderr_console

    problems = []
    rate = stats.totals.first_try_rate
    if min_rate is not None:
        if rate is None:
            stderr_console().print("afp: no turns in range; --min-first-try-rate not evaluated")
        elif rate < min_rate:
            problems.append(f"first-try rate {rate:.4g} < --min-first-try-rate {min_rate:g}")
    if max_failed is not None and stats.totals.failed > max_failed:
        problems.append(f"{stats.totals.failed} failed calls > --max-failed {max_failed}")
    if problems:
        raise GateTripped("gate tripped: " + "; ".join(problems))
