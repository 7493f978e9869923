"""The ``ContextBugReport`` as msgspec Structs (bisect.md §9.1).

Field order is the JSON key order. Optional keys default to ``UNSET`` so they stay absent; ``0``
and ``[]`` are real values and are always written. ``report_json`` writes a report with the
ECMAScript number rules (§4.3), so JSON output compares byte for byte with upstream's.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from agentbisect.core.honesty import HonestyFlag
from agentbisect.core.js import js_stringify

Num = int | float


class EdgeKey(Struct, kw_only=True):
    key: str
    weight: Num


class EdgePathStep(Struct, kw_only=True):
    # "from" is a Python keyword: the attribute is from_, renamed on the wire.
    from_: str = msgspec.field(name="from")
    fromName: str | UnsetType = UNSET
    to: str
    toName: str | UnsetType = UNSET
    kind: str
    key: str | UnsetType = UNSET  # the strongest key: the edge the path score went through
    weight: Num
    # afp's field for imported runs: every key the hop carries when there are several (one per
    # retrieved document of a retriever span), in the order the child read them
    keys: list[EdgeKey] | UnsetType = UNSET


class SuspectDetail(Struct, kw_only=True):
    toolName: str | UnsetType = UNSET
    injectionId: str | UnsetType = UNSET
    flavor: str | UnsetType = UNSET
    text: str | UnsetType = UNSET
    valueBasis: list[Any] | UnsetType = UNSET


class AblationSpec(Struct, kw_only=True):
    kind: str
    ignoredTools: list[str] | UnsetType = UNSET
    excludeInjectionIds: list[str] | UnsetType = UNSET
    excludeMemoryIds: list[str] | UnsetType = UNSET
    source: str | UnsetType = UNSET
    note: str | UnsetType = UNSET
    # afp's fields for imported runs (traces, transcripts): the source in the agent's own terms
    toolCallIds: list[str] | UnsetType = UNSET
    messageIndex: int | UnsetType = UNSET
    role: str | UnsetType = UNSET
    text: str | UnsetType = UNSET
    spanId: str | UnsetType = UNSET


class SimilarityStats(Struct, kw_only=True):
    mean: Num
    min: Num
    max: Num
    stdev: Num


class NumRange(Struct, kw_only=True):
    median: Num
    min: Num
    max: Num


class CostStats(Struct, kw_only=True):
    samples: int
    loops: NumRange | UnsetType = UNSET
    tokens: NumRange | UnsetType = UNSET


class AblationRunStats(Struct, kw_only=True):
    samples: int
    flips: int
    similarity: SimilarityStats
    cost: CostStats | UnsetType = UNSET


class AblationVerdict(Struct, kw_only=True):
    verdict: str  # confirmed | not-confirmed | inconclusive | skipped (afp: the runner said so)
    claim: str


class CostVerdict(Struct, kw_only=True):
    reducedCostOnRemoval: bool
    loopsSaved: Num
    tokensSaved: Num
    stable: bool


class EvidenceSignals(Struct, kw_only=True):
    """The evidence signals, each in [0, 1]: one field per registered signal, in registry order
    (``bisect/evidence/signals/``; tests/test_bisect_text_evidence.py holds the two together)."""

    semantic: Num
    terms: Num
    phrases: Num
    claims: Num
    focus: Num
    claimShape: Num


class EvidenceScoring(Struct, kw_only=True):
    """agentbisect extension: how every ``suspects[].evidence.score`` combines its signals —
    ``combine`` is ``weighted-mean``: the sum of ``weights[s] × signals[s]`` over the
    signals, divided by the sum of the weights (each signal's registered weight)."""

    combine: str
    weights: EvidenceSignals


class SuspectEvidence(Struct, kw_only=True):
    """agentbisect extension: what the suspect said and how strongly it backs the answer."""

    text: str  # the suspect's own text (detail.text, else what the step wrote), capped
    score: Num  # the evidence score the evidence-first ranking orders by
    signals: EvidenceSignals
    termsShared: list[str]  # the answer's content terms this text contains
    # Where ``text`` says what the answer says (bisect/evidence/highlights.py): sorted, disjoint
    # [start, end) offsets in code points (Python string indices, not UTF-16 units) into
    # ``text`` — which is the start of ``detail.text`` where the suspect has one, so the same
    # offsets index ``detail.text`` — and the index of the heaviest span (None without spans).
    highlights: list[tuple[int, int]] = []
    bestHighlight: int | None = None


class Suspect(Struct, kw_only=True):
    source: str
    stageName: str | UnsetType = UNSET
    kind: str
    detail: SuspectDetail | UnsetType = UNSET
    score: Num
    structuralScore: Num
    semanticScore: Num | UnsetType = UNSET
    hasContentEvidence: bool
    edgePath: list[EdgePathStep]
    ablation: AblationSpec | UnsetType = UNSET
    runs: AblationRunStats | UnsetType = UNSET
    verdict: AblationVerdict | UnsetType = UNSET
    cost: CostVerdict | UnsetType = UNSET
    evidence: SuspectEvidence | UnsetType = UNSET  # afp only (never under upstream parity)
    # afp only: tool-result | system-prompt | document | llm-output | user-message
    sourceKind: str | UnsetType = UNSET


class RestoredCandidate(Struct, kw_only=True):
    id: str
    content: Any = UNSET
    runs: AblationRunStats | UnsetType = UNSET
    verdict: AblationVerdict | UnsetType = UNSET


class Truncated(Struct, kw_only=True):
    byDepth: bool
    byNodes: bool


class SliceStats(Struct, kw_only=True):
    nodes: int
    dataEdges: int
    controlEdges: int
    weightedEdges: int
    incompleteNodes: int
    maxDepth: int
    maxNodes: int
    truncated: Truncated | UnsetType = UNSET


class CulpritProbe(Struct, kw_only=True):
    ablated: list[str]
    stats: AblationRunStats
    flipped: bool


class CulpritRef(Struct, kw_only=True):
    label: str
    source: str
    kind: str


class CulpritsResult(Struct, kw_only=True):
    """``bisectCulprits`` result. agentbisect extension: carried on the report as ``culprits``
    (after every upstream key) only when the culprit search was asked for."""

    verdict: str  # confirmed | not-reproducible | inconclusive
    culprits: list[list[CulpritRef]]
    probes: list[CulpritProbe]
    runsUsed: int


class SourceWeight(Struct, kw_only=True):  # the surrogate attribution (bisect/surrogate.py)
    """One candidate: the suspects that share one ablation spec, and its estimated effect.

    ``weight`` is the surrogate's coefficient for "this source removed": the estimated change in
    the score (flip probability, or 1 − similarity) from removing it, the others held at random.
    """

    label: str  # the suspect label (``injection 'promo-fact'``), as in verdict claims
    kind: str
    id: str  # tool name, injection/memory id, or the step id
    sources: list[str]  # the suspects' step ids (several when suspects share the spec)
    suspectRanks: list[int]  # 1-based positions in the report's suspects list
    weight: float
    removedIn: int  # masks in which it was removed


class SurrogateFit(Struct, kw_only=True):
    metric: str  # "heldout-r2": R² of predictions on masks left out of the fit
    value: float | None  # None when the score never varied (nothing to explain)
    reliableAbove: float  # surrogate.RELIABLE_R2
    rankCorrelation: float | None  # Spearman ρ between scores and held-out predictions
    folds: int
    penalty: float  # the L1 penalty λ chosen by cross-validation
    intercept: float  # predicted score with nothing removed


class AttributionCost(Struct, kw_only=True):
    """Totals over every rerun the attribution used, for the fields the rerun reported."""

    runs: int  # reruns that reported a cost
    loops: float | UnsetType = UNSET
    tokens: float | UnsetType = UNSET


class Attribution(Struct, kw_only=True):
    method: str  # "surrogate"
    score: str  # "flip" (0/1 from the comparator) or "similarity" (1 − cosine to the original)
    masks: int
    keepProb: float
    maskSeed: int
    rerunsUsed: int  # baseline + masks + any culprit search
    changedMasks: int  # masks whose outcome the comparator called changed
    fit: SurrogateFit
    weights: list[SourceWeight]  # sorted by |weight|, largest first
    # the multi-culprit search over the top-weighted sources: their labels, and what it found
    searched: list[str] | UnsetType = UNSET
    culprits: CulpritsResult | UnsetType = UNSET
    cost: AttributionCost | UnsetType = UNSET


class ReplayStats(Struct, kw_only=True):
    """agentbisect extension: what a replay (``afp bisect``'s replay option) cost."""

    endpoint: str  # the URL requests went to, without credentials or query string
    model: str
    requests: int  # sent to the endpoint (each counted once, however many attempts)
    retries: int  # extra attempts after a 429, a 5xx, a timeout or a dropped connection
    tokens: int  # as the endpoint's usage reported them
    cacheHits: int  # answers read from the response cache instead (no request)
    skipped: int  # probes not sent: none of their specs could be applied
    budgetRequests: int
    budgetTokens: int | UnsetType = UNSET
    budgetSpent: str | UnsetType = UNSET  # which budget stopped the replay, when one did


class TriggerText(Struct, kw_only=True):
    """What is being explained: the trigger call's output and the question it answered (null
    where the run does not hold it)."""

    step: str
    llmIndex: int | None
    output: str | None
    question: str | None


class Confidence(Struct, kw_only=True):
    """agentbisect extension: how far to trust the top suspect (bisect/confidence.py) — a
    probability calibrated on the planted-culprit corpus from the evidence margin; ``confident``
    only above the margin whose cross-validated top-1 precision reached 90 %, else the report
    names the shortlist #1–#``shortlist``."""

    margin: Num  # the top's evidence score minus the next content-backed suspect's
    probability: Num  # calibrated P(the top suspect is the culprit)
    confident: bool
    shortlist: int  # 1 when confident; else how many of the first suspects to check
    threshold: Num | None  # the margin a confident call needs (None: none reached the target)
    precisionWhenConfident: Num | None  # cross-validated, on the corpus
    confidentShare: Num  # how often the corpus's cases were called confident (cross-validated)
    calibratedOn: str


class ContextBugReport(Struct, kw_only=True):
    step: str
    stepName: str | UnsetType = UNSET
    triggerSource: str
    triggerScore: Num | UnsetType = UNSET
    # agentbisect extension (absent under upstream parity): the answer being explained
    trigger: TriggerText | UnsetType = UNSET
    # agentbisect extension (absent under upstream parity): how far to trust the top suspect
    confidence: Confidence | UnsetType = UNSET
    mode: str
    rankedBy: str
    suspects: list[Suspect]
    dropped: list[RestoredCandidate] | UnsetType = UNSET
    sliceStats: SliceStats
    honestyFlags: list[HonestyFlag]
    baseline: AblationRunStats | UnsetType = UNSET
    restorationBaseline: AblationRunStats | UnsetType = UNSET
    culprits: CulpritsResult | UnsetType = UNSET
    # agentbisect extension (surrogate attribution), after every upstream key; never upstream
    attribution: Attribution | UnsetType = UNSET
    # agentbisect extensions, absent under upstream parity: which embedder produced every similarity
    # in this report, and which order the suspects are in (rankedBy keeps its upstream meaning:
    # the scorer of the semantic refinement)
    embedder: str | UnsetType = UNSET
    ranking: str | UnsetType = UNSET  # evidence-first | upstream
    # with the evidence-first ranking: how the suspects' evidence scores were combined
    evidenceScoring: EvidenceScoring | UnsetType = UNSET
    contrastive: bool | UnsetType = UNSET  # true when an expected answer was given
    replay: ReplayStats | UnsetType = UNSET  # the replay's requests, tokens and cache hits


def to_builtins(obj: Any) -> Any:
    """Dicts/lists in declared key order, absent fields dropped, floats kept as floats."""
    return msgspec.to_builtins(obj)


def report_json(report: ContextBugReport, *, indent: int = 0) -> str:
    """The report as JSON text with JS number formatting (``score: 1``, ``1e-7``)."""
    text = js_stringify(to_builtins(report))
    if indent:
        return msgspec.json.format(text.encode(), indent=indent).decode()
    return text


def weights_note(report: ContextBugReport) -> str:
    """The signals that do not count once in the report's evidence score, as reports state it."""
    if report.evidenceScoring is UNSET:
        return ""
    w = report.evidenceScoring.weights
    pairs = ((k, getattr(w, k)) for k in w.__struct_fields__)
    return ", ".join(f"{k} ×{x:g}" for k, x in pairs if x != 1.0)
