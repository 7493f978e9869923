"""The timeline as inline SVG: one lane per boundary with a bar per pass through it, rows of marks
for LLM calls, tool calls and errors above, and the trigger drawn as a highlighted line and mark.

Every bar carries a <title>, so hovering names it without any script. Lanes past ``LANES_SHOWN``
go into a second SVG inside a collapsed <details> on the same x scale.
"""

from __future__ import annotations

from agentbisect.model.boundary.timeline import Mark, Timeline
from agentbisect.render.html.page import esc, ms

WIDTH = 1200
LABEL_W = 190
RIGHT = 16
ROW = 18
LANES_SHOWN = 40


def _fmt(v: float, axis: str) -> str:
    return ms(v) if axis == "ms" else f"#{v:,.0f}"


def _ticks(extent: float) -> list[float]:
    raw = extent / 6
    mag = 10 ** max(0, len(str(int(raw))) - 1)
    step = next((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), 10 * mag)
    out, t = [], 0.0
    while t <= extent:
        out.append(t)
        t += step
    return out


class _Scale:
    def __init__(self, extent: float) -> None:
        self.extent = extent
        self.plot = WIDTH - LABEL_W - RIGHT

    def x(self, v: float) -> float:
        return LABEL_W + (v / self.extent) * self.plot

    def w(self, a: float, b: float | None) -> float:
        end = self.extent if b is None else b
        return max(1.5, (end - a) / self.extent * self.plot)


def _mark(m: Mark, sc: _Scale, y: float, axis: str, llm_index: dict[str, int]) -> str:
    cls = "mk-trigger" if m.trigger else f"mk-{m.kind}"
    x = sc.x(m.at)
    if m.kind == "error":
        # A small triangle: errors must stand out even when they coincide with a bar.
        pts = f"{x:.1f},{y + 2:.1f} {x - 5:.1f},{y + 13:.1f} {x + 5:.1f},{y + 13:.1f}"
        shape = f'<polygon class="{cls}" points="{pts}" data-step="{esc(m.step)}">'
    else:
        h = 14 if m.trigger else 12
        top = y + (ROW - h) / 2 - 1
        shape = (
            f'<rect class="{cls}" x="{x:.1f}" y="{top:.1f}" width="{max(2.5, sc.w(m.at, m.end) if m.end is not None else 2.5):.1f}" '
            f'height="{h}" rx="1.5" data-step="{esc(m.step)}">'
        )
    what = {"llm": "LLM call", "tool": "tool call", "error": "error"}[m.kind]
    dur = f" · {ms(m.end - m.at)}" if m.end is not None and axis == "ms" else ""
    title = f"{what} {m.step} {m.label}{dur} at {_fmt(m.at, axis)}"
    if m.trigger:
        title = "TRIGGER · " + title
    tag = "polygon" if m.kind == "error" else "rect"
    body = f"{shape}<title>{esc(title)}</title></{tag}>"
    if m.kind == "llm" and m.step in llm_index:
        return f'<a href="#llm-{llm_index[m.step]}">{body}</a>'
    return body


def timeline_svg(tl: Timeline, llm_index: dict[str, int]) -> str:
    """The timeline figure (one or two SVGs) as HTML."""
    sc = _Scale(tl.extent)
    rows: list[str] = []
    y = 22.0
    for label, kind in (("LLM calls", "llm"), ("tool calls", "tool"), ("errors", "error")):
        ms_ = [m for m in tl.marks if m.kind == kind]
        if kind == "error" and not ms_:
            continue
        rows.append(
            f'<text class="lane-label" x="6" y="{y + 13:.1f}" font-weight="600">'
            f"{esc(label)} ({len(ms_):,})</text>"
        )
        rows.extend(_mark(m, sc, y, tl.axis, llm_index) for m in ms_ if not m.trigger)
        rows.extend(_mark(m, sc, y, tl.axis, llm_index) for m in ms_ if m.trigger)
        y += ROW
    y += 6
    rows.append(f'<line class="gridline" x1="0" x2="{WIDTH}" y1="{y - 3:.1f}" y2="{y - 3:.1f}"/>')
    head = "".join(rows)
    rest = tl.lanes[LANES_SHOWN:]
    by_lane: dict[int, list[str]] = {}
    for s in tl.spans:
        lane = tl.lanes[s.lane]
        kind = " slot" if lane.kind.startswith("slot:") else f" k-{lane.kind}"
        cls = "bar" + (" open" if s.end is None else "") + kind
        where = f"from {_fmt(s.start, tl.axis)}"
        if s.durationMs is not None:
            where = f"{ms(s.durationMs)} · {where}"
        elif s.end is None:
            where = f"open · {where}"
        else:  # on the event-order axis a pass has a span of events, not a duration
            where += f" to {_fmt(s.end, tl.axis)}"
        title = f"{lane.name} · {s.runtimeStageId} · {where}"
        by_lane.setdefault(s.lane, []).append(
            f'<rect class="{cls}" x="{sc.x(s.start):.1f}" y="@Y@" width="{sc.w(s.start, s.end):.1f}" '
            f'height="12" data-stage="{esc(s.runtimeStageId)}"><title>{esc(title)}</title></rect>'
        )

    def lanes_svg(idx0: int, lanes_y0: float, with_head: bool) -> str:
        lanes = tl.lanes[idx0 : idx0 + (LANES_SHOWN if idx0 == 0 else len(tl.lanes))]
        parts = [head] if with_head else []
        ly = lanes_y0
        for off, lane in enumerate(lanes):
            i = idx0 + off
            name = lane.name if len(lane.name) <= 26 else lane.name[:25] + "…"
            parts.append(
                f'<text class="lane-label" x="{6 + min(lane.depth, 6) * 10}" y="{ly + 13:.1f}">'
                f"{esc(name)}<title>{esc(lane.name)} · {esc(lane.kind)} · {lane.spans:,} pass(es)"
                "</title></text>"
            )
            ybar = f"{ly + 3:.1f}"
            parts.extend(r.replace('y="@Y@"', f'y="{ybar}"', 1) for r in by_lane.get(i, []))
            ly += ROW
        height = ly + 4
        axis = "".join(
            f'<line class="gridline" x1="{sc.x(t):.1f}" x2="{sc.x(t):.1f}" y1="16" '
            f'y2="{height:.1f}"/><text class="axis" x="{sc.x(t) + 2:.1f}" y="11">'
            f"{esc(_fmt(t, tl.axis))}</text>"
            for t in _ticks(tl.extent)
        )
        trig = ""
        if tl.triggerAt is not None:
            tx = sc.x(tl.triggerAt)
            trig = (
                f'<rect class="trig-line" x="{tx - 1:.1f}" y="14" width="2" height="{height - 14:.1f}" '
                f'data-step="{esc(tl.trigger)}"><title>trigger {esc(tl.trigger)}</title></rect>'
            )
            if with_head:
                anchor = "end" if tx > WIDTH - 200 else "start"
                dx = -4 if anchor == "end" else 4
                trig += (
                    f'<text class="trig-label" x="{tx + dx:.1f}" y="{height - 4:.1f}" '
                    f'text-anchor="{anchor}">trigger {esc(tl.trigger)}</text>'
                )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
            f'viewBox="0 0 {WIDTH} {height:.0f}" role="img" aria-label="run timeline">'
            f"{axis}{''.join(parts)}{trig}</svg>"
        )

    out = f'<div class="tl">{lanes_svg(0, y, True)}</div>'
    if rest:
        out += (
            f'<details class="more"><summary>{len(rest):,} more boundary lanes</summary>'
            f'<div class="tl">{lanes_svg(LANES_SHOWN, 20.0, False)}</div></details>'
        )
    axis_word = "time from the first event" if tl.axis == "ms" else "event order (times missing)"
    out += (
        '<p class="legend">x: ' + axis_word + ' · <i class="b"></i>boundary pass'
        '<i class="l"></i>LLM call<i class="t"></i>tool call<i class="e"></i>error'
        '<i class="g"></i>trigger · outlined: the open suspect\'s path · hover a bar for its '
        "name and duration</p>"
    )
    if tl.triggerNote:
        out += f'<p class="muted">{esc(tl.triggerNote)}</p>'
    return out
