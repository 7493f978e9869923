"""Causal mode (bisect.md §8): seeded probes, similarity statistics, verdicts, the cost
readout and its 2×2 class, missing-context restoration, and ``bisectCulprits``.

A runner is called once per (probe, seed). Seeds are counted in order 0..samples-1 whatever order
they ran in (``rerun.run_calls`` lets the CLI run them in parallel, agentbisect decision of §8.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from msgspec import UNSET, Struct, UnsetType

from agentbisect.bisect.causal.removal import spec_label
from agentbisect.bisect.embed.vectors import Embedder, cosine
from agentbisect.bisect.options import DEFAULTS
from agentbisect.bisect.pipeline.ablation import spec_to_json
from agentbisect.bisect.pipeline.flags import tier_words
from agentbisect.core.js import is_num, to_fixed
from agentbisect.results.bisect import suspect_label
from agentbisect.results.report import (
    AblationRunStats,
    AblationVerdict,
    CostStats,
    CostVerdict,
    CulpritProbe,
    CulpritRef,
    CulpritsResult,
    NumRange,
    RestoredCandidate,
    SimilarityStats,
    Suspect,
)

DEFAULT_SAMPLES = 3
DEFAULT_FLIP_THRESHOLD = DEFAULTS.flip_threshold
DEFAULT_MAX_ABLATIONS = 5
DEFAULT_MAX_CANDIDATES = 5
MAX_PROBES = 24
MAX_CULPRITS = 4
MIN_LOOPS_SAVED = 1


class RunResult(Struct, frozen=True):
    output: str
    loops: float | None = None
    tokens: float | None = None
    # labels (``removal.spec_label``) of the specs the runner could not apply: the answer is not
    # evidence about those sources either way
    skipped: tuple[str, ...] = ()


class BudgetSpent(Exception):
    """The runner would pass its budget (requests, tokens) with the next call: what is left
    untested is reported inconclusive, never guessed."""


class ProbeRunner(Protocol):
    """Runs one probe's seeds. ``payload`` is ``{"specs": [...]}`` or ``{"restore": [...]}``."""

    def __call__(
        self, payload: dict[str, Any], seeds: list[int], probe: str
    ) -> list[RunResult]: ...


def normalize_result(raw: Any) -> RunResult:
    """A runner answer: a string, or ``{output, cost?: {loops?, tokens?}}``."""
    if isinstance(raw, RunResult):
        return raw
    if isinstance(raw, str):
        return RunResult(raw)
    if isinstance(raw, dict) and isinstance(raw.get("output"), str):
        cost = raw.get("cost")
        lo, to = (cost.get("loops"), cost.get("tokens")) if isinstance(cost, dict) else (None, None)
        skipped = raw.get("skipped")
        return RunResult(
            raw["output"],
            lo if is_num(lo) else None,
            to if is_num(to) else None,
            tuple(str(x) for x in skipped) if isinstance(skipped, list) else (),
        )
    raise ValueError("runner answer must be a string or {output: string, cost?, skipped?}")


def sequential(fn: Callable[[dict[str, Any], int, str], Any]) -> ProbeRunner:
    """Wrap a plain per-call function ``fn(payload, seed, probe)`` as a ProbeRunner."""

    def run(payload: dict[str, Any], seeds: list[int], probe: str) -> list[RunResult]:
        return [normalize_result(fn(payload, s, probe)) for s in seeds]

    return run


Comparator = Callable[[str, str], bool]


class RerunOptions(Struct):
    runner: ProbeRunner
    original_output: str
    samples: float = DEFAULT_SAMPLES
    flip_threshold: float = DEFAULT_FLIP_THRESHOLD
    outcome_changed: Comparator | None = None
    max_suspects: int = DEFAULT_MAX_ABLATIONS


class MissingContext(Struct):
    available: list[dict[str, Any]]
    sent: list[dict[str, Any]]
    runner: ProbeRunner | None = None
    original_output: str = ""
    samples: float = DEFAULT_SAMPLES
    flip_threshold: float = DEFAULT_FLIP_THRESHOLD
    outcome_changed: Comparator | None = None
    max_candidates: int = DEFAULT_MAX_CANDIDATES


def sample_count(s: float | None) -> int:
    if s is None:
        s = DEFAULT_SAMPLES
    if isinstance(s, float) and not math.isfinite(s):
        return max(2, DEFAULT_SAMPLES)
    return max(2, math.floor(s))


def similarity_stats(v: Sequence[float]) -> SimilarityStats:
    if not v:
        return SimilarityStats(mean=0, min=0, max=0, stdev=0)
    total = 0.0
    for x in v:
        total += x
    mean = total / len(v)
    sq = 0.0
    for x in v:
        sq += (x - mean) ** 2
    return SimilarityStats(mean=mean, min=min(v), max=max(v), stdev=math.sqrt(sq / len(v)))


def median(xs: Sequence[float]) -> float:
    if not xs:
        return 0
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def _range(xs: list[float]) -> NumRange | UnsetType:
    return NumRange(median=median(xs), min=min(xs), max=max(xs)) if xs else UNSET


def cost_stats_from(samples: int, loops: list[float], tokens: list[float]) -> CostStats | None:
    if not loops and not tokens:
        return None
    return CostStats(samples=samples, loops=_range(loops), tokens=_range(tokens))


def probe_flipped(stats: AblationRunStats) -> bool:
    return stats.flips * 2 > stats.samples


class _Probe(Struct):
    """Shared probe settings (§8.2)."""

    runner: ProbeRunner
    original: str
    embedder: Embedder
    samples: int
    threshold: float
    changed: Comparator | None
    # the spec labels the runner reported skipped in the last probe (any of its seeds)
    last_skipped: frozenset[str] = frozenset()

    def run(self, payload: dict[str, Any], probe: str) -> AblationRunStats:
        orig_vec = self.embedder.embed(self.original)
        seeds = list(range(self.samples))
        results = self.runner(payload, seeds, probe)
        self.last_skipped = frozenset(x for r in results for x in r.skipped)
        sims: list[float] = []
        loops: list[float] = []
        tokens: list[float] = []
        flips = 0
        for _, r in zip(seeds, results, strict=True):  # strict: one answer per seed
            if r.loops is not None:
                loops.append(r.loops)
            if r.tokens is not None:
                tokens.append(r.tokens)
            sims.append(cosine(orig_vec, self.embedder.embed(r.output)))
            if self._changed(self.original, r.output):
                flips += 1
        cost = cost_stats_from(self.samples, loops, tokens)
        return AblationRunStats(
            samples=self.samples,
            flips=flips,
            similarity=similarity_stats(sims),
            cost=cost if cost is not None else UNSET,
        )

    def _changed(self, a: str, b: str) -> bool:
        if self.changed is not None:
            return bool(self.changed(a, b))
        return similarity_changed(self.embedder, self.threshold, a, b)


def similarity_changed(embedder: Embedder, threshold: float, a: str, b: str) -> bool:
    """The similarity comparator: two answers differ when their cosine under ``embedder`` falls
    below ``threshold`` (the probes' default comparator; ``afp diff`` judges free text by it)."""
    return cosine(embedder.embed(a), embedder.embed(b)) < threshold


def run_probe(
    runner: ProbeRunner,
    payload: dict[str, Any],
    *,
    original: str,
    embedder: Embedder,
    samples: float | None = DEFAULT_SAMPLES,
    flip_threshold: float = DEFAULT_FLIP_THRESHOLD,
    outcome_changed: Comparator | None = None,
    probe: str = "baseline",
) -> AblationRunStats:
    """``runAblationProbe``: ``samples`` seeded reruns of one payload."""
    return _Probe(
        runner, original, embedder, sample_count(samples), flip_threshold, outcome_changed
    ).run(payload, probe)


def verdict_for(
    label: str, stats: AblationRunStats, baseline_stable: bool, action: str = "ablating"
) -> AblationVerdict:
    fs = f"{stats.flips}/{stats.samples}"
    if not baseline_stable:
        base, tier = tier_words(action == "restoring")
        return AblationVerdict(
            verdict="inconclusive",
            claim=(
                f"INCONCLUSIVE: the {base} baseline itself changed outcome, so no {tier} verdict "
                f"for {label} can be trusted ({action} {label}: {fs} flipped)."
            ),
        )
    if probe_flipped(stats):
        sim = stats.similarity
        return AblationVerdict(
            verdict="confirmed",
            claim=(
                f"CAUSAL: {action} {label} flipped the outcome in {fs} seeded reruns "
                f"(similarity to original {to_fixed(sim.mean, 3)} ± {to_fixed(sim.stdev, 3)})."
            ),
        )
    if stats.flips > 0:
        return AblationVerdict(
            verdict="inconclusive",
            claim=(
                f"INCONCLUSIVE: {action} {label} flipped {fs} seeded reruns, below a majority; "
                "raise samples or check the scenario's stability."
            ),
        )
    return AblationVerdict(
        verdict="not-confirmed",
        claim=(
            f"NOT CONFIRMED: {action} {label} changed nothing in {stats.samples} seeded reruns; "
            "its rank stays a correlational proxy."
        ),
    )


# ----------------------------------------------------------------- cost readout (§8.6)


def _effect(s: Suspect, baseline: AblationRunStats) -> tuple[float, float, bool] | None:
    if s.runs is UNSET or s.runs.cost is UNSET:
        return None
    c = s.runs.cost
    bcost = baseline.cost
    bl = bcost.loops.median if bcost is not UNSET and bcost.loops is not UNSET else None
    bt = bcost.tokens.median if bcost is not UNSET and bcost.tokens is not UNSET else None
    has_l = bl is not None and c.loops is not UNSET
    has_t = bt is not None and c.tokens is not UNSET
    loops_saved = bl - c.loops.median if has_l else 0  # type: ignore[operator,union-attr]
    tokens_saved = bt - c.tokens.median if has_t else 0  # type: ignore[operator,union-attr]
    consistent = c.loops.max <= bl if has_l else False  # type: ignore[operator,union-attr]
    return loops_saved, tokens_saved, consistent


def assign_cost_verdicts(suspects: list[Suspect], baseline: AblationRunStats) -> None:
    effects = {id(s): _effect(s, baseline) for s in suspects}
    population = [
        (s.source, eff[0])
        for s in suspects
        if (eff := effects[id(s)]) is not None
        and not (s.verdict is not UNSET and s.verdict.verdict == "confirmed")
    ]
    for s in suspects:
        eff = effects[id(s)]
        if eff is None:
            continue
        loops_saved, tokens_saved, consistent = eff
        band = [ls for src, ls in population if src != s.source]
        stable = bool(band) and consistent
        reduced = stable and loops_saved >= MIN_LOOPS_SAVED and loops_saved > max(band)
        s.cost = CostVerdict(
            reducedCostOnRemoval=reduced,
            loopsSaved=loops_saved,
            tokensSaved=tokens_saved,
            stable=stable,
        )


# ----------------------------------------------------------------- ablation tier (§8.5)


def probe_for(rerun: RerunOptions | MissingContext, embedder: Embedder) -> _Probe:
    """One probe runner per tier, configured from the rerun (or restoration) options."""
    assert rerun.runner is not None  # callers run a tier only when a runner was given
    return _Probe(
        rerun.runner,
        rerun.original_output,
        embedder,
        sample_count(rerun.samples),
        rerun.flip_threshold,
        rerun.outcome_changed,
    )


def ablation_targets(suspects: Sequence[Suspect], max_suspects: int) -> list[Suspect]:
    """The suspects the leave-one-out tier probes: ranked order, a spec a rerun can apply (not
    ``arg``), at most ``max_suspects``. One list for the tier and for its planned count."""
    return culprit_candidates(suspects)[: max(0, max_suspects)]


def run_ablation_tier(
    suspects: list[Suspect], rerun: RerunOptions, embedder: Embedder
) -> AblationRunStats:
    """Baseline, then one probe per ranked suspect with a non-arg spec (up to max_suspects)."""
    probe = probe_for(rerun, embedder)
    targets = ablation_targets(suspects, rerun.max_suspects)
    try:
        baseline = probe.run({"specs": []}, "baseline")
    except BudgetSpent as exc:
        for s in targets:
            s.verdict = untested_verdict(suspect_label(s), str(exc))
        return AblationRunStats(samples=0, flips=0, similarity=similarity_stats([]))
    stable = baseline.flips == 0
    spent: str | None = None
    for s in targets:
        assert s.ablation is not UNSET  # ablation_targets keeps only applicable specs
        if spent is not None:
            s.verdict = untested_verdict(suspect_label(s), spent)
            continue
        spec = spec_to_json(s.ablation)
        try:
            s.runs = probe.run({"specs": [spec]}, s.source)
        except BudgetSpent as exc:
            spent = str(exc)
            s.verdict = untested_verdict(suspect_label(s), spent)
            continue
        if spec_label(spec) in probe.last_skipped:
            s.verdict = skipped_verdict(suspect_label(s), s.runs)
        else:
            s.verdict = verdict_for(suspect_label(s), s.runs, stable)
    assign_cost_verdicts(suspects, baseline)
    return baseline


def skipped_verdict(label: str, stats: AblationRunStats) -> AblationVerdict:
    """The runner said it could not remove the suspect: its reruns are no evidence either way."""
    return AblationVerdict(
        verdict="skipped",
        claim=(
            f"SKIPPED: the runner could not remove {label} (it said so in its answer), so its "
            f"{stats.samples} seeded reruns say nothing about it."
        ),
    )


def untested_verdict(label: str, why: str) -> AblationVerdict:
    """A budget ran out before this suspect's probe: no verdict, and no claim."""
    return AblationVerdict(
        verdict="inconclusive",
        claim=f"INCONCLUSIVE: not tested — {why} before {label} was probed.",
    )


def planned_reruns(
    suspects: Sequence[Suspect], rerun: RerunOptions | None, mc: MissingContext | None
) -> int:
    """Exactly how many reruns the restoration and leave-one-out tiers will make for these
    ranked suspects: each tier is a baseline plus one probe per target, ``samples`` seeds each.
    Neither tier adapts to what a rerun answers, so the count is known before the first one."""
    n = 0
    if mc is not None and mc.runner is not None:
        dropped = restoration_targets(mc)
        if dropped:
            n += sample_count(mc.samples) * (1 + len(dropped))
    if rerun is not None:
        n += sample_count(rerun.samples) * (1 + len(ablation_targets(suspects, rerun.max_suspects)))
    return n


def culprit_candidates(suspects: Sequence[Suspect]) -> list[Suspect]:
    """Every suspect whose removal a rerun can apply (not ``arg``): what the culprit search
    splits."""
    return [s for s in suspects if s.ablation is not UNSET and s.ablation.kind != "arg"]


def culprit_search_bound(candidates: int, samples: float, max_probes: int = MAX_PROBES) -> int:
    """At most this many reruns for ``bisect_culprits`` over ``candidates`` suspects: its probe
    budget (the baseline included) or every distinct subset, whichever is smaller, ``samples``
    seeds each. Only a bound: which subsets it tries depends on what the reruns answer."""
    subsets = 2**candidates if candidates < 30 else max_probes  # the baseline is the empty set
    return sample_count(samples) * min(max_probes, subsets)


# ----------------------------------------------------------------- missing context (§8.7)


def find_dropped_context(
    available: list[dict[str, Any]], sent: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], int, int]:
    """``available − sent`` by id, input order, available deduplicated (first wins)."""
    sent_ids = {u["id"] for u in sent}
    seen: set[str] = set()
    dropped: list[dict[str, Any]] = []
    for u in available:
        uid = u["id"]
        if uid in seen:
            continue
        seen.add(uid)
        if uid not in sent_ids:
            dropped.append({k: u[k] for k in ("id", "content") if k in u})
    return dropped, len(seen), len(sent_ids)


def restoration_targets(mc: MissingContext) -> list[dict[str, Any]]:
    """The dropped units the restoration tier restores one by one (at most max_candidates)."""
    dropped, _, _ = find_dropped_context(mc.available, mc.sent)
    return dropped[: max(0, mc.max_candidates)]


def run_restoration(
    mc: MissingContext, embedder: Embedder
) -> tuple[list[RestoredCandidate], AblationRunStats | None]:
    dropped, _, _ = find_dropped_context(mc.available, mc.sent)
    cands = [RestoredCandidate(id=u["id"], content=u.get("content", UNSET)) for u in dropped]
    if not dropped or mc.runner is None:
        return cands, None
    probe = probe_for(mc, embedder)
    baseline = probe.run({"restore": []}, "baseline")
    stable = baseline.flips == 0
    for unit, cand in zip(restoration_targets(mc), cands, strict=False):
        cand.runs = probe.run({"restore": [unit]}, unit["id"])
        cand.verdict = verdict_for(f'dropped "{unit["id"]}"', cand.runs, stable, "restoring")
    return cands, baseline


# ----------------------------------------------------------------- bisectCulprits (§8.8)


class _Budget(Exception):
    pass


def _utf16_key(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def bisect_culprits(
    suspects: list[Suspect],
    rerun: RerunOptions,
    embedder: Embedder,
    *,
    max_probes: int = MAX_PROBES,
    max_culprits: int = MAX_CULPRITS,
) -> CulpritsResult:
    probe = probe_for(rerun, embedder)
    cands = culprit_candidates(suspects)
    probes: list[CulpritProbe] = []
    cache: dict[str, bool] = {}
    runs_used = 0

    def key(ss: list[Suspect]) -> str:
        return "|".join(sorted((suspect_label(s) for s in ss), key=_utf16_key))

    def run_set(ss: list[Suspect]) -> bool:
        nonlocal runs_used
        k = key(ss)
        if k in cache:
            return cache[k]
        if len(probes) >= max_probes:
            raise _Budget
        specs = [spec_to_json(s.ablation) for s in ss]  # type: ignore[arg-type]
        stats = probe.run({"specs": specs}, k)
        runs_used += stats.samples
        flipped = probe_flipped(stats)
        probes.append(
            CulpritProbe(ablated=[suspect_label(s) for s in ss], stats=stats, flipped=flipped)
        )
        cache[k] = flipped
        return flipped

    def minimize(ss: list[Suspect], ctx: list[Suspect]) -> list[Suspect]:
        if len(ss) <= 1:
            return ss
        mid = math.ceil(len(ss) / 2)
        top, rest = ss[:mid], ss[mid:]
        if run_set(top + ctx):
            return minimize(top, ctx)
        if run_set(rest + ctx):
            return minimize(rest, ctx)
        a = minimize(top, rest + ctx)
        b = minimize(rest, a + ctx)
        return a + b

    def result(verdict: str, culprits: list[list[Suspect]]) -> CulpritsResult:
        refs = [
            [CulpritRef(label=suspect_label(s), source=s.source, kind=s.kind) for s in grp]
            for grp in culprits
        ]
        return CulpritsResult(verdict=verdict, culprits=refs, probes=probes, runsUsed=runs_used)

    try:
        base = probe.run({"specs": []}, "baseline")
    except BudgetSpent:
        return result("inconclusive", [])
    runs_used += base.samples
    probes.append(CulpritProbe(ablated=[], stats=base, flipped=base.flips > 0))
    cache[""] = probe_flipped(base)
    if base.flips > 0:
        return result("inconclusive", [])
    try:
        if not cands or not run_set(cands):
            return result("not-reproducible", [])
        remaining = cands
        culprits: list[list[Suspect]] = []
        for _ in range(max_culprits):
            found = minimize(remaining, [])
            culprits.append(found)
            labels = {suspect_label(s) for s in found}
            remaining = [s for s in remaining if suspect_label(s) not in labels]
            if not remaining or not run_set(remaining):
                break
        return result("confirmed", culprits)
    except (_Budget, BudgetSpent):
        return result("inconclusive", [])
