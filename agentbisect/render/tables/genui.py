"""Terminal tables for ``afp genui-stats``: a totals panel, then one table per GenuiStats section.

Imported only when tables are printed (JSON output never pays for rich). Every recorded string
(tool and model names, categories, error messages) goes through ``safe()``: plain Text, scrubbed
of control and escape sequences, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich import box
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from agentbisect.render.console import stdout_console
from agentbisect.render.html.page import ms, pct, usd
from agentbisect.render.safetext import safe
from agentbisect.schema.genui import GenuiStats

_DASH = "–"
_BAR_WIDTH = 10


def _keep_numbers_whole(table: Table) -> None:
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
    out = stdout_console()
    t = stats.totals
    span = "" if from_day is None and to_day is None else f"  {from_day or '…'} → {to_day or '…'}"
    grid = Table.grid(padding=(0, 2))
    grid.add_column(justify="right", style="bold")
    grid.add_column()
    grid.add_row("calls", f"{t.calls:,} in {t.turns:,} turns")
    grid.add_row(
        "first try",
        f"{pct(t.first_try_rate, _DASH)}  "
        f"({t.first_try_successes:,} of {t.first_attempts:,} turns)",
    )
    grid.add_row("retried", f"{t.retried:,}")
    grid.add_row("failed", f"{t.failed:,}")
    grid.add_row("tokens", f"{t.input_tokens:,} in / {t.output_tokens:,} out")
    grid.add_row("cost", usd(t.cost_usd, _DASH))
    out.print(Panel(grid, title=safe(f"Generative UI · {source}{span}"), expand=False))
    if t.calls == 0:
        out.print("No genui calls in range.")
        return

    # The mode is a property of the tool, so the table shows it only for a tool seen with
    # several modes (the JSON always carries it); that keeps the table within 80 columns.
    modes: dict[str, set[str]] = {}
    for r in stats.by_tool_model:
        modes.setdefault(r.tool_name, set()).add(r.mode)
    rows: list[tuple[str | Text, ...]] = []
    for r in stats.by_tool_model:
        tool = r.tool_name if len(modes[r.tool_name]) == 1 else f"{r.tool_name} ({r.mode})"
        rows.append((
            safe(tool), safe(r.model_id), f"{r.calls:,}", f"{r.first_attempts:,}",
            pct(r.first_try_rate, _DASH), f"{r.retried:,}", f"{r.failed:,}", usd(r.cost_usd, _DASH),
        ))  # fmt: skip
    heads = ("tool", "model", ">calls", ">first\nattempts", ">first\ntry", ">retried", ">failed")
    _section("By tool and model", (*heads, ">cost"), rows)
    if stats.errors:
        rows = [
            (f"{e.count:,}", safe(e.category), safe(e.tool_name), _short_time(e.last_at),
             safe(e.message))
            for e in stats.errors
        ]  # fmt: skip
        _section("Top errors", (">count", "category", "tool", "last at", "message"), rows)
    top = max(d.calls for d in stats.by_day)
    rows = [
        (d.day, f"{d.calls:,}", _bar(d.calls, top), f"{d.turns:,}", pct(d.first_try_rate, _DASH),
         f"{d.input_tokens:,}", f"{d.output_tokens:,}", usd(d.cost_usd, _DASH))
        for d in stats.by_day
    ]  # fmt: skip
    heads = ("day", ">calls", "", ">turns", ">first\ntry", ">tokens\nin", ">tokens\nout")
    _section("By day (UTC)", (*heads, ">cost"), rows)
    c = stats.cost_per_turn
    rows = [(f"{c.turns:,}", usd(c.avg_usd, _DASH), usd(c.p50_usd, _DASH), usd(c.p95_usd, _DASH))]
    _section("Cost per turn", (">costed\nturns", ">avg", ">p50", ">p95"), rows)
    lat = stats.latency
    pairs = (("first frame", lat.first_frame), ("first complete (accepted)", lat.complete))
    rows = [(label, f"{x.count:,}", ms(x.p50_ms, _DASH), ms(x.p95_ms, _DASH)) for label, x in pairs]
    _section("Frame latency per turn (from turn start)", ("frame", ">turns", ">p50", ">p95"), rows)


def _section(title: str, headers: Sequence[str], rows: Iterable[Sequence[str | Text]]) -> None:
    """One section's table; a header written with a leading ``>`` is a right-aligned column, and
    the free-text ``message`` column folds rather than cut an error short."""
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", collapse_padding=True)
    for h in headers:
        right = h.startswith(">")
        table.add_column(
            h[1:] if right else h,
            justify="right" if right else "left",
            overflow="fold" if h == "message" else "ellipsis",
        )
    for row in rows:
        table.add_row(*row)
    _keep_numbers_whole(table)
    stdout_console().print(table)


__all__ = ["print_tables"]
