"""The bisect sections of the HTML report: a one-line verdict, the suspects (a table — two for an
evidence-first report: the content-backed suspects with what each said, then the structure-only
ones, whose scores are upper bounds; each suspect's evidence text, signal breakdown, path graph
and verdict in a <details> that clicking its row opens), then reruns, missing context and an
optional attribution section.

Correlational scores are labelled proxies; only ablation verdicts are called causal.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET

from agentbisect.core.options import EXPECTED
from agentbisect.render.html.page import esc, table, ths
from agentbisect.render.html.paths import path_svg

# f3 and stats_text: the terminal's rounding (JavaScript toFixed: ties half-up, NaN as NaN), so a
# number reads the same on the page as in the table and the text report.
from agentbisect.render.text import (
    cost_line,
    f3,
    fit_text,
    search_lines,
    signed,
    stats_text,
    upstream_score_text,
)
from agentbisect.results.bisect import BisectResult, SuspectView, confidence_text, passage
from agentbisect.results.report import (
    ContextBugReport,
    EdgePathStep,
    Suspect,
    SuspectEvidence,
    weights_note,
)


def verdict_line(res: BisectResult, n_flags: int) -> str:
    r = res.report
    causal = r.mode == "causal"
    mode = (
        '<span class="mode causal">CAUSAL</span>verdicts are the only causal claims'
        if causal
        else '<span class="mode corr">CORRELATIONAL</span>scores are proxies, no causal claim'
    )
    top = ""
    if r.suspects:
        s = r.suspects[0]
        who = res.views[0].identity
        # The same reading as the terminal headline (BisectResult): the ranking's own score, ≤ on
        # a path-only upper bound, and in a causal report what the reruns confirmed.
        status = s.verdict.verdict if s.verdict is not UNSET else None
        if status is None:
            status = "not rerun-tested" if causal else "a proxy"
        view = res.views[0]
        # a trace's suspect in its own words (the words name it: "tool result lookup_order …")
        what = f"<b>{esc(view.words)}</b>" if view.words else f"{esc(s.kind)} <b>{esc(who)}</b>"
        top = f" · top suspect {what} ({esc(res.score_text(0))}, {esc(status)})"
        if r.confidence is not UNSET:
            top += f" · {esc(confidence_text(r.confidence, len(r.suspects)))}"
        if causal:
            confirmed = [res.views[i].identity for i in res.confirmed]
            top += (
                " · confirmed: " + ", ".join(f"<b>{esc(c)}</b>" for c in confirmed)
                if confirmed
                else " · none confirmed"
            )
    name = f" ({esc(r.stepName)})" if isinstance(r.stepName, str) else ""
    return (
        f'<p class="verdict-line" id="verdict">{mode} · trigger <b class="mono">{esc(r.step)}'
        f"</b>{name}{top} · {n_flags} honesty flag{'s' if n_flags != 1 else ''}</p>"
    )


def answer_section(r: ContextBugReport) -> str:
    """What is being explained, before anything else: the question, then the trigger's answer."""
    if r.trigger is UNSET:
        return ""
    t = r.trigger
    which = t.step if t.llmIndex is None else f"{t.step}, LLM call {t.llmIndex}"
    out = '<section id="answer" class="answer">'
    if t.question:
        out += f'<p><span class="label">question</span> {esc(t.question)}</p>'
    said = esc(t.output) if t.output else '<span class="dim">(not recorded)</span>'
    out += f'<p><span class="label">answer ({esc(which)})</span> {said}</p>'
    return out + "</section>"


# the passage the suspects table shows of each suspect's text, centred on its best highlight
SAID_CHARS = 160


def marked(text: str, spans: list[tuple[int, int]], best: int | None, first: int = 0) -> str:
    """``text`` escaped, each span wrapped in <mark> (the best one ``class="best"``); ``first``
    is the index of ``spans[0]`` among the suspect's highlights (a passage shows some)."""
    out, at = [], 0
    for n, (a, b) in enumerate(spans):
        cls = ' class="best"' if first + n == best else ""
        out.append(f"{esc(text[at:a])}<mark{cls}>{esc(text[a:b])}</mark>")
        at = b
    out.append(esc(text[at:]))
    return "".join(out)


def _said(s: Suspect) -> str:
    """The suspects table's cell: its passage around the best highlight, marked."""
    ev = s.evidence
    if ev is UNSET or not ev.text.strip():
        return '<span class="muted">(nothing)</span>'
    shown, marks, first = passage(ev.text, ev.highlights, ev.bestHighlight, SAID_CHARS)
    return marked(shown, marks, ev.bestHighlight, first)


def _hop_keys(h: EdgePathStep) -> str:
    """What a hop carried: every key when an imported run's hop carries several."""
    if h.keys is not UNSET:
        return ", ".join(k.key for k in h.keys)
    return h.key if isinstance(h.key, str) else h.kind


def _evidence(s: Suspect) -> str:
    """The text a person reads to judge the suspect: what it said (the report's ``evidence``
    text, else the injected content), the tool's value basis, or how the slice reached it."""
    d = s.detail
    parts: list[str] = []
    if s.evidence is not UNSET and s.evidence.text:
        parts.append(s.evidence.text)
    elif d is not UNSET and isinstance(d.text, str) and d.text:
        parts.append(d.text)
    if d is not UNSET and d.valueBasis is not UNSET:
        parts.append("value basis: " + msgspec.json.encode(d.valueBasis).decode("utf-8", "replace"))
    if not parts:
        name = f" ({s.stageName})" if isinstance(s.stageName, str) else ""
        if s.edgePath:
            via = " ← ".join(_hop_keys(h) for h in s.edgePath)
            parts.append(f"stage {s.source}{name} feeds the trigger through {via}")
        else:
            parts.append(f"stage {s.source}{name} is the trigger itself")
    return "\n".join(parts)


def _evidence_html(s: Suspect) -> str:
    """``_evidence`` escaped, with the highlights of the suspect's own text marked (they index
    that text, which ``_evidence`` puts first)."""
    text = _evidence(s)
    ev = s.evidence
    if ev is UNSET or not ev.text or not text.startswith(ev.text):
        return esc(text)
    return marked(ev.text, ev.highlights, ev.bestHighlight) + esc(text[len(ev.text) :])


def _score(s: Suspect) -> str:
    if s.semanticScore is not UNSET:
        return (
            f"score {f3(s.score)} = path {f3(s.structuralScore)} × content "
            f"{f3(s.semanticScore)} (a correlational proxy)"
        )
    return f"score ≤ {f3(s.score)}: path only, no content signal, so the score is an upper bound"


# What each evidence signal measures (docs/ranking.md), as the breakdown explains it.
SIGNALS = (
    ("semantic", "meaning: similarity of its text to the answer"),
    ("terms", "the answer's distinctive terms (numbers, names, rare words) it contains"),
    ("phrases", "the answer's two-word phrases it contains"),
    ("claims", "the answer's clauses it is the best support for (beyond what the question says)"),
    ("focus", "the spans of the answer that fill what the question asks: it supplies them"),
    ("claimShape", "share of its sentences shaped like a rule or claim (a prior on its shape)"),
)
CONTRASTIVE_SEMANTIC = "similarity to the wrong answer minus similarity to the expected one"


def _signal_bar(x: float) -> str:
    """A 0–1 bar (SVG attributes, not styles: the page's CSP allows no inline style)."""
    w = 100
    filled = max(0.0, min(1.0, x)) * w
    return (
        f'<svg class="sbar" width="{w}" height="10" viewBox="0 0 {w} 10" aria-hidden="true">'
        f'<rect class="sbg" x="0" y="1" width="{w}" height="8"/>'
        f'<rect class="sfill" x="0" y="1" width="{filled:.1f}" height="8"/></svg>'
    )


def signals_table(ev: SuspectEvidence, contrastive: bool) -> str:
    """The evidence score's signals, each with its value, a bar and what it measures."""
    g = ev.signals
    rows = []
    for name, meaning in SIGNALS:
        value = float(getattr(g, name))
        if name == "semantic" and contrastive:
            meaning = CONTRASTIVE_SEMANTIC
        rows.append(
            f'<tr data-signal="{name}"><th>{name}</th><td class="n">{f3(value)}</td>'
            f'<td>{_signal_bar(value)}</td><td class="muted">{esc(meaning)}</td></tr>'
        )
    return f'<table class="signals"><tbody>{"".join(rows)}</tbody></table>'


def _verdict_cell(s: Suspect) -> str:
    if s.verdict is UNSET:
        return '<span class="muted">—</span>'
    v = s.verdict.verdict
    runs = f" {s.runs.flips}/{s.runs.samples}" if s.runs is not UNSET else ""
    return f'<span class="v-{esc(v)}">{esc(v)}</span>{esc(runs)}'


def _path_ids(s: Suspect) -> str:
    """The step ids on the suspect's path, one per line (ids may hold spaces, not newlines)."""
    ids = [s.edgePath[0].from_, *(h.to for h in s.edgePath)] if s.edgePath else [s.source]
    return "\n".join(i.replace("\n", " ") for i in ids)


def _who(i: int, s: Suspect, view: SuspectView) -> str:
    stage = f"{s.source} {s.stageName}" if isinstance(s.stageName, str) else s.source
    if view.words:  # a trace's suspect in its own words; its step id beside it
        return (
            f'<td class="n">{i}</td><td class="txt ident" colspan="2"><b>{esc(view.words)}</b>'
            f'</td><td class="mono txt">{esc(s.source)}</td>'
        )
    return (
        f'<td class="n">{i}</td><td>{esc(s.kind)}</td><td class="txt ident"><b>'
        f'{esc(view.identity)}</b></td><td class="mono txt">{esc(stage)}</td>'
    )


def _row(i: int, s: Suspect, cells: str, causal: bool, group: str = "") -> str:
    """A suspect's table row; a causal report adds its verdict cell."""
    if causal:
        cells += f"<td>{_verdict_cell(s)}</td>"
    cls = " ".join(c for c in (group, "sel" if i == 1 else "") if c)
    attr = f' class="{cls}"' if cls else ""
    return f'<tr data-suspect="{i}"{attr}>{cells}</tr>'


def _who_head(res: BisectResult) -> list[str]:
    """The header over ``_who``'s cells: a trace's suspects are told in its own words."""
    if res.imported and any(v.words for v in res.views):
        return [*ths(">#"), '<th colspan="2">source</th>', *ths("step")]
    return ths(">#", "kind", "identity", "stage")


def _ranked_table(res: BisectResult, causal: bool) -> str:
    """Upstream's order (the upstream ranking, upstream parity): one table, upstream's scores."""
    head = _who_head(res) + ths(">score", ">path", ">content")
    if causal:
        head += ths("verdict (flips)")
    rows = []
    for i, (s, view) in enumerate(zip(res.report.suspects, res.views, strict=True), 1):
        upper = s.semanticScore is UNSET
        cells = (
            _who(i, s, view) + f'<td class="n">{"≤ " if upper else ""}{f3(s.score)}</td>'
            f'<td class="n">{f3(s.structuralScore)}</td>'
            f'<td class="n">{"—" if upper else f3(s.semanticScore)}</td>'  # type: ignore[arg-type]
        )
        rows.append(_row(i, s, cells, causal))
    note = ""
    if any(s.semanticScore is UNSET for s in res.report.suspects):
        note = '<p class="muted">≤ path-only score: no content signal, so it is an upper bound.</p>'
    return table(head, rows, what="suspects", cls="sus") + note


def _grouped_tables(res: BisectResult, causal: bool) -> str:
    """An evidence-first report: one table (so the columns line up) in two groups, each under its
    own heading row — the content-backed suspects by evidence score, with what each said, then
    the structure-only ones, whose path scores are upper bounds."""
    pairs = list(enumerate(zip(res.report.suspects, res.views, strict=True), 1))
    backed = [(i, s, v) for i, (s, v) in pairs if v.backed]
    bare = [(i, s, v) for i, (s, v) in pairs if not v.backed]
    head = _who_head(res) + ths(">evidence", ">path", "where it says it")
    if causal:
        head += ths("verdict (flips)")
    span = len(head) + (1 if "colspan" in head[1] else 0)
    rows = []
    if backed:
        rows.append(
            f'<tr class="grp backed" id="suspects-backed"><th colspan="{span}"><b>Content-backed '
            f"({len(backed)})</b> "
            '<span class="muted">— by evidence score, the weighted mean of its signals '
            f"({esc(weights_note(res.report))}): how strongly what each said backs the answer; a proxy, "
            "not a cause</span></th></tr>"
        )
    for i, s, v in backed:
        score = f3(s.evidence.score) if s.evidence is not UNSET else "—"
        said = _said(s)
        cells = (
            _who(i, s, v) + f'<td class="n">{score}</td>'
            f'<td class="n">{f3(s.structuralScore)}</td><td class="said">{said}</td>'
        )
        rows.append(_row(i, s, cells, causal, "backed"))
    if bare:
        rows.append(
            f'<tr class="grp bare" id="suspects-structure"><th colspan="{span}"><b>Structure-only '
            f"({len(bare)}): upper bounds</b> "
            '<span class="muted">— nothing of their own to judge; on the slice, path score only '
            "(≤); upstream order</span></th></tr>"
        )
    for i, s, v in bare:
        cells = (
            _who(i, s, v) + '<td class="n">—</td>'
            f'<td class="n">≤ {f3(s.structuralScore)}</td>'
            '<td class="said muted">(no text of its own)</td>'
        )
        rows.append(_row(i, s, cells, causal, "bare"))
    return table(head, rows, what="suspects", cls="sus grouped")


def _suspect_details(i: int, s: Suspect, view: SuspectView, res: BisectResult) -> str:
    r = res.report
    extra = ""
    if s.verdict is not UNSET:
        extra += f'<p class="claim">{esc(s.verdict.claim)}</p>'
    if s.runs is not UNSET:
        extra += f"<p>reruns: {esc(stats_text(s.runs))}</p>"
    if s.cost is not UNSET:
        c = s.cost
        extra += (
            f"<p>cost on removal: {'reduced' if c.reducedCostOnRemoval else 'not reduced'}"
            f" · loops saved {c.loopsSaved} · tokens saved {c.tokensSaved}"
            f" · {'stable' if c.stable else 'unstable'}</p>"
        )
    if s.ablation is not UNSET and isinstance(s.ablation.note, str):
        extra += f'<p class="muted">{esc(s.ablation.note)}</p>'
    ev = s.evidence
    said = group = tag = ""
    if r.evidenceScoring is not UNSET:
        group = " backed" if view.backed else " bare"
        if ev is not UNSET:
            said = '<p class="lead">What it said (its own text, judged against the answer):</p>'
            tag = f'<span class="tag">evidence {f3(ev.score)}</span>'
        else:
            said = '<p class="lead">No text of its own to judge — how the slice reaches it:</p>'
            tag = '<span class="tag bare">structure-only · ≤ path score</span>'
    if ev is not UNSET:
        # the evidence score and, beside it, the path score and upstream's proxy
        note = (
            f"evidence {f3(ev.score)} = the weighted mean of the signals below "
            f"({weights_note(r)}; a correlational proxy) · {upstream_score_text(s)}"
        )
        score = f'<p class="muted">{esc(note)}</p>' + signals_table(ev, r.contrastive is True)
    else:
        score = f'<p class="muted">{esc(_score(s))}</p>'
    return (
        f'<details class="suspect{group}" id="suspect-{i}" data-suspect="{i}" '
        f'data-path="{esc(_path_ids(s))}"'
        f"{' open' if i == 1 else ''}><summary>#{i} {esc(s.kind)} "
        f'{esc(view.identity)} <span class="muted mono">at {esc(s.source)}</span>{tag}</summary>'
        f'{said}<div class="evidence">{_evidence_html(s)}</div>{score}{extra}'
        f"<h3>Evidence path: trigger → source ({len(s.edgePath)} hop"
        f"{'s' if len(s.edgePath) != 1 else ''})</h3>"
        f'<div class="path">{path_svg(s, r.step)}</div></details>'
    )


def suspects_section(res: BisectResult) -> str:
    r = res.report
    if not r.suspects:
        return (
            '<section id="suspects"><h2>Suspects</h2><p class="muted">The slice found no '
            "suspects.</p></section>"
        )
    causal = any(s.verdict is not UNSET or s.runs is not UNSET for s in r.suspects)
    evidence_first = r.evidenceScoring is not UNSET
    st = r.sliceStats
    slice_line = (
        f"slice: {st.nodes} nodes · {st.dataEdges} data · {st.controlEdges} control · "
        f"{st.weightedEdges} influence-weighted edges (budgets depth {st.maxDepth}, nodes "
        f"{st.maxNodes}) · ranked by {r.rankedBy}"
    )
    ranking = ""
    if r.ranking is not UNSET or r.embedder is not UNSET:  # afp fields, never under upstream parity
        parts = []
        if r.ranking is not UNSET:
            how = {
                "evidence-first": "content-backed suspects by evidence score, then structure-only",
                "learned": "content-backed suspects by the learned model's probability, then "
                "structure-only",
                "upstream": "upstream's order, path × content score",
            }.get(r.ranking, "")
            parts.append(f"ranking <b>{esc(r.ranking)}</b>" + (f" ({esc(how)})" if how else ""))
            if r.contrastive is True:
                parts.append(f"contrastive: scored against {EXPECTED.flag}")
        if r.embedder is not UNSET:
            parts.append(f"embedder <b>{esc(r.embedder)}</b>")
        ranking = f'<p class="sub" id="ranking">{" · ".join(parts)}</p>'
    title = "evidence first" if evidence_first else "in the report's ranking"
    details = [
        _suspect_details(i, s, view, res)
        for i, (s, view) in enumerate(zip(r.suspects, res.views, strict=True), 1)
    ]
    return (
        f'<section id="suspects"><h2>Suspects ({len(r.suspects)}), {title}</h2>'
        + ranking
        + f'<p class="sub">{esc(slice_line)}. Click a suspect to see its evidence and path.</p>'
        + (_grouped_tables(res, causal) if evidence_first else _ranked_table(res, causal))
        + '<div class="suspects">'
        + "".join(details)
        + "</div></section>"
    )


def reruns_section(r: ContextBugReport) -> str:
    parts: list[str] = []
    if r.baseline is not UNSET:
        parts.append(f"<p>baseline (no ablation): {esc(stats_text(r.baseline))}</p>")
    if r.restorationBaseline is not UNSET:
        parts.append(f"<p>baseline (no restoration): {esc(stats_text(r.restorationBaseline))}</p>")
    if r.dropped is not UNSET and r.dropped:
        rows = [
            f'<tr><td class="n">{i}</td><td class="mono">{esc(c.id)}</td><td>'
            + (
                f'<span class="v-{esc(c.verdict.verdict)}">{esc(c.verdict.verdict)}</span>'
                if c.verdict is not UNSET
                else "—"
            )
            + f"</td><td>{esc(stats_text(c.runs)) if c.runs is not UNSET else ''}</td></tr>"
            for i, c in enumerate(r.dropped, 1)
        ]
        parts.append(
            "<h3>Missing context (available, never sent)</h3>"
            + table(ths(">#", "id", "verdict", "runs"), rows, what="items")
        )
    if r.culprits is not UNSET:
        c = r.culprits
        groups = "".join(
            "<li>" + esc(" + ".join(x.label for x in grp)) + "</li>" for grp in c.culprits
        )
        parts.append(
            f"<h3>Culprit search: {esc(c.verdict)}</h3><ul>{groups}</ul>"
            f'<p class="muted">{len(c.probes)} probe(s), {c.runsUsed} rerun(s)</p>'
        )
    if r.replay is not UNSET:
        from agentbisect.render.text import replay_line

        parts.append(f"<p>{esc(replay_line(r.replay))}</p>")
    if not parts:
        return ""
    return '<section id="reruns"><h2>Reruns</h2>' + "".join(parts) + "</section>"


def _weight_bar(w: float, top: float) -> str:
    """A diverging bar: right and red for "removing it changes the outcome", left and green for
    the opposite; zero at the centre."""
    half = 60
    width = 0.0 if top <= 0 else abs(w) / top * half
    x = half if w >= 0 else half - width
    cls = "wpos" if w > 0 else ("wneg" if w < 0 else "wzero")
    return (
        f'<svg class="wbar" width="{2 * half}" height="12" viewBox="0 0 {2 * half} 12" '
        f'aria-hidden="true"><rect class="{cls}" x="{x:.1f}" y="2" width="{max(width, 0.5):.1f}" '
        f'height="8"/><line x1="{half}" x2="{half}" y1="0" y2="12" class="wmid"/></svg>'
    )


def attribution_section(r: ContextBugReport) -> str:
    """Surrogate attribution: each source's estimated effect of
    removal, the fit that says how far to trust it, and any culprit sets found."""
    a = r.attribution
    if a is UNSET:
        return ""
    unreliable = a.fit.value is None or a.fit.value < a.fit.reliableAbove
    what = "flip score" if a.score == "flip" else "1 − similarity"
    top = max((abs(w.weight) for w in a.weights), default=0.0)
    rows = [
        f'<tr><td class="n">{i}</td><td>{esc(w.kind)}</td><td class="txt"><b>{esc(w.id)}</b>'
        f'</td><td class="mono txt">{esc(", ".join(w.sources))}</td>'
        f'<td class="n">{esc(", ".join(f"#{k}" for k in w.suspectRanks))}</td>'
        f'<td class="n">{esc(signed(w.weight))}</td><td>{_weight_bar(w.weight, top)}</td>'
        f'<td class="n">{w.removedIn}/{a.masks}</td></tr>'
        for i, w in enumerate(a.weights, 1)
    ]
    head = ths(">#", "kind", "identity", "at", ">suspect", ">weight", "effect", ">removed in")
    warn = (
        '<p class="flags"><b>Not trustworthy:</b> the fit explains the reruns poorly (see the '
        "honesty flags).</p>"
        if unreliable
        else ""
    )
    search = "".join(
        f"<li>{esc(line.strip().removeprefix('- '))}</li>" for line in search_lines(a)[1:]
    )
    search_head = search_lines(a)[:1]
    line = cost_line(a)
    cost = "" if line is None else f"<p>{esc(line)}</p>"
    return (
        '<section id="attribution"><h2>Attribution (surrogate model)</h2>'
        f'<p class="sub">{a.masks} random ablation masks (keep probability {a.keepProb:g}, seed '
        f"{a.maskSeed}), {a.rerunsUsed} reruns in all. weight = estimated change in the "
        f"{esc(what)} when the source is removed, the others held at random.</p>"
        + warn
        + table(head, rows, what="sources")
        + f'<p class="{"flags" if unreliable else "muted"}">fit: {esc(fit_text(a))}</p>'
        + (f"<p>{esc(search_head[0])}</p><ul>{search}</ul>" if search_head else "")
        + cost
        + "</section>"
    )
