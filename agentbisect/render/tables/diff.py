"""``afp diff`` on a terminal, one screen: the two runs, the divergence, the answers, and the top
differences with their changed spans side by side (recorded text scrubbed by ``safetext``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentbisect.core.options import JSON
from agentbisect.render.console import stdout_console
from agentbisect.render.safetext import safe, scrub, shorten
from agentbisect.results.diff import Change, Difference, DiffResult, Divergence, SourceSide

if TYPE_CHECKING:
    from rich.text import Text

TOP = 5  # differences shown
CONTEXT = 40  # characters of unchanged text shown either side of a changed span
SPANS = 2  # changed spans shown per difference


def _where(d: Divergence | None) -> str:
    if d is None:
        return "none"

    def one(label: str, s: object) -> str:
        step = getattr(s, "step", "")
        idx = getattr(s, "llmIndex", None)
        return f"{label} {step}" + (f" (LLM call {idx})" if idx is not None else "")

    return f"{one('good', d.good)}  ↔  {one('bad', d.bad)}"


def windows(text: str, spans: list[tuple[int, int]], context: int) -> list[tuple[int, int]]:
    """The stretches of ``text`` shown around ``spans``: each span with ``context`` characters
    either side, overlapping stretches merged."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        lo, hi = max(0, s - context), min(len(text), e + context)
        # (whole words at either edge: "…itchen appliances" read as a typo)
        if 0 < lo < s and not text[lo - 1].isspace():
            cut = text.find(" ", lo, s)
            lo = cut + 1 if cut >= 0 else lo
        if e < hi < len(text) and not text[hi].isspace():
            cut = text.rfind(" ", e, hi)
            hi = cut if cut >= 0 else hi
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def snippet(src: SourceSide | None, changes: list[Change], which: str) -> Text:
    """The text of one side around its first changed spans, each span marked."""
    from rich.text import Text

    out = Text()
    if src is None:
        out.append("(absent in this run)", style="dim")
        return out
    text = src.text
    shown = [c for c in changes if c.material][:SPANS] or changes[:SPANS]
    spans = [(c.badSpan if which == "bad" else c.goodSpan) for c in shown]
    marks = [(sp.start, sp.end) for sp in spans]
    if not marks:
        out.append(scrub(shorten(text, 2 * CONTEXT)))
        return out
    style = "bold red" if which == "bad" else "bold green"
    for lo, hi in windows(text, marks, CONTEXT):
        out.append("…" if lo > 0 else "")
        pos = lo
        for s, e in marks:
            if s < lo or s > hi:
                continue
            out.append(scrub(text[pos:s]))
            out.append(scrub(text[s:e]) if e > s else "⌃", style=style)
            pos = e
        out.append(scrub(text[pos:hi]))
        out.append("…" if hi < len(text) else "")
    return out


def _source(d: Difference) -> str:
    g = f"{d.good.name or d.good.step}" if d.good else "—"
    b = f"{d.bad.name or d.bad.step}" if d.bad else "—"
    return g if g == b else f"{g} ↔ {b}"


def render_diff(r: DiffResult) -> None:
    from rich.table import Table

    out = stdout_console()
    out.print(safe(f"afp diff — good {r.good.file} ({r.good.shape})", "bold"))
    out.print(safe(f"           bad  {r.bad.file} ({r.bad.shape})", "bold"))
    a = r.alignment
    out.print(
        safe(
            f"aligned {a.aligned} of {max(a.goodSteps, a.badSteps)} steps "
            f"({a.goodSteps} good, {a.badSteps} bad; {r.good.llmCalls}/{r.bad.llmCalls} LLM calls)"
        )
    )
    if not r.diverged:
        out.print(
            safe("No divergence: the runs differ in ids, times and formatting only.", "green")
        )
        return
    out.print(safe(f"first input divergence:  {_where(r.firstInputDivergence)}"))
    out.print(safe(f"first output divergence: {_where(r.firstOutputDivergence)}"))
    if r.goodAnswer is not None:
        out.print(safe("  good answer: ", "green"), safe(shorten(r.goodAnswer, 160)), sep="")
    if r.badAnswer is not None:
        out.print(safe("  bad answer:  ", "red"), safe(shorten(r.badAnswer, 160)), sep="")
    # one screen: the material differences; immaterial ones (ids, times, labels) are counted
    material_diffs = [d for d in r.differences if d.material]
    shown = material_diffs[:TOP]
    material = len(material_diffs)
    label = "proxy" if r.scoring.proxy else "score"
    table = Table(show_lines=True, expand=False, title=f"differences that fed it ({material})")
    table.add_column("#", justify="right")
    table.add_column("kind")
    table.add_column("source")
    table.add_column("good", overflow="fold", ratio=1)
    table.add_column("bad", overflow="fold", ratio=1)
    table.add_column(label, justify="right")
    for i, d in enumerate(shown, 1):
        score = f"{d.score:+.3f}"
        if d.verdict is not None:
            score += f"\n{d.verdict.verdict}"
        table.add_row(
            str(i),
            safe(d.kind),
            safe(_source(d)),
            snippet(d.good, d.changes, "good"),
            snippet(d.bad, d.changes, "bad"),
            safe(score),
        )
    out.print(table)
    rest = material - len(shown)
    immaterial = len(r.differences) - material
    more = [f"{rest} more"] if rest > 0 else []
    if immaterial:
        more.append(f"{immaterial} immaterial (only ids, times or labels differ)")
    if more:
        out.print(safe(f"… {' and '.join(more)}: {JSON.flag} lists every one", "dim"))
    out.print(safe(f"scores: {r.scoring.note}", "dim"))
