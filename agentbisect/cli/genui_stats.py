"""``afp genui-stats``: generative-UI telemetry (``GenuiStats``) from a file or a database."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

import typer

from agentbisect.cli.app import app, guarded
from agentbisect.cli.options import JSON_OPT
from agentbisect.errors import GateTripped, UsageError
from agentbisect.genui.columns import (
    Columns,
    dedupe_last_wins,
    describe_inconsistency,
    inconsistent,
    range_mask,
)
from agentbisect.genui.range import check_range
from agentbisect.genui.summary import summarize_columns
from agentbisect.render.console import stderr_console, write_json
from agentbisect.render.text import clean
from agentbisect.schema.genui import GenuiStats

MAX_WARNINGS = 20  # one line per inconsistent row, up to this many, then a count


@app.command("genui-stats")
@guarded
def genui_stats(
    file: str | None = typer.Argument(
        None,
        metavar="[FILE]",
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
    as_json: bool = JSON_OPT,
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
    """
    _check_options(file, db, table, query, from_day, to_day, min_first_try_rate, max_failed)
    source, rows = _read(file, db, table, query)
    cols = Columns.from_rows(rows)
    cols = cols.take(dedupe_last_wins(cols))
    if from_day is not None or to_day is not None:
        cols = cols.take(range_mask(cols, from_day, to_day))
    _warn_inconsistent(source, cols)
    stats = summarize_columns(cols, scrub=scrub)
    if as_json:
        write_json(stats)
    else:
        print_tables(stats, source=source, from_day=from_day, to_day=to_day)
    _gates(stats, min_first_try_rate, max_failed)


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


def _read(
    file: str | None, db: str | None, table: str | None, query: str | None
) -> tuple[str, Sequence[Any]]:
    if db is not None:
        from agentbisect.genui.db import read_db, redact

        return redact(db), read_db(db, table, query)
    from agentbisect.genui.load import load_rows

    assert file is not None
    return load_rows(file)


def _warn_inconsistent(source: str, cols: Columns) -> None:
    """Spec §1: inconsistent rows are counted by validity, and each gets a stderr warning."""
    bad = inconsistent(cols)
    if bad.size == 0:
        return
    for i in bad[:MAX_WARNINGS].tolist():
        row = cols.row(i)
        sys.stderr.write(
            clean(
                f"afp: warning: {source}: toolCallId {row.tool_call_id!r}: "
                f"{describe_inconsistency(row)} (kept; counted by validity)"
            )
            + "\n"
        )
    if bad.size > MAX_WARNINGS:
        sys.stderr.write(
            f"afp: warning: {source}: … and {bad.size - MAX_WARNINGS} more inconsistent rows\n"
        )


def _gates(stats: GenuiStats, min_rate: float | None, max_failed: int | None) -> None:
    """CI gates, checked after the output is printed."""
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


# --- tables ---------------------------------------------------------------------------------
# Every recorded string (tool and model names, categories, error messages) goes through safe():
# plain Text, scrubbed of control and escape sequences, never parsed as markup.

_DASH = "–"
_BAR_WIDTH = 10


def _keep_numbers_whole(table: Any) -> None:
    """On a narrow console rich shrinks columns; let it shorten names, never numbers or days."""
    for column in table.columns:
        if column.justify == "right" or column.header in ("day", "last at", ""):
            cells = [str(c) for c in column.cells]
            column.no_wrap = True
            header = max(map(len, str(column.header).split("\n")))
            column.min_width = max([header, *map(len, cells)])
        elif column.header in ("tool", "model", "category"):
            # Names may be shortened, but not below a readable prefix.
            column.min_width = min(14, max([0, *(len(str(c)) for c in column.cells)]))


def _pct(rate: float | None) -> str:
    return _DASH if rate is None else f"{rate * 100:.1f}%"


def _usd(value: float | None) -> str:
    if value is None:
        return _DASH
    if value >= 100:
        return f"${value:,.0f}"
    return f"${value:,.4f}" if value >= 0.0001 or value == 0 else f"${value:.2e}"


def _ms(value: float | None) -> str:
    if value is None:
        return _DASH
    return f"{value:,.0f} ms" if value < 10_000 else f"{value / 1000:,.1f} s"


def _short_time(iso: str) -> str:
    """``2026-07-21T09:30:00.000Z`` → ``2026-07-21 09:30:00`` (the JSON keeps milliseconds)."""
    return iso[:10] + " " + iso[11:19]


def _bar(value: int, top: int) -> str:
    if top <= 0 or value <= 0:
        return ""
    eighths = max(1, round(value / top * _BAR_WIDTH * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def print_tables(
    stats: GenuiStats, *, source: str, from_day: str | None, to_day: str | None
) -> None:
    """The terminal report: totals panel, then one table per GenuiStats section."""
    from rich import box
    from rich.panel import Panel
    from rich.table import Table

    from agentbisect.render.console import stdout_console
    from agentbisect.render.text import safe

    out = stdout_console()
    t = stats.totals
    span = "" if from_day is None and to_day is None else f"  {from_day or '…'} → {to_day or '…'}"
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", style="bold")
    grid.add_column()
    grid.add_row("calls", f"{t.calls:,} in {t.turns:,} turns")
    grid.add_row(
        "first try",
        f"{_pct(t.first_try_rate)}  ({t.first_try_successes:,} of {t.first_attempts:,} turns)",
    )
    grid.add_row("retried", f"{t.retried:,}")
    grid.add_row("failed", f"{t.failed:,}")
    grid.add_row("tokens", f"{t.input_tokens:,} in / {t.output_tokens:,} out")
    grid.add_row("cost", _usd(t.cost_usd))
    out.print(Panel(grid, title=safe(f"Generative UI · {source}{span}"), expand=False))
    if t.calls == 0:
        out.print("No genui calls in range.")
        return

    tools = Table(
        title="By tool and model", box=box.SIMPLE_HEAD, title_justify="left", collapse_padding=True
    )
    for name, justify in (
        ("tool", "left"), ("model", "left"), ("calls", "right"),
        ("first\nattempts", "right"), ("first\ntry", "right"), ("retried", "right"),
        ("failed", "right"), ("cost", "right"),
    ):  # fmt: skip
        tools.add_column(name, justify=justify)  # type: ignore[arg-type]
    # The mode is a property of the tool, so the table shows it only for a tool seen with
    # several modes (the JSON always carries it); that keeps the table within 80 columns.
    modes: dict[str, set[str]] = {}
    for r in stats.by_tool_model:
        modes.setdefault(r.tool_name, set()).add(r.mode)
    for r in stats.by_tool_model:
        tool = r.tool_name if len(modes[r.tool_name]) == 1 else f"{r.tool_name} ({r.mode})"
        tools.add_row(
            safe(tool), safe(r.model_id), f"{r.calls:,}",
            f"{r.first_attempts:,}", _pct(r.first_try_rate), f"{r.retried:,}",
            f"{r.failed:,}", _usd(r.cost_usd),
        )  # fmt: skip
    _keep_numbers_whole(tools)
    out.print(tools)

    if stats.errors:
        errors = Table(
            title="Top errors", box=box.SIMPLE_HEAD, title_justify="left", collapse_padding=True
        )
        errors.add_column("count", justify="right")
        errors.add_column("category")
        errors.add_column("tool")
        errors.add_column("last at")
        errors.add_column("message", overflow="fold")
        for e in stats.errors:
            errors.add_row(
                f"{e.count:,}",
                safe(e.category),
                safe(e.tool_name),
                _short_time(e.last_at),
                safe(e.message),
            )
        _keep_numbers_whole(errors)
    out.print(errors)

    days = Table(
        title="By day (UTC)", box=box.SIMPLE_HEAD, title_justify="left", collapse_padding=True
    )
    for name, justify in (
        ("day", "left"), ("calls", "right"), ("", "left"), ("turns", "right"),
        ("first\ntry", "right"), ("tokens\nin", "right"), ("tokens\nout", "right"),
        ("cost", "right"),
    ):  # fmt: skip
        days.add_column(name, justify=justify)  # type: ignore[arg-type]
    top = max(d.calls for d in stats.by_day)
    for d in stats.by_day:
        days.add_row(
            d.day, f"{d.calls:,}", _bar(d.calls, top), f"{d.turns:,}", _pct(d.first_try_rate),
            f"{d.input_tokens:,}", f"{d.output_tokens:,}", _usd(d.cost_usd),
        )  # fmt: skip
    _keep_numbers_whole(days)
    out.print(days)

    c = stats.cost_per_turn
    cost = Table(
        title="Cost per turn", box=box.SIMPLE_HEAD, title_justify="left", collapse_padding=True
    )
    for name in ("costed\nturns", "avg", "p50", "p95"):
        cost.add_column(name, justify="right")
    cost.add_row(f"{c.turns:,}", _usd(c.avg_usd), _usd(c.p50_usd), _usd(c.p95_usd))
    _keep_numbers_whole(cost)
    out.print(cost)

    latency = Table(
        title="Frame latency per turn (from turn start)",
        box=box.SIMPLE_HEAD,
        title_justify="left",
        collapse_padding=True,
    )
    for name, justify in (("frame", "left"), ("turns", "right"), ("p50", "right"),
                          ("p95", "right")):  # fmt: skip
        latency.add_column(name, justify=justify)  # type: ignore[arg-type]
    for label, lat in (
        ("first frame", stats.latency.first_frame),
        ("first complete (accepted)", stats.latency.complete),
    ):
        latency.add_row(label, f"{lat.count:,}", _ms(lat.p50_ms), _ms(lat.p95_ms))
    _keep_numbers_whole(latency)
    out.print(latency)
