"""An ``afp bisect`` result as terminal panels, tables and trees.

By default one screen (``glance``): the verdict, the answer being explained, the suspects — in
a trace user's words for an imported run — each with its matched passage on its own line, and
one line of honesty flags. ``DETAILS`` gives the full report (``details``): the ranking and
slice panel, every score column, the evidence paths and each flag in full; upstream's report
(no ranking of afp's) is always printed that way. A report longer than the terminal goes
through the pager (``render/pager.py``) unless ``NO_PAGER``.

Only imported when a report is printed for a terminal, so rich and the bisect library are
imported at the top here; the JSON and text formats never load this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import UNSET
from rich.cells import cell_len
from rich.panel import Panel
from rich.text import Text
from rich.tree import Tree

from agentbisect.core.js import to_fixed
from agentbisect.core.options import DETAILS, EXPECTED
from agentbisect.render.console import stdout_console, stdout_is_terminal
from agentbisect.render.fit import Cell, Col, column_widths, print_fitted
from agentbisect.render.flags import flag_text
from agentbisect.render.safetext import safe
from agentbisect.render.text import (
    answer_lines,
    cost_line,
    fit_text,
    hop_text,
    search_lines,
    signed,
    stats_text,
)
from agentbisect.results.bisect import BisectResult, passage
from agentbisect.results.report import (
    Attribution,
    EdgePathStep,
    EvidenceSignals,
    Suspect,
    weights_note,
)

if TYPE_CHECKING:
    from rich.console import Console

# Evidence paths longer than this show their first KEEP_HOPS hops, a count, and the last hop.
MAX_HOPS = 5
KEEP_HOPS = 3


PASSAGE_INDENT = 5  # a suspect's passage starts under its source column
HIGHLIGHT = "bold"  # what the answer repeats, in a passage
BEST = "bold yellow"  # … and the passage's best match, the one it is centred on


def render_report(result: BisectResult) -> None:
    """Print the report to stdout — through the pager when it is longer than the terminal."""
    con = stdout_console()
    draw = glance if result.report.ranking is not UNSET and not result.details else details
    if not (result.page and stdout_is_terminal()):
        draw(con, result)
        return
    from rich.text import Text as RichText

    from agentbisect.render.pager import paged

    with con.capture() as cap:
        draw(con, result)
    shown = cap.get()
    with paged(shown.count("\n"), result.page) as (out, colour):
        out.write(shown if colour else RichText.from_ansi(shown).plain)
        out.flush()


def glance(con: Console, result: BisectResult) -> None:
    """One screen: verdict, answer, suspects with their passages, one line of flags."""
    r = result.report
    con.print(safe(result.verdict(short=True), "bold"))
    for said in answer_lines(r):
        label, _, text = said.partition(": ")
        con.print(Text.assemble((label + ": ", "dim"), safe(text)))
    causal = any(s.verdict is not UNSET or s.runs is not UNSET for s in r.suspects)
    evidence_first = r.evidenceScoring is not UNSET
    cols = [Col("#", "right"), Col("source", wrap=True), Col("step", drop=1)]
    cols.append(Col("evidence" if evidence_first else "score", "right"))
    if causal:
        cols.append(Col("verdict (flips)", wrap=True))
    rows: list[list[Cell]] = []
    for i, (s, view) in enumerate(zip(r.suspects, result.views, strict=True)):
        words = view.words or view.label
        # the step is noise where the source already names it (an LLM output is its step)
        step = "" if s.source in words or s.source == view.identity else s.source
        row: list[Cell] = [str(i + 1), safe(words), safe(step)]
        if evidence_first and s.evidence is not UNSET:
            row.append(to_fixed(s.evidence.score, 3))
        elif evidence_first:
            row.append(Text("—", "dim"))
        else:
            row.append(result.score_text(i).split()[-1])
        if causal:
            row.append(_verdict(s, view.cost_class))
        rows.append(row)
    con.print(Text(f"Suspects ({len(r.suspects)})", style="bold"))
    if rows:
        _plain_table(con, cols, rows, r.suspects)
    _after(con, result)
    con.print(_flags_line(result))


def _plain_table(con: Console, cols: list[Col], rows: list[list[Cell]], sus: list[Suspect]) -> None:
    """Rows without borders, one line each, each followed by its suspect's passage."""
    gap = 2
    kept, widths = column_widths(cols, rows, con.width - gap * (len(cols) - 1), True)

    def line(cells: list[Cell], style: str = "") -> Text:
        out = Text(style=style)
        for n, i in enumerate(kept):
            w = widths[i] or 1
            given = cells[i]
            cell = given.copy() if isinstance(given, Text) else Text(given)
            cell.truncate(w, overflow="ellipsis")
            pad = " " * (w - cell_len(cell.plain))
            if n:
                out.append(" " * gap)
            if cols[i].justify == "right":
                out.append(pad)
                out.append_text(cell)
            else:
                out.append_text(cell)
                if n < len(kept) - 1:
                    out.append(pad)
        return out

    con.print(line([Text(c.header) for c in cols], "dim"), no_wrap=True, overflow="ellipsis")
    room = con.width - PASSAGE_INDENT
    for row, s in zip(rows, sus, strict=True):
        con.print(line(row), no_wrap=True, overflow="ellipsis")
        said = _passage(s, room)
        if said is not None:
            con.print(said, no_wrap=True, overflow="ellipsis")
    # (a column left out — the step, at 80 columns — is named by the flags line's pointer to
    # DETAILS: a line of its own would push the verdict off a 40-line screen)


def _passage(s: Suspect, room: int) -> Text | None:
    """The suspect's passage in ``room`` columns, indented, its highlights emphasised (the best
    one most); None without text of its own."""
    ev = s.evidence
    if ev is UNSET or not ev.text.strip():
        return None
    said, marks, first = passage(ev.text, ev.highlights, ev.bestHighlight, room)
    text = safe(said)
    for n, (a, b) in enumerate(marks):
        text.stylize(BEST if first + n == ev.bestHighlight else HIGHLIGHT, a, b)
    text.pad_left(PASSAGE_INDENT)
    return text


def _flags_line(result: BisectResult) -> Text:
    """The honesty flags in one line, by name; the full texts are under DETAILS."""
    flags = result.report.honestyFlags
    where = f"in full, with steps, scores and evidence paths: {DETAILS.flag}"
    if not flags:
        return Text.assemble(("no honesty flags", "dim"), " — ", (where, "dim"))
    line = safe("⚠ honesty: ", "bold yellow")
    line.append_text(safe(", ".join(f.flag for f in flags)))
    line.append(" — " + where, "dim")
    return line


def _verdict(s: Suspect, cost_class: str) -> Text:
    verdict = Text("—", style="dim")
    if s.verdict is not UNSET:
        v = s.verdict.verdict
        style = {"confirmed": "bold red", "inconclusive": "yellow"}.get(v, "green")
        verdict = Text(v, style=style)
    if s.runs is not UNSET:
        verdict.append(f" {s.runs.flips}/{s.runs.samples}")
    if s.cost is not UNSET:
        verdict.append(f" ({cost_class})", style="dim")
    return verdict


def details(con: Console, result: BisectResult) -> None:
    """The full report: banner, suspects, evidence paths, missing context, honesty."""
    r = result.report
    con.print(safe(result.headline, "bold"))
    for said in answer_lines(r):  # what is being explained, as running text on its own lines
        label, _, text = said.partition(": ")
        con.print(Text.assemble((label + ": ", "dim"), safe(text)))
    causal = r.mode == "causal"
    banner = (
        "CAUSAL — verdicts are the only causal claims"
        if causal
        else "CORRELATIONAL — proxies only, no causal claim"
    )
    head = Text()
    head.append(banner, style="bold green" if causal else "bold yellow")
    head.append("\ntrigger ")
    head.append_text(safe(r.step, "bold"))
    head.append(" ")
    head.append_text(safe(r.stepName if r.stepName is not UNSET else "?"))
    head.append(f" ({r.triggerSource}")
    if r.triggerScore is not UNSET:
        head.append(f", score {to_fixed(r.triggerScore, 2)}")
    head.append(f") · ranked by {r.rankedBy}")
    evidence_first = r.evidenceScoring is not UNSET
    if r.ranking is not UNSET:
        head.append(f" · {r.ranking}")
        if r.contrastive is True:
            head.append(f" (contrastive: {EXPECTED.flag})")
    if r.embedder is not UNSET:
        head.append("\nembedder ")
        head.append_text(safe(str(r.embedder)))
    st = r.sliceStats
    head.append(
        f"\nslice: {st.nodes} nodes · {st.dataEdges} data · {st.controlEdges} control · "
        f"{st.weightedEdges} influence-weighted edges (budgets depth {st.maxDepth}, "
        f"nodes {st.maxNodes})"
    )
    con.print(Panel(head, title="afp bisect", expand=False))

    # Verdict columns only when reruns ran: in a correlational report they would be all dashes.
    causal = any(s.verdict is not UNSET or s.runs is not UNSET for s in r.suspects)
    n_backed = sum(1 for v in result.views if v.backed)
    title = f"Suspects ({len(r.suspects)})"
    if not r.suspects:
        pass  # ("all backed by their own text" would be said of nothing)
    elif evidence_first and n_backed == len(r.suspects):
        title += ", all backed by their own text"
    elif evidence_first:
        title += f": {n_backed} backed by their own text, then {len(r.suspects) - n_backed} "
        title += "structure-only"
    cols = [Col("#", "right"), Col("kind"), Col("identity")]
    # The stage (id and name) is the least read column, and it is in the evidence-path tree
    # below: at a narrow terminal it goes first, rather than fold ids like
    # execute_tool:get_refund_policy#5 mid-word. Ids and scores keep one line, whole.
    cols.append(Col("stage", wrap=True, drop=1, breaks="/"))
    if evidence_first:
        cols += [Col("evidence", "right"), Col("path", "right")]
    else:
        cols += [Col("score", "right"), Col("path", "right"), Col("content", "right")]
    if causal:
        cols.append(Col("verdict (flips)", wrap=True))
    rows: list[list[str | Text]] = []
    for i, (s, view) in enumerate(zip(r.suspects, result.views, strict=True), 1):
        upper = s.semanticScore is UNSET
        ident = view.identity
        # The stage id is noise where it is the identity itself (stage and arg suspects), and
        # its name where the id already spells it (execute_tool:get_refund_policy#4 is the
        # stage "execute_tool get_refund_policy").
        stage = Text() if s.source == ident else Text.assemble(safe(s.source), " ")
        label = s.source.rpartition("#")[0]
        if s.source == ident or (s.stageName or "") not in (label, label.replace(":", " ", 1)):
            stage.append(safe(s.stageName or "", "dim"))
        row: list[str | Text] = [str(i), s.kind, safe(ident), stage]
        if evidence_first:
            path = Text(to_fixed(s.structuralScore, 3))
            if not view.backed:
                path.append("≤", style="dim")
            row += [to_fixed(s.evidence.score, 3) if s.evidence is not UNSET else "—", path]
        else:
            score = Text(to_fixed(s.score, 3))
            if upper:
                score.append("≤", style="dim")  # path-only: an upper bound
            row += [
                score,
                to_fixed(s.structuralScore, 3),
                "—" if s.semanticScore is UNSET else to_fixed(s.semanticScore, 3),
            ]
        if causal:
            row.append(_verdict(s, view.cost_class))
        rows.append(row)
    # the structure-only group (nothing of their own to judge) after a rule
    split = [n_backed - 1] if evidence_first and 0 < n_backed < len(rows) else []
    print_fitted(con, cols, rows, "the evidence paths below name it", title=title, sections=split)
    if evidence_first:
        # Where each suspect says what the answer says: its passage centred on its best match,
        # on a line of its own (a column in the table folded every text into a narrow strip).
        con.print(Text("Where each suspect says it", style="bold"))
        for i, (s, view) in enumerate(zip(r.suspects, result.views, strict=True), 1):
            con.print(Text.assemble(f"{i:>2} ", safe(view.identity, "bold")), no_wrap=True)
            shown = _passage(s, con.width - PASSAGE_INDENT)
            con.print(shown if shown is not None else Text("     (no text of its own)", "dim"))
        con.print(
            Text(
                # the signals and weights as the scorer names them (this list had gone stale:
                # it left out focus, the heaviest, and listed claims, which counts ×0)
                "evidence: how strongly the suspect's own text backs the answer, the weighted "
                f"mean of its signals ({', '.join(EvidenceSignals.__struct_fields__)}; "
                f"{weights_note(r)}); proxies, not causes"
                + (" · ≤ path-only score: an upper bound" if n_backed < len(r.suspects) else ""),
                "dim",
            )
        )
    elif any(s.semanticScore is UNSET for s in r.suspects):
        con.print(Text("≤ path-only score: no content signal, so it is an upper bound", "dim"))

    if r.honestyFlags:
        body = Text("\n").join(flag_text(fl) for fl in r.honestyFlags)
        con.print(Panel(body, title="Honesty", expand=False, border_style="yellow"))
    else:
        con.print(Panel(Text("no honesty flags"), title="Honesty", expand=False))

    if r.suspects:
        tree = Tree(Text("Evidence paths (trigger first)", style="bold"))
        for i, (s, view) in enumerate(zip(r.suspects, result.views, strict=True), 1):
            branch = tree.add(Text.assemble(f"{i}. ", safe(view.label), " at ", safe(s.source)))
            node = branch.add(safe(s.edgePath[0].from_ if s.edgePath else s.source))
            hops: list[EdgePathStep | Text] = list(s.edgePath)
            if len(hops) > MAX_HOPS:  # long paths: the first hops and the suspect's end
                more = Text(f"… {len(hops) - KEEP_HOPS - 1} more hop(s) …", style="dim")
                hops = [*hops[:KEEP_HOPS], more, hops[-1]]
            for h in hops:
                node = node.add(h if isinstance(h, Text) else safe(hop_text(h)))
            if s.verdict is not UNSET:
                branch.add(safe(s.verdict.claim, "italic"))
        con.print(tree)

    _after(con, result)


def _after(con: Console, result: BisectResult) -> None:
    """What reruns found besides the suspects' verdicts (both views)."""
    r = result.report
    if r.attribution is not UNSET:
        print_attribution(con, r.attribution)

    if r.dropped is not UNSET and r.dropped:
        print_fitted(
            con,
            [Col("#", "right"), Col("id"), Col("verdict"), Col("runs", wrap=True)],
            [
                [
                    str(i),
                    safe(c.id),
                    c.verdict.verdict if c.verdict is not UNSET else "—",
                    stats_text(c.runs) if c.runs is not UNSET else "",
                ]
                for i, c in enumerate(r.dropped, 1)
            ],
            title="Missing context (available, never sent)",
        )
    if r.baseline is not UNSET:
        con.print(Text("baseline (no ablation): " + stats_text(r.baseline)))
    if r.restorationBaseline is not UNSET:
        con.print(Text("baseline (no restoration): " + stats_text(r.restorationBaseline)))
    if r.culprits is not UNSET:
        cr = r.culprits
        line = Text(f"culprit search: {cr.verdict}", style="bold")
        for grp in cr.culprits:
            line.append("\n  • ")
            line.append_text(safe(" + ".join(x.label for x in grp)))
        line.append(f"\n  {len(cr.probes)} probe(s), {cr.runsUsed} rerun(s)")
        con.print(line)
    if r.replay is not UNSET:
        from agentbisect.render.text import replay_line

        con.print(safe(replay_line(r.replay)))


def print_attribution(con: Console, a: Attribution) -> None:
    """The surrogate's weights, largest |weight| first, with its fit and any culprit sets."""
    unreliable = a.fit.value is None or a.fit.value < a.fit.reliableAbove
    what = "flip score" if a.score == "flip" else "1 − similarity"
    cols = [
        Col("#", "right"),
        Col("kind"),
        Col("identity"),
        Col("at", wrap=True, drop=1),
        Col("suspect", "right", wrap=True),
        Col("weight", "right"),
        Col("removed in", "right", wrap=True),
    ]
    rows: list[list[str | Text]] = []
    for i, w in enumerate(a.weights, 1):
        style = "dim" if w.weight == 0 else ("bold red" if w.weight > 0 else "green")
        rows.append(
            [
                str(i),
                w.kind,
                safe(w.id),
                safe(", ".join(w.sources)),
                ", ".join(f"#{r}" for r in w.suspectRanks),
                Text(signed(w.weight), style=style),
                f"{w.removedIn}/{a.masks}",
            ]
        )
    title = (
        f"Attribution (surrogate: {a.masks} masks, keep {a.keepProb:g}, {a.rerunsUsed} reruns "
        "in all)"
    )
    caption = f"weight = estimated change in the {what} when the source is removed"
    print_fitted(con, cols, rows, title=title, caption=caption)
    fit = Text("fit: ")
    fit.append(fit_text(a), style="yellow" if unreliable else "")
    if unreliable:
        fit.append("\nNOT TRUSTWORTHY: the fit explains the reruns poorly (see Honesty)", "bold")
    for line in search_lines(a):
        fit.append("\n")
        fit.append_text(safe(line))
    cost = cost_line(a)
    if cost is not None:
        fit.append("\n" + cost)
    con.print(fit)
