"""How far to trust the top suspect: a confidence calibrated on the planted-culprit corpus.

The one input is the evidence margin — the top suspect's evidence score minus the next
content-backed suspect's (the top's score itself when it is the only one) — read from the
report's own ``suspects[].evidence.score``, so the fit depends on what the ranking reports and
not on how its combiner works. ``benchmarks/fit_confidence.py`` fits, over that corpus,
``probability = 1 / (1 + exp(-(a + b × margin)))`` and a margin above which the top suspect is
called confident, chosen so that the cross-validated top-1 precision of confident calls is at
least ``TARGET``; below it the report names a shortlist, #1–#k, the k the corpus says holds the
culprit ``TARGET`` of the time. It writes ``confidence_fit.json`` beside this module; after any
change to the ranking, run it again.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import msgspec
from msgspec import UNSET

from agentbisect.results.report import Confidence, Suspect

FIT_FILE = Path(__file__).with_name("confidence_fit.json")
TARGET = 0.9  # the cross-validated top-1 precision a confident call must have


class Fit(msgspec.Struct, kw_only=True):
    """What ``benchmarks/fit_confidence.py`` writes (``confidence_fit.json``)."""

    a: float  # the logistic intercept
    b: float  # … and slope on the margin
    confidentAbove: float | None  # the margin threshold (None: never confident)
    shortlist: int  # k of the shortlist named when not confident
    cvPrecision: float | None  # cross-validated top-1 precision of the confident calls
    cvConfidentShare: float  # … and the share of cases called confident
    cvShortlistRecall: float  # … the share of the others whose culprit is within #1–#k
    cases: int  # the corpus size
    folds: int
    corpus: str  # what it was fitted on
    embedder: str  # the embedder the corpus was ranked with (its scores are on its scale)


@cache
def fit() -> Fit:
    return msgspec.json.decode(FIT_FILE.read_bytes(), type=Fit)


def margin(suspects: list[Suspect]) -> float | None:
    """The evidence margin of the top suspect; None when the top has no evidence score."""
    scores = [s.evidence.score for s in suspects if s.evidence is not UNSET]
    if not suspects or suspects[0].evidence is UNSET:
        return None
    return float(scores[0] - scores[1]) if len(scores) > 1 else float(scores[0])


def probability(f: Fit, m: float) -> float:
    z = f.a + f.b * m
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


def confidence(suspects: list[Suspect], embedder: str) -> Confidence | None:
    """The report's ``confidence``; None where there is no evidence margin to calibrate, or
    the scores come from another embedder than the fit's (``embedder``: the report's label)."""
    m = margin(suspects)
    f = fit()
    if m is None or embedder.split()[0] != f.embedder:
        return None
    confident = f.confidentAbove is not None and m >= f.confidentAbove
    return Confidence(
        margin=m,
        probability=probability(f, m),
        confident=confident,
        shortlist=1 if confident else min(f.shortlist, len(suspects)),
        threshold=f.confidentAbove,
        precisionWhenConfident=f.cvPrecision,
        confidentShare=f.cvConfidentShare,
        calibratedOn=f"{f.corpus}: {f.cases} cases, {f.folds}-fold cross-validation",
    )
