"""``localize``: the whole pipeline of bisect.md §0, from a ``Run`` to a ``ContextBugReport``.

trigger (§2) → slice (§3) → D7 weights (§4) → path scores (§6.3) → classification and drafts
(§6.1, §6.5) → semantic refinement (§6.6) → sort and cut (§6.7) → slice stats and honesty flags
(§7, §9.1) → missing-context tier (§8.7) → ablation tier (§8.5) → report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import UNSET, Struct

from agentbisect.bisect.causal.specs import name_sources
from agentbisect.bisect.embed.batch import localization_texts
from agentbisect.bisect.embed.choose import embed_many, resolve_embedder
from agentbisect.bisect.embed.vectors import Embedder
from agentbisect.bisect.evidence.highlights import Highlights, clip
from agentbisect.bisect.evidence.influence import score_influence, score_lexical_influence
from agentbisect.bisect.evidence.learned import learned_scoring
from agentbisect.bisect.evidence.rank import evidence_first, learned_first
from agentbisect.bisect.evidence.scorer import evidence_scoring
from agentbisect.bisect.options import DEFAULTS as D
from agentbisect.bisect.options import EMBEDDER, EVIDENCE_RANKINGS, RANKINGS
from agentbisect.bisect.options import SCORERS as SCORER_NAMES
from agentbisect.bisect.pipeline.classify import ClassifyContext, Seed
from agentbisect.bisect.pipeline.flags import baseline_unstable_flag, slice_flags, slice_stats
from agentbisect.bisect.pipeline.paths import path_scores
from agentbisect.bisect.pipeline.slice import causal_chain
from agentbisect.bisect.pipeline.source_kind import name_kinds
from agentbisect.bisect.pipeline.suspects import ScorerFn, build_drafts, rank, refine, to_suspect
from agentbisect.bisect.pipeline.texts import Texts
from agentbisect.bisect.pipeline.weigh import EdgeWeigher
from agentbisect.bisect.policy import Policy, policy_for
from agentbisect.core.errors import UsageError
from agentbisect.core.honesty import dedupe, flag
from agentbisect.core.options import AT_LLM, AT_STEP
from agentbisect.model.run import Run
from agentbisect.model.steps import ControlDeps
from agentbisect.results.report import ContextBugReport, EvidenceSignals, Suspect, SuspectEvidence

if TYPE_CHECKING:
    # The causal tier (reruns, restoration) is imported where it runs: a correlational bisect
    # (no rerun command, no missing context) never loads it.
    from agentbisect.bisect.causal.probes import MissingContext, RerunOptions

EVIDENCE_TEXT_CHARS = 500  # the evidence text a report carries per suspect
MOCK_FLAG_NOTE = (
    "every similarity in this report (edge weights, semantic and evidence scores) comes from the "
    "mock embedder, which counts UTF-16 code units: character geometry, not meaning; install "
    f"the embed extra (pip install 'agentbisect[embed]') or pass {EMBEDDER.flag}"
)

DEFAULTS = {
    "maxDepth": D.max_depth,
    "maxNodes": D.max_nodes,
    "maxSuspects": D.max_suspects,
    "maxTextChars": D.max_text_chars,
}

SCORERS: dict[str, ScorerFn] = dict(
    zip(SCORER_NAMES, (score_influence, score_lexical_influence), strict=True)
)


class TriggerError(UsageError):
    """The trigger could not be resolved (§2). Messages carry upstream's tested phrases."""

    def __init__(self, message: str, llm_call_ids: list[str] | None = None) -> None:
        super().__init__(message)
        self.llm_call_ids = llm_call_ids or []


class _Trigger(Struct):
    step: str
    source: str
    score: float | None = None


def _resolve_trigger(
    run: Run, at_step: str | None, trigger: Callable[[Run], str | None] | None
) -> _Trigger:
    if at_step is not None:
        t = _Trigger(at_step, "explicit")
    elif trigger is not None:
        step = trigger(run)
        if not step:
            raise TriggerError("localize: the custom trigger returned no trigger step")
        t = _Trigger(step, "custom")
    else:
        low = run.quality_lowest
        if low is None:
            raise TriggerError(
                f"localize: no trigger step: pass {AT_STEP.flag} or {AT_LLM.flag}, or record quality data "
                "(a top-level `quality` map or a Quality recorder row)",
                run.llm_call_ids,
            )
        t = _Trigger(low.runtimeStageId, "quality", low.score)
    if t.step not in run.commit_log.last_idx:
        raise TriggerError(
            f"localize: trigger step '{t.step}' is not in the commit log: name the "
            "runtimeStageId of a step that committed (see snapshot.commitLog)",
            run.llm_call_ids,
        )
    return t


def localize(
    run: Run,
    *,
    at_step: str | None = None,
    trigger: Callable[[Run], str | None] | None = None,
    embedder: Embedder | str | None = None,
    max_depth: int = DEFAULTS["maxDepth"],
    max_nodes: int = DEFAULTS["maxNodes"],
    max_suspects: int = DEFAULTS["maxSuspects"],
    control_deps: ControlDeps | None = None,
    scorer: str | ScorerFn | None = None,
    classify: Callable[[ClassifyContext], list[Seed] | None] | None = None,
    shortlist: list[tuple[str, float]] | None = None,
    rerun: RerunOptions | None = None,
    missing_context: MissingContext | None = None,
    upstream: bool = False,
    policy: Policy | None = None,
    ranking: str | None = None,
    expected: str | None = None,
    use_cache: bool = True,
    on_plan: Callable[[int], None] | None = None,
) -> ContextBugReport:
    """Localize a contextual bug at a trigger step; correlational unless reruns are supplied.

    ``control_deps`` overrides the lookup recorded with the run. ``policy`` (``upstream=True``
    for ``UPSTREAM``) decides what differs from upstream parity: with ``UPSTREAM`` the report
    is exactly the upstream library's: the mock embedder (unless an embedder object is passed),
    the upstream ranking, its flags only. Otherwise the default embedder (wordllama when the
    ``embed`` extra is installed, else the mock, flagged ``mock-embedder``) and the evidence-first
    ranking (``ranking="upstream"`` for upstream's order) are used, the recording's own honesty
    flags (``Run.flags``) follow upstream's, and the report says ``embedder`` and ``ranking``.
    ``expected`` (the right answer) makes the evidence scores contrastive. ``embedder`` may be
    an ``Embedder`` or a spec: ``mock``, ``wordllama``, ``cmd:COMMAND``. ``on_plan`` hears the
    exact number of reruns the restoration and leave-one-out tiers will make, before the first.
    """
    deps = control_deps if control_deps is not None else run.control_deps
    pol = policy if policy is not None else policy_for(upstream)
    pol.check(embedder=embedder, ranking=ranking, expected=expected)
    ranking = pol.ranking or ranking or "evidence-first"
    if ranking not in RANKINGS:
        raise UsageError(f"unknown ranking {ranking!r}; choose from {', '.join(RANKINGS)}")
    evidence = ranking in EVIDENCE_RANKINGS
    emb: Embedder
    if embedder is None or isinstance(embedder, str):
        resolved = resolve_embedder(pol.embedder or embedder, use_cache=use_cache)
        emb, label = resolved.embedder, resolved.label
    else:
        emb = embedder
        lab = getattr(embedder, "label", None)
        label = lab() if callable(lab) else embedder.id
    if isinstance(scorer, str):
        if scorer not in SCORERS:
            raise UsageError(f"unknown scorer {scorer!r}; choose from {', '.join(SCORERS)}")
        ranked_by, scorer_fn = scorer, SCORERS[scorer]
    elif scorer is None:
        ranked_by, scorer_fn = "semantic-alignment", None
    else:
        ranked_by, scorer_fn = "custom", scorer

    trig = _resolve_trigger(run, at_step, trigger)
    log = run.commit_log
    llm_ids = set(run.llm_call_ids)
    sl = causal_chain(log, trig.step, run.keys_read, max_depth, max_nodes, deps)
    assert sl is not None  # the trigger is in the log
    texts = Texts(log, DEFAULTS["maxTextChars"])
    prefetch = getattr(emb, "prefetch", None)
    if prefetch is not None:
        # one batch for the whole localization (one process for cmd:, one tokenizer pass)
        prefetch(
            localization_texts(
                sl,
                texts,
                llm_ids,
                classify,
                evidence=evidence,
                expected=expected,
                meta=run.import_meta,
            )
        )
    weigher = EdgeWeigher(texts, llm_ids, emb)
    weigher.prime(sl.nodes)
    weigher.stamp(sl.nodes)

    info = path_scores(sl, log.last_idx)
    # imported runs only: upstream's path format, the contract for its recordings, names one key
    every_key = pol.import_paths and run.import_meta is not None
    drafts = build_drafts(sl, info, log, classify, every_key=every_key)
    refine(drafts, sl.root.runtimeStageId, texts, llm_ids, emb, scorer_fn)
    every = [to_suspect(d) for d in drafts]
    if evidence:
        suspects = _evidence_first(
            rank(every, len(every), shortlist), run, sl.root.runtimeStageId, emb, expected, ranking
        )[: max(0, max_suspects)]
    else:
        suspects = rank(every, max_suspects, shortlist)

    stats = slice_stats(sl, max_depth, max_nodes)
    flags = slice_flags(
        stats,
        has_control_deps=deps is not None,
        has_read_tracking=run.has_read_tracking,
        llm_ids=run.llm_call_ids,
    )

    if pol.import_paths and run.import_meta is not None:
        # before the plan: an imported run's stage suspects get their specs here
        name_sources(suspects, run.import_meta)
    if pol.afp_fields:
        name_kinds(suspects, run.import_meta)
    if on_plan is not None:
        from agentbisect.bisect.causal.probes import planned_reruns

        planned = planned_reruns(suspects, rerun, missing_context)
        if planned:
            on_plan(planned)
    dropped: Any = UNSET
    restoration_baseline: Any = UNSET
    any_restoration_verdict = False
    if missing_context is not None:
        from agentbisect.bisect.causal.probes import run_restoration

        dropped, rb = run_restoration(missing_context, emb)
        restoration_baseline = rb if rb is not None else UNSET
        any_restoration_verdict = any(c.verdict is not UNSET for c in dropped)

    baseline: Any = UNSET
    if rerun is not None:
        from agentbisect.bisect.causal.probes import run_ablation_tier

        baseline = run_ablation_tier(suspects, rerun, emb)
        if baseline.flips > 0:
            flags.append(baseline_unstable_flag(baseline, restoration=False))
    if restoration_baseline is not UNSET and restoration_baseline.flips > 0:
        flags.append(baseline_unstable_flag(restoration_baseline, restoration=True))

    if pol.afp_flags:
        if getattr(emb, "id", None) == "mock":
            flags.append(flag("mock-embedder", MOCK_FLAG_NOTE))
        flags = dedupe([*flags, *run.flags])

    mode = "causal" if rerun is not None or any_restoration_verdict else "correlational"
    return ContextBugReport(
        step=trig.step,
        stepName=sl.root.stageName if sl.root.stageName is not None else UNSET,
        triggerSource=trig.source,
        triggerScore=trig.score if trig.source == "quality" and trig.score is not None else UNSET,
        mode=mode,
        rankedBy=ranked_by,
        suspects=suspects,
        dropped=dropped,
        sliceStats=stats,
        honestyFlags=flags,
        baseline=baseline,
        restorationBaseline=restoration_baseline,
        embedder=label if pol.afp_fields else UNSET,
        ranking=ranking if pol.afp_fields else UNSET,
        evidenceScoring=(
            (learned_scoring() if ranking == "learned" else evidence_scoring())
            if evidence and pol.afp_fields
            else UNSET
        ),
        contrastive=True if expected is not None and pol.afp_fields else UNSET,
    )


def _highlighted(h: Highlights | None, length: int) -> dict[str, Any]:
    """The report's highlight fields for a text capped at ``length`` characters."""
    if h is None:
        return {}
    h = clip(h, length)
    return {"highlights": h.spans, "bestHighlight": h.best}


def _evidence_first(
    suspects: list[Suspect],
    run: Run,
    root: str,
    emb: Embedder,
    expected: str | None,
    ranking: str,
) -> list[Suspect]:
    """Reorder (content-backed by evidence score or the learned model, then structure-only) and
    attach the evidence."""
    embed = lambda ts: embed_many(emb, ts)  # noqa: E731
    if ranking == "learned":
        ordered, evidence = learned_first(
            suspects, run.commit_log, root, embed, run.import_meta, expected=expected
        )
    else:
        ordered, evidence = evidence_first(
            suspects, run.commit_log, root, embed, expected=expected, meta=run.import_meta
        )
    for s, ev in zip(ordered, evidence, strict=True):
        if ev.score is not None and ev.text is not None:
            s.evidence = SuspectEvidence(
                text=ev.text[:EVIDENCE_TEXT_CHARS],
                score=ev.score.score,
                signals=EvidenceSignals(**ev.score.signals),
                termsShared=ev.score.terms_shared,
                **_highlighted(ev.highlights, EVIDENCE_TEXT_CHARS),
            )
    return ordered
