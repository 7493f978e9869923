"""The bisect sections of the HTML report: a one-line verdict, the suspects in the report's order
(a table; each suspect's evidence text, path graph and verdict in a <details> that clicking its row
opens), then reruns, missing context and an optional attribution section.

Correlational scores are labelled proxies; only ablation verdicts are called causal.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET

from agentbisect.bisect.report import AblationRunStats, ContextBugReport, Suspect
from agentbisect.bisect.result import BisectResult
from agentbisect.js import js_number
from agentbisect.render.html.page import esc, table, th
from agentbisect.render.html.paths import path_svg
from agentbisect.render.text import fit_text, search_lines, signed


def _f3(x: float) -> str:
    return f"{x:.3f}"


def _stats(b: AblationRunStats) -> str:
    sim = b.similarity
    return (
        f"{b.flips}/{b.samples} flipped · similarity {_f3(sim.mean)} ± {_f3(sim.stdev)} "
        f"[{_f3(sim.min)}, {_f3(sim.max)}]"
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
        top = f" · top suspect {esc(s.kind)} <b>{esc(who)}</b> (score {_f3(s.score)})"
    name = f" ({esc(r.stepName)})" if isinstance(r.stepName, str) else ""
    return (
        f'<p class="verdict-line" id="verdict">{mode} · trigger <b class="mono">{esc(r.step)}'
        f"</b>{name}{top} · {n_flags} honesty flag{'s' if n_flags != 1 else ''}</p>"
    )


def _evidence(s: Suspect) -> str:
    """The text a person reads to judge the suspect: the injected content, the tool's value
    basis, or how the slice reached the stage."""
    d = s.detail
    parts: list[str] = []
    if d is not UNSET:
        if isinstance(d.text, str) and d.text:
            parts.append(d.text)
        if d.valueBasis is not UNSET:
            parts.append(
                "value basis: " + msgspec.json.encode(d.valueBasis).decode("utf-8", "replace")
            )
    if not parts:
        name = f" ({s.stageName})" if isinstance(s.stageName, str) else ""
        if s.edgePath:
            via = " ← ".join((h.key if isinstance(h.key, str) else h.kind) for h in s.edgePath)
            parts.append(f"stage {s.source}{name} feeds the trigger through {via}")
        else:
            parts.append(f"stage {s.source}{name} is the trigger itself")
    return "\n".join(parts)


def _score(s: Suspect) -> str:
    if s.semanticScore is not UNSET:
        return (
            f"score {_f3(s.score)} = path {_f3(s.structuralScore)} × content "
            f"{_f3(s.semanticScore)} (a correlational proxy)"
        )
    return f"score ≤ {_f3(s.score)}: path only, no content signal, so the score is an upper bound"


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


def suspects_section(res: BisectResult) -> str:
    r = res.report
    names = [v.identity for v in res.views]
    if not r.suspects:
        return (
            '<section id="suspects"><h2>Suspects</h2><p class="muted">The slice found no '
            "suspects.</p></section>"
        )
    causal = any(s.verdict is not UNSET or s.runs is not UNSET for s in r.suspects)
    head = [th("#", True), th("kind"), th("identity"), th("stage"), th("score", True)]
    head += [th("path", True), th("content", True)]
    if causal:
        head.append(th("verdict (flips)"))
    rows = []
    for i, s in enumerate(r.suspects, 1):
        upper = s.semanticScore is UNSET
        stage = f"{s.source} {s.stageName}" if isinstance(s.stageName, str) else s.source
        cells = (
            f'<td class="n">{i}</td><td>{esc(s.kind)}</td><td class="txt"><b>'
            f'{esc(names[i - 1])}</b></td><td class="mono txt">{esc(stage)}</td>'
            f'<td class="n">{"≤ " if upper else ""}{_f3(s.score)}</td>'
            f'<td class="n">{_f3(s.structuralScore)}</td>'
            f'<td class="n">{"—" if upper else _f3(s.semanticScore)}</td>'  # type: ignore[arg-type]
        )
        if causal:
            cells += f"<td>{_verdict_cell(s)}</td>"
        sel = ' class="sel"' if i == 1 else ""
        rows.append(f'<tr data-suspect="{i}"{sel}>{cells}</tr>')
    details = []
    for i, s in enumerate(r.suspects, 1):
        extra = ""
        if s.verdict is not UNSET:
            extra += f'<p class="claim">{esc(s.verdict.claim)}</p>'
        if s.runs is not UNSET:
            extra += f"<p>reruns: {esc(_stats(s.runs))}</p>"
        if s.cost is not UNSET:
            c = s.cost
            extra += (
                f"<p>cost on removal: {'reduced' if c.reducedCostOnRemoval else 'not reduced'}"
                f" · loops saved {c.loopsSaved} · tokens saved {c.tokensSaved}"
                f" · {'stable' if c.stable else 'unstable'}</p>"
            )
        if s.ablation is not UNSET and isinstance(s.ablation.note, str):
            extra += f'<p class="muted">{esc(s.ablation.note)}</p>'
        details.append(
            f'<details class="suspect" id="suspect-{i}" data-suspect="{i}" '
            f'data-path="{esc(_path_ids(s))}"'
            f"{' open' if i == 1 else ''}><summary>#{i} {esc(s.kind)} "
            f'{esc(names[i - 1])} <span class="muted mono">at {esc(s.source)}</span></summary>'
            f'<div class="evidence">{esc(_evidence(s))}</div>'
            f'<p class="muted">{esc(_score(s))}</p>{extra}'
            f"<h3>Evidence path: trigger → source ({len(s.edgePath)} hop"
            f"{'s' if len(s.edgePath) != 1 else ''})</h3>"
            f'<div class="path">{path_svg(s, r.step)}</div></details>'
        )
    note = ""
    if any(s.semanticScore is UNSET for s in r.suspects):
        note = '<p class="muted">≤ path-only score: no content signal, so it is an upper bound.</p>'
    st = r.sliceStats
    slice_line = (
        f"slice: {st.nodes} nodes · {st.dataEdges} data · {st.controlEdges} control · "
        f"{st.weightedEdges} influence-weighted edges (budgets depth {st.maxDepth}, nodes "
        f"{st.maxNodes}) · ranked by {r.rankedBy}"
    )
    return (
        f'<section id="suspects"><h2>Suspects ({len(r.suspects)}), in the report\'s ranking</h2>'
        f'<p class="sub">{esc(slice_line)}. Click a suspect to see its evidence and path.</p>'
        + table(head, rows, what="suspects", cls="sus")
        + note
        + '<div class="suspects">'
        + "".join(details)
        + "</div></section>"
    )


def reruns_section(r: ContextBugReport) -> str:
    parts: list[str] = []
    if r.baseline is not UNSET:
        parts.append(f"<p>baseline (no ablation): {esc(_stats(r.baseline))}</p>")
    if r.restorationBaseline is not UNSET:
        parts.append(f"<p>baseline (no restoration): {esc(_stats(r.restorationBaseline))}</p>")
    if r.dropped is not UNSET and r.dropped:
        rows = [
            f'<tr><td class="n">{i}</td><td class="mono">{esc(c.id)}</td><td>'
            + (
                f'<span class="v-{esc(c.verdict.verdict)}">{esc(c.verdict.verdict)}</span>'
                if c.verdict is not UNSET
                else "—"
            )
            + f"</td><td>{esc(_stats(c.runs)) if c.runs is not UNSET else ''}</td></tr>"
            for i, c in enumerate(r.dropped, 1)
        ]
        parts.append(
            "<h3>Missing context (available, never sent)</h3>"
            + table([th("#", True), th("id"), th("verdict"), th("runs")], rows, what="items")
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
    """Surrogate attribution (``--attribution surrogate``): each source's estimated effect of
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
    head = [th("#", True), th("kind"), th("identity"), th("at"), th("suspect", True)]
    head += [th("weight", True), th("effect"), th("removed in", True)]
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
    cost = ""
    if a.cost is not UNSET:
        parts = []
        if a.cost.loops is not UNSET:
            parts.append(f"{js_number(a.cost.loops)} loops")
        if a.cost.tokens is not UNSET:
            parts.append(f"{js_number(a.cost.tokens)} tokens")
        cost = f"<p>cost: {a.cost.runs} reruns reported cost: {esc(', '.join(parts))} in total</p>"
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
