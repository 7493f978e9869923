"""The evidence combiner: how strongly each suspect's own text backs the answer under suspicion.

Embedding similarity alone ranks sources by topic, and every source of a run is on the topic of
its answer. What singles out the source of a wrong fact is that the answer *repeats what it
says*: its numbers, names, rare words and phrases, claim by claim. So several signals, each in
[0, 1], each its own module in ``signals/`` (which says what it measures) and each kept visible
in the report. This module builds their shared ``Scoring`` context, embeds in one batch every
text a registered signal asks for, runs the signals in registry order and combines them.

The evidence score is a weighted mean (``WEIGHTS``, each signal's registered weight): ``focus``
counts twice and replaces ``claims``, which stays reported — one of two weightings stated before
either was measured, chosen on the main set; no weight was fitted by search (which signals exist
was decided after reading the main set's misses; the held-out sets, the fifth and sixth written
blind, check that: docs/ranking.md). The run's input (the question) is given, not evidence; with
an expected (correct) answer the score is contrastive: what the two answers share is given like
the question, so only the disputed content counts and sources that support both answers sink.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct, field

from agentbisect.bisect.embed.vectors import Vector
from agentbisect.bisect.evidence.lexical import profile
from agentbisect.bisect.evidence.signals import EMBEDS, REGISTRY
from agentbisect.bisect.evidence.signals.context import Scoring
from agentbisect.results.report import EvidenceScoring, EvidenceSignals

SIGNALS = tuple(s.name for s in REGISTRY)
# How much each signal counts in the evidence score (each signal's module says why)
WEIGHTS = {s.name: s.weight for s in REGISTRY}


class EvidenceItem(Struct, frozen=True):
    id: str
    text: str


class EvidenceScore(Struct):
    id: str
    score: float
    signals: dict[str, float]
    terms_shared: list[str] = field(default_factory=list)


def evidence_scoring() -> EvidenceScoring:
    """The scoring rule of the evidence-first ranking, as the JSON report states it."""
    return EvidenceScoring(combine="weighted-mean", weights=EvidenceSignals(**WEIGHTS))


def answer_texts(answer: str, expected: str | None, question: str | None) -> list[str]:
    """The texts besides the sources that scoring ``answer`` embeds, in the order it does."""
    return Scoring([], answer, expected, question).extra_texts(EMBEDS)


def combine(sig: dict[str, float], use: Sequence[str] = SIGNALS) -> float:
    """The evidence score of one source's signal values: their weighted mean (``WEIGHTS``).
    A chosen subset (the benchmark's each-alone rows) is its plain mean."""
    if tuple(use) == SIGNALS:
        return sum(WEIGHTS[k] * sig[k] for k in use) / sum(WEIGHTS.values())
    return sum(sig[k] for k in use) / len(use)


def score_evidence(
    items: list[EvidenceItem],
    answer: str,
    embed_many: Callable[[list[str]], list[Vector]] | None,
    *,
    expected: str | None = None,
    question: str | None = None,
    use: Sequence[str] = SIGNALS,
) -> list[EvidenceScore]:
    """Score every item's text as evidence for ``answer`` (contrastive with ``expected``).

    ``embed_many`` embeds a list of texts in one call (None: no vectors, so no semantic
    signal). ``question`` is the run's input: its terms are not evidence, and the claims of the
    answer that address it weigh most. ``use`` picks the signals that make the score (the
    benchmark measures each alone); all are reported, in registry order. Output order is input
    order.
    """
    if not items:
        return []
    c = Scoring([it.text for it in items], answer, expected, question)
    if embed_many is not None:
        c.attach(embed_many(c.texts + c.extra_texts(EMBEDS)), EMBEDS)
    for s in REGISTRY:
        c.done[s.name] = s.score(c)
    ans_terms = profile(answer).terms
    exp_terms = c.expected_profile.terms if c.expected_profile is not None else {}
    out: list[EvidenceScore] = []
    for i, it in enumerate(items):
        sig = {name: values[i] for name, values in c.done.items()}
        shared = [k for k in ans_terms if k in c.profiles[i].terms and k not in exp_terms]
        out.append(EvidenceScore(it.id, combine(sig, use), sig, shared))
    return out
