"""``afp genui-stats``: generative-UI telemetry (``GenuiStats``) from a file or a database.

This module declares the options for typer; the body is ``agentbisect.commands.genui_stats.run``.
"""

from __future__ import annotations

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import JSON_OPT, REPORT_FORMAT_OPT, VERBOSE_OPT
from agentbisect.cli.output import FORCE_OPT, OUTPUT_OPT
from agentbisect.commands import genui_stats as body
from agentbisect.render.formats import ReportFormat


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
    # The parameters are exactly the body's keyword arguments.
    body.run(**locals())
