"""The ``genui-stats`` HTML page body: totals with the first-try rate up front, the per-day trend
as an SVG chart (calls as bars, first-try rate as a line), the top errors and the per-tool table."""

from __future__ import annotations

from agentbisect.render.html.page import esc, ms, num, pct, table, ths, totals, usd
from agentbisect.schema.genui import GenuiDayRow, GenuiStats

CH_W, CH_H, PAD_L, PAD_R, PAD_T, PAD_B = 1000, 260, 50, 50, 16, 46


def _nice(v: int) -> int:
    """The smallest 1, 2 or 5 times a power of ten that is at least ``v`` (an axis top)."""
    mag = 1
    while True:
        for m in (1, 2, 5):
            if m * mag >= v:
                return m * mag
        mag *= 10


def trend_svg(days: list[GenuiDayRow]) -> str:
    """Calls per day as bars (left axis) and the first-try rate as a line (right axis, 0–100%)."""
    n = len(days)
    top = _nice(max((d.calls for d in days), default=0))
    pw, ph = CH_W - PAD_L - PAD_R, CH_H - PAD_T - PAD_B
    step = pw / max(n, 1)
    bw = max(1.0, step * 0.7)
    parts = [
        f'<line class="gridline" x1="{PAD_L}" x2="{CH_W - PAD_R}" y1="{PAD_T + ph * k / 4:.1f}" '
        f'y2="{PAD_T + ph * k / 4:.1f}"/>'
        f'<text class="lab" x="{PAD_L - 6}" y="{PAD_T + ph * k / 4 + 3:.1f}" text-anchor="end">'
        f"{top * (4 - k) / 4:,.0f}</text>"
        f'<text class="lab" x="{CH_W - PAD_R + 6}" y="{PAD_T + ph * k / 4 + 3:.1f}">'
        f"{(4 - k) * 25}%</text>"
        for k in range(5)
    ]
    pts: list[str] = []
    label_every = max(1, n // 12)
    for i, d in enumerate(days):
        x = PAD_L + i * step + (step - bw) / 2
        h = d.calls / top * ph
        parts.append(
            f'<rect class="bar" x="{x:.1f}" y="{PAD_T + ph - h:.1f}" width="{bw:.1f}" '
            f'height="{h:.1f}"><title>{esc(d.day)}: {d.calls:,} calls, first try '
            f"{pct(d.first_try_rate)}</title></rect>"
        )
        cx = PAD_L + i * step + step / 2
        if d.first_try_rate is not None:
            cy = PAD_T + ph - d.first_try_rate * ph
            pts.append(f"{cx:.1f},{cy:.1f}")
            parts.append(f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="2.5"/>')
        if i % label_every == 0:
            parts.append(
                f'<text class="lab" x="{cx:.1f}" y="{CH_H - PAD_B + 14}" text-anchor="middle">'
                f"{esc(d.day[5:])}</text>"
            )
    if len(pts) > 1:
        parts.append(f'<polyline class="rate" points="{" ".join(pts)}"/>')
    parts.append(
        f'<text class="lab" x="{PAD_L}" y="{CH_H - 8}">bars: calls per day (left axis) · '
        "line: first-try rate (right axis) · days in UTC</text>"
    )
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{CH_W}" height="{CH_H}" '
        f'viewBox="0 0 {CH_W} {CH_H}" role="img" aria-label="calls and first-try rate per day">'
        + "".join(parts)
        + "</svg>"
    )


def genui_body(stats: GenuiStats, *, source: str, from_day: str | None, to_day: str | None) -> str:
    t = stats.totals
    span = "" if from_day is None and to_day is None else f" · {from_day or '…'} → {to_day or '…'}"
    tot = [
        (num(t.calls), f"calls in {t.turns:,} turns"),
        (num(t.retried), "retried"),
        (num(t.failed), "failed"),
        (f"{num(t.input_tokens)} / {num(t.output_tokens)}", "tokens in / out"),
        (usd(t.cost_usd), "cost"),
    ]
    out = (
        f'<header><h1>Generative UI · <span class="mono">{esc(source)}</span>{esc(span)}</h1>'
        f'<p class="hero"><span class="big" id="first-try">{pct(t.first_try_rate)}</span> '
        f'first-try rate <span class="muted">({t.first_try_successes:,} of '
        f"{t.first_attempts:,} turns succeeded at the first attempt)</span></p>"
        + totals(tot)
        + "</header>"
    )
    if t.calls == 0:
        return out + '<p class="muted">No genui calls in range.</p>'
    out += '<section id="trend"><h2>Per-day trend</h2><div class="tl">'
    out += trend_svg(stats.by_day) + "</div></section>"
    erows = [
        f'<tr><td class="n">{e.count:,}</td><td>{esc(e.category)}</td><td>{esc(e.tool_name)}</td>'
        f'<td class="mono">{esc(e.last_at[:19].replace("T", " "))}</td>'
        f'<td class="txt">{esc(e.message)}</td></tr>'
        for e in stats.errors
    ]
    ehead = ths(">count", "category", "tool", "last at", "message")
    out += '<section id="errors"><h2>Top errors</h2>'
    out += table(ehead, erows, what="errors", empty="No errors.") + "</section>"
    trows = [
        f"<tr><td>{esc(r.tool_name)}</td><td>{esc(r.mode)}</td><td>{esc(r.model_id)}</td>"
        f'<td class="n">{r.calls:,}</td><td class="n">{r.first_attempts:,}</td>'
        f'<td class="n">{pct(r.first_try_rate)}</td><td class="n">{r.retried:,}</td>'
        f'<td class="n">{r.failed:,}</td><td class="n">{usd(r.cost_usd)}</td></tr>'
        for r in stats.by_tool_model
    ]
    head = ths("tool", "mode", "model", ">calls", ">first attempts", ">first try", ">retried")
    head += ths(">failed", ">cost")
    out += '<section id="tools"><h2>By tool and model</h2>'
    out += table(head, trows, what="rows") + "</section>"
    drows = [
        f'<tr><td class="mono">{esc(d.day)}</td><td class="n">{d.calls:,}</td>'
        f'<td class="n">{d.turns:,}</td><td class="n">{pct(d.first_try_rate)}</td>'
        f'<td class="n">{d.input_tokens:,}</td><td class="n">{d.output_tokens:,}</td>'
        f'<td class="n">{usd(d.cost_usd)}</td></tr>'
        for d in stats.by_day
    ]
    dhead = ths("day", ">calls", ">turns", ">first try", ">tokens in", ">tokens out", ">cost")
    c, lat = stats.cost_per_turn, stats.latency
    out += (
        '<section id="days"><h2>By day (UTC)</h2>' + table(dhead, drows, what="days") + "</section>"
        '<section id="cost"><h2>Cost and latency per turn</h2>'
        f"<p>{c.turns:,} costed turns · avg {usd(c.avg_usd)} · p50 {usd(c.p50_usd)} · "
        f"p95 {usd(c.p95_usd)}</p>"
        f"<p>first frame: {lat.first_frame.count:,} turns · p50 {ms(lat.first_frame.p50_ms)} · "
        f"p95 {ms(lat.first_frame.p95_ms)}</p>"
        f"<p>first complete (accepted): {lat.complete.count:,} turns · p50 "
        f"{ms(lat.complete.p50_ms)} · p95 {ms(lat.complete.p95_ms)}</p></section>"
    )
    return out
