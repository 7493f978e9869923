"""The ``text`` renderer: upstream's ``formatContextBugReport`` (bisect.md §9.3), line for line.

Structural tokens, separators and number formats (JS ``toFixed``, ``Number::toString``) are the
contract; the fixed sentences are our own words. A report made outside upstream parity carries
``embedder`` and ``ranking``: the text then names them, and an evidence-first report lists its
content-backed suspects (each with what it said and its evidence signals) apart from the
structure-only ones. A report without those fields renders exactly as upstream's.
"""

from __future__ import annotations

from msgspec import UNSET

from agentbisect.core.js import js_number, to_fixed
from agentbisect.core.options import EXPECTED
from agentbisect.render import Unsupported
from agentbisect.render.console import write_text
from agentbisect.render.safetext import clean
from agentbisect.results.bisect import BisectResult, SuspectView
from agentbisect.results.report import (
    AblationRunStats,
    Attribution,
    ContextBugReport,
    CostVerdict,
    EdgePathStep,
    EvidenceSignals,
    ReplayStats,
    Suspect,
    SuspectEvidence,
    weights_note,
)

MODE_CAUSAL = "mode: CAUSAL — ranked proxies plus ablation verdicts; only the verdicts are causal"
MODE_CORRELATIONAL = (
    "mode: CORRELATIONAL — ranking only; every score is an embedding-geometry proxy; "
    "no causal claim is made"
)
# Evidence scores also count shared terms and phrases, so "embedding-geometry" would undersell
# what they are; they are still proxies.
MODE_CORRELATIONAL_EVIDENCE = (
    "mode: CORRELATIONAL — ranking only; every score is a proxy (embedding geometry, shared "
    "terms); no causal claim is made"
)
FOOTER = (
    "Claims: scores and edge weights are deterministic embedding-geometry proxies; slice "
    "completeness is bounded by tracking (see HONESTY); only ablation verdicts make causal claims."
)
# The signals by the names the report prints them under (a hand-written list went stale twice)
FOOTER_EVIDENCE = (
    f"Claims: evidence scores ({', '.join(EvidenceSignals.__struct_fields__)}), path scores and "
    "edge weights are correlational proxies; slice completeness is bounded by tracking (see "
    "HONESTY); only ablation verdicts make causal claims."
)
# "    said: “" + text + "”" stays within 80 columns.
SAID_WIDTH = 68


def f3(x: float) -> str:
    return to_fixed(x, 3)


def _weighted(key: str, weight: float) -> str:
    return f"{clean(key)} {f3(weight)}" if weight != 1 else clean(key)


def hop_text(h: EdgePathStep) -> str:
    """One hop of an evidence path on one line. Keys and step ids are recorded text: ``clean``
    turns a line break in them into a space, so a key cannot start a line of its own in the
    plain-text report (the page is scrubbed as a whole, line breaks kept)."""
    key = clean(h.key) if h.key is not UNSET else None
    to = clean(h.to)
    if h.keys is not UNSET:  # an imported run's hop that carries several keys: name them all
        return f"←({', '.join(_weighted(k.key, k.weight) for k in h.keys)})— {to}"
    if h.kind == "control":
        link = f"[control: {key}]" if key else "[control]"
    else:
        link = key if key is not None else "data"
    w = f" {f3(h.weight)}" if h.weight != 1 else ""
    return f"←({link}{w})— {to}"


def score_text(s: Suspect) -> str:
    if s.semanticScore is not UNSET:
        return f"{f3(s.score)} (path {f3(s.structuralScore)} × content {f3(s.semanticScore)})"
    return f"{f3(s.score)} (path only — no content signal, so the score is an upper bound)"


def _cost_line(c: CostVerdict, view: SuspectView) -> str:
    if c.reducedCostOnRemoval:
        body = (
            f"REDUCED on removal — −{js_number(c.loopsSaved)} loop(s), "
            f"−{js_number(c.tokensSaved)} tok (beats placebo, stable)"
        )
    else:
        sign = "−" if c.loopsSaved >= 0 else "+"
        unstable = "" if c.stable else "; no placebo band or unstable"
        body = f"no cost effect (loops {sign}{js_number(abs(c.loopsSaved))}{unstable})"
    return f"    cost: {body} → class: {view.cost_class}"


def stats_text(
    b: AblationRunStats,
    flipped: str = "flipped",
    similarity: str = "similarity",
    spread: bool = True,
) -> str:
    """One line for a batch of seeded reruns: flips, then similarity mean ± stdev [min, max]
    (the range left out where upstream's text report leaves it out).

    The terminal table and the HTML page both print this line, so they round alike
    (JavaScript's ``toFixed``: half-up on the exact binary value; NaN as ``NaN``).
    """
    s = b.similarity
    line = f"{b.flips}/{b.samples} {flipped} · {similarity} {f3(s.mean)} ± {f3(s.stdev)}"
    return line + f" [{f3(s.min)}, {f3(s.max)}]" if spread else line


def render(result: object) -> None:
    if not isinstance(result, BisectResult):
        raise Unsupported(f"no text rendering for {type(result).__name__}")
    write_text(format_report(result) + "\n")  # scrubbed: recorded names are untrusted


def answer_lines(r: ContextBugReport) -> list[str]:
    """What is being explained, first (afp's report only): the question, then the answer."""
    if r.trigger is UNSET:
        return []
    t = r.trigger
    which = t.step if t.llmIndex is None else f"{t.step}, LLM call {t.llmIndex}"
    lines = [f"question: {clean(t.question)}"] if t.question else []
    lines.append(f"answer ({clean(which)}): {clean(t.output) if t.output else '(not recorded)'}")
    return lines


def format_report(result: BisectResult) -> str:
    """The report as upstream's ``formatContextBugReport`` lays it out."""
    r = result.report
    trig = r.triggerSource
    if r.triggerScore is not UNSET:
        trig += f", score {to_fixed(r.triggerScore, 2)}"
    step_name = r.stepName if r.stepName is not UNSET else "undefined"
    head = f'CONTEXT BUG LOCALIZATION — trigger {r.step} "{step_name}" ({trig})'
    evidence_first = r.evidenceScoring is not UNSET
    if r.mode == "causal":
        mode = MODE_CAUSAL
    else:
        mode = MODE_CORRELATIONAL_EVIDENCE if evidence_first else MODE_CORRELATIONAL
    if r.rankedBy:
        mode += f" — ranked by {r.rankedBy}"
    # recorded ids and names: one line, whatever they hold
    lines = [clean(head), *answer_lines(r), mode]
    if r.embedder is not UNSET or r.ranking is not UNSET:  # never in upstream's report
        lines.append(_ranking_line(r))
    st = r.sliceStats
    lines.append(
        f"slice: {st.nodes} nodes · {st.dataEdges} data edges · {st.controlEdges} control edges · "
        f"{st.weightedEdges} influence-weighted"
    )
    lines.append("")
    if evidence_first:
        lines.extend(_evidence_first_suspects(result))
    else:
        lines.append(f"SUSPECTS ({len(r.suspects)}, ranked by correlational proxy score):")
        for i, (s, view) in enumerate(zip(r.suspects, result.views, strict=True)):
            lines.append(
                f"{i + 1:>2}. [{clean(view.label)}] at {_where(s)} — score {score_text(s)}"
            )
            lines.extend(_path_and_verdict(s, view, result))
    if r.dropped is not UNSET and r.dropped:
        lines += ["", f"MISSING CONTEXT ({len(r.dropped)} dropped — available but never sent):"]
        for i, c in enumerate(r.dropped):
            lines.append(f"{i + 1:>2}. [dropped '{clean(c.id)}']")
            if c.verdict is not UNSET and c.runs is not UNSET:
                runs = stats_text(c.runs, "flipped on restore", "similarity to original", False)
                lines += [f"    verdict: {c.verdict.claim}", f"    runs: {runs}"]
            else:
                lines.append(f"    verdict: (none — candidate only; {result.no_restore_verdict})")
    if r.attribution is not UNSET:
        lines += ["", *attribution_lines(r.attribution)]
    if r.baseline is not UNSET:
        lines += ["", f"baseline (no ablation): {stats_text(r.baseline, spread=False)}"]
    if r.restorationBaseline is not UNSET:
        lines.append(
            f"baseline (no restoration): {stats_text(r.restorationBaseline, spread=False)}"
        )
    if r.replay is not UNSET:
        lines += ["", clean(replay_line(r.replay))]
    if r.honestyFlags:
        lines += ["", "HONESTY:", *(f"⚠ [{fl.flag}] {fl.note}" for fl in r.honestyFlags)]
    lines += ["", FOOTER_EVIDENCE if evidence_first else FOOTER]
    return "\n".join(lines)


def _where(s: Suspect) -> str:
    name = s.stageName if s.stageName is not UNSET else "undefined"
    return f'{clean(s.source)} "{clean(name)}"'


def _path_and_verdict(s: Suspect, view: SuspectView, result: BisectResult) -> list[str]:
    """A suspect's evidence path and its verdict (or why there is none), as upstream lays them."""
    lines: list[str] = []
    if s.edgePath:
        lines.append(
            f"    path: {clean(s.edgePath[0].from_)} " + " ".join(hop_text(h) for h in s.edgePath)
        )
    if s.verdict is not UNSET and s.runs is not UNSET:
        runs = stats_text(s.runs, similarity="similarity to original")
        lines += [f"    verdict: {s.verdict.claim}", f"    runs: {runs}"]
        if s.cost is not UNSET:
            lines.append(_cost_line(s.cost, view))
    elif result.report.mode != "causal":
        lines.append(f"    verdict: (none — correlational ranking only; {result.no_verdict})")
    return lines


def _ranking_line(r: ContextBugReport) -> str:
    """Which embedder produced the scores and in which order the suspects are (afp fields)."""
    parts = []
    if r.embedder is not UNSET:
        parts.append(f"embedder: {r.embedder}")
    if r.ranking is not UNSET:
        ranking = f"ranking: {r.ranking}"
        if r.ranking == "evidence-first":
            ranking += " (content-backed suspects by evidence score, then structure-only)"
        elif r.ranking == "learned":
            ranking += (
                " (content-backed suspects by the learned model's probability, then structure-only)"
            )
        if r.contrastive is True:
            ranking += f" · contrastive ({EXPECTED.flag})"
        parts.append(ranking)
    return " · ".join(parts)


def said_text(text: str, width: int = SAID_WIDTH) -> str:
    """What a suspect said, on one line of at most ``width`` characters, cut at a word if one
    ends near the edge."""
    one = " ".join(clean(text).split())
    if len(one) <= width:
        return one
    cut = one[: width - 1]
    space = cut.rfind(" ")
    # Back to a word boundary close to the edge rather than split a word (unless the cut already
    # falls at the end of one).
    if one[width - 1] != " " and space >= width - 16:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def _signals_text(ev: SuspectEvidence) -> str:
    # Every field of the signals Struct, so the printed signals always make up the printed
    # evidence score with the stated weights (a fixed list went stale when claimShape was added).
    g = ev.signals
    return " · ".join(f"{name} {f3(getattr(g, name))}" for name in g.__struct_fields__)


def upstream_score_text(s: Suspect) -> str:
    """The path score and upstream's proxy for a content-backed suspect. "No content signal"
    would read as a contradiction here: the suspect has text; upstream's scorer just had none."""
    if s.semanticScore is not UNSET:
        return (
            f"path {f3(s.structuralScore)} × content {f3(s.semanticScore)} = upstream score "
            f"{f3(s.score)}"
        )
    return f"path {f3(s.structuralScore)} (upstream score: path only, an upper bound)"


def _evidence_first_suspects(result: BisectResult) -> list[str]:
    """The suspects of an evidence-first report in two groups: those whose own text was judged
    against the answer (by evidence score), then the structure-only ones (upstream order)."""
    r = result.report
    pairs = list(zip(r.suspects, result.views, strict=True))
    backed = [(i, s, v) for i, (s, v) in enumerate(pairs, 1) if v.backed]
    bare = [(i, s, v) for i, (s, v) in enumerate(pairs, 1) if not v.backed]
    if backed and bare:
        split = f": {len(backed)} content-backed, then {len(bare)} structure-only"
    else:
        split = ", all content-backed" if backed else ", all structure-only"
    lines = [f"SUSPECTS ({len(pairs)}{split}; every score is a correlational proxy):"]
    if backed:
        lines.append(
            f"CONTENT-BACKED ({len(backed)}) — by evidence score, the weighted mean of its "
            f"signals ({weights_note(r)}; how well its own text backs the answer):"
        )
    for i, s, v in backed:
        ev = s.evidence
        head = f"{i:>2}. [{clean(v.label)}] at {_where(s)}"
        if ev is UNSET:  # backed views come from suspects with evidence; kept total for safety
            lines.append(head)
        else:
            said = said_text(ev.text)
            lines += [
                f"{head} — evidence {f3(ev.score)}",
                f"    said: “{said}”" if said else "    said: (nothing)",
                f"    signals: {_signals_text(ev)}",
            ]
        lines.append(f"    {upstream_score_text(s)}")
        lines.extend(_path_and_verdict(s, v, result))
    if bare:
        if backed:
            lines.append("")
        lines.append(
            f"STRUCTURE-ONLY ({len(bare)}) — nothing of their own to judge; upstream order; "
            "path scores are upper bounds:"
        )
    for i, s, v in bare:
        lines.append(f"{i:>2}. [{clean(v.label)}] at {_where(s)} — score {score_text(s)}")
        lines.extend(_path_and_verdict(s, v, result))
    return lines


# ------------------------------------------------- the surrogate attribution (afp extension)


def signed(x: float) -> str:
    return ("+" if x >= 0 else "") + f3(x)


def culprit_sentence(labels: list[str]) -> str:
    """What a culprit set found by the search means, in words."""
    if len(labels) == 1:
        return f"removing {labels[0]} alone flips the answer"
    if len(labels) == 2:
        return f"the answer flips only when both {labels[0]} and {labels[1]} are removed"
    return (
        f"the answer flips only when all of {', '.join(labels[:-1])} and {labels[-1]} are removed"
    )


def fit_text(a: Attribution) -> str:
    fit = a.fit
    if fit.value is None:
        r2 = "held-out R² undefined (the score never varied)"
    else:
        r2 = (
            f"held-out R² {f3(fit.value)} on masks left out of the fit ({fit.folds}-fold "
            f"cross-validation; reliable above {js_number(fit.reliableAbove)})"
        )
    rank = (
        f" · rank correlation {f3(fit.rankCorrelation)}" if fit.rankCorrelation is not None else ""
    )
    return f"{r2}{rank} · {a.changedMasks}/{a.masks} masks changed the outcome"


def cost_line(a: Attribution) -> str | None:
    """What the reruns reported they cost (loops, tokens), or None when none reported any."""
    if a.cost is UNSET:
        return None
    parts = []
    if a.cost.loops is not UNSET:
        parts.append(f"{js_number(a.cost.loops)} loops")
    if a.cost.tokens is not UNSET:
        parts.append(f"{js_number(a.cost.tokens)} tokens")
    return f"cost: {a.cost.runs} reruns reported cost: {', '.join(parts)} in total"


def search_lines(a: Attribution) -> list[str]:
    """The culprit-set search over the top-weighted sources, when it ran."""
    c = a.culprits
    if c is UNSET:
        return []
    searched = a.searched if a.searched is not UNSET else []
    head = (
        f"culprit sets (multi-culprit search over the {len(searched)} top-weighted sources: "
        f"{c.verdict}, {c.runsUsed} reruns):"
    )
    if c.verdict == "confirmed":
        body = [f"  - {clean(culprit_sentence([x.label for x in grp]))}" for grp in c.culprits]
    elif c.verdict == "not-reproducible":
        body = ["  - removing all of them together does not flip the answer: no set among them"]
    else:
        body = ["  - inconclusive: the un-ablated baseline flipped or the probe budget ran out"]
    return [head, *body]


def attribution_lines(a: Attribution) -> list[str]:
    """The ATTRIBUTION section: fit, weights sorted by |weight|, culprit sets, cost."""
    what = "flip score" if a.score == "flip" else "dissimilarity to the original (1 − cosine)"
    lines = [
        f"ATTRIBUTION (surrogate over {a.masks} random ablation masks, keep "
        f"{js_number(a.keepProb)}, seed {a.maskSeed}; {a.rerunsUsed} reruns in all):",
        f"fit: {fit_text(a)}",
    ]
    unreliable = a.fit.value is None or a.fit.value < a.fit.reliableAbove
    if unreliable and a.weights:
        lines.append("NOT TRUSTWORTHY: the fit explains the reruns poorly (see HONESTY)")
    if a.weights:
        lines.append(f"weight = estimated change in the {what} when the source is removed")
    shown = [w for w in a.weights if w.weight != 0]
    for i, w in enumerate(shown):
        ranks = ", ".join(f"#{r}" for r in w.suspectRanks)
        lines.append(
            f"{i + 1:>2}. [{clean(w.label)}] at {clean(', '.join(w.sources))} (suspect {ranks}) "
            f"— weight {signed(w.weight)} · removed in {w.removedIn}/{a.masks} masks"
        )
    rest = len(a.weights) - len(shown)
    if rest:
        lines.append(f"    ({rest} more source(s) at weight 0)")
    lines.extend(search_lines(a))
    cost = cost_line(a)
    if cost is not None:
        lines.append(cost)
    return lines


def replay_line(rp: ReplayStats) -> str:
    """What a replay cost, in one line (the table and text reports both print it)."""
    line = (
        f"replay: {rp.requests} request(s) to {rp.endpoint} (model {rp.model}), "
        f"{rp.retries} retried, {rp.tokens} tokens, {rp.cacheHits} answered from the cache"
    )
    if rp.skipped:
        line += f", {rp.skipped} probe(s) not sent (nothing in them could be removed)"
    line += f"; budget {rp.budgetRequests} requests"
    if rp.budgetTokens is not UNSET:
        line += f", {rp.budgetTokens} tokens"
    if rp.budgetSpent is not UNSET:
        line += f" — stopped: {rp.budgetSpent}"
    return line
