"""The run-overview sections of the HTML report: header and totals, the honesty-flag banner, the
timeline, the boundary tree with rollups, and the per-call tables."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from msgspec import UNSET

from agentbisect.core.options import AT_LLM
from agentbisect.model.boundary.rollup import BoundaryAggregate
from agentbisect.render.html.page import esc, ms, num, table, ths, totals
from agentbisect.render.html.timeline import timeline_svg
from agentbisect.results import RunOverview

# the flags that say a run's content was not kept (their notes say how much)
_NO_CONTENT = ("content-not-captured", "lean-no-content")
_RECORDING_SHAPE = re.compile(r"[A-E]: (\w+)")  # "B: recording {snapshot, events, structure}"


def plain_words(o: RunOverview) -> str:
    """What was read, as a user names it: "OpenTelemetry trace, 3 LLM calls, content captured"."""
    src = o.source
    name = str(src.get("shapeName") or src.get("shape") or "run")
    shape = _RECORDING_SHAPE.match(name)
    if shape:
        name = f"agentfootprint {shape.group(1)}"
    n = o.totals.llmCalls
    got = {f.flag for f in o.flags}
    content = "content not captured" if got & set(_NO_CONTENT) else "content captured"
    if "redacted" in got:
        content += ", partly redacted"
    return f"{name}, {n:,} LLM call{'s' if n != 1 else ''}, {content}"


def header(o: RunOverview, title: str, extra: str = "") -> str:
    src = o.source
    # "present" alone read as the trace's own commits beside a flag saying it has none
    synth = any(f.flag == "synthesized-commit-axis" for f in o.flags)
    axis_note = " (synthesized from span order)" if synth else ""
    bits = [
        f"{num(src.get('bytes'))} bytes" + (" (gzip)" if src.get("gzip") else ""),
        f"commit axis {src.get('commitAxis', '?')}{axis_note}",
    ]
    if src.get("runIds"):
        bits.append("run " + ", ".join(src["runIds"][:3]))
    t = o.totals
    tot = [
        (num(t.llmCalls), "LLM calls"),
        (num(t.toolCalls), "tool calls"),
        (f"{num(t.tokensIn)} / {num(t.tokensOut)}", "tokens in / out"),
        ("unknown" if t.durationMs is None else ms(t.durationMs), "duration"),
        (num(t.boundaries), "boundary passes"),
        (num(t.events), "events"),
    ]
    return (
        f'<header><h1>{esc(title)} · <span class="mono">{esc(src.get("file", ""))}</span></h1>'
        f'<p class="plain" id="read">{esc(plain_words(o))}</p>'
        f'<p class="sub">{esc(" · ".join(bits))}</p>{extra}'
        + totals(tot, ' id="totals"')
        + "</header>"
    )


def flags_banner(flags: Sequence[Any], what: str = "recording") -> str:
    """Every honesty flag, before any evidence: what this evidence cannot support."""
    if not flags:
        return (
            '<section class="flags none" id="flags"><h2>No honesty flags</h2>'
            f"<p>No evidence limits were found in this {esc(what)}.</p></section>"
        )
    items = "".join(f'<li><b class="mono">{esc(f.flag)}</b> — {esc(f.note)}</li>' for f in flags)
    return (
        f'<section class="flags" id="flags" role="alert"><h2>⚠ {len(flags)} honesty '
        f"flag{'s' if len(flags) != 1 else ''}: limits of this evidence</h2>"
        f"<ul>{items}</ul></section>"
    )


def flags_line(flags: Sequence[Any], what: str = "recording") -> str:
    """The honesty flags as one line of names that opens (a <details>: no script) to each
    flag's note — a report's limits stay in sight without outweighing its answer."""
    if not flags:
        return (
            '<p class="flags none" id="flags">No honesty flags: no evidence limits were found '
            f"in this {esc(what)}.</p>"
        )
    names = ", ".join(f'<b class="mono">{esc(f.flag)}</b>' for f in flags)
    items = "".join(f'<li><b class="mono">{esc(f.flag)}</b> — {esc(f.note)}</li>' for f in flags)
    n = len(flags)
    return (
        f'<details class="flags" id="flags" role="alert"><summary>⚠ {n} honesty '
        f"flag{'s' if n != 1 else ''}: {names} — limits of this evidence</summary>"
        f"<ul>{items}</ul></details>"
    )


def timeline_section(o: RunOverview) -> str:
    idx = {c.step: c.index for c in o.llmCalls}
    if not o.timeline.spans and not o.timeline.marks:
        return '<section id="timeline"><h2>Timeline</h2><p class="muted">No events.</p></section>'
    return (
        '<section id="timeline"><h2>Timeline</h2>'
        f'<p class="sub">{len(o.timeline.lanes):,} boundary lane(s), '
        f"{len(o.timeline.spans):,} pass(es); click an LLM call to find it in the table.</p>"
        + timeline_svg(o.timeline, idx)
        + "</section>"
    )


def _rollup_cells(a: BoundaryAggregate | None) -> str:
    if a is None:
        return '<td class="n"></td>' * 6
    dur = a.durationMs
    shown = "in flight" if dur is UNSET else "unknown" if dur is None else ms(dur)
    return (
        f'<td class="n">{num(a.llmCalls)}</td><td class="n">{num(a.toolCalls)}</td>'
        f'<td class="n">{num(a.iterations)}</td><td class="n">{num(a.tokens.input)}</td>'
        f'<td class="n">{num(a.tokens.output)}</td>'
        f'<td class="n">{shown}</td>'
    )


def tree_section(o: RunOverview) -> str:
    head = ths(
        "boundary", "kind", "stage", ">LLM", ">tools", ">iter", ">tok in", ">tok out", ">duration"
    )
    rows = []
    for b in o.boundaries:
        roll = o.runRollup if b.kind == "run" else b.rollup
        dim = ' class="dim"' if roll is None and b.kind != "run" else ""
        open_ = " (open)" if b.open else ""
        rows.append(
            f'<tr{dim}><td class="d{min(b.depth, 8)}">{esc(b.name)}{esc(open_)}</td>'
            f'<td>{esc(b.kind)}</td><td class="mono">{esc(b.runtimeStageId)}</td>'
            f"{_rollup_cells(roll)}</tr>"
        )
    return (
        '<section id="boundaries"><h2>Boundaries and rollups</h2>'
        '<p class="sub">Every pass through a boundary in entry order, nested by depth. Rollups '
        "attribute events by stored subflow path (upstream rule): nested boundaries count toward "
        "every ancestor; a top-level agent's calls appear only in the Run row. Rows without "
        "numbers are boundaries upstream does not roll up (slots, untagged subflows).</p>"
        + table(head, rows, what="boundary passes", empty="No boundary events in this recording.")
        + "</section>"
    )


def calls_section(o: RunOverview, trigger: str | None = None) -> str:
    head = ths(">#", "step", "model", ">tok in", ">tok out", ">latency", "stop", "tools asked for")
    rows = []
    for c in o.llmCalls:
        cls = ' class="trigger"' if trigger is not None and c.step == trigger else ""
        rows.append(
            f'<tr id="llm-{c.index}"{cls}><td class="n">{c.index}</td>'
            f'<td class="mono">{esc(c.step)}</td><td>{esc(c.model)}</td>'
            f'<td class="n">{num(c.tokensIn)}</td><td class="n">{num(c.tokensOut)}</td>'
            f'<td class="n">{ms(c.latencyMs)}</td><td>{esc(c.stopReason or "")}</td>'
            f'<td class="txt">{esc(", ".join(c.tools))}</td></tr>'
        )
    out = (
        '<section id="llm-calls"><h2>LLM calls</h2>'
        f'<p class="sub"># is the index <code>{AT_LLM.flag}</code> takes.</p>'
        + table(head, rows, what="LLM calls", empty="None.")
    )
    thead = ths(">#", "step", "tool", "asked by", ">duration", "result (shortened)", "error")
    trows = [
        f'<tr><td class="n">{t.index}</td><td class="mono">{esc(t.step)}</td>'
        f'<td>{esc(t.tool)}</td><td class="mono">{esc(t.askedBy or "")}</td>'
        f'<td class="n">{ms(t.durationMs)}</td><td class="txt">{esc(t.result)}</td>'
        f'<td class="txt">{esc(t.error)}</td></tr>'
        for t in o.toolCalls
    ]
    out += '<h2 id="tool-calls">Tool calls</h2>' + table(
        thead, trows, what="tool calls", empty="None."
    )
    return out + "</section>"


def overview_sections(o: RunOverview, trigger: str | None = None) -> str:
    """Timeline, boundary tree and call tables (the header and flags come first, separately)."""
    return timeline_section(o) + calls_section(o, trigger) + tree_section(o)
