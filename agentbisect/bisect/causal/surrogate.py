"""Causal attribution with a sparse linear surrogate over random ablation masks (ContextCite-style).

Leave-one-out needs a probe per source and cannot see redundancy: when two sources each suffice
for the wrong answer, removing either alone changes nothing. Here every rerun removes a random
subset instead: each candidate is kept with probability ``keep_prob`` (seeded), the comparator
scores each output, and a lasso (``lasso.py``; penalty by k-fold cross-validation) fits
``score ≈ b + Σ w_j · removed_j``. ``w_j`` is the estimated effect of removing source j. The fit
is judged on masks left out of it (held-out R²); below ``RELIABLE_R2`` the report carries
``surrogate-unreliable`` and, as interactions are then likely, the multi-culprit search
(``causal.bisect_culprits``) runs over the six top-weighted sources to name a culprit *set*.

Reruns go through the ordinary protocol: ``specs`` = the specs of the removed sources, ``probe``
= ``mask#k``, ``seed`` = k.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from msgspec import UNSET, UnsetType, structs
from numpy.typing import NDArray

from agentbisect.bisect.causal.lasso import DEFAULT_FOLDS, CvFit, lasso_cv
from agentbisect.bisect.causal.probes import (
    ProbeRunner,
    RerunOptions,
    RunResult,
    bisect_culprits,
    culprit_search_bound,
    probe_for,
    sample_count,
)
from agentbisect.bisect.embed.vectors import Embedder, cosine
from agentbisect.bisect.options import DEFAULTS, MAX_SUSPECTS
from agentbisect.bisect.pipeline.ablation import spec_to_json
from agentbisect.core.honesty import HonestyFlag, flag
from agentbisect.core.js import js_stringify
from agentbisect.results.bisect import suspect_identity, suspect_label
from agentbisect.results.report import (
    AblationRunStats,
    Attribution,
    AttributionCost,
    CulpritsResult,
    SourceWeight,
    SurrogateFit,
    Suspect,
)

# 64 masks: ContextCite reports 32–64 random ablations are enough for contexts of dozens of
# sources, and benchmarks/surrogate_bench.py finds that for 30 sources 64 masks put the culprit(s)
# first in every trial of the clean, OR, AND and 10 %-noise cases (see the note for the figures).
DEFAULT_MASKS = DEFAULTS.masks
DEFAULT_KEEP_PROB = DEFAULTS.keep_prob
MIN_MASKS = 2 * DEFAULT_FOLDS  # k-fold CV needs at least two masks per fold
SET_SEARCH_SIZE = 6  # the multi-culprit search runs over this many top-weighted sources
# The fit is judged by R² of out-of-fold predictions (k-fold CV over the masks): below this the
# single-source linear model explains too little of how the outcome moved to rank sources by it.
RELIABLE_R2 = 0.5
FIT_METRIC = "heldout-r2"

Call = tuple[dict[str, Any], int, str]  # (payload, seed, probe)
BatchRunner = Callable[[list[Call]], list[RunResult]]


@dataclass
class Candidate:
    """One ablatable unit: the suspects that share one rerun spec."""

    spec: dict[str, Any]
    suspects: list[Suspect]
    ranks: list[int]  # 1-based positions in the suspects list


def candidates_from(suspects: Sequence[Suspect]) -> list[Candidate]:
    """Suspects with a non-``arg`` spec, in rank order; suspects with equal specs merge."""
    out: dict[str, Candidate] = {}
    for rank, s in enumerate(suspects, 1):
        if s.ablation is UNSET or s.ablation.kind == "arg":
            continue
        spec = spec_to_json(s.ablation)
        key = js_stringify(spec)
        if key in out:
            out[key].suspects.append(s)
            out[key].ranks.append(rank)
        else:
            out[key] = Candidate(spec, [s], [rank])
    return list(out.values())


def draw_masks(n_masks: int, n_sources: int, keep_prob: float, seed: int) -> NDArray[np.bool_]:
    """``n_masks × n_sources`` booleans, True = kept; each entry kept with ``keep_prob``."""
    rng = np.random.default_rng(seed)
    return rng.random((n_masks, n_sources)) < keep_prob


@dataclass
class SurrogateOptions:
    masks: int = DEFAULT_MASKS
    keep_prob: float = DEFAULT_KEEP_PROB
    seed: int = 0  # the mask draw's seed (rerun seeds are the mask numbers)
    score: str = "flip"  # "flip" or "similarity"
    culprits: bool | None = None  # None: search for a set only when the fit is unreliable

    def check(self) -> None:
        if self.masks < MIN_MASKS:
            raise ValueError(f"masks must be at least {MIN_MASKS} ({DEFAULT_FOLDS}-fold CV)")
        if not 0.0 < self.keep_prob < 1.0:
            raise ValueError("keep probability must be strictly between 0 and 1")
        if self.score not in ("flip", "similarity"):
            raise ValueError("score must be 'flip' or 'similarity'")


@dataclass
class SurrogateOutcome:
    baseline: AblationRunStats
    attribution: Attribution
    flags: list[HonestyFlag] = field(default_factory=list)  # baseline-unstable, unreliable


class _Tally:
    """Wraps a ProbeRunner to count every rerun and sum the costs the reruns reported."""

    def __init__(self, runner: ProbeRunner) -> None:
        self.runner = runner
        self.calls = 0
        self.cost_runs = 0
        self.loops: float | None = None
        self.tokens: float | None = None

    def count(self, results: list[RunResult]) -> list[RunResult]:
        for r in results:
            self.calls += 1
            if r.loops is not None or r.tokens is not None:
                self.cost_runs += 1
            if r.loops is not None:
                self.loops = (self.loops or 0) + r.loops
            if r.tokens is not None:
                self.tokens = (self.tokens or 0) + r.tokens
        return results

    def __call__(self, payload: dict[str, Any], seeds: list[int], probe: str) -> list[RunResult]:
        return self.count(self.runner(payload, seeds, probe))

    def cost(self) -> AttributionCost | UnsetType:
        if not self.cost_runs:
            return UNSET
        return AttributionCost(
            runs=self.cost_runs,
            loops=self.loops if self.loops is not None else UNSET,
            tokens=self.tokens if self.tokens is not None else UNSET,
        )


def sequential_batch(runner: ProbeRunner) -> BatchRunner:
    """Run mask calls one after another through a ProbeRunner (one seed per call)."""

    def run(calls: list[Call]) -> list[RunResult]:
        return [runner(payload, [seed], probe)[0] for payload, seed, probe in calls]

    return run


def parallel_batch(
    run_one: Callable[[dict[str, Any], int, str], RunResult],
    jobs: int,
    *,
    abort: Callable[[], None] | None = None,
) -> BatchRunner:
    """Run mask calls on ``jobs`` threads, in call order (``rerun.run_calls``; ``abort`` on
    the first failure)."""
    from agentbisect.bisect.causal.rerun import run_calls  # the rerun protocol's thread pool

    return lambda calls: run_calls(run_one, calls, jobs, abort=abort)


def _scores(
    outputs: list[RunResult], rerun: RerunOptions, embedder: Embedder, score: str
) -> tuple[NDArray[np.float64], int]:
    """The regression target per mask, and how many masks the comparator calls changed."""
    orig = rerun.original_output
    orig_vec = embedder.embed(orig)
    ys: list[float] = []
    changed = 0
    for r in outputs:
        if rerun.outcome_changed is not None:
            flip = bool(rerun.outcome_changed(orig, r.output))
            sim = cosine(orig_vec, embedder.embed(r.output)) if score == "similarity" else 0.0
        else:
            sim = cosine(orig_vec, embedder.embed(r.output))
            flip = sim < rerun.flip_threshold
        changed += flip
        ys.append(float(flip) if score == "flip" else 1.0 - sim)
    return np.asarray(ys, dtype=np.float64), changed


def surrogate_unreliable_flag(r2: float | None, masks: int, folds: int) -> HonestyFlag | None:
    """``surrogate-unreliable`` when the held-out R² is below ``RELIABLE_R2`` or undefined."""
    if r2 is None:
        note = (
            f"the score never varied across {masks} ablation masks, so the surrogate explains "
            "nothing: its weights (all 0) are not trustworthy as a ranking."
        )
    elif r2 < RELIABLE_R2:
        note = (
            f"held-out R² {r2:.2f} < {RELIABLE_R2} ({folds}-fold cross-validation over {masks} "
            "masks: the fit predicted left-out masks poorly); the attribution weights are not "
            "trustworthy. Sources may act only together; see the culprit sets."
        )
    else:
        return None
    return flag("surrogate-unreliable", note)


def run_surrogate(
    suspects: Sequence[Suspect],
    rerun: RerunOptions,
    embedder: Embedder,
    options: SurrogateOptions | None = None,
    *,
    batch: BatchRunner | None = None,
    on_plan: Callable[[int, bool, str], None] | None = None,
) -> SurrogateOutcome:
    """Baseline (``samples`` seeds), the masks, the fit, and the set search when it is due.

    ``batch`` runs the mask calls (for parallel reruns); by default they go one by one through
    ``rerun.runner``. The baseline gates as in leave-one-out mode: it is always reported, and an
    unstable one raises ``baseline-unstable``. ``on_plan(reruns, exact, phase)`` hears how many
    reruns come next: the baseline and the masks exactly, the set search as a bound.
    """
    opts = options or SurrogateOptions()
    opts.check()
    tally = _Tally(rerun.runner)
    counted = structs.replace(rerun, runner=tally)  # every rerun counts, the set search's too
    cands = candidates_from(suspects)
    if on_plan is not None:
        on_plan(sample_count(rerun.samples) + (opts.masks if cands else 0), True, "surrogate")
    baseline = probe_for(counted, embedder).run({"specs": []}, "baseline")
    flags: list[HonestyFlag] = []
    if baseline.flips > 0:
        flags.append(
            flag(
                "baseline-unstable",
                f"the un-ablated baseline changed outcome in {baseline.flips}/"
                f"{baseline.samples} seeded reruns; every ablation result, the surrogate's "
                "weights included, is inconclusive.",
            )
        )

    if not cands:
        return _nothing_to_attribute(opts, baseline, flags, tally)
    kept = draw_masks(opts.masks, len(cands), opts.keep_prob, opts.seed)
    calls: list[Call] = [
        (
            {"specs": [c.spec for c, keep in zip(cands, row, strict=True) if not keep]},
            k,
            f"mask#{k}",
        )
        for k, row in enumerate(kept)
    ]
    run_batch = batch or sequential_batch(rerun.runner)
    outputs = tally.count(run_batch(calls))
    y, changed = _scores(outputs, rerun, embedder, opts.score)
    removed = (~kept).astype(np.float64)
    cv = lasso_cv(removed, y, folds=DEFAULT_FOLDS, seed=opts.seed)
    weights = cv.fit.weights

    unreliable = surrogate_unreliable_flag(cv.heldout_r2, opts.masks, cv.folds)
    if unreliable is not None:
        flags.append(unreliable)

    rows = [
        SourceWeight(
            label=suspect_label(c.suspects[0]),
            kind=c.suspects[0].kind,
            id=suspect_identity(c.suspects[0]),
            sources=[s.source for s in c.suspects],
            suspectRanks=list(c.ranks),
            weight=float(weights[j]),
            removedIn=int(opts.masks - kept[:, j].sum()),
        )
        for j, c in enumerate(cands)
    ]
    rows.sort(key=lambda row: -abs(row.weight))  # stable: rank order among equal weights
    culprits: CulpritsResult | UnsetType = UNSET
    searched: list[str] | UnsetType = UNSET
    search = opts.culprits if opts.culprits is not None else unreliable is not None
    if search:
        top = sorted(range(len(cands)), key=lambda j: -weights[j])[:SET_SEARCH_SIZE]
        picked = [cands[j].suspects[0] for j in top]
        searched = [suspect_label(x) for x in picked]
        if on_plan is not None:
            on_plan(culprit_search_bound(len(picked), rerun.samples), False, "set search")
        culprits = bisect_culprits(picked, counted, embedder)
    attribution = _attribution(opts, tally, opts.masks, changed, rows, cv)
    attribution.searched, attribution.culprits = searched, culprits
    return SurrogateOutcome(baseline=baseline, attribution=attribution, flags=flags)


def _attribution(
    opts: SurrogateOptions,
    tally: _Tally,
    masks: int,
    changed: int,
    weights: list[SourceWeight],
    cv: CvFit | None,
) -> Attribution:
    """The report's attribution: the options, what the reruns cost, and the fit's outcome."""
    fit = SurrogateFit(
        metric=FIT_METRIC,
        value=cv.heldout_r2 if cv else None,
        reliableAbove=RELIABLE_R2,
        rankCorrelation=cv.rank_correlation if cv else None,
        folds=cv.folds if cv else 0,
        penalty=cv.fit.lam if cv else 0.0,
        intercept=cv.fit.intercept if cv else 0.0,
    )
    return Attribution(
        method="surrogate",
        score=opts.score,
        masks=masks,
        keepProb=opts.keep_prob,
        maskSeed=opts.seed,
        rerunsUsed=tally.calls,
        changedMasks=changed,
        fit=fit,
        weights=weights,
        cost=tally.cost(),
    )


def _nothing_to_attribute(
    opts: SurrogateOptions, baseline: AblationRunStats, flags: list[HonestyFlag], tally: _Tally
) -> SurrogateOutcome:
    """No suspect has a spec a rerun can apply: no mask is run, and the report says why."""
    flags.append(
        flag(
            "surrogate-unreliable",
            "no suspect can be ablated (only stage or arg suspects, or none): no mask was "
            f"run and nothing is attributed; raise {MAX_SUSPECTS.flag} or check the recording.",
        )
    )
    attribution = _attribution(opts, tally, 0, 0, [], None)
    return SurrogateOutcome(baseline=baseline, attribution=attribution, flags=flags)
