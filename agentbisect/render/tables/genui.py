"""Terminal tables for ``afp genui-stats``: a totals panel, then one table per GenuiStats section.

Imported only when tables are printed (``--json`` never pays for rich). Every recorded string
(tool and model names, categories, error messages) goes through ``safe()``: plain Text, scrubbed
of control and escape sequences, never parsed as markup.
"""

from __future__ import annotations

from rich import box
from rich.panel import Panel
from rich.table import Table

from agentbisect.render.console import stdout_console
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


__all__ = ["print_tables"]
