"""``afp scan``'s closing summary: the tables written, runs and errors, the most frequent
honesty flags and, with the bisect option, the tools most often among the top suspects."""

from __future__ import annotations

from rich.table import Table

from agentbisect.render.console import stdout_console
from agentbisect.render.safetext import safe
from agentbisect.results.scan import ScanResult


def render_scan(r: ScanResult) -> None:
    con = stdout_console()
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    t.add_row("files", safe(_files(r)))
    t.add_row("runs", safe(f"{r.runs:,} ({r.errors:,} with an error) · {r.calls:,} LLM calls"))
    for e in r.first_errors:
        t.add_row("", safe(f"error: {e}"))
    flags = ", ".join(f"{f} ({n:,})" for f, n in r.flags) or "none"
    t.add_row("flags", safe(f"most frequent: {flags}"))
    if r.suspect_tools is not None:
        tools = ", ".join(f"{name} ({n:,})" for name, n in r.suspect_tools) or "none"
        t.add_row("suspects", safe(f"tools most often among the top suspects: {tools}"))
        t.add_row("", safe("correlational: evidence scores are proxies, not causal verdicts"))
        if r.not_localized:
            t.add_row("", safe(f"{r.not_localized:,} run(s) not localized (runs.bisect_error)"))
    if r.rescan_reason is not None:
        t.add_row("note", safe(f"every file read again: {r.rescan_reason}"))
    t.add_row("wrote", safe(", ".join(r.tables.values())))
    t.add_row("engine", safe(f"{r.engine}, {r.jobs} job(s), {r.seconds:.1f} s"))
    con.print(t)


def _files(r: ScanResult) -> str:
    text = f"{r.files:,} ({r.read:,} read, {r.reused:,} unchanged"
    return text + (f", {r.dropped:,} dropped)" if r.dropped else ")")
