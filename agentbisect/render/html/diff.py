"""``afp diff``'s page: the two runs, the divergence, the differences in two columns with their
changed spans marked, and the aligned timeline (every recorded string escaped by ``page.esc``)."""

from __future__ import annotations

from agentbisect.render.html.page import esc, table, ths, totals
from agentbisect.results.diff import AlignedStep, Change, Difference, DiffResult, SourceSide


def _marked(src: SourceSide | None, changes: list[Change], which: str) -> str:
    """One side's whole text with its changed spans in ``<mark>`` (insertions as a caret)."""
    if src is None:
        return '<span class="muted">(absent in this run)</span>'
    text = src.text
    spans = sorted(
        [((c.badSpan if which == "bad" else c.goodSpan), c.material) for c in changes],
        key=lambda x: (x[0].start, x[0].end),
    )
    out: list[str] = []
    pos = 0
    for sp, material in spans:
        if sp.start < pos:
            continue
        out.append(esc(text[pos : sp.start]))
        title = "changed" if material else "an id or a time"
        piece = esc(text[sp.start : sp.end]) if sp.end > sp.start else "⌃"
        out.append(f'<mark title="{title}">{piece}</mark>')
        pos = sp.end
    out.append(esc(text[pos:]))
    return f'<div class="evidence">{"".join(out)}</div>'


def _who(src: SourceSide | None) -> str:
    if src is None:
        return "—"
    idx = f" · LLM call {src.llmIndex}" if src.llmIndex is not None else ""
    return f"<code>{esc(src.step)}</code>{esc(idx)}<br>{esc(src.name)}"


def _difference_row(i: int, d: Difference, proxy: bool) -> str:
    score = f"{d.score:+.3f}" if d.material else "immaterial (ids, times, labels)"
    if d.verdict is not None:
        score += f'<br><span class="v-{esc(d.verdict.verdict)}">{esc(d.verdict.verdict)}</span>'
    label = " (proxy)" if proxy and d.material else ""
    return (
        f"<tr><td class='n'>{i}</td><td>{esc(d.kind)}</td>"
        f"<td class='said'>{_who(d.good)}{_marked(d.good, d.changes, 'good')}</td>"
        f"<td class='said'>{_who(d.bad)}{_marked(d.bad, d.changes, 'bad')}</td>"
        f"<td class='n'>{score}{esc(label)}</td></tr>"
    )


def _step(s: object) -> str:
    if s is None:
        return '<span class="muted">—</span>'
    idx = getattr(s, "llmIndex", None)
    extra = f" · LLM call {idx}" if idx is not None else ""
    return f"{esc(getattr(s, 'op', ''))} <code>{esc(getattr(s, 'step', ''))}</code>{esc(extra)}"


def _timeline_row(n: int, a: AlignedStep, marks: dict[int, str]) -> str:
    cls = " class='trigger'" if n in marks else ""
    state = "same" if a.same else ("changed" if a.good and a.bad else "one run only")
    note = f" — {marks[n]}" if n in marks else ""
    return (
        f"<tr{cls}><td class='n'>{n}</td><td>{_step(a.good)}</td><td>{_step(a.bad)}</td>"
        f"<td>{esc(state + note)}</td></tr>"
    )


def _marks(r: DiffResult) -> dict[int, str]:
    out: dict[int, str] = {}
    for label, d in (
        ("first input divergence", r.firstInputDivergence),
        ("first output divergence", r.firstOutputDivergence),
    ):
        if d is None:
            continue
        for n, a in enumerate(r.alignment.steps):
            if a.good is not None and a.good.step == d.good.step and a.bad is not None:
                out[n] = f"{out[n]}, {label}" if n in out else label
                break
    return out


def diff_body(r: DiffResult) -> str:
    a = r.alignment
    head = (
        "<h1>afp diff</h1>"
        f'<p class="sub">good <code>{esc(r.good.file)}</code> ({esc(r.good.shape)}) · '
        f"bad <code>{esc(r.bad.file)}</code> ({esc(r.bad.shape)})</p>"
    )
    tiles = totals(
        [
            (f"{a.aligned:,} / {max(a.goodSteps, a.badSteps):,}", "steps aligned"),
            ("yes" if r.diverged else "no", "diverged"),
            (f"{sum(1 for d in r.differences if d.material):,}", "differences"),
        ]
    )
    notes = "".join(f"<li>{esc(w)}</li>" for w in r.warnings)
    banner = f'<div class="flags"><h2>Notes</h2><ul>{notes}</ul></div>' if notes else ""
    if not r.diverged:
        verdict = "<p>No divergence: the runs differ in ids, times and formatting only.</p>"
        return head + tiles + banner + verdict + _timeline(r)
    mode = "corr" if r.scoring.proxy else "causal"
    answers = (
        '<section class="answer"><h2>The diverging call</h2>'
        f"<table><thead><tr>{''.join(ths('good', 'bad'))}</tr></thead><tbody><tr>"
        f"<td class='said'>{_where(r, 'good')}<p>{esc(r.goodAnswer or '')}</p></td>"
        f"<td class='said'>{_where(r, 'bad')}<p>{esc(r.badAnswer or '')}</p></td>"
        "</tr></tbody></table></section>"
    )
    rows = [_difference_row(i, d, r.scoring.proxy) for i, d in enumerate(r.differences, 1)]
    diffs = (
        "<section><h2>The differences that fed it</h2>"
        f'<p><span class="mode {mode}">{"proxy" if r.scoring.proxy else "causal"}</span>'
        f"{esc(r.scoring.note)} · embedder {esc(r.scoring.embedder)}</p>"
        + table(
            ths(">#", "kind", "good", "bad", ">score"),
            rows,
            what="differences",
            empty="No context source differs.",
        )
        + "</section>"
    )
    return head + tiles + banner + answers + diffs + _timeline(r)


def _where(r: DiffResult, which: str) -> str:
    parts = []
    for label, d in (("input", r.firstInputDivergence), ("output", r.firstOutputDivergence)):
        if d is not None:
            parts.append(f"first {label} divergence: {_step(getattr(d, which))}")
    return "<br>".join(parts)


def _timeline(r: DiffResult) -> str:
    marks = _marks(r)
    rows = [_timeline_row(n, a, marks) for n, a in enumerate(r.alignment.steps)]
    return (
        "<section><h2>Aligned timeline</h2>"
        + table(ths(">#", "good", "bad", "alignment"), rows, what="steps")
        + "</section>"
    )
